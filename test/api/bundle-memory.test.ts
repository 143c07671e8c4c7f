/**
 * bundle.maxMemoryPages (PORTCULLIS_BUNDLE_MAX_MEMORY_PAGES): the operator's
 * ceiling on a policy module's memory. A bundle needing more does not start
 * the service (memory_limit_exceeded, naming what it needs); within the
 * ceiling it decides as usual.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { loadConfig } from "../../config";
import { StartupCheckError } from "../../api/registry/check";
import { createService } from "../../api/service";
import { policyBundle } from "./harness";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-memory-"));
  fs.writeFileSync(path.join(dir, "bundle.tar.gz"), policyBundle());
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const quiet = { logger: () => undefined, pdpLogger: () => undefined, decisionLogErrors: () => undefined };
const configWith = (maxMemoryPages: number | undefined) => ({
  database: { file: path.join(dir, `data-${maxMemoryPages}.db`) },
  decisionLog: { file: path.join(dir, `decisions-${maxMemoryPages}.db`) },
  bundle: { file: path.join(dir, "bundle.tar.gz"), watch: false, maxMemoryPages },
  identity: { devKeyFile: path.join(dir, "key.json") },
});

test("a bundle needing more memory than the ceiling does not start the service, and says what it needs", async () => {
  const refusal = await createService(configWith(1), quiet).then(
    () => undefined,
    (err: unknown) => err,
  );
  // The start-up check refuses: its first problem is the bundle that could not load, and why.
  expect(refusal).toBeInstanceOf(StartupCheckError);
  expect((refusal as StartupCheckError).problems[0]).toMatch(/memory_limit_exceeded: policy\.wasm's static data needs \d+ pages .*; the limit is 1 pages/);
});

test("within the ceiling the service starts and its PDP decides", async () => {
  const service = await createService(configWith(1024), quiet);
  try {
    expect(service.pdp.status().active).not.toBeNull();
  } finally {
    await service.close();
  }
});

test("read from the environment, refused outside 1..16384 pages", () => {
  expect(loadConfig({ env: { PORTCULLIS_BUNDLE_MAX_MEMORY_PAGES: "512" } }).bundle.maxMemoryPages).toBe(512);
  expect(loadConfig({ env: {} }).bundle.maxMemoryPages).toBeUndefined();
  for (const value of ["0", "16385", "1.5"])
    expect(() => loadConfig({ env: { PORTCULLIS_BUNDLE_MAX_MEMORY_PAGES: value } })).toThrow(/PORTCULLIS_BUNDLE_MAX_MEMORY_PAGES/);
});
