/**
 * Shared helper for the string/encoding builtin tests: loads the runtime once
 * per test file and calls `bi_*` exports with JS values (sent as JSON) or
 * Rego literal text (`rego("{1, 2}")`, for sets and exact big numbers),
 * returning the result as JSON (undefined = the builtin was undefined).
 */
import { loadRuntime, Runtime } from "../harness";

export class RegoArg {
  constructor(readonly text: string) {}
}

/** An argument given as Rego literal text. */
export const rego = (text: string): RegoArg => new RegoArg(text);

export interface StringsCaller {
  rt: Runtime;
  /** `call("concat", "/", ["a", "b"])` -> "a/b"; undefined when the builtin is undefined. */
  call(name: string, ...args: unknown[]): unknown;
  /** Like call, but returns the result's Rego text. */
  callRego(name: string, ...args: unknown[]): string | undefined;
}

export function useStringsRuntime(): StringsCaller {
  const c = {} as StringsCaller;
  beforeAll(async () => {
    c.rt = await loadRuntime();
  });
  afterEach(() => c.rt.reset());
  const invoke = (name: string, args: unknown[]): number => {
    const addrs = args.map((a) => (a instanceof RegoArg ? c.rt.rego(a.text) : c.rt.value(a)));
    return c.rt.call("bi_" + name.replace(/\./g, "_"), ...addrs);
  };
  c.call = (name, ...args) => c.rt.json(invoke(name, args));
  c.callRego = (name, ...args) => {
    const r = invoke(name, args);
    return r === 0 ? undefined : c.rt.regoText(r);
  };
  return c;
}
