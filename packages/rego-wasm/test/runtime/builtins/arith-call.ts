/**
 * Shared helper for the arithmetic/collections builtin tests: loads the
 * runtime once per test file and calls `bi_*` exports with Rego-literal
 * arguments, returning the result as Rego text (undefined = undefined).
 */
import { loadRuntime, Runtime } from "../harness";

export interface Caller {
  rt: Runtime;
  /** `call("object.get", '{"a": 1}', '"a"', "0")` -> "1"; undefined when the builtin is undefined. */
  call(name: string, ...args: string[]): string | undefined;
}

export function useRuntime(): Caller {
  const c = {} as Caller;
  beforeAll(async () => {
    c.rt = await loadRuntime();
  });
  afterEach(() => c.rt.reset());
  c.call = (name, ...args) => {
    const addrs = args.map((a) => c.rt.rego(a));
    const r = c.rt.call("bi_" + name.replace(/\./g, "_"), ...addrs);
    return r === 0 ? undefined : c.rt.regoText(r);
  };
  return c;
}
