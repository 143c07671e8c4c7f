/**
 * SIGTERM on a real `portcullis serve` child process while 50 keep-alive
 * clients keep sending requests: no request a client sent is reset or left
 * unanswered, every connection is told `Connection: close` with its last
 * answer, and the process exits 0 once they are done. A connection refused
 * after the listener closed is expected (nothing was sent on it).
 *
 * Runs the built CLI (bin/portcullis.js -> dist/): `make test` builds first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { policyBundle } from "./harness";

const ROOT = path.resolve(__dirname, "../..");
const CLIENTS = 50;

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-shutdown-"));
  fs.mkdirSync(path.join(dir, "var"));
  fs.writeFileSync(path.join(dir, "var/bundle.tar.gz"), policyBundle());
});
afterEach(() => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function startServe(env: Record<string, string>): Promise<{ port: number; exited: Promise<number | null>; stdout: () => string }> {
  if (!fs.existsSync(path.join(ROOT, "dist/cli/index.js"))) throw new Error("dist/ is missing: run `make build` first");
  const proc = spawn(process.execPath, [path.join(ROOT, "bin/portcullis.js"), "serve", "--port", "0"], { cwd: dir, env: { ...process.env, ...env } });
  child = proc;
  let out = "";
  let err = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = setInterval(() => {
      const line = out.split("\n").find((l) => l.includes('"http.listening"'));
      if (line) {
        clearInterval(check);
        resolve({ port: Number(JSON.parse(line).address.split(":").pop()), exited, stdout: () => out });
      }
    }, 20);
    proc.on("exit", (code) => {
      clearInterval(check);
      reject(new Error(`serve exited ${code} before listening: ${err}`));
    });
  });
}

interface ClientResult {
  answered: number;
  /** The last answer's Connection header. */
  lastConnection: string | undefined;
  /** Requests sent and never answered (reset, hang-up): must stay 0. */
  lost: string[];
}

/** One keep-alive client: GET /health again and again on one connection, until told to close or refused. */
async function client(port: number, started: () => void): Promise<ClientResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const result: ClientResult = { answered: 0, lastConnection: undefined, lost: [] };
  try {
    for (;;) {
      const outcome = await new Promise<{ connection?: string; error?: NodeJS.ErrnoException }>((resolve) => {
        const req = http.get({ host: "127.0.0.1", port, path: "/health", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve({ connection: res.headers.connection }));
          res.on("error", (error) => resolve({ error }));
        });
        req.on("error", (error) => resolve({ error }));
      });
      if (outcome.error) {
        // The listener is closed: nothing was sent on a connection that was never accepted.
        if (outcome.error.code !== "ECONNREFUSED") result.lost.push(outcome.error.code ?? outcome.error.message);
        return result;
      }
      result.answered++;
      result.lastConnection = outcome.connection;
      if (result.answered === 3) started();
      if (outcome.connection === "close") return result;
    }
  } finally {
    agent.destroy();
  }
}

test("SIGTERM with 50 busy keep-alive connections: no request lost, every connection told to close, exit 0", async () => {
  const serve = await startServe({ PORTCULLIS_DRAIN_IDLE_GRACE_MS: "2000" });
  let ready = 0;
  let allStarted!: () => void;
  const started = new Promise<void>((resolve) => (allStarted = resolve));
  const clients = Array.from({ length: CLIENTS }, () =>
    client(serve.port, () => {
      if (++ready === CLIENTS) allStarted();
    }),
  );
  await started;
  child!.kill("SIGTERM");
  const results = await Promise.all(clients);

  expect(results.flatMap((r) => r.lost)).toEqual([]);
  expect(results.map((r) => r.lastConnection)).toEqual(Array(CLIENTS).fill("close"));
  expect(await serve.exited).toBe(0);
  expect(serve.stdout()).toContain('"http.shutdown"');
});
