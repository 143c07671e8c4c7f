/**
 * `portcullis serve` in process: opens and seeds the database, loads the
 * bundle into the PDP with the SQLite decision log, refuses nothing it
 * should serve, answers a token minted by `portcullis token`, resumes an
 * export job a crashed run left `running`, and on SIGTERM drains, flushes
 * the decision log and resolves with exit code 0. It says once, on stderr,
 * where it listens and what to try next; stdout holds JSON lines only.
 * (The signal is emitted on `process`, which runs the same handler.)
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { serveCommand } from "../../cli/serve";
import { tokenCommand } from "../../cli/token";
import { openDatabase } from "../../db";
import { openForRead } from "../../pdp/log/store/sqlite-store";
import { queryDecisions } from "../../pdp/log/store/query";
import { policyBundle } from "./harness";

function get(port: number, p: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: p, headers, agent: false }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

test("serve: seeds, serves, and shuts down gracefully on SIGTERM", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "portcullis-serve-"));
  const cwd = process.cwd();
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const log = jest.spyOn(console, "log").mockImplementation((line: string) => void lines.push(`TOKEN ${line}`));
  const human: string[] = [];
  const stderr = jest.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    human.push(String(chunk));
    return true;
  });
  process.chdir(dir); // var/ (database, dev key, decision log) lands in the temp dir
  let done: Promise<number> | undefined;
  try {
    fs.mkdirSync("var");
    fs.writeFileSync("var/bundle.tar.gz", policyBundle());
    // A previous run accepted an export job, started it, and crashed; its lease has expired since.
    const previous = openDatabase("var/portcullis.db", { seed: true });
    const acme = { tenant_id: "t_acme" };
    const jobId = previous.exportJobs.createScoped(acme, { requestedBy: "u_carol", format: "csv", readFields: ["id"], rowScope: acme }).id;
    previous.exportJobs.claimNextScoped(acme, { runner: "crashed-run", ms: 0 });
    previous.close();
    done = serveCommand(["--port", "0"]);
    let listening: { address: string } | undefined;
    for (let i = 0; i < 200 && !listening; i++) {
      await new Promise((r) => setTimeout(r, 25));
      const line = lines.find((l) => l.includes('"http.listening"'));
      if (line) listening = JSON.parse(line);
    }
    expect(listening).toBeDefined();
    const port = Number(listening!.address.split(":").pop());
    // Once, for people: the URL with the real port and the next commands (stderr, so stdout stays JSON).
    const ready = human.filter((h) => h.includes("Portcullis is listening"));
    expect(ready).toHaveLength(1);
    expect(ready[0]).toContain(`Portcullis is listening on http://127.0.0.1:${port}`);
    expect(ready[0]).toContain("TOKEN=$(npx portcullis token u_alice)");
    expect(ready[0]).toContain(`curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${port}/users/me`);
    expect(fs.existsSync("var/portcullis.db")).toBe(true);

    expect(await tokenCommand(["u_alice"])).toBe(0);
    const token = lines
      .filter((l) => /^TOKEN [\w-]+\.[\w-]+\.[\w-]+$/.test(l))
      .pop()!
      .slice(6);
    const res = await get(port, "/invoices/inv_alice_1", { Authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).id).toBe("inv_alice_1");
    const decisionId = res.headers["decision-id"] as string;

    expect(await tokenCommand(["u_carol"])).toBe(0);
    const admin = {
      Authorization: `Bearer ${lines
        .filter((l) => /^TOKEN [\w-]+\.[\w-]+\.[\w-]+$/.test(l))
        .pop()!
        .slice(6)}`,
    };
    let job = JSON.parse((await get(port, `/api/admin/export/${jobId}`, admin)).body);
    for (let i = 0; i < 100 && job.status !== "done"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      job = JSON.parse((await get(port, `/api/admin/export/${jobId}`, admin)).body);
    }
    expect(job).toMatchObject({ status: "done", format: "csv" });
    expect(job.result).toMatch(/^id\r\ninv_/);

    process.emit("SIGTERM", "SIGTERM");
    await expect(done).resolves.toBe(0);
    done = undefined;
    // Every stdout line the service wrote is one JSON object (the token command's lines aside).
    for (const chunk of lines.filter((l) => !l.startsWith("TOKEN ")))
      for (const line of chunk.split("\n").filter((l) => l !== "")) expect(() => JSON.parse(line)).not.toThrow();
    expect(human.filter((h) => h.includes("Portcullis is listening"))).toHaveLength(1);
    const db = openForRead("var/decisions.db");
    try {
      expect(queryDecisions(db, { id: decisionId, limit: 1 }).length).toBe(1);
    } finally {
      db.close();
    }
  } finally {
    if (done) {
      process.emit("SIGTERM", "SIGTERM"); // a failed assertion must not leave the server running
      await done;
    }
    process.chdir(cwd);
    write.mockRestore();
    log.mockRestore();
    stderr.mockRestore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
