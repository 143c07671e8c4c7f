/**
 * Which store the commands that read the service's records (`decisions`,
 * `events`, `audit`, and the counts of `inventory` and `versions`) read:
 * the file `--db` names when given; otherwise PostgreSQL when PORTCULLIS_DATABASE_URL
 * is set (the store every instance of a scaled-out service writes, so a
 * decision made on any instance is found); otherwise the default SQLite
 * file. The URL is checked like the service's setting (config/), and its
 * password is never repeated in an error.
 */
import { checkValue } from "../config/check";

export type AuditStore = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

export function auditStore(dbFlag: string | undefined, defaultFile: string, env: NodeJS.ProcessEnv = process.env): AuditStore {
  if (dbFlag !== undefined) return { kind: "sqlite", file: dbFlag };
  const url = env.PORTCULLIS_DATABASE_URL;
  if (url === undefined || url === "") return { kind: "sqlite", file: defaultFile };
  return { kind: "postgres", url: checkValue({ type: "service-url", schemes: ["postgres:", "postgresql:"] }, url, "PORTCULLIS_DATABASE_URL") as string };
}
