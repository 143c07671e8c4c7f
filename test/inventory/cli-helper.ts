/**
 * Runs `portcullis <args>` in process (the real CLI entry point) and
 * captures what it writes: stdout (the report) and stderr (progress and
 * the check's verdict). Targets for planted faults are real in-process
 * services (inventory/target.ts) reached by --base-url.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../cli";
import type { InventoryResult } from "../../inventory/types";
import { policyBundle } from "../api/harness";

export const REPO = path.resolve(__dirname, "../..");

let bundle: string | undefined;
// Registered when a suite imports this helper, so each test file removes its own compiled bundle.
afterAll(() => {
  if (bundle) fs.rmSync(path.dirname(bundle), { recursive: true, force: true });
});
/**
 * The project's policies compiled from rego/ by our compiler (as `make build`
 * writes var/bundle.tar.gz), into a temp file once per test file: the suites
 * do not depend on a prior build. Pass it as `--bundle`.
 */
export function bundleFile(): string {
  if (bundle) return bundle;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-inventory-bundle-"));
  bundle = path.join(dir, "bundle.tar.gz");
  fs.writeFileSync(bundle, policyBundle());
  return bundle;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `env`: variables set for the run only (e.g. PORTCULLIS_DATABASE_URL), restored after it; `undefined`
 * removes one for the run.
 */
export async function runCli(args: string[], options: { env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  const saved = Object.entries(options.env ?? {}).map(([name, value]) => {
    const before = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
    return [name, before] as const;
  });
  let stdout = "";
  let stderr = "";
  const out = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const err = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const log = jest.spyOn(console, "log").mockImplementation((...a: unknown[]) => void (stdout += a.join(" ") + "\n"));
  const error = jest.spyOn(console, "error").mockImplementation((...a: unknown[]) => void (stderr += a.join(" ") + "\n"));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    log.mockRestore();
    error.mockRestore();
    for (const [name, before] of saved) {
      if (before === undefined) delete process.env[name];
      else process.env[name] = before;
    }
  }
}

export function parseResult(run: CliRun): InventoryResult {
  return JSON.parse(run.stdout) as InventoryResult;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-inventory-test-"));
}

/** A traffic database path that does not exist: "no traffic source" (the developer's var/ database must not leak into tests). */
export function noTraffic(dir: string): string[] {
  return ["--db", path.join(dir, "no-traffic.db")];
}

/** Options every in-process CLI run of the suites passes: the compiled bundle and no traffic database. */
export function inProcess(dir: string): string[] {
  return ["--bundle", bundleFile(), ...noTraffic(dir)];
}
