/**
 * Test helpers for the data layer: every suite works on real SQLite files in
 * a fresh temporary directory (WAL, triggers and file-level behaviour are
 * part of what is tested), removed afterwards.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openDatabase, type PortcullisDb } from "../../db";

export interface TempDb {
  dir: string;
  file: string;
  db: PortcullisDb;
}

/** A fresh seeded database in its own temp dir. */
export function openTempDb(options: { seed?: boolean } = { seed: true }): TempDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-db-"));
  const file = path.join(dir, "nested", "portcullis.db");
  return { dir, file, db: openDatabase(file, options) };
}

export function closeTempDb(t: TempDb | undefined): void {
  if (t === undefined) return;
  try {
    t.db.close();
  } catch {
    // already closed by the test
  }
  fs.rmSync(t.dir, { recursive: true, force: true });
}

export const ACME = { tenant_id: "t_acme" } as const;
export const GLOBEX = { tenant_id: "t_globex" } as const;
export const ALICE = { tenant_id: "t_acme", owner_id: "u_alice" } as const;
export const BOB = { tenant_id: "t_acme", owner_id: "u_bob" } as const;
export const DAVE = { tenant_id: "t_globex", owner_id: "u_dave" } as const;

/** Classic injection payloads: each must be inert (no error from SQLite, no extra rows). */
export const INJECTIONS = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "inv_alice_1' OR tenant_id != 't_acme",
  "x'); DROP TABLE invoices; --",
  "%",
  "_",
  "\\",
  '" OR ""="',
  "1; DELETE FROM users",
  "' UNION SELECT id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at FROM invoices --",
];
