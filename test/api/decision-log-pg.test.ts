/**
 * One decision trail for several instances (issue 23 item 4): real `serve`
 * processes with PORTCULLIS_DATABASE_URL log to one PostgreSQL database. A
 * write answered by one instance is found by `portcullis decisions --id`
 * (and `--json`, with its outcome) from another process; a live instance is
 * never taken for an interrupted one by an instance starting beside it; an
 * instance killed with SIGKILL is reported by the next start, once, with
 * what it committed; a SIGTERM ends a run cleanly.
 */
import * as http from "node:http";
import pg from "pg";
import { decisionsCommand } from "../../cli/decisions";
import { clonePgDatabase, type PgUrls } from "../db/contract/backends";
import { send, serve, token, workdir, type Service } from "./support/child-service";

let db: { urls: PgUrls; drop(): Promise<void> };
const running: Service[] = [];
beforeAll(async () => {
  db = await clonePgDatabase();
});
afterAll(async () => {
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  await db?.drop();
});

async function instance(): Promise<Service & { dir: string }> {
  const dir = workdir();
  const service = await serve(dir, { PORTCULLIS_DATABASE_URL: db.urls.app });
  running.push(service);
  return { ...service, dir };
}

/** `portcullis decisions ARGS` as an auditor runs it, against the shared database; its stdout lines. */
async function decisions(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const spy = jest.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
  const before = process.env.PORTCULLIS_DATABASE_URL;
  process.env.PORTCULLIS_DATABASE_URL = db.urls.app;
  try {
    expect(await decisionsCommand(args)).toBe(0);
  } finally {
    spy.mockRestore();
    if (before === undefined) delete process.env.PORTCULLIS_DATABASE_URL;
    else process.env.PORTCULLIS_DATABASE_URL = before;
  }
  return lines.join("\n").split("\n");
}

async function runRows(): Promise<Array<{ run_id: string; kind: string }>> {
  const c = new pg.Client({ connectionString: db.urls.app });
  await c.connect();
  try {
    return (await c.query<{ run_id: string; kind: string }>("SELECT run_id, kind FROM log_runs ORDER BY seq")).rows;
  } finally {
    await c.end();
  }
}

test("a decision made on one instance is found from another process; a killed instance is reported once by the next start", async () => {
  const first = await instance();
  const second = await instance();
  // Two live instances: neither start took the other for an interrupted run.
  for (const s of [first, second]) expect(s.lines.filter((l) => l.event === "decision_log.previous_run_interrupted")).toEqual([]);

  const agent = new http.Agent({ keepAlive: true });
  const alice = await token(second.dir, "u_alice");
  const write = await send(second.port, agent, "PATCH", "/profile", alice, { displayName: "Alice On Two" });
  expect(write.status).toBe(200);
  const read = await send(first.port, agent, "GET", "/users/me", await token(first.dir, "u_bob"));
  expect(read.status).toBe(200);
  agent.destroy();

  // The write's decision was committed before its answer: there at once, from this process.
  const [json] = await decisions(["--id", write.decisionId, "--json"]);
  const event = JSON.parse(json) as { decision_id: string; labels: { id: string }; input: { route: { id: string } }; outcome: unknown };
  expect(event).toMatchObject({ decision_id: write.decisionId, input: { route: { id: "users.me.update" } } });
  const secondRun = event.labels.id;
  const table = await decisions(["--id", write.decisionId]);
  expect(table[0]).toMatch(/^TIME \(UTC\)\s+DECISION ID/);
  expect(table[1]).toContain(write.decisionId);
  expect(table[1]).toMatch(/allowed 200/);
  // The read's decision is batched: it arrives within the log's window.
  let found: string[] = [];
  while (found.length === 0) found = (await decisions(["--id", read.decisionId, "--json"])).filter((l) => l.startsWith("{"));
  expect(JSON.parse(found[0]).labels.id).not.toBe(secondRun);

  second.child.kill("SIGKILL");
  expect(await second.exited).toEqual({ code: null, signal: "SIGKILL" });
  const third = await instance();
  const reported = third.lines.filter((l) => l.event === "decision_log.previous_run_interrupted");
  // Only the killed instance: the first one is alive and holds its lease.
  expect(reported).toEqual([expect.objectContaining({ run_id: secondRun, pid: second.child.pid, committed: expect.any(Number) })]);
  expect(reported[0].committed as number).toBeGreaterThanOrEqual(1);

  for (const s of [first, third]) {
    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    // What the store took is counted as written (the PostgreSQL sink's, not a SQLite one's).
    expect(s.lines.find((l) => l.event === "decision_log.closed")).toEqual(expect.objectContaining({ lost: 0, written: expect.any(Number) }));
    expect(s.lines.find((l) => l.event === "decision_log.closed")!.written as number).toBeGreaterThan(0);
  }
  const runs = await runRows();
  expect(runs.filter((r) => r.kind === "interrupted")).toEqual([{ run_id: secondRun, kind: "interrupted" }]);
  expect(runs.filter((r) => r.kind === "clean_stop")).toHaveLength(2);
  expect(runs.filter((r) => r.kind === "start")).toHaveLength(3);
});

test("SIGKILL mid-write on PostgreSQL: every write a client saw acknowledged has its decision in the shared trail", async () => {
  const service = await instance();
  const members = await Promise.all(["u_alice", "u_bob", "u_dave", "u_ivan"].map((u) => token(service.dir, u)));
  const acknowledged: string[] = [];
  let killed = false;
  let n = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const client = async (bearer: string) => {
    while (!killed) {
      try {
        const answer = await send(service.port, agent, "PATCH", "/profile", bearer, { displayName: `Name ${n++}` });
        if (answer.status === 200) acknowledged.push(answer.decisionId);
        await send(service.port, agent, "GET", "/users/me", bearer); // reads between writes: the batched traffic
      } catch {
        // The connection died with the process: not acknowledged.
      }
    }
  };
  const clients = members.map(client);
  while (acknowledged.length < 60) await new Promise((r) => setTimeout(r, 5));
  service.child.kill("SIGKILL");
  expect(await service.exited).toEqual({ code: null, signal: "SIGKILL" });
  killed = true;
  await Promise.all(clients);
  agent.destroy();

  const c = new pg.Client({ connectionString: db.urls.app });
  await c.connect();
  try {
    const { rows } = await c.query<{ decision_id: string }>("SELECT decision_id FROM decisions WHERE decision_id = ANY($1::text[])", [acknowledged]);
    const stored = new Set(rows.map((r) => r.decision_id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  } finally {
    await c.end();
  }
});
