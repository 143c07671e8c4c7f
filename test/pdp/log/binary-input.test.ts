/**
 * The decision log on the engine's binary input path. decide() evaluates
 * the input in the binary input encoding and hands the log a copy of the
 * bytes the policy read (record.inputBinary), not the input's JSON text;
 * the log makes the text from them (binaryInputJson) in its worker or on
 * its own turn. What it logs must be, byte for byte, what it logged when
 * the engine handed over the JSON text it evaluated (record.inputJson =
 * JSON.stringify(input)): every decision below is recorded twice, as
 * decide() made it and as its JSON-path twin, through a real SQLite log on
 * both pipelines, with a bundle whose log policies leave the snapshot as it
 * is and with one that masks and drops; the stored events must be the same
 * text but for the decision id and timestamp.
 */
import * as path from "node:path";
import { decide } from "../../../pdp/decide";
import { Engine } from "../../../pdp/engine";
import { createDecisionLog } from "../../../pdp/log";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import type { DecisionInput, DecisionLog, DecisionRecord } from "../../../pdp/types";
import { bundleOf, capturingLogger, DECISION_REGO, LOG_REGO, member } from "../fixtures";
import { PIPELINES, tempDir } from "./fixtures";

/** Log policies that read the event and change nothing: the snapshot text is stored as it is. */
const QUIET_LOG_REGO = `package system.log

mask contains "/input/actor/id" if input.input.never_set == true

drop if input.input.route.id == "never.get"
`;

const STRINGS = [
  "adm\u0000in",
  '\t\n\r\b\f"\\/\u001f\u007f',
  "\u2028\u2029",
  "Zoë, 日本, ﬁ",
  "😀",
  "\ud800",
  "\udc00",
  "\udc00\ud800",
  "admin\ud83d",
  "\ud800\ud83d\ude00\udfff",
  `${"x".repeat(40)}\ud800\u0000${"x".repeat(40)}\udc00😀`,
  "é".repeat(100),
  "",
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 53,
  2 ** 53 + 2,
  123456789012345680000,
  1e21,
  1e-7,
  0.1,
  1 / 3,
  5e-324,
  Number.MAX_VALUE,
  NaN,
  Infinity,
];

function nest(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

/** Decision inputs with the binary encoding's edge cases in them (test/runtime/binary-input.test.ts's), and a few random ones. */
function inputs(): unknown[] {
  const list: unknown[] = [member(), member({ route: { id: "health.get", method: "GET", version: "v1" } })];
  for (const s of STRINGS) list.push({ ...member(), note: s, [s]: [s] }, member({ actor: { id: s, tenant: "t_acme", roles: ["member", s] } }));
  for (const n of NUMBERS) list.push({ ...member(), n, list: [n, -n] });
  list.push(
    { ...member(), a: undefined, f() {}, s: Symbol("s"), holes: new Array(3), mixed: [undefined, () => 1, null] },
    Object.assign(JSON.parse('{"__proto__": {"user": "admin"}}') as object, member()),
    { ...member(), keys: { 10: "a", 2: "b", a: 1, "": 2, "-1": 3, constructor: 4, toString: 5, b: 1, é: 5, "😀": 6, "\uffff": 7 } },
    Object.assign(Object.create(null) as object, member()),
    {
      ...member(),
      get computed() {
        return "read once";
      },
    },
    // Deep, within what SQLite's json_valid accepts in the store (1000 levels).
    { ...member(), deep: nest(990) },
    // Larger than a quarter of the ring (pdp/log worker: it goes by message) and than the module's memory.
    { ...member(), names: Array.from({ length: 40_000 }, (_, i) => `name-${i}-é`), blob: `${"z".repeat(1 << 20)}\ud800` },
  );
  let x = 24;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 100; i++) {
    const units = Array.from({ length: Math.floor(next() * 10) }, () => Math.floor(next() * 0x10000));
    const s = String.fromCharCode(...units);
    list.push({ ...member(), [s]: { [s]: s, n: next() * 1e9 - 5e8, i: Math.floor(next() * 2 ** 32) - 2 ** 31 } });
  }
  return list;
}

/**
 * The real log, handed every record from decide() and, for one that came
 * on the binary path, its twin as the JSON path made it (the input's
 * JSON.stringify text, what the engine handed over before the binary path).
 */
function twinning(log: DecisionLog, twins: Map<string, string>, binary: DecisionRecord[]): DecisionLog {
  return {
    copiesBinaryInput: true, // log.record() copies it
    record(r) {
      log.record(r);
      if (r.inputBinary === undefined) return;
      binary.push(r);
      const twin: DecisionRecord = { ...r, decisionId: `${r.decisionId}-json`, inputJson: JSON.stringify(r.input) };
      delete twin.inputBinary;
      twins.set(r.decisionId, twin.decisionId);
      log.record(twin);
    },
    flush: () => log.flush(),
  };
}

/** Every stored event's text by decision id, and the same with its decision id and timestamp cut out. */
function storedEvents(file: string): Map<string, string> {
  const db = openForRead(file);
  const rows = db.prepare("SELECT decision_id, event FROM decisions").all() as Array<{ decision_id: string; event: string }>;
  db.close();
  return new Map(rows.map((r) => [r.decision_id, r.event.replace(/^\{"decision_id":"[^"]*",/, "{").replace(/"timestamp":"[^"]*",/, "")]));
}

describe.each(PIPELINES)("$name", ({ worker }) => {
  test.each([
    ["log policies that change nothing", QUIET_LOG_REGO],
    ["a masking and dropping log policy", LOG_REGO],
  ])(
    "with %s, the events logged from the binary input are byte for byte the JSON path's",
    async (_, logRego) => {
      const file = path.join(tempDir(), "decisions.db");
      const errors: string[] = [];
      const log = createDecisionLog({ db: file, worker, onError: (e) => void errors.push(e.message) });
      const engine = await Engine.load(bundleOf({ rego: [DECISION_REGO, logRego] }), "test bundle");
      const twins = new Map<string, string>();
      const binary: DecisionRecord[] = [];
      const deps = { entrypoint: "portcullis/decision", log: twinning(log, twins, binary), logger: capturingLogger() };
      const all = inputs();
      for (const [i, input] of all.entries()) {
        decide(engine, deps, input as DecisionInput, { reqId: 1 });
        // Batches between decisions: the queue's copies are reused, and in-thread the log's policies run on the same
        // engine, writing where the next decision's input goes (the log must hold its own copy of the bytes).
        if (i % 7 === 6) await new Promise(setImmediate);
      }
      // The writer declines these (toJSON): they keep the JSON path and its text.
      const declined = decide(engine, deps, { ...member(), at: new Date(0) } as DecisionInput);
      await log.close();

      expect(binary).toHaveLength(all.length); // every input above went the binary way
      const stats = log.stats();
      expect(errors).toEqual([]);
      expect(stats).toEqual(expect.objectContaining({ recorded: 2 * all.length + 1, failSafe: 0, internalErrors: 0 }));
      const events = storedEvents(file);
      expect(events.size).toBe(stats.logged);
      for (const [id, twinId] of twins) {
        expect(events.get(id)).toBe(events.get(twinId));
      }
      if (logRego === QUIET_LOG_REGO) {
        // The snapshot as it is: the input's text is JSON.stringify's, spliced in.
        for (const r of binary) expect(events.get(r.decisionId)).toContain(`"input":${JSON.stringify(r.input)},"result":`);
      } else {
        expect(stats.droppedByPolicy).toBe(2); // the health check and its twin
      }
      expect(events.get(declined.decisionId)).toContain('"at":"1970-01-01T00:00:00.000Z"');
    },
    120_000,
  );

  test("binary input bytes that do not decode: the event is logged fail-safe, input and result erased", async () => {
    const file = path.join(tempDir(), "decisions.db");
    const log = createDecisionLog({ db: file, worker, onError: () => undefined });
    const engine = await Engine.load(bundleOf(), "test bundle");
    const records: DecisionRecord[] = [];
    const capture: DecisionLog = {
      copiesBinaryInput: true,
      record: (r) => void records.push({ ...r, inputBinary: r.inputBinary?.slice() }),
      flush: async () => undefined,
    };
    decide(engine, { entrypoint: "portcullis/decision", log: capture, logger: capturingLogger() }, member());
    const [good] = records;
    expect(good!.inputBinary).toBeInstanceOf(Uint8Array);
    log.record({ ...good!, inputBinary: good!.inputBinary!.subarray(0, good!.inputBinary!.byteLength - 4) });
    await log.close();

    expect(log.stats()).toEqual(expect.objectContaining({ recorded: 1, logged: 1, failSafe: 1 }));
    const db = openForRead(file);
    const [row] = db.prepare("SELECT event FROM decisions").all() as Array<{ event: string }>;
    db.close();
    const event = JSON.parse(row!.event) as { input?: unknown; erased?: string[]; custom?: { log_error?: { code: string } } };
    expect(event.input).toBeUndefined();
    expect(event.erased).toEqual(["/input", "/result"]);
    expect(event.custom?.log_error?.code).toBe("event_build_error");
  }, 60_000);
});
