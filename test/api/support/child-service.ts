/**
 * The real `portcullis serve` as a child process (serve-child.js, from the
 * sources), for the tests that kill it, restart it, or run several:
 *
 *   const dir = workdir();                       // var/ with the policy bundle
 *   const service = await serve(dir, env);       // waits for its listening line
 *   await send(service.port, agent, "GET", "/users/me", await token(dir, "u_alice"));
 *   service.child.kill("SIGKILL"); await service.exited;
 *
 * `lines` collects the service's JSON log lines (stdout) as they come.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { DEV_AUDIENCE, DEV_ISSUER } from "../../../config";
import { mintDevToken } from "../../../api/identity/mint";
import { policyBundle } from "../harness";

const CHILD = path.join(__dirname, "serve-child.js");

export interface Service {
  child: ChildProcess;
  port: number;
  lines: Array<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function workdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-crash-"));
  fs.mkdirSync(path.join(dir, "var"));
  fs.writeFileSync(path.join(dir, "var", "bundle.tar.gz"), policyBundle());
  return dir;
}

/** Starts `portcullis serve --port 0` in `dir` and waits for its listening line. */
export async function serve(dir: string, env: Record<string, string> = {}): Promise<Service> {
  const child = spawn(process.execPath, [CHILD, "serve", "--port", "0"], { cwd: dir, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const lines: Array<Record<string, unknown>> = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = rest + chunk.toString("utf8");
    const parts = text.split("\n");
    rest = parts.pop()!;
    for (const line of parts) if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let listening: Record<string, unknown> | undefined;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!listening && !gone) {
    await new Promise((r) => setTimeout(r, 25));
    listening = lines.find((l) => l.event === "http.listening");
  }
  if (!listening) throw new Error("the service exited before listening");
  return { child, port: Number(String(listening.address).split(":").pop()), lines, exited };
}

export interface Answer {
  status: number;
  decisionId: string;
  body: string;
}

export function send(port: number, agent: http.Agent, method: string, p: string, token?: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (token) headers.Authorization = `Bearer ${token}`;
    if (text !== undefined) headers["Content-Type"] = "application/json";
    const req = http.request({ host: "127.0.0.1", port, path: p, method, headers, agent }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, decisionId: String(res.headers["decision-id"]), body: data }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(text);
  });
}

export const token = (dir: string, user: string) =>
  mintDevToken({ subject: user, keyFile: path.join(dir, "var", "dev-jwt-key.json"), issuer: DEV_ISSUER, audience: DEV_AUDIENCE, ttlSec: 600 });
