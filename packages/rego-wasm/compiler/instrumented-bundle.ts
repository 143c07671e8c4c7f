/**
 * A bundle's own Rego sources compiled again with probes
 * (./instrument.ts): for tools that ask which rules an input reached
 * (`matrix --coverage`, `decisions --explain`), never for the PDP, which
 * runs the bundle's uninstrumented policy.wasm.
 *
 *   const p = await loadInstrumented(bundleBytes, "portcullis/decision");
 *   const { result, heads } = p.evaluate(input); // heads: the rule bodies that succeeded, in the order they did
 */
import { compile, type Probe } from ".";
import { loadSizedPolicy, readBundle } from "./bundle";
import { EvaluationClock } from "./host";

export interface InstrumentedBundle {
  revision: string;
  entrypoint: string;
  probes: Probe[];
  /** Source text by file (the bundle's paths, without the leading `/`). */
  sources: Map<string, string>;
  /**
   * The entrypoint's value (undefined when the result set is empty), the
   * rule bodies that succeeded (head probes) and the expressions reached, first firing first.
   */
  evaluate(input: unknown): { result: unknown; heads: Probe[]; reached: Probe[] };
}

const utf8 = new TextDecoder();

export async function loadInstrumented(bundleBytes: Uint8Array, entrypoint: string): Promise<InstrumentedBundle> {
  const bundle = readBundle(bundleBytes);
  const regoVersion = bundle.manifest.rego_version === 0 ? ("v0" as const) : ("v1" as const);
  const files = [...bundle.files].filter(([name]) => name.endsWith(".rego") && !name.endsWith("_test.rego"));
  if (files.length === 0) throw new Error("the bundle carries no Rego sources: its rules cannot be traced");
  const sources = new Map(files.map(([name, bytes]) => [name.slice(1), utf8.decode(bytes)]));
  const { wasm, probes = [] } = compile(
    [...sources].map(([file, source]) => ({ file, source, regoVersion })),
    { entrypoints: [entrypoint], instrument: true },
  );
  const fired: number[] = [];
  const clock = new EvaluationClock();
  const policy = await loadSizedPolicy(wasm, bundle.data, {
    builtins: { ...clock.builtins(), "internal.probe": (id: unknown) => (fired.push(id as number), true) },
  });
  return {
    revision: bundle.manifest.revision,
    entrypoint,
    probes,
    sources,
    evaluate(input) {
      fired.length = 0;
      clock.tick();
      const rs = policy.evaluate(input, entrypoint) as Array<{ result?: unknown }>;
      const all = [...new Set(fired)].map((id) => probes[id]);
      return { result: rs[0]?.result, heads: all.filter((p) => p.kind === "head"), reached: all.filter((p) => p.kind === "expr") };
    },
  };
}
