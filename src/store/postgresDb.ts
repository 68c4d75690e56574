/**
 * The PostgreSQL implementation of SqlDatabase (`strata serve --metadata postgres://...`), for
 * several API nodes sharing one metadata database: a `pg` pool, `?` placeholders rewritten to
 * `$n`, BIGINT (epoch milliseconds, counts) parsed to numbers, transactions serialised by a
 * transaction-scoped advisory lock (as SQLite serialises its writers), migrations applied
 * under a session advisory lock so that nodes starting at once apply each step once.
 */
import pg from "pg";
import { InvalidInputError } from "../cube/errors.js";
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

/** Advisory lock keys (arbitrary, Strata's own): one for migrations, one for transactions. */
const MIGRATION_LOCK = 0x5374_7261_0001;
const TRANSACTION_LOCK = 0x5374_7261_0002;
const INT8_OID = 20;

const POSTGRES: SqlDialect = {
  name: "postgres",
  jsonText: (column, path) => `(${column}::jsonb #>> '{${path.map(checkJsonKey).join(",")}}')`,
  jsonArrayAppend: (column) => `(${column}::jsonb || jsonb_build_array(?::jsonb))::text`,
};

/** Whether `target` names a PostgreSQL database rather than a file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/**
 * The URL as it may be shown: without its password (or any query string, which may hold one).
 * @example
 * redactDatabaseUrl("postgres://strata:s3cret@db:5432/strata"); // "postgres://strata@db:5432/strata"
 */
export function redactDatabaseUrl(target: string): string {
  try {
    const u = new URL(target);
    const user = u.username ? `${u.username}@` : "";
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return "postgres://(unreadable URL)";
  }
}

/**
 * Check the shape of a PostgreSQL URL; InvalidInputError naming `parameter` if it has none.
 * @example
 * checkPostgresUrl("postgres://strata@db/strata", "metadata");
 */
export function checkPostgresUrl(target: string, parameter: string): void {
  const shape = "postgres://user@host:port/database (SQLite, the default, needs no flag)";
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    throw new InvalidInputError(`--${parameter} must be a PostgreSQL URL such as ${shape}; what was given is not a URL`, { parameter });
  }
  if (!/^postgres(ql)?:$/i.test(u.protocol))
    throw new InvalidInputError(`--${parameter} must be a PostgreSQL URL such as ${shape}; got a ${u.protocol} URL`, { parameter });
  if (u.hostname === "" || u.pathname.replace(/^\//, "") === "")
    throw new InvalidInputError(`--${parameter} must name a host and a database, as in ${shape}; got ${redactDatabaseUrl(target)}`, {
      parameter,
    });
}

/**
 * Connect to the PostgreSQL database at `url` (checked with one round trip).
 * @example
 * const db = await openPostgresDb("postgres://strata:secret@127.0.0.1:5432/strata");
 * await db.migrate("portal", PORTAL_MIGRATIONS);
 */
export async function openPostgresDb(url: string, options: { max?: number; log?: (message: string) => void } = {}): Promise<SqlDatabase> {
  const label = redactDatabaseUrl(url);
  const log = options.log ?? ((message: string) => console.error(`[metadata] ${message}`));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 10_000,
    types: { getTypeParser: typeParser as never },
  });
  // An idle connection dropped by the server: the pool replaces it; say so, no more.
  pool.on("error", (err) => log(`a connection to ${label} failed: ${err.message}`));
  try {
    await pool.query("SELECT 1");
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new InvalidInputError(`--metadata: cannot connect to PostgreSQL at ${label}: ${(e as Error).message}`, {
      parameter: "metadata",
    });
  }

  const onClient =
    (client: pg.Pool | pg.PoolClient) =>
    async <T>(sql: string, params: readonly SqlValue[] = []): Promise<SqlResult<T>> => {
      const result = await client.query(toPositional(sql), params as unknown[]);
      return { rows: result.rows as T[], changes: result.rowCount ?? 0 };
    };

  const transaction = async <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let open = true;
    let broken = false;
    const run = onClient(client);
    const inside = <R>(sql: string, params?: readonly SqlValue[]): Promise<SqlResult<R>> => {
      if (!open) return Promise.reject(new Error("a statement was run on a transaction that has ended"));
      return run<R>(sql, params);
    };
    const tx: SqlExecutor = executor(POSTGRES, inside, (inner) => inner(tx));
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [TRANSACTION_LOCK]);
      const result = await fn(tx);
      await client.query("COMMIT");
      return result;
    } catch (e) {
      await client.query("ROLLBACK").catch(() => (broken = true));
      throw e;
    } finally {
      open = false;
      client.release(broken);
    }
  };

  return {
    ...executor(POSTGRES, onClient(pool), transaction),
    label,
    async migrate(module: string, steps: readonly MigrationStep[]): Promise<void> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
        try {
          await client.query(SCHEMA_MIGRATIONS_DDL);
          await client.query("BEGIN");
          try {
            const done = await client.query<{ step: number }>("SELECT step FROM schema_migrations WHERE module = $1", [module]);
            const applied = new Set(done.rows.map((r) => r.step));
            for (const [step, text] of steps.entries()) {
              if (applied.has(step)) continue;
              await client.query(stepText(text, "postgres"));
              await client.query("INSERT INTO schema_migrations (module, step) VALUES ($1, $2)", [module, step]);
            }
            await client.query("COMMIT");
          } catch (e) {
            await client.query("ROLLBACK").catch(() => (broken = true));
            throw new Error(`migrating the ${module} tables of ${label} failed: ${(e as Error).message}`, { cause: e });
          }
        } finally {
          await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => (broken = true));
        }
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}

/** BIGINT columns hold epoch milliseconds and counts: numbers, exact below 2^53. */
function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (oid === INT8_OID && format !== "binary")
    return (value: string) => {
      const n = Number(value);
      if (!Number.isSafeInteger(n)) throw new Error(`a BIGINT value (${value}) is too large for a JavaScript number`);
      return n;
    };
  return pg.types.getTypeParser(oid as never, format as never);
}

const positional = new Map<string, string>();

/**
 * `?` placeholders as `$1, $2, ...`, leaving those in quoted strings, quoted identifiers and
 * comments alone.
 * @example
 * toPositional("SELECT * FROM t WHERE a = ? AND b = '?'"); // "SELECT * FROM t WHERE a = $1 AND b = '?'"
 */
export function toPositional(sql: string): string {
  const known = positional.get(sql);
  if (known !== undefined) return known;
  let out = "";
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === "?") {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  if (positional.size < 10_000) positional.set(sql, out);
  return out;
}
