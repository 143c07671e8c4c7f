/**
 * What the builtin tests share: one Rego module compiled to real Wasm and a
 * query evaluated through @open-policy-agent/opa-wasm, with no data.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../../pdp/compiler";

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
