/**
 * The host functions OPA's ABI imports from `env`, and small helpers to call
 * them with AssemblyScript strings.
 *
 * The runtime itself never dispatches builtins to the host (the linker emits
 * those calls), but it imports all five `opa_builtinN` and re-exports thin
 * wrappers (`rt_host_builtinN`) so the imports are always present in
 * build/runtime.wasm: the linker can then call them by index without having
 * to add imports (which would renumber every function).
 */

// @ts-ignore: decorator
@external("env", "opa_abort")
declare function opa_abort(msg: usize): void;
// @ts-ignore: decorator
@external("env", "opa_println")
declare function opa_println(msg: usize): void;
// @ts-ignore: decorator
@external("env", "opa_builtin0")
declare function opa_builtin0(id: i32, ctx: usize): usize;
// @ts-ignore: decorator
@external("env", "opa_builtin1")
declare function opa_builtin1(id: i32, ctx: usize, a: usize): usize;
// @ts-ignore: decorator
@external("env", "opa_builtin2")
declare function opa_builtin2(id: i32, ctx: usize, a: usize, b: usize): usize;
// @ts-ignore: decorator
@external("env", "opa_builtin3")
declare function opa_builtin3(id: i32, ctx: usize, a: usize, b: usize, c: usize): usize;
// @ts-ignore: decorator
@external("env", "opa_builtin4")
declare function opa_builtin4(id: i32, ctx: usize, a: usize, b: usize, c: usize, d: usize): usize;

/** Fatal error: the host throws msg; never returns. */
export function hostAbort(msg: string): void {
  opa_abort(changetype<usize>(String.UTF8.encode(msg, true)));
  unreachable();
}

/** One line of print() output. */
export function hostPrintln(msg: string): void {
  opa_println(changetype<usize>(String.UTF8.encode(msg, true)));
}

export function rt_host_builtin0(id: i32, ctx: usize): usize {
  return opa_builtin0(id, ctx);
}
export function rt_host_builtin1(id: i32, ctx: usize, a: usize): usize {
  return opa_builtin1(id, ctx, a);
}
export function rt_host_builtin2(id: i32, ctx: usize, a: usize, b: usize): usize {
  return opa_builtin2(id, ctx, a, b);
}
export function rt_host_builtin3(id: i32, ctx: usize, a: usize, b: usize, c: usize): usize {
  return opa_builtin3(id, ctx, a, b, c);
}
export function rt_host_builtin4(id: i32, ctx: usize, a: usize, b: usize, c: usize, d: usize): usize {
  return opa_builtin4(id, ctx, a, b, c, d);
}
