/**
 * What planning code needs at hand: the function being built, the locals
 * holding the current `input` and `data` documents (replaced under `with`),
 * and the mock environment `with` established.
 *
 * Mocks (`with`) apply transitively: every rule or function called while a
 * mock is active is planned again under that environment (a separate IR
 * function per environment, as OPA's planner does):
 * - mocked data paths are read from the `data` document (the caller passes a
 *   `data` with the replacement values written in), not from the rules;
 * - a function or builtin mocked by a *value* reads that value from a "slot":
 *   an extra parameter after input and data, passed down every call, so a
 *   replacement computed at run time (`with count as v`) reaches callees;
 * - a function mocked by another function calls the replacement instead.
 */
import type { Program } from "../check";
import type { FuncBuilder } from "./builder";
import type { Local } from "./ir";
import type { Planner } from "./planner";

export type FuncMock = { kind: "value"; slot: number } | { kind: "builtin"; name: string } | { kind: "function"; path: string[] };

export interface MockEnv {
  /** Data paths (without `data`) whose value comes from the data document. */
  dataPaths: string[][];
  /** Mocked callee: builtin name or `data.x.f` -> replacement. */
  funcs: Map<string, FuncMock>;
  /** Number of value slots (extra params) functions planned here take. */
  slots: number;
}

export const EMPTY_ENV: MockEnv = { dataPaths: [], funcs: new Map(), slots: 0 };

export function envKey(env: MockEnv): string {
  if (env.dataPaths.length === 0 && env.funcs.size === 0 && env.slots === 0) return "";
  const paths = env.dataPaths.map((p) => p.join(".")).sort();
  const funcs = [...env.funcs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([paths, funcs, env.slots]);
}

export interface Ctx {
  p: Planner;
  program: Program;
  fb: FuncBuilder;
  input: Local;
  data: Local;
  env: MockEnv;
  /** Locals holding the value slots of `env`, in slot order. */
  slots: Local[];
}

/** The locals every call to a planned rule or function starts with. */
export function baseArgs(ctx: Ctx): Local[] {
  return [ctx.input, ctx.data, ...ctx.slots];
}

/** True if data `path` is at or below a mocked data path. */
export function isMockedPath(env: MockEnv, path: readonly string[]): boolean {
  return env.dataPaths.some((m) => m.length <= path.length && m.every((s, i) => s === path[i]));
}
