/**
 * Shared helper for the regex/glob builtin tests: calls a `bi_*` export with
 * JSON arguments and returns the JSON result (undefined = undefined result).
 */
import { loadRuntime, Runtime } from "../harness";

export interface Caller {
  rt: Runtime;
  /** call("regex.match", "a+", "caat") -> true */
  call(name: string, ...args: unknown[]): unknown;
}

export async function regexCaller(): Promise<Caller> {
  const rt = await loadRuntime();
  return {
    rt,
    call(name: string, ...args: unknown[]): unknown {
      const addrs = args.map((a) => rt.value(a));
      const r = rt.call("bi_" + name.replace(/\./g, "_"), ...addrs);
      return rt.json(r);
    },
  };
}
