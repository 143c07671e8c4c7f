/** The OPA ABI exports and the per-evaluation helpers (ctx, memo, print, input, dump). */
import { loadRuntime, Runtime, OpaAbort } from "./harness";

let rt: Runtime;
beforeAll(async () => {
  rt = await loadRuntime();
});
afterEach(() => {
  rt.reset();
  rt.printed.length = 0;
});

describe("memory", () => {
  test("opa_malloc returns distinct aligned blocks; opa_malloc(0) is legal", () => {
    const a = rt.call("opa_malloc", 0);
    const b = rt.call("opa_malloc", 10);
    const c = rt.call("opa_malloc", 10);
    expect(a % 16).toBe(0);
    expect(b).toBeGreaterThan(a);
    expect(c).toBeGreaterThanOrEqual(b + 10);
  });

  test("the heap pointer rewinds; opa_free of the last block reclaims it", () => {
    const top = rt.call("opa_heap_ptr_get");
    const p = rt.call("opa_malloc", 100);
    expect(rt.call("opa_heap_ptr_get")).toBeGreaterThan(top);
    rt.call("opa_free", p);
    expect(rt.call("opa_heap_ptr_get")).toBeLessThanOrEqual(p);
    rt.call("opa_heap_ptr_set", top);
    expect(rt.call("opa_malloc", 1)).toBe(p);
  });

  test("opa_free aborts on a pointer that is not a heap block", () => {
    expect(() => rt.call("opa_free", 3)).toThrow(OpaAbort);
    expect(() => rt.call("opa_free", rt.call("opa_heap_ptr_get") + 4096)).toThrow("opa_free: invalid pointer");
  });

  test("memory grows past the initial pages", () => {
    const before = rt.memory.buffer.byteLength;
    const big = rt.call("opa_malloc", 2 * before);
    new Uint8Array(rt.memory.buffer)[big + 2 * before - 1] = 1;
    expect(rt.memory.buffer.byteLength).toBeGreaterThan(2 * before);
    const s = "x".repeat(500000);
    expect(rt.json(rt.value([s]))).toEqual([s]);
  });

  test("stash/restore/clear and value_free are harmless no-ops", () => {
    const v = rt.value({ a: 1 });
    rt.call("opa_heap_blocks_stash");
    rt.call("opa_heap_blocks_restore");
    rt.call("opa_heap_stash_clear");
    rt.call("opa_value_free", v);
    expect(rt.json(v)).toEqual({ a: 1 });
  });
});

describe("opa_value_add_path / opa_value_remove_path", () => {
  test("adds at a path, creating intermediate objects", () => {
    const base = rt.value({ a: { b: 1 } });
    expect(rt.call("opa_value_add_path", base, rt.value(["a", "c"]), rt.value(2))).toBe(0);
    expect(rt.call("opa_value_add_path", base, rt.value(["x", "y", "z"]), rt.value([true]))).toBe(0);
    expect(rt.call("opa_value_add_path", base, rt.value(["a", "b"]), rt.value("replaced"))).toBe(0);
    expect(rt.json(base)).toEqual({ a: { b: "replaced", c: 2 }, x: { y: { z: [true] } } });
  });

  test("errors leave the base unchanged", () => {
    const base = rt.value({ a: 1 });
    expect(rt.call("opa_value_add_path", base, rt.value(["a", "b"]), rt.value(2))).toBe(2); // a is not an object
    expect(rt.call("opa_value_add_path", base, rt.value([]), rt.value(2))).toBe(3);
    expect(rt.call("opa_value_add_path", base, rt.value("a"), rt.value(2))).toBe(2);
    expect(rt.call("opa_value_add_path", rt.value([1]), rt.value(["a"]), rt.value(2))).toBe(2);
    expect(rt.json(base)).toEqual({ a: 1 });
  });

  test("removes at a path; a missing path is fine", () => {
    const base = rt.value({ a: { b: 1, c: 2 }, d: 3 });
    expect(rt.call("opa_value_remove_path", base, rt.value(["a", "b"]))).toBe(0);
    expect(rt.call("opa_value_remove_path", base, rt.value(["d"]))).toBe(0);
    expect(rt.call("opa_value_remove_path", base, rt.value(["zz", "y"]))).toBe(0);
    expect(rt.call("opa_value_remove_path", base, rt.value(["a", "c", "x"]))).toBe(2);
    expect(rt.call("opa_value_remove_path", base, rt.value([]))).toBe(3);
    expect(rt.json(base)).toEqual({ a: { c: 2 } });
  });
});

describe("eval contexts", () => {
  test("opa_eval_ctx_* and rt_ctx_* see the same fields", () => {
    const ctx = rt.call("opa_eval_ctx_new");
    const input = rt.value({ user: "alice" });
    const data = rt.value({ roles: [] });
    rt.call("opa_eval_ctx_set_input", ctx, input);
    rt.call("opa_eval_ctx_set_data", ctx, data);
    rt.call("opa_eval_ctx_set_entrypoint", ctx, 3);
    expect(rt.call("rt_ctx_input", ctx)).toBe(input);
    expect(rt.call("rt_ctx_data", ctx)).toBe(data);
    expect(rt.call("rt_ctx_entrypoint", ctx)).toBe(3);
    expect(rt.call("opa_eval_ctx_get_result", ctx)).toBe(0);
    const result = rt.value([{ result: true }]);
    rt.call("rt_ctx_set_result", ctx, result);
    expect(rt.json(rt.call("opa_eval_ctx_get_result", ctx))).toEqual([{ result: true }]);
  });

  test("a fresh context has undefined input", () => {
    const ctx = rt.call("opa_eval_ctx_new");
    expect(rt.call("rt_ctx_input", ctx)).toBe(0);
    expect(rt.call("rt_ctx_entrypoint", ctx)).toBe(0);
  });
});

describe("fast-path helpers", () => {
  test("rt_eval_begin moves the heap top to the given address (0 keeps it)", () => {
    const top = rt.call("opa_heap_ptr_get");
    rt.call("rt_eval_begin", top + 1000);
    expect(rt.call("opa_heap_ptr_get")).toBe(top + 1000);
    rt.call("rt_eval_begin", 0);
    expect(rt.call("opa_heap_ptr_get")).toBe(top + 1000);
  });

  test("input bytes below the heap survive: parse after moving the heap past them", () => {
    const [addr, len] = rt.bytes('{"user": "bob", "n": 12345678901234567890}');
    rt.call("rt_eval_begin", addr + len); // unaligned, as the SDK passes it
    const input = rt.call("rt_parse_input", addr, len);
    expect(input).toBeGreaterThanOrEqual(addr + len);
    expect(rt.jsonText(input)).toBe('{"n":12345678901234567890,"user":"bob"}');
  });

  test("rt_parse_input: Rego values, 0 for empty input, abort on bad input", () => {
    expect(rt.regoText(rt.call("rt_parse_input", ...rt.bytes("{1, 2}")))).toBe("{1, 2}");
    expect(rt.call("rt_parse_input", 0, 0)).toBe(0);
    expect(() => rt.call("rt_parse_input", ...rt.bytes("{oops"))).toThrow(OpaAbort);
  });

  test("rt_dump writes JSON (0) or Rego text (1)", () => {
    const v = rt.rego('[{"result": {1, "a"}}]');
    expect(rt.cstring(rt.call("rt_dump", v, 0))).toBe('[{"result":[1,"a"]}]');
    expect(rt.cstring(rt.call("rt_dump", v, 1))).toBe('[{"result": {1, "a"}}]');
    expect(() => rt.call("rt_dump", v, 7)).toThrow(OpaAbort);
  });
});

describe("memo", () => {
  // The memo frame is a region the compiler lays out (compiler/emit/memo.ts); here any raw block does.
  const slots = (region: number, n: number) => Array.from(new Uint32Array(rt.memory.buffer, region, n));
  const frame = (values: number[]) => {
    const region = rt.call("opa_malloc", values.length * 4);
    new Uint32Array(rt.memory.buffer, region, values.length).set(values);
    return region;
  };

  test("a `with` saves the frame and starts a zeroed one; leaving it restores the saved one, nested too", () => {
    rt.call("rt_eval_begin", 0);
    const region = frame([7, 1, 0, 9]);
    rt.call("rt_memo_push", region, 16);
    expect(slots(region, 4)).toEqual([0, 0, 0, 0]);
    new Uint32Array(rt.memory.buffer, region, 4).set([3, 3, 3, 3]);
    rt.call("rt_memo_push", region, 16);
    expect(slots(region, 4)).toEqual([0, 0, 0, 0]);
    rt.call("rt_memo_pop", region, 16);
    expect(slots(region, 4)).toEqual([3, 3, 3, 3]);
    rt.call("rt_memo_pop", region, 16);
    expect(slots(region, 4)).toEqual([7, 1, 0, 9]);
    // One pop too many leaves a fresh frame, never another evaluation's values.
    rt.call("rt_memo_pop", region, 16);
    expect(slots(region, 4)).toEqual([0, 0, 0, 0]);
  });

  test("a new evaluation or a heap rewind forgets the saved frames", () => {
    for (const forget of [() => rt.call("rt_eval_begin", 0), () => rt.call("opa_heap_ptr_set", rt.call("opa_heap_ptr_get"))]) {
      const region = frame([5, 6]);
      rt.call("rt_memo_push", region, 8);
      forget();
      new Uint32Array(rt.memory.buffer, region, 2).set([8, 8]);
      rt.call("rt_memo_pop", region, 8);
      expect(slots(region, 2)).toEqual([0, 0]);
    }
  });
});

describe("rt_print", () => {
  const args = (...sets: string[]) => {
    const arr = rt.call("rt_array_new", sets.length);
    for (const s of sets) rt.call("rt_array_append", arr, rt.rego(s));
    return arr;
  };

  test("strings bare, other values as Rego text, empty sets as <undefined>", () => {
    rt.call("rt_print", args('{"hello"}', "{1.5}", "set()", '{{"a": {1}}}', '{[1, "x"]}'));
    expect(rt.printed).toEqual(['hello 1.5 <undefined> {"a": {1}} [1, "x"]']);
  });

  test("no arguments print an empty line", () => {
    rt.call("rt_print", args());
    expect(rt.printed).toEqual([""]);
  });
});
