/**
 * The contract between emitted policy code and the Wasm runtime
 * (`runtime/assembly`): every function the emitter may call, by its export
 * name in `build/runtime.wasm`, with its Wasm signature and meaning.
 *
 * "v" = i32 address of a runtime value; 0 = undefined. Values are immutable
 * once built, except the Make*-created collections the emitted code fills.
 *
 * The linker (`emit/link.ts`) resolves these names to function indices in the
 * runtime module, appends the policy's functions and data, adds the
 * policy-dependent ABI exports (eval, opa_eval, entrypoints, builtins), and
 * sets the exported mutable global `__heap_start` (the allocator starts above
 * it) past the policy's data segment. `rt_heap_base()` tells the linker where
 * the runtime's own static data ends.
 *
 * Builtins compiled natively are exported as `bi_<name>` with dots turned into
 * underscores (`object.get` -> `bi_object_get`), taking and returning values.
 * A builtin returns 0 for undefined, including on type or domain errors
 * (OPA's non-strict mode); only conflicts and fatal errors abort.
 */

export type WasmType = "i32" | "i64" | "f64";

export interface RuntimeFunction {
  params: WasmType[];
  result: WasmType | null;
  doc: string;
}

export const RUNTIME_FUNCTIONS: Record<string, RuntimeFunction> = {
  // --- constructors
  rt_null: { params: [], result: "i32", doc: "the null value" },
  rt_bool: { params: ["i32"], result: "i32", doc: "boolean from 0/1" },
  rt_number_int: { params: ["i32"], result: "i32", doc: "number from a 32-bit integer" },
  rt_number_ref: { params: ["i32", "i32"], result: "i32", doc: "number from its literal text (UTF-8 ptr, len)" },
  rt_string: { params: ["i32", "i32"], result: "i32", doc: "string from UTF-8 bytes (ptr, len); copies nothing it does not need" },
  rt_string_const: {
    params: ["i32", "i32"],
    result: "i32",
    doc: "rt_string for a constant built by the start function: also entered in the intern table the JSON parser reuses",
  },
  rt_intern_seal: { params: [], result: null, doc: "end of the start function's constants: the intern table takes no more entries" },
  rt_array_new: { params: ["i32"], result: "i32", doc: "empty array with the given capacity hint" },
  rt_array_append: { params: ["i32", "i32"], result: null, doc: "append value to array" },
  rt_object_new: { params: [], result: "i32", doc: "empty object" },
  rt_object_insert: { params: ["i32", "i32", "i32"], result: null, doc: "object[key] = value (replace)" },
  rt_object_insert_once: {
    params: ["i32", "i32", "i32"],
    result: null,
    doc: "object[key] = value; opa_abort(eval_conflict_error) if key holds a different value",
  },
  rt_object_merge: {
    params: ["i32", "i32"],
    result: "i32",
    doc: "deep merge, a wins on non-object leaves and is returned as is if either is not an object (OPA); 0 if either is undefined",
  },
  rt_set_new: { params: [], result: "i32", doc: "empty set" },
  rt_set_add: { params: ["i32", "i32"], result: null, doc: "add value to set" },
  rt_set_from_array: {
    params: ["i32"],
    result: "i32",
    doc: "the set of an array's elements (a set comprehension collected as an array, sorted once); the array is consumed (may become the set's storage)",
  },
  rt_object_from_arrays_once: {
    params: ["i32", "i32"],
    result: "i32",
    doc: "object of keys[i] -> vals[i] (an object comprehension collected as two arrays, sorted once); opa_abort(eval_conflict_error) if a key repeats with a different value",
  },

  // --- access
  rt_dot: { params: ["i32", "i32"], result: "i32", doc: "source[key]: array index (integral number), object key, set member; 0 if absent or not a collection" },
  rt_len: { params: ["i32"], result: "i32", doc: "number of elements (array/object/set) or code points (string) as a number value; 0 otherwise" },
  rt_scan_len: { params: ["i32"], result: "i32", doc: "element count of an array/object/set as a raw i32, -1 if not a collection" },
  rt_scan_key: { params: ["i32", "i32"], result: "i32", doc: "key of the i-th element: index number (array), key (object), element (set)" },
  rt_scan_value: { params: ["i32", "i32"], result: "i32", doc: "value of the i-th element: element (array), value (object), element (set)" },
  rt_equal: { params: ["i32", "i32"], result: "i32", doc: "raw 1 if structurally equal (1 == 1.0), else 0; both args non-zero" },
  rt_compare: { params: ["i32", "i32"], result: "i32", doc: "raw -1/0/1 in Rego's total order" },
  rt_switch: {
    params: ["i32", "i32"],
    result: "i32",
    doc: "raw case number (1..n) a rule index's table (object: scalar constant -> case number) holds for the value under Rego equality; 0 if undefined or absent",
  },
  rt_type: { params: ["i32"], result: "i32", doc: "raw type code: 0 undefined, 1 null, 2 boolean, 3 number, 4 string, 5 array, 6 object, 7 set" },

  // --- evaluation support
  rt_memo_push: { params: ["i32", "i32"], result: null, doc: "entering a `with`: save the memo frame (region address, byte size) and zero it" },
  rt_memo_pop: { params: ["i32", "i32"], result: null, doc: "leaving a `with`: restore the frame the matching push saved (zero it if none)" },
  rt_print: { params: ["i32"], result: null, doc: "print(): array of sets of argument values -> one line through opa_println" },
  rt_eval_begin: { params: ["i32"], result: null, doc: "start an evaluation: heap top = arg (if non-zero), saved memo frames and regex cache forgotten" },
  rt_parse_input: { params: ["i32", "i32"], result: "i32", doc: "parse input text (ptr, len) as a Rego value; 0 when len is 0; aborts on bad input" },
  rt_dump: { params: ["i32", "i32"], result: "i32", doc: "serialise value: fmt 0 JSON, 1 Rego literal; NUL-terminated UTF-8 address" },
  rt_input_decode: {
    params: ["i32", "i32"],
    result: "i32",
    doc: "decode input in the binary input encoding (ptr, len; compiler/binary-input.ts) as a value; aborts on malformed bytes",
  },
  rt_result_code: {
    params: ["i32"],
    result: "i32",
    doc: "a result set as 0 ([]), 1 ([{result: false}]) or 2 ([{result: true}]), else the address of its NUL-terminated JSON dump",
  },
  rt_ctx_input: { params: ["i32"], result: "i32", doc: "input of an eval context" },
  rt_ctx_data: { params: ["i32"], result: "i32", doc: "data of an eval context" },
  rt_ctx_entrypoint: { params: ["i32"], result: "i32", doc: "raw entrypoint id of an eval context" },
  rt_ctx_set_result: { params: ["i32", "i32"], result: null, doc: "store the result set in an eval context" },
  rt_heap_base: { params: [], result: "i32", doc: "end of the runtime's static data (__heap_base)" },
};

/** Export name of a natively compiled builtin: `object.get` -> `bi_object_get`. */
export function nativeBuiltinExport(name: string): string {
  return "bi_" + name.replace(/\./g, "_");
}

/** Name of the exported mutable i32 global the allocator starts above. */
export const HEAP_START_GLOBAL = "__heap_start";
