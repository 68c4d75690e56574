/**
 * The SQLite implementation of SqlDatabase (the embedded default): one better-sqlite3
 * connection in WAL mode, its synchronous calls wrapped in promises. better-sqlite3 runs each
 * statement to completion on the calling thread, so a lone statement is atomic; a transaction
 * spans awaits, so while one is open every statement from outside it waits its turn (a FIFO
 * lock), and nothing else slips into the transaction.
 */
import Database from "better-sqlite3";
import {
  SCHEMA_MIGRATIONS_DDL,
  type MigrationStep,
  type SqlDatabase,
  type SqlDialect,
  type SqlExecutor,
  type SqlResult,
  type SqlValue,
  checkJsonKey,
  executor,
  stepText,
} from "./sqlDb.js";

const SQLITE: SqlDialect = {
  name: "sqlite",
  jsonText: (column, path) => `json_extract(${column}, '$.${path.map(checkJsonKey).join(".")}')`,
  jsonArrayAppend: (column) => `json_insert(${column}, '$[#]', json(?))`,
};

/**
 * Open (creating if needed) the SQLite file at `path`.
 * @example
 * const db = openSqliteDb("./data/strata.db");
 * await db.migrate("portal", PORTAL_MIGRATIONS);
 */
export function openSqliteDb(path: string): SqlDatabase {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    db.exec(SCHEMA_MIGRATIONS_DDL);
  } catch (e) {
    db.close();
    throw e;
  }
  const statements = new Map<string, Database.Statement>();
  const lock = fifoLock();

  const execute = <T>(sql: string, params: readonly SqlValue[] = []): SqlResult<T> => {
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
    const bound = params.map(bindable);
    if (stmt.reader) return { rows: stmt.all(...bound) as T[], changes: 0 };
    return { rows: [], changes: stmt.run(...bound).changes };
  };

  /** A statement from outside any transaction: at once, unless a transaction holds the connection. */
  const outside = async <T>(sql: string, params?: readonly SqlValue[]): Promise<SqlResult<T>> => {
    if (!lock.held()) return execute<T>(sql, params);
    await lock.acquire();
    try {
      return execute<T>(sql, params);
    } finally {
      lock.release();
    }
  };

  const transaction = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    await lock.acquire();
    let open = true;
    const inside = async <R>(sql: string, params?: readonly SqlValue[]): Promise<SqlResult<R>> => {
      if (!open) throw new Error("a statement was run on a transaction that has ended");
      return execute<R>(sql, params);
    };
    const tx: SqlExecutor = executor(SQLITE, inside, (inner) => inner(tx));
    try {
      db.exec("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await fn(tx);
      } catch (e) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw e;
      }
      db.exec("COMMIT");
      return result;
    } finally {
      open = false;
      lock.release();
    }
  };

  return {
    ...executor(SQLITE, outside, transaction),
    label: path,
    async migrate(module: string, steps: readonly MigrationStep[]): Promise<void> {
      await transaction(async (tx) => {
        const applied = new Set(
          (await tx.all<{ step: number }>("SELECT step FROM schema_migrations WHERE module = ?", [module])).map((r) => r.step),
        );
        for (const [step, text] of steps.entries()) {
          if (applied.has(step)) continue;
          db.exec(stepText(text, "sqlite"));
          await tx.run("INSERT INTO schema_migrations (module, step) VALUES (?, ?)", [module, step]);
        }
      });
    },
    async close(): Promise<void> {
      // Let a transaction in flight finish before the connection goes.
      await lock.acquire();
      try {
        if (db.open) db.close();
      } finally {
        lock.release();
      }
    },
  };
}

function bindable(value: SqlValue): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** A first-come first-served lock for async holders. */
function fifoLock(): { held(): boolean; acquire(): Promise<void>; release(): void } {
  let held = false;
  const waiting: (() => void)[] = [];
  return {
    held: () => held,
    acquire() {
      if (!held) {
        held = true;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else held = false;
    },
  };
}
