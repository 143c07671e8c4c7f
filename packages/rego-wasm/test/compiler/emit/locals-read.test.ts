/**
 * localsRead: the emitter binds a Scan's key or value only when some
 * statement reads it. Checked on planned Rego (which locals a Scan binds and
 * which are read) and through evaluation (results unchanged either way).
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../compiler";
import { check } from "../../../compiler/check";
import { localsRead } from "../../../compiler/emit/locals-read";
import { parseModule } from "../../../compiler/parse";
import { plan } from "../../../compiler/plan";
import type { Block, ScanStmt } from "../../../compiler/plan/ir";

const SOURCE = `package t

values := [x | some x in input.xs]

keys := [i | some i, _ in input.xs]

pairs := [[k, v] | some k, v in input.obj]

neither := count([1 | some _ in input.xs])
`;

function scans(blocks: Block[]): ScanStmt[] {
  const out: ScanStmt[] = [];
  const walk = (b: Block): void => {
    for (const s of b.stmts) {
      if (s.type === "Scan") out.push(s);
      if (s.type === "Scan" || s.type === "Not") walk(s.block);
      if (s.type === "Block") s.blocks.forEach(walk);
    }
  };
  blocks.forEach(walk);
  return out;
}

test("a Scan's key and value count as read exactly when the body uses them", () => {
  const policy = plan(
    check([parseModule(SOURCE, "t.rego")]),
    ["values", "keys", "pairs", "neither"].map((r) => ({ name: `t/${r}` })),
  );
  const bound = (rule: string): Array<[boolean, boolean]> => {
    const f = policy.funcs.find((fn) => fn.name === `data.t.${rule}`)!;
    const read = localsRead(f.blocks);
    return scans(f.blocks).map((s) => [read.has(s.key), read.has(s.value)]);
  };
  expect(bound("values")).toEqual([[false, true]]);
  expect(bound("keys")).toEqual([[true, false]]);
  expect(bound("pairs")).toEqual([[true, true]]);
  expect(bound("neither")).toEqual([[false, false]]);
});

test("what the scans compute is unchanged", async () => {
  const entrypoints = ["t/values", "t/keys", "t/pairs", "t/neither"];
  const policy = await loadPolicy(compile([{ file: "t.rego", source: SOURCE }], { entrypoints }).wasm);
  policy.setData({});
  const input = { xs: ["a", "b", "c"], obj: { y: 2, x: 1 } };
  const results = entrypoints.map((e) => (policy.evaluate(input, e) as Array<{ result: unknown }>)[0].result);
  expect(results).toEqual([
    ["a", "b", "c"],
    [0, 1, 2],
    [
      ["x", 1],
      ["y", 2],
    ],
    3,
  ]);
});
