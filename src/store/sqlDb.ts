/**
 * The metadata database as repositories see it: a small async SQL interface with two
 * implementations, SQLite (sqliteDb.ts, the embedded default) and PostgreSQL (postgresDb.ts,
 * for several API nodes on one database). Repositories write their SQL once, with `?`
 * placeholders, in the subset both dialects read the same way; the adapters translate
 * placeholders, parse PostgreSQL's BIGINT (epoch milliseconds, counts) back to numbers, and
 * spell the few fragments that differ (`SqlDialect`). Where a table must be declared
 * differently, a migration step gives one text per dialect.
 */

/** A value bound to a `?` placeholder. Booleans are stored as 1/0 in SQLite. */
export type SqlValue = string | number | boolean | null | Uint8Array;

/** What a statement returned: its rows (if any) and the rows it changed (writes). */
export interface SqlResult<T> {
  rows: T[];
  changes: number;
}

/** The SQL fragments the dialects spell differently, for repositories to splice in. */
export interface SqlDialect {
  readonly name: "sqlite" | "postgres";
  /**
   * The text at `path` (object keys, e.g. ["output", "serviceName"]) in the JSON held by
   * `column`, or NULL. Keys must be plain identifiers (they are written into the SQL).
   */
  jsonText(column: string, path: readonly string[]): string;
  /** `column` (a JSON array in TEXT) with the JSON of the next `?` appended. */
  jsonArrayAppend(column: string): string;
}

/** Where statements run: the database, or one transaction in it. */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Run one statement with positional `?` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<SqlResult<T>>;
  /** The rows of a SELECT (or of a write with RETURNING). */
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row, or undefined. */
  one<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** A write; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Run `fn` in a transaction: committed when it resolves, rolled back when it throws.
   * Transactions are serialised (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction-scoped
   * advisory lock), so a check-then-write inside one is not raced by another transaction.
   * Inside `fn`, use `tx` only; a transaction begun on `tx` joins the outer one.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

/**
 * One migration step: the same text for both dialects, or one text per dialect (the DDL of
 * types, keys and collations they spell differently). Texts may hold several statements.
 */
export type MigrationStep = string | { readonly sqlite: string; readonly postgres: string };

/** The database itself: statements, migrations, closing. */
export interface SqlDatabase extends SqlExecutor {
  /** What to say in logs and errors: the file, or the server without its password. */
  readonly label: string;
  /**
   * Apply the steps of `module` not yet applied (step i is steps[i]; append new steps, never
   * edit an applied one), in order, in one transaction, recorded in `schema_migrations`. On
   * PostgreSQL under an advisory lock, so that nodes starting at once apply each step once.
   */
  migrate(module: string, steps: readonly MigrationStep[]): Promise<void>;
  close(): Promise<void>;
}

/** The table recording applied steps, the same in both dialects (and as older SQLite files have it). */
export const SCHEMA_MIGRATIONS_DDL =
  "CREATE TABLE IF NOT EXISTS schema_migrations (module TEXT NOT NULL, step INTEGER NOT NULL, PRIMARY KEY (module, step))";

/** The text of a step for a dialect. */
export function stepText(step: MigrationStep, dialect: SqlDialect["name"]): string {
  return typeof step === "string" ? step : step[dialect];
}

/**
 * Whether `e` is a unique or primary-key violation, in either dialect (SQLite's
 * SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY, PostgreSQL's SQLSTATE 23505).
 * @example
 * try { await db.run("INSERT INTO folders ...", [...]); } catch (e) { if (isUniqueViolation(e)) throw duplicate(); throw e; }
 */
export function isUniqueViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/** The query/all/one/run/transaction methods over one way of running a statement. */
export function executor(
  dialect: SqlDialect,
  query: <T>(sql: string, params?: readonly SqlValue[]) => Promise<SqlResult<T>>,
  transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => Promise<T>,
): SqlExecutor {
  return {
    dialect,
    query,
    all: async (sql, params) => (await query(sql, params)).rows as never,
    one: async (sql, params) => (await query(sql, params)).rows[0] as never,
    run: async (sql, params) => (await query(sql, params)).changes,
    transaction,
  };
}

/** A JSON path key safe to write into SQL. */
export function checkJsonKey(key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`JSON path key ${JSON.stringify(key)} is not a plain identifier`);
  return key;
}
