/**
 * `portcullis db migrate`: brings a PostgreSQL database to this build's
 * schema (db/pg/migrations.ts), as the tables' owner.
 *
 *   portcullis db migrate [--seed]
 *
 * The database is PORTCULLIS_DATABASE_OWNER_URL when set (the owner's login:
 * the service's own role, PORTCULLIS_DATABASE_URL, must not own the tables,
 * so it cannot migrate them), else PORTCULLIS_DATABASE_URL. --seed inserts
 * the stable seed rows when the database was new. The URL is never printed:
 * it carries a password. (SQLite needs no command: it migrates on open.)
 */
import { migratePg } from "../db/pg/migrate";
import { parseArgs, UsageError } from "./args";

export const DB_USAGE = "db migrate [--seed]   (PostgreSQL: PORTCULLIS_DATABASE_OWNER_URL, else PORTCULLIS_DATABASE_URL)";

export async function dbCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "migrate") throw new UsageError(`db: unknown subcommand ${JSON.stringify(sub ?? "")} (expected migrate)`);
  const args = parseArgs(rest, { switches: { "--seed": "seed" } });
  if (args.positionals.length > 0) throw new UsageError(`db migrate takes no positional arguments (got ${args.positionals.join(" ")})`);
  const url = env.PORTCULLIS_DATABASE_OWNER_URL || env.PORTCULLIS_DATABASE_URL;
  if (!url) throw new UsageError("db migrate needs PORTCULLIS_DATABASE_OWNER_URL or PORTCULLIS_DATABASE_URL (postgres://...)");
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError("the database URL must start with postgres:// or postgresql://");
  const result = await migratePg(url, { seed: args.switches.has("seed") });
  const what = result.applied.length === 0 ? "nothing to apply" : `applied ${result.applied.join(", ")}`;
  console.log(`schema version ${result.from} -> ${result.to}: ${what}${result.seeded ? "; seeded" : ""}`);
  return 0;
}
