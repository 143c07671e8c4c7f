/**
 * compile()'s `instrument` (compiler/instrument.ts): probes before every
 * expression of every body kind and after every rule body, each firing
 * exactly when evaluation reaches it; results unchanged; nothing of it in a
 * compilation without the option.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile, type Probe } from "../../compiler";

const SOURCE = `package t

default d := "default"

d := "set" if input.setD

f(x) := "big" if {
	x > 10
} else := "small"

p contains y if {
	some x in input.xs
	y := [z | some z in input.xs; z > x]
	every v in y {
		v > 0
	}
}

q := r if {
	r := {"d": d, "f": f(input.n), "p": p}
}
`;

async function run(input: unknown): Promise<{ result: unknown; hit: Probe[]; probes: Probe[] }> {
  const { wasm, probes } = compile([{ file: "t.rego", source: SOURCE }], { entrypoints: ["t/q"], instrument: true });
  const hits = new Set<number>();
  const policy = await loadPolicy(wasm, undefined, {
    "internal.probe": (id: unknown) => {
      hits.add(id as number);
      return true;
    },
  });
  policy.setData({});
  const rs = policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "t/q") as Array<{ result: unknown }>;
  return { result: rs[0]?.result, hit: probes!.filter((p) => hits.has(p.id)), probes: probes! };
}

const rows = (ps: Probe[], kind: Probe["kind"]) => [...new Set(ps.filter((p) => p.kind === kind).map((p) => p.loc.row))].sort((a, b) => a - b);

test("probes sit before every expression (rule, else, default, comprehension and every bodies) and after every rule body", async () => {
  const { probes } = await run({ xs: [], n: 1 });
  expect(rows(probes, "expr")).toEqual([5, 8, 12, 13, 14, 15, 20]);
  // Heads: d's default (3) and rule (5), f and its else (7, 9), p (11), q (19).
  expect(rows(probes, "head")).toEqual([3, 5, 7, 9, 11, 19]);
  expect(probes.filter((p) => p.loc.row === 12 && p.kind === "expr").every((p) => p.declaration)).toBe(true);
});

test("a probe fires when evaluation reaches it; a head's when the body succeeded", async () => {
  const small = await run({ setD: false, xs: [1, 2], n: 3 });
  expect(small.result).toEqual({ d: "default", f: "small", p: [[], [2]] });
  // d's rule body reached its expression but failed; the default ran. f's first body failed at x > 10; its else succeeded.
  expect(rows(small.hit, "head")).toEqual([3, 9, 11, 19]);
  expect(rows(small.hit, "expr")).toEqual([5, 8, 12, 13, 14, 15, 20]);

  const big = await run({ setD: true, xs: [], n: 30 });
  expect(big.result).toEqual({ d: "set", f: "big", p: [] });
  expect(rows(big.hit, "head")).toEqual([5, 7, 19]);
  // No x in xs: nothing after `some x in input.xs` ran.
  expect(rows(big.hit, "expr")).toEqual([5, 8, 12, 20]);
});

test("without the option, no probe: the module calls no host builtin", () => {
  const { policy, probes } = compile([{ file: "t.rego", source: SOURCE }], { entrypoints: ["t/q"] });
  expect(probes).toBeUndefined();
  expect(policy.hostBuiltins).toEqual([]);
});
