/**
 * Hot reload from a bundle file: a good new bundle is swapped in, a bad one
 * is refused while the old one keeps deciding, changes are picked up by
 * fs.watch and by polling alone, and a bundle in `opa build`'s own tar
 * layout loads.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { createPdp, type Pdp } from "../../pdp";
import { bundleOf, capturingLogger, DECISION_REGO, member, RecordingLog, tempDir, waitFor, writeAtomically } from "./fixtures";

/** Evaluates fine for members, aborts (conflict) on the anonymous smoke input. */
const ABORTS_ON_SMOKE = `package portcullis

decision := {"allow": false, "status": 403, "reason": "a", "scope": {}, "fields": {"read": [], "write": []}} if input.actor.id == "anonymous"

decision := {"allow": false, "status": 401, "reason": "b", "scope": {}, "fields": {"read": [], "write": []}} if input.actor.id == "anonymous"

decision := {"allow": true, "status": 200, "reason": "member", "scope": {"tenant_id": "t"}, "fields": {"read": [], "write": []}} if input.actor.id != "anonymous"
`;

/** A different mask, to tell which bundle an evaluator belongs to. */
const LOG_REGO_V2 = `package system.log

mask contains "/input/resource"
`;

let dir: string;
let file: string;
let pdp: Pdp | undefined;
beforeEach(() => {
  dir = tempDir();
  file = path.join(dir, "bundle.tar.gz");
});
afterEach(async () => {
  await pdp?.close();
  pdp = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The inodes this process's inotify watches are on, as the kernel lists them
 * (/proc/self/fdinfo; Linux, where CI runs): what fs.watch really watches.
 */
function watchedInodes(): number[] {
  const inodes: number[] = [];
  for (const fd of fs.readdirSync("/proc/self/fdinfo")) {
    let info: string;
    try {
      info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch {
      continue; // closed meanwhile
    }
    for (const match of info.matchAll(/^inotify wd:\S+ ino:([0-9a-f]+)/gm)) inodes.push(parseInt(match[1], 16));
  }
  return inodes;
}

async function start(options: { watch?: boolean; pollIntervalMs?: number } = {}) {
  const log = new RecordingLog();
  const logger = capturingLogger();
  // A long poll interval by default: these tests drive checks through refresh().
  pdp = await createPdp({ bundle: { file, debounceMs: 20, pollIntervalMs: 60_000, ...options }, log, logger });
  return { pdp, log, logger };
}

describe("hot reload from a file", () => {
  test("a good new bundle is swapped in; earlier records keep the evaluator of the bundle that decided them", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp, log } = await start();
    expect(pdp.decide(member()).revision).toBe("r1");

    writeAtomically(file, bundleOf({ revision: "r2", rego: [DECISION_REGO, LOG_REGO_V2] }));
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({ active: { revision: "r2", source: file }, lastError: null, reloads: 2, failures: 0 });
    expect(pdp.decide(member())).toMatchObject({ allow: true, revision: "r2" });

    const [old, current] = log.records;
    expect([old.revision, current.revision]).toEqual(["r1", "r2"]);
    expect(old.evaluate!("system/log/mask", { input: member() })).toEqual(["/input/actor/id"]);
    expect(current.evaluate!("system/log/mask", { input: member() })).toEqual(["/input/resource"]);
  });

  test.each([
    ["corrupt", () => Buffer.from("garbage"), "bundle_invalid"],
    ["without the decision entrypoint", () => bundleOf({ revision: "r2", entrypoints: ["system/log/mask"] }), "entrypoint_missing"],
    ["failing its smoke evaluation", () => bundleOf({ revision: "r2", rego: [ABORTS_ON_SMOKE], entrypoints: ["portcullis/decision"] }), "smoke_failed"],
  ])("a bad new bundle (%s) is refused: the old one keeps deciding, the error is logged and in status()", async (_name, bad, code) => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp, logger } = await start();

    writeAtomically(file, bad());
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({
      active: { revision: "r1" },
      lastError: { code, message: expect.any(String), at: expect.any(String) },
      reloads: 1,
      failures: 1,
    });
    expect(pdp.decide(member())).toMatchObject({ allow: true, status: 200, revision: "r1" });
    expect(logger.entries).toContainEqual(expect.objectContaining({ level: "error", event: "pdp.bundle_load_failed", code, active_revision: "r1" }));

    // The next good bundle clears the error.
    writeAtomically(file, bundleOf({ revision: "r3" }));
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({ active: { revision: "r3" }, lastError: null, reloads: 2, failures: 1 });
  });

  test("a bundle file that disappears leaves the active bundle in place and is reported once", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start();
    fs.rmSync(file);
    await pdp.refresh();
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({ active: { revision: "r1" }, lastError: { code: "bundle_unavailable" }, failures: 1 });
    expect(pdp.decide(member()).allow).toBe(true);

    writeAtomically(file, bundleOf({ revision: "r2" }));
    await pdp.refresh();
    expect(pdp.status().active?.revision).toBe("r2");
  });

  test("the same bytes written again are not reloaded", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start();
    writeAtomically(file, bundleOf({ revision: "r1" })); // new inode and mtime, same content
    await pdp.refresh();
    expect(pdp.status()).toMatchObject({ reloads: 1, failures: 0 });
  });

  test("a bundle that appears after start is picked up: deny until then", async () => {
    const { pdp } = await start();
    expect(pdp.decide(member()).reason).toBe("policy_unavailable");
    writeAtomically(file, bundleOf({ revision: "late" }));
    await pdp.refresh();
    expect(pdp.decide(member())).toMatchObject({ allow: true, revision: "late" });
  });

  test("fs.watch picks up a change without a refresh", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start();
    writeAtomically(file, bundleOf({ revision: "r2" }));
    await waitFor(() => pdp.status().active?.revision === "r2");
    expect(pdp.decide(member()).revision).toBe("r2");
  });

  test("fs.watch follows the file across replacements, in-place rewrites and its coming back", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start();
    // Each rename leaves the watch on a dead inode unless it is re-armed on the new one.
    for (const revision of ["r2", "r3"]) {
      writeAtomically(file, bundleOf({ revision }));
      await waitFor(() => pdp.status().active?.revision === revision);
    }
    fs.writeFileSync(file, bundleOf({ revision: "in-place" })); // same inode
    await waitFor(() => pdp.status().active?.revision === "in-place");

    fs.rmSync(file);
    await waitFor(() => pdp.status().lastError?.code === "bundle_unavailable");
    writeAtomically(file, bundleOf({ revision: "back" }));
    await waitFor(() => pdp.status().active?.revision === "back");
  });

  test("the watch is on the bundle file, so writes beside it (var/'s SQLite files) do not wake the PDP", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start();
    expect(watchedInodes()).toEqual([fs.statSync(file).ino]);
    const reloads = pdp.status().reloads;
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, "decisions.db-wal"), `frame ${i}`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // several debounce periods
    expect(pdp.status().reloads).toBe(reloads);

    fs.rmSync(file);
    await pdp.refresh();
    expect(watchedInodes()).toEqual([fs.statSync(dir).ino]); // missing: the directory, to see it appear
    writeAtomically(file, bundleOf({ revision: "r2" }));
    await waitFor(() => pdp.status().active?.revision === "r2");
    expect(watchedInodes()).toEqual([fs.statSync(file).ino]);
  });

  test("polling alone picks up a change when watching is off", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start({ watch: false, pollIntervalMs: 20 });
    writeAtomically(file, bundleOf({ revision: "r2" }));
    await waitFor(() => pdp.status().active?.revision === "r2");
    expect(pdp.status().reloads).toBe(2);
  });

  test("after close no change is picked up", async () => {
    writeAtomically(file, bundleOf({ revision: "r1" }));
    const { pdp } = await start({ pollIntervalMs: 20 });
    await pdp.close();
    writeAtomically(file, bundleOf({ revision: "r2" }));
    await pdp.refresh();
    expect(pdp.status().active?.revision).toBe("r1");
  });
});

describe("bundle layouts", () => {
  test("a bundle in opa build's tar layout (relative names, written by GNU tar) loads", async () => {
    const tree = path.join(dir, "tree");
    fs.mkdirSync(tree);
    execFileSync("tar", ["-xzf", "-", "-C", tree], { input: bundleOf({ revision: "opa-layout" }), stdio: ["pipe", "pipe", "ignore"] });
    execFileSync("tar", ["-czf", file, "-C", tree, ".manifest", "data.json", "policy.wasm", "p0.rego"]);
    const { pdp } = await start();
    expect(pdp.status().active).toMatchObject({ revision: "opa-layout", entrypoints: ["portcullis/decision", "system/log/drop", "system/log/mask"] });
    expect(pdp.decide(member())).toMatchObject({ allow: true, revision: "opa-layout" });
  });
});
