/**
 * Shared fixtures for the PDP tests: small policies compiled by the real
 * compiler into real bundles, a recording DecisionLog, a capturing logger,
 * temp directories and a waiter for asynchronous reloads.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { compile, writeBundle } from "@portcullis/rego-wasm";
import type { LogEntry, Logger } from "../../pdp/logger";
import type { DecisionInput, DecisionLog, DecisionRecord } from "../../pdp/types";

/** A small decision policy: members of a tenant may read, in their tenant's scope. */
export const DECISION_REGO = `package portcullis

default decision := {"allow": false, "status": 403, "reason": "role_required", "scope": {}, "fields": {"read": [], "write": []}}

decision := {
	"allow": true,
	"status": 200,
	"reason": "member",
	"scope": {"tenant_id": input.actor.tenant},
	"fields": {"read": data.portcullis.read, "write": []},
} if {
	"member" in input.actor.roles
}
`;

/** The decision log's policies: erase the actor id, drop health checks. */
export const LOG_REGO = `package system.log

mask contains "/input/actor/id"

drop if input.input.route.id == "health.get"
`;

export const DATA = { portcullis: { read: ["id", "amount_cents"] } };

export interface FixtureOptions {
  revision?: string;
  rego?: string[];
  entrypoints?: string[];
  data?: Record<string, unknown>;
}

const compiled = new Map<string, Uint8Array>();

/** A bundle as `rego build` writes it; the Wasm is cached per policy text, the manifest varies. */
export function bundleOf(options: FixtureOptions = {}): Buffer {
  const rego = options.rego ?? [DECISION_REGO, LOG_REGO];
  const entrypoints = options.entrypoints ?? ["portcullis/decision", "system/log/mask", "system/log/drop"];
  const key = JSON.stringify([rego, entrypoints]);
  let wasm = compiled.get(key);
  if (!wasm) {
    wasm = compile(
      rego.map((source, i) => ({ file: `p${i}.rego`, source })),
      { entrypoints },
    ).wasm;
    compiled.set(key, wasm);
  }
  return writeBundle({
    wasm,
    data: options.data ?? DATA,
    manifest: { revision: options.revision ?? "r1", roots: [""], rego_version: 1, wasm: entrypoints.map((e) => ({ entrypoint: e, module: "/policy.wasm" })) },
    sources: rego.map((content, i) => ({ path: `p${i}.rego`, content })),
  });
}

export function member(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
    action: "read",
    resource: { type: "invoice", id: "inv_1" },
    route: { id: "invoices.get", method: "GET", version: "v2" },
    fields: { submitted: [] },
    params: [],
    ...overrides,
  };
}

export class RecordingLog implements DecisionLog {
  readonly records: DecisionRecord[] = [];
  flushes = 0;
  record(record: DecisionRecord): void {
    this.records.push(record);
  }
  async flush(): Promise<void> {
    this.flushes++;
  }
}

export function capturingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return Object.assign((e: LogEntry) => void entries.push(e), { entries });
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "pdp-test-"));
}

/** Writes beside the target and renames, as `rego build` does (an atomic replace). */
export function writeAtomically(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, bytes);
  fs.renameSync(tmp, file);
}

/** Resolves once `condition()` holds; the Jest timeout bounds the wait. */
export async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}
