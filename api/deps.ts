/**
 * What the API is built from: every dependency is passed in (no globals), so
 * tests build the real thing with a temp database and a test key set.
 */
import type { PortcullisDb } from "../db";
import type { Pdp } from "../pdp";
import type { ExportRunner } from "./exports/runner";
import type { TokenVerifier } from "./identity/verifier";
import type { RateLimitConfig } from "./middleware/rate-limit";
import type { VersionCatalog } from "./versions";

/** One structured log line (JSON); never given secrets. */
export type ApiLogger = (entry: Record<string, unknown>) => void;

export interface ApiDeps {
  pdp: Pick<Pdp, "decide" | "refuse" | "outcome" | "status">;
  db: PortcullisDb;
  verifyToken: TokenVerifier;
  versions: VersionCatalog;
  rateLimits: RateLimitConfig;
  logger: ApiLogger;
  /** Runs the export jobs POST /api/admin/export stores; its owner resumes it at start-up and stops it before closing the database. */
  exportRunner: Pick<ExportRunner, "enqueue">;
  /** Largest accepted JSON body in bytes (default 16 KiB). */
  bodyLimitBytes?: number;
  /** Proxies (IP addresses, CIDR ranges) whose X-Forwarded-For names the client (middleware/client-address.ts); default none. */
  trustedProxies?: string[];
  /** The clock version lifecycles are judged by (ms since the epoch; default Date.now): tests move time with it. */
  now?: () => number;
  /** Distinct unknown ids within the window before an actor is reported for enumeration (default 5 in 60 s). */
  enumeration?: { threshold: number; windowMs: number };
}

export const jsonLogger: ApiLogger = (entry) => {
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), ...entry }) + "\n");
};
