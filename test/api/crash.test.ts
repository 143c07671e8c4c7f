/**
 * The real `portcullis serve` (a child process, from the sources) killed
 * with SIGKILL while clients send writes and reads: every write a client
 * saw acknowledged (PATCH 200, invite 201) has its decision in the
 * decisions database after the kill, and its row in the data database; the
 * restart finds the interrupted log and says so (a warning line, /metrics,
 * a row in log_runs), and a SIGTERM then ends cleanly (exit 0, nothing
 * lost). And with a decisions database too small for the traffic (a full
 * disk, through PORTCULLIS_DECISION_LOG_MAX_BYTES): /health degraded, writes
 * refused with 503, reads answered, and a shutdown that reports the lost
 * events and exits non-zero.
 */
import * as http from "node:http";
import * as path from "node:path";
import Database from "better-sqlite3";
import { send, serve, token, workdir } from "./support/child-service";

function decisionIds(dir: string): Set<string> {
  // A read-write handle: opening replays the WAL the killed process left, as the next start would.
  const db = new Database(path.join(dir, "var", "decisions.db"));
  try {
    return new Set((db.prepare("SELECT decision_id FROM decisions").all() as Array<{ decision_id: string }>).map((r) => r.decision_id));
  } finally {
    db.close();
  }
}

test("SIGKILL mid-write: every acknowledged write's decision is on record; the restart reports the interrupted log", async () => {
  const dir = workdir();
  const members = await Promise.all(["u_alice", "u_bob", "u_dave", "u_ivan"].map(async (u) => ({ user: u, token: await token(dir, u) })));
  const admins = await Promise.all(["u_carol", "u_heidi", "u_erin"].map(async (u) => ({ user: u, token: await token(dir, u) })));
  const service = await serve(dir);
  const acknowledged: Array<{ decisionId: string; kind: "profile" | "invite"; user: string; value: string }> = [];
  let killed = false;
  let n = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const client = async (who: { user: string; token: string }, kind: "profile" | "invite") => {
    while (!killed) {
      const value = `${kind}-${who.user}-${n++}`;
      try {
        const answer =
          kind === "profile"
            ? await send(service.port, agent, "PATCH", "/profile", who.token, { displayName: value })
            : await send(service.port, agent, "POST", "/users/invite", who.token, { email: `${value}@example.com`.toLowerCase(), displayName: value });
        if (answer.status === 200 || answer.status === 201) acknowledged.push({ decisionId: answer.decisionId, kind, user: who.user, value });
        // Reads between writes: the traffic the log batches.
        await send(service.port, agent, "GET", "/users/me", who.token);
      } catch {
        // The connection died with the process: not acknowledged.
      }
    }
  };
  const clients = [...members.map((m) => client(m, "profile")), ...admins.map((a) => client(a, "invite"))];
  // Kill while writes are flowing: once a good number of them were acknowledged.
  while (acknowledged.length < 150) await new Promise((r) => setTimeout(r, 5));
  service.child.kill("SIGKILL");
  expect(await service.exited).toEqual({ code: null, signal: "SIGKILL" });
  killed = true;
  await Promise.all(clients);
  agent.destroy();

  const stored = decisionIds(dir);
  const missing = acknowledged.filter((a) => !stored.has(a.decisionId));
  expect(missing).toEqual([]);
  // And the writes themselves happened: the state changed WITH its decision on record.
  const data = new Database(path.join(dir, "var", "portcullis.db"));
  try {
    for (const a of acknowledged.filter((x) => x.kind === "invite")) {
      expect(data.prepare("SELECT count(*) AS n FROM users WHERE email = ?").get(`${a.value}@example.com`.toLowerCase())).toEqual({ n: 1 });
    }
  } finally {
    data.close();
  }
  const killedRun = (() => {
    const db = new Database(path.join(dir, "var", "decisions.db"), { readonly: true });
    try {
      return (
        db.prepare("SELECT json_extract(event, '$.labels.id') AS id FROM decisions WHERE decision_id = ?").get(acknowledged[0].decisionId) as { id: string }
      ).id;
    } finally {
      db.close();
    }
  })();

  // The restart says the previous log was cut short, and records it.
  const again = await serve(dir);
  const warning = again.lines.find((l) => l.event === "decision_log.previous_run_interrupted");
  expect(warning).toEqual(
    expect.objectContaining({ level: "warn", run_id: killedRun, pid: service.child.pid, committed: expect.any(Number), last_decision_id: expect.any(String) }),
  );
  const metrics = await send(again.port, new http.Agent(), "GET", "/metrics", admins[0].token);
  expect(JSON.parse(metrics.body).metrics.decision_log).toEqual(expect.objectContaining({ persisting: true, events_lost: 0, interrupted_runs_found: 1 }));
  again.child.kill("SIGTERM");
  expect(await again.exited).toEqual({ code: 0, signal: null });
  expect(again.lines.find((l) => l.event === "decision_log.closed")).toEqual(expect.objectContaining({ lost: 0 }));
  const db = new Database(path.join(dir, "var", "decisions.db"), { readonly: true });
  try {
    expect(db.prepare("SELECT run_id, kind FROM log_runs WHERE kind = 'interrupted'").all()).toEqual([{ run_id: killedRun, kind: "interrupted" }]);
  } finally {
    db.close();
  }
});

test("a full decisions disk under the real service: /health degraded, writes 503, reads 200, shutdown reports the lost events and exits non-zero", async () => {
  const dir = workdir();
  const alice = await token(dir, "u_alice");
  // Room for the start-up (schema, run marker, start-up probes) and a few dozen decisions more.
  const service = await serve(dir, { PORTCULLIS_DECISION_LOG_MAX_BYTES: String(24 * 4096), PORTCULLIS_DECISION_LOG_BUFFER_LIMIT: "50" });
  const agent = new http.Agent({ keepAlive: true });
  const healthOf = async () => JSON.parse((await send(service.port, agent, "GET", "/health")).body) as { status: string; reasons: unknown[] };
  expect((await healthOf()).status).toBe("ok");
  let health = await healthOf();
  while (health.status === "ok") {
    expect((await send(service.port, agent, "GET", "/invoices/inv_alice_1", alice)).status).toBe(200);
    health = await healthOf();
  }
  expect(health).toMatchObject({ status: "degraded", reasons: [{ component: "decision_log", code: "decision_log_unavailable" }] });
  const write = await send(service.port, agent, "PATCH", "/profile", alice, { displayName: "Not While Full" });
  expect(write.status).toBe(503);
  expect(JSON.parse(write.body).type).toBe("urn:portcullis:problem:decision_log_unavailable");
  for (let i = 0; i < 120; i++) expect((await send(service.port, agent, "GET", "/users/me", alice)).status).toBe(200);
  agent.destroy();
  service.child.kill("SIGTERM");
  expect(await service.exited).toEqual({ code: 3, signal: null });
  const closed = service.lines.find((l) => l.event === "decision_log.closed");
  expect(closed).toEqual(expect.objectContaining({ level: "error", lost: expect.any(Number) }));
  // Every request after the store filled was decided, and its event lost: at least the 120 reads.
  expect(closed!.lost as number).toBeGreaterThanOrEqual(120);
  expect((closed!.written as number) + (closed!.lost as number) + (closed!.dropped_by_policy as number)).toBe(closed!.recorded);
});
