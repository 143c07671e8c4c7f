/**
 * The matrix in process: the API harness (real compiled policy, seeded
 * SQLite file in a temp dir, real ES256 tokens) listening on an ephemeral
 * 127.0.0.1 port, so the runner speaks real HTTP exactly as the CLI does
 * against `make run`. Operations come from the registry the app is built
 * from (api/registry + api/versions).
 *
 *   const m = await startMatrixServer();
 *   const report = await m.run();          // every cell
 *   await m.close();
 *
 * Rate limits are raised: the in-process run sends every cell within a few
 * seconds from one address, and budgets are not what the matrix proves
 * (the CLI waits out a 429 against a live instance instead).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { ResponseObserver } from "../../matrix/client";
import { loadMatrix, type Matrix } from "../../matrix/model";
import { operationsFromRegistry } from "../../matrix/registry";
import { runMatrix, type MatrixReport } from "../../matrix/run";
import { mintTestRunCredential, newRunId } from "../../api/identity/test-run";
import { ISSUER, startHarness, type Harness } from "../api/harness";

export interface MatrixServer {
  harness: Harness;
  baseUrl: string;
  run(options?: { routes?: string[]; matrix?: Matrix; observe?: ResponseObserver }): Promise<MatrixReport>;
  close(): Promise<void>;
}

const GENEROUS = { limit: 100_000, windowSec: 60 };

export async function startMatrixServer(): Promise<MatrixServer> {
  const harness = await startHarness({ rateLimits: { default: GENEROUS, sensitive: GENEROUS, diagnostic: GENEROUS } });
  const server = http.createServer(harness.app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const runId = newRunId("matrix-test");
  const credential = mintTestRunCredential({ keyFile: harness.keyFile, issuer: ISSUER, runId, ttlSec: 3600 });
  return {
    harness,
    baseUrl,
    run: async (options = {}) =>
      runMatrix({
        baseUrl,
        matrix: options.matrix ?? loadMatrix(),
        ops: operationsFromRegistry(harness.deps.versions),
        routes: options.routes,
        observe: options.observe,
        tokenFor: (user) => harness.token(user),
        testRun: { id: runId, credential: await credential },
      }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await harness.close();
    },
  };
}
