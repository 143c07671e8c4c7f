/**
 * What the builtin tests share: one Rego module compiled to real Wasm and a
 * query evaluated through @open-policy-agent/opa-wasm, with no data.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { EvaluationClock } from "../../compiler/host";

/** The query's result set (`[]` when undefined) for `input`. */
export async function resultSet(source: string, input: unknown = {}, query = "x = data.t.p"): Promise<Array<Record<string, unknown>>> {
  const wasm = compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query }] }).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  return policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q") as Array<Record<string, unknown>>;
}

/** `x` of `x = data.t.p`, or undefined when p is undefined. */
export async function valueOfX(source: string, input: unknown = {}): Promise<unknown> {
  const result = await resultSet(source, input);
  return result.length ? result[0].x : undefined;
}

/**
 * `x` of `x = data.t.p` for `package t` plus `rule`, with the builtins our
 * hosts supply (EvaluationClock.builtins(): JWT, X.509, GraphQL, ...), or
 * undefined; `nowMs` fixes the evaluation's clock (time.now_ns, decode_verify).
 */
export async function hostValueOf(rule: string, input: unknown = {}, nowMs?: number): Promise<unknown> {
  const wasm = compile([{ file: "t.rego", source: `package t\n${rule}` }], { entrypoints: [{ name: "q", query: "x = data.t.p" }] }).wasm;
  const clock = new EvaluationClock();
  const policy = await loadPolicy(wasm, undefined, clock.builtins());
  policy.setData({});
  const now = nowMs === undefined ? undefined : jest.spyOn(Date, "now").mockReturnValue(nowMs);
  clock.tick();
  let r: Array<{ x: unknown }>;
  try {
    // The clock is read at the evaluation's first use of the time: keep it fixed until the end.
    r = policy.evaluate(new TextEncoder().encode(JSON.stringify(input)).buffer, "q") as Array<{ x: unknown }>;
  } finally {
    now?.mockRestore();
  }
  return r.length === 0 ? undefined : r[0]!.x;
}
