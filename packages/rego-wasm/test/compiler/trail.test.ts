/**
 * The decision trail (packages/rego-wasm/compiler/trail.ts): a compiled module lists the
 * rule bodies that succeeded in the last evaluation, each once, first
 * success first, and names them in its `portcullis.trail` section; the
 * results are those of a module without it, and a module compiled with
 * `trail: false` carries nothing of it.
 */
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { readTrailIds, readTrailTable, TRAIL_EXPORT, TRAIL_SECTION, type TrailBody } from "../../compiler/trail";

const SOURCE = `package t

default level := "none"

level := "high" if {
	input.n > 10
} else := "low" if {
	input.n > 0
}

big contains x if {
	some x in input.xs
	x > 2
}

double(x) := y if {
	y := x * 2
}

never if input.missing == 1

decision := {"level": level, "big": big, "twice": double(input.n)} if {
	not never
	input.user.name != ""
}
`;

async function load(trail?: boolean): Promise<{ policy: LoadedPolicy; wasm: Uint8Array }> {
  const { wasm } = compile([{ file: "t.rego", source: SOURCE }], { entrypoints: ["t/decision"], ...(trail === undefined ? {} : { trail }) });
  return { policy: await loadPolicy(wasm), wasm };
}

/** The bodies that succeeded in the policy's last evaluation, as `rule@row`. */
function trailOf(policy: LoadedPolicy, table: TrailBody[]): string[] {
  const internals = policy as unknown as { mem: WebAssembly.Memory; wasmInstance: { exports: Record<string, () => number> } };
  const head = internals.wasmInstance.exports[TRAIL_EXPORT]();
  return readTrailIds(internals.mem.buffer, head).map((id) => `${table[id].rule}@${table[id].row}`);
}

test("the module lists the bodies that succeeded, each once, in the order they first did", async () => {
  const { policy, wasm } = await load();
  const table = readTrailTable(wasm)!;
  const result = policy.evaluate({ n: 12, xs: [1, 3, 4, 5], user: { name: "ann" } }, "t/decision");
  expect(result[0].result).toEqual({ level: "high", big: [3, 4, 5], twice: 24 });
  // `big` succeeded three times (x = 3, 4, 5) and is listed once; `never` did not succeed.
  expect(trailOf(policy, table)).toEqual(["t.level@5", "t.big@11", "t.double@16", "t.decision@22"]);
});

test("an else branch and a default are named as such, and every evaluation starts an empty trail", async () => {
  const { policy, wasm } = await load();
  const table = readTrailTable(wasm)!;
  policy.evaluate({ n: 3, xs: [], user: { name: "ann" } }, "t/decision");
  expect(trailOf(policy, table)).toEqual(["t.level@7", "t.double@16", "t.decision@22"]);
  expect(table.find((b) => b.row === 7)).toMatchObject({ rule: "t.level", kind: "else", reads: ["input.n"] });
  policy.evaluate({ n: -1, xs: [], user: { name: "ann" } }, "t/decision");
  expect(trailOf(policy, table)).toEqual(["t.level@3", "t.double@16", "t.decision@22"]);
  expect(table.find((b) => b.row === 3)).toMatchObject({ rule: "t.level", kind: "default" });
  // Undefined: the decision's body failed before its head asked for any rule, so
  // nothing succeeded, and nothing of the previous evaluation is left.
  const undefinedResult = policy.evaluate({ n: 1, xs: [], user: { name: "" } }, "t/decision");
  expect(undefinedResult).toEqual([]);
  expect(trailOf(policy, table)).toEqual([]);
});

test("the table names what each body reads: the rules and the input paths", async () => {
  const { wasm } = await load();
  const decision = readTrailTable(wasm)!.find((b) => b.rule === "t.decision")!;
  expect(decision).toEqual({
    rule: "t.decision",
    file: "t.rego",
    row: 22,
    kind: "body",
    refs: ["t.big", "t.double", "t.level", "t.never"],
    reads: ["input.n", "input.user.name"],
  });
});

test("with trail: false the module is OPA's ABI alone, and the results are the same", async () => {
  const on = await load();
  const off = await load(false);
  expect(readTrailTable(off.wasm)).toBeNull();
  const module = (wasm: Uint8Array) => new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>);
  const exports = (wasm: Uint8Array) => WebAssembly.Module.exports(module(wasm)).map((e) => e.name);
  expect(exports(off.wasm)).not.toContain(TRAIL_EXPORT);
  expect(exports(on.wasm)).toContain(TRAIL_EXPORT);
  expect(WebAssembly.Module.customSections(module(off.wasm), TRAIL_SECTION)).toHaveLength(0);
  for (const input of [
    { n: 12, xs: [1, 3], user: { name: "a" } },
    { n: 0, xs: [], user: { name: "b" } },
    { n: 5, xs: [9], user: { name: "" } },
  ]) {
    expect(on.policy.evaluate(input, "t/decision")).toEqual(off.policy.evaluate(input, "t/decision"));
  }
});
