/**
 * Real `portcullis serve` processes for the cluster suites: each instance is
 * a child process running the CLI from the TypeScript sources
 * (test/api/support/serve-child.js), listening on a free port of 127.0.0.1.
 *
 *   const instances = await startInstances(3, { cwd: dir, env: { PORTCULLIS_BUNDLE_URL: url } });
 *   await fetch(`${instances[2].baseUrl}/health`);
 *   await stopInstances(instances);   // SIGTERM, then the exit codes
 *
 * An instance that exits before it listens fails the start with the end of
 * its stderr, so a refused configuration reads as such, not as a timeout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";

const CHILD = path.join(__dirname, "../../api/support/serve-child.js");

export interface Instance {
  child: ChildProcess;
  baseUrl: string;
  /** The JSON lines it printed on stdout so far. */
  lines: Array<Record<string, unknown>>;
  /** What it printed on stderr so far. */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface InstanceOptions {
  /** The working directory (its var/ holds what the configuration leaves at its defaults). */
  cwd: string;
  /** Added to this process's environment (PORTCULLIS_* settings). */
  env?: Record<string, string>;
  /** serve's flags, per instance (e.g. its own --db); `--port 0` is always added. */
  args?: (index: number) => string[];
}

export async function startInstances(count: number, options: InstanceOptions): Promise<Instance[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startInstance(options, options.args?.(i) ?? [])));
  const instances = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await stopInstances(instances);
    throw failed.reason;
  }
  return instances;
}

async function startInstance(options: InstanceOptions, args: string[]): Promise<Instance> {
  const child = spawn(process.execPath, [CHILD, "serve", "--port", "0", "--host", "127.0.0.1", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Array<Record<string, unknown>> = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString("utf8")).split("\n");
    rest = parts.pop()!;
    for (const line of parts) if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  let err = "";
  child.stderr!.on("data", (chunk: Buffer) => void (err += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  let listening: Record<string, unknown> | undefined;
  while (!listening && !gone) {
    await new Promise((r) => setTimeout(r, 50));
    listening = lines.find((l) => l.event === "http.listening");
  }
  if (!listening) throw new Error(`an instance exited before listening:\n${err.slice(-2000)}`);
  return { child, baseUrl: `http://${String(listening.address)}`, lines, stderr: () => err, exited };
}

/** SIGTERM to every instance still running; resolves with their exit codes, in order. */
export async function stopInstances(instances: Instance[]): Promise<Array<number | null>> {
  for (const i of instances) if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill("SIGTERM");
  return Promise.all(instances.map(async (i) => (await i.exited).code));
}

/** Calls `probe` until it returns a value other than undefined; throws `what` once `deadlineMs` passed. */
export async function eventually<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
