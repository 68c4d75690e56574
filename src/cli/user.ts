/** `strata user`: manage portal users in the metadata database, offline. */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { InvalidInputError } from "../cube/errors.js";
import { checkPostgresUrl } from "../store/postgresDb.js";
import { openPortalDb } from "../portal/schema.js";
import { createUser, listUsers, removeUser, ROLES, setPassword, type Role, type User } from "../portal/users.js";
import { type Command, parseCommandArgs } from "./command.js";

const USAGE = `Usage: strata user <add|passwd|list|remove> ... [--data-dir DIR | --metadata URL]

Manage the users of the portal (they sign in with generateToken). Usernames are 1 to 64
letters, digits, '_', '.', '@' or '-', and case-insensitive. Passwords have at least 8
characters and are stored only as salted scrypt hashes.

Commands:
  strata user add <name> --role R [--password P] [--full-name N] [--email E]
                          create a user; R is admin, publisher (may run analysis) or user
  strata user passwd <name> [--password P]
                          set a new password; the user's tokens are revoked
  strata user list [--json]
                          list users (username, role, full name, email, created)
  strata user remove <name>
                          remove a user and their tokens; refused for the last admin and
                          for a user who still owns items

Options:
  --password P     the password; prefer the STRATA_PASSWORD environment variable, which
                   is used when --password is absent and stays out of shell history
  --role R         admin | publisher | user
  --full-name N    display name
  --email E        contact address
  --json           print JSON (epoch milliseconds) instead of a table
  --data-dir DIR   the data directory (default: $STRATA_DATA_DIR, else ./data); the
                   database is DIR/strata.db and the directory is created if needed
  --metadata URL   the PostgreSQL database the servers share instead (as strata serve
                   --metadata; default: $STRATA_METADATA), e.g. postgres://strata@db:5432/strata
                   with the password in PGPASSWORD`;

const OPTIONS = {
  role: { type: "string" },
  password: { type: "string" },
  "full-name": { type: "string" },
  email: { type: "string" },
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  metadata: { type: "string" },
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Which options each subcommand takes (besides --data-dir), so a misplaced flag is an error. */
const ALLOWED: Record<string, readonly (keyof typeof OPTIONS)[]> = {
  add: ["role", "password", "full-name", "email"],
  passwd: ["password"],
  list: ["json"],
  remove: [],
};

/**
 * The command with its environment injected (tests pass their own).
 * @example
 * await makeUserCommand({ STRATA_PASSWORD: "s3cret-enough" }).run(["add", "alice", "--role", "user", "--data-dir", dir], out);
 */
export function makeUserCommand(env: Env): Command {
  return {
    usage: USAGE,
    async run(args, out) {
      const { values, positionals } = parseCommandArgs(args, OPTIONS);
      const [sub, ...names] = positionals;
      const allowed = sub !== undefined && Object.hasOwn(ALLOWED, sub) ? ALLOWED[sub] : undefined;
      if (!allowed) throw new InvalidInputError(`expected add, passwd, list or remove, got ${sub ?? "nothing"}; see strata user --help`);
      for (const flag of Object.keys(values))
        if (flag !== "data-dir" && flag !== "metadata" && !allowed.includes(flag as keyof typeof OPTIONS))
          throw new InvalidInputError(`--${flag} does not apply to 'strata user ${sub}'; see strata user --help`);
      const expected = sub === "list" ? 0 : 1;
      if (names.length !== expected)
        throw new InvalidInputError(`'strata user ${sub}' takes ${expected ? "one username" : "no argument"}; see strata user --help`);
      const metadata = values.metadata ?? (env.STRATA_METADATA || undefined);
      if (metadata !== undefined) checkPostgresUrl(metadata, "metadata");
      const dataDir = resolve(values["data-dir"] ?? env.STRATA_DATA_DIR ?? "./data");
      if (metadata === undefined) mkdirSync(dataDir, { recursive: true });
      const db = await openPortalDb(metadata ?? join(dataDir, "strata.db"));
      try {
        if (sub === "add") {
          const user = await createUser(db, {
            username: names[0],
            role: requireRole(values.role),
            password: password(values.password, env),
            fullName: values["full-name"],
            email: values.email,
          });
          out.stdout(`created user ${user.username} (${user.role})\n`);
          if (!(await listUsers(db)).some((u) => u.role === "admin"))
            out.stderr(`warning: there is no admin yet; add one with strata user add <name> --role admin\n`);
        } else if (sub === "passwd") {
          await setPassword(db, names[0], password(values.password, env));
          out.stdout(`password changed for ${names[0]}; their tokens were revoked\n`);
        } else if (sub === "list") {
          const users = await listUsers(db);
          out.stdout(values.json ? `${JSON.stringify(users, null, 2)}\n` : formatUsers(users));
        } else {
          await removeUser(db, names[0]);
          out.stdout(`removed user ${names[0]}\n`);
        }
      } finally {
        await db.close();
      }
      return 0;
    },
  };
}

/**
 * `strata user`, reading STRATA_PASSWORD and STRATA_DATA_DIR from the process environment.
 * Registered in main.ts as `user: userCommand`.
 * @example
 * const code = await userCommand.run(["list", "--json"], out);
 */
export const userCommand: Command = makeUserCommand(process.env);

function requireRole(role: string | undefined): Role {
  if (role === undefined) throw new InvalidInputError(`--role is required (${ROLES.join(", ")})`, { parameter: "role" });
  return role.toLowerCase() as Role; // createUser validates it
}

function password(flag: string | undefined, env: Env): string {
  const given = flag ?? env.STRATA_PASSWORD;
  if (given === undefined || given === "")
    throw new InvalidInputError("no password: set STRATA_PASSWORD or pass --password", { parameter: "password" });
  return given;
}

function formatUsers(users: readonly User[]): string {
  const rows = [
    ["USERNAME", "ROLE", "FULL NAME", "EMAIL", "CREATED"],
    ...users.map((u) => [u.username, u.role, u.fullName ?? "", u.email ?? "", new Date(u.created).toISOString()]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map(
      (r) =>
        r
          .map((cell, c) => cell.padEnd(widths[c]))
          .join("  ")
          .trimEnd() + "\n",
    )
    .join("");
}
