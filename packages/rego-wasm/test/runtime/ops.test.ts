/** The rt_* value helpers emitted code calls: constructors, collections, access, order. */
import { loadRuntime, Runtime, OpaAbort } from "./harness";

let rt: Runtime;
beforeAll(async () => {
  rt = await loadRuntime();
});
afterEach(() => rt.reset());

const str = (s: string) => rt.call("rt_string", ...rt.bytes(s));

describe("constructors", () => {
  test("scalars", () => {
    expect(rt.json(rt.call("rt_null"))).toBeNull();
    expect(rt.json(rt.call("rt_bool", 1))).toBe(true);
    expect(rt.json(rt.call("rt_bool", 0))).toBe(false);
    expect(rt.json(rt.call("rt_number_int", -42))).toBe(-42);
    expect(rt.jsonText(rt.call("rt_number_ref", ...rt.bytes("12345678901234567890")))).toBe("12345678901234567890");
    expect(rt.json(rt.call("rt_number_ref", ...rt.bytes("-1.5e3")))).toBe(-1500);
    expect(rt.json(str("héllo 😀"))).toBe("héllo 😀");
    expect(rt.json(str(""))).toBe("");
  });

  test("rt_number_ref aborts on text that is not a number literal", () => {
    expect(() => rt.call("rt_number_ref", ...rt.bytes("1x"))).toThrow(OpaAbort);
  });

  test("arrays keep order, objects and sets are sorted and unique", () => {
    const arr = rt.call("rt_array_new", 2);
    for (const v of [3, 1, 3, 2]) rt.call("rt_array_append", arr, rt.call("rt_number_int", v));
    expect(rt.json(arr)).toEqual([3, 1, 3, 2]);
    expect(rt.json(rt.call("rt_array_new", 0))).toEqual([]);

    const obj = rt.call("rt_object_new");
    rt.call("rt_object_insert", obj, str("b"), rt.call("rt_number_int", 1));
    rt.call("rt_object_insert", obj, str("a"), rt.call("rt_number_int", 2));
    rt.call("rt_object_insert", obj, str("b"), rt.call("rt_number_int", 3)); // replaces
    expect(rt.jsonText(obj)).toBe('{"a":2,"b":3}');

    const set = rt.call("rt_set_new");
    for (const v of [3, 1, 3, 2]) rt.call("rt_set_add", set, rt.call("rt_number_int", v));
    rt.call("rt_set_add", set, rt.valueText("1.0"));
    expect(rt.regoText(set)).toBe("{1, 2, 3}");
  });

  test("rt_object_insert_once accepts the same value and aborts on a different one", () => {
    const obj = rt.call("rt_object_new");
    rt.call("rt_object_insert_once", obj, str("k"), rt.value([1]));
    rt.call("rt_object_insert_once", obj, str("k"), rt.value([1.0]));
    expect(rt.json(obj)).toEqual({ k: [1] });
    expect(() => rt.call("rt_object_insert_once", obj, str("k"), rt.value([2]))).toThrow(new OpaAbort("eval_conflict_error: object keys must be unique"));
  });
});

describe("rt_object_merge", () => {
  const merge = (a: unknown, b: unknown) => rt.json(rt.call("rt_object_merge", rt.value(a), rt.value(b)));

  test("deep merges objects; on other shared keys the first (base document) wins", () => {
    expect(merge({ a: 1, x: { p: 1, q: { r: 1 } } }, { b: 2, x: { q: { s: 2 }, t: 3 } })).toEqual({
      a: 1,
      b: 2,
      x: { p: 1, q: { r: 1, s: 2 }, t: 3 },
    });
    expect(merge({ a: 1 }, { a: 2 })).toEqual({ a: 1 });
    expect(merge({ a: { b: 1 } }, { a: 5 })).toEqual({ a: { b: 1 } });
    expect(merge({}, {})).toEqual({});
  });

  test("a non-object on either side leaves the first as it is (OPA); undefined stays undefined", () => {
    expect(merge([1], {})).toEqual([1]);
    expect(merge({ a: 1 }, "x")).toEqual({ a: 1 });
    expect(rt.call("rt_object_merge", 0, rt.value({}))).toBe(0);
    expect(rt.call("rt_object_merge", rt.value({}), 0)).toBe(0);
  });

  test("does not modify its arguments", () => {
    const a = rt.value({ x: { p: 1 } });
    const b = rt.value({ x: { q: 2 } });
    rt.call("rt_object_merge", a, b);
    expect(rt.json(a)).toEqual({ x: { p: 1 } });
    expect(rt.json(b)).toEqual({ x: { q: 2 } });
  });
});

describe("rt_dot", () => {
  const dot = (src: number, key: number) => rt.json(rt.call("rt_dot", src, key));
  test("array index must be an integral number in range", () => {
    const arr = rt.value(["a", "b"]);
    expect(dot(arr, rt.value(0))).toBe("a");
    expect(dot(arr, rt.valueText("1.0"))).toBe("b");
    expect(dot(arr, rt.value(2))).toBeUndefined();
    expect(dot(arr, rt.value(-1))).toBeUndefined();
    expect(dot(arr, rt.value(0.5))).toBeUndefined();
    expect(dot(arr, rt.value("0"))).toBeUndefined();
  });
  test("object key of any type", () => {
    expect(dot(rt.value({ a: { b: 1 } }), rt.value("a"))).toEqual({ b: 1 });
    expect(dot(rt.value({ a: 1 }), rt.value("z"))).toBeUndefined();
    expect(dot(rt.rego('{1: "one"}'), rt.valueText("1.0"))).toBe("one");
  });
  test("set member returns the member", () => {
    const set = rt.rego("{1, [2]}");
    const member = rt.call("rt_dot", set, rt.valueText("[2.0]"));
    expect(rt.jsonText(member)).toBe("[2]");
    expect(dot(set, rt.value(3))).toBeUndefined();
  });
  test("scalars and undefined give undefined", () => {
    expect(dot(rt.value("abc"), rt.value(0))).toBeUndefined();
    expect(dot(0, rt.value(0))).toBeUndefined();
    expect(dot(rt.value([1]), 0)).toBeUndefined();
  });
});

describe("length and scanning", () => {
  test("rt_len counts elements and code points", () => {
    expect(rt.json(rt.call("rt_len", rt.value([1, 2, 3])))).toBe(3);
    expect(rt.json(rt.call("rt_len", rt.value({ a: 1 })))).toBe(1);
    expect(rt.json(rt.call("rt_len", rt.rego("{1, 2}")))).toBe(2);
    expect(rt.json(rt.call("rt_len", rt.value("héllo😀")))).toBe(6);
    expect(rt.json(rt.call("rt_len", rt.value("")))).toBe(0);
    expect(rt.call("rt_len", rt.value(5))).toBe(0);
    expect(rt.call("rt_len", 0)).toBe(0);
  });

  const scan = (v: number) => {
    const n = rt.call("rt_scan_len", v);
    return Array.from({ length: n }, (_, i) => [rt.json(rt.call("rt_scan_key", v, i)), rt.json(rt.call("rt_scan_value", v, i))]);
  };

  test("arrays by index", () => {
    expect(scan(rt.value(["x", "y"]))).toEqual([
      [0, "x"],
      [1, "y"],
    ]);
  });
  test("array indices: the small ones are numbers built once, which outlive a heap rewind; past them, new numbers", () => {
    const top = rt.call("opa_heap_ptr_get");
    const arr = rt.value(Array.from({ length: 70 }, (_, i) => i));
    const keys = Array.from({ length: 70 }, (_, i) => rt.call("rt_scan_key", arr, i));
    expect(keys.map((k) => rt.json(k))).toEqual(Array.from({ length: 70 }, (_, i) => i));
    expect(keys.slice(0, 64).every((k) => k < top)).toBe(true);
    expect(keys.slice(64).every((k) => k >= top)).toBe(true);
    expect(rt.call("rt_scan_key", rt.value(["a"]), 0)).toBe(keys[0]);
    rt.call("opa_heap_ptr_set", top);
    new Uint8Array(rt.memory.buffer).fill(0xa5, top, top + 64 * 1024);
    expect(rt.json(keys[63])).toBe(63);
    expect(rt.call("rt_equal", keys[5], rt.call("rt_number_int", 5))).toBe(1);
  });
  test("objects in sorted key order", () => {
    expect(scan(rt.value({ b: 1, a: 2, c: 3 }))).toEqual([
      ["a", 2],
      ["b", 1],
      ["c", 3],
    ]);
    expect(scan(rt.rego('{"s": 1, 2: 2, null: 3}'))).toEqual([
      [null, 3],
      [2, 2],
      ["s", 1],
    ]);
  });
  test("sets in sorted order, key = value = element", () => {
    expect(scan(rt.rego('{"b", 1, "a"}'))).toEqual([
      [1, 1],
      ["a", "a"],
      ["b", "b"],
    ]);
  });
  test("non-collections give -1, empty ones 0; out-of-range indices 0", () => {
    expect(rt.call("rt_scan_len", rt.value("abc"))).toBe(-1);
    expect(rt.call("rt_scan_len", rt.value(1))).toBe(-1);
    expect(rt.call("rt_scan_len", 0)).toBe(-1);
    expect(rt.call("rt_scan_len", rt.value([]))).toBe(0);
    expect(rt.call("rt_scan_key", rt.value([1]), 1)).toBe(0);
    expect(rt.call("rt_scan_value", rt.value([1]), -1)).toBe(0);
    for (const v of [rt.value({ a: 1 }), rt.rego('{"a"}'), rt.value(["a"])]) {
      for (const i of [-1, 1, 0x7fffffff, -0x80000000]) {
        expect(rt.call("rt_scan_key", v, i)).toBe(0);
        expect(rt.call("rt_scan_value", v, i)).toBe(0);
      }
    }
    expect(rt.call("rt_scan_key", rt.value("abc"), 0)).toBe(0);
    expect(rt.call("rt_scan_value", rt.value(7), 0)).toBe(0);
    expect(rt.call("rt_scan_value", 0, 0)).toBe(0);
  });
});

describe("building collections key by key", () => {
  // ObjV#set and SetV#add append a key greater than the last one without a
  // search: the same result whatever order the keys come in.
  test("objects: keys in order, out of order, equal to the last, of mixed kinds", () => {
    const build = (pairs: Array<[string, number]>) => {
      const obj = rt.call("rt_object_new");
      for (const [k, v] of pairs) rt.call("rt_object_insert", obj, rt.rego(k), rt.call("rt_number_int", v));
      return rt.regoText(obj);
    };
    expect(
      build([
        ['"a"', 1],
        ['"b"', 2],
        ['"c"', 3],
      ]),
    ).toBe('{"a": 1, "b": 2, "c": 3}');
    expect(
      build([
        ['"c"', 3],
        ['"b"', 2],
        ['"a"', 1],
      ]),
    ).toBe('{"a": 1, "b": 2, "c": 3}');
    expect(
      build([
        ['"a"', 1],
        ['"c"', 3],
        ['"b"', 2],
        ['"c"', 4],
        ['"c"', 5],
      ]),
    ).toBe('{"a": 1, "b": 2, "c": 5}');
    expect(
      build([
        ['"ab"', 1],
        ['"a"', 2],
        ['"abc"', 3],
        ['""', 4],
      ]),
    ).toBe('{"": 4, "a": 2, "ab": 1, "abc": 3}');
    // Code point order, not UTF-16 order: U+FFFD sorts before U+1F600.
    expect(
      build([
        ['"\ufffd"', 1],
        ['"😀"', 2],
      ]),
    ).toBe('{"\ufffd": 1, "😀": 2}');
    expect(
      build([
        ['"😀"', 2],
        ['"\ufffd"', 1],
      ]),
    ).toBe('{"\ufffd": 1, "😀": 2}');
    expect(
      build([
        ['"s"', 1],
        ["2", 2],
        ["null", 3],
        ["[1]", 4],
        ["1", 5],
        ["1.0", 6],
      ]),
    ).toBe('{null: 3, 1: 6, 2: 2, "s": 1, [1]: 4}');
  });

  test("sets: elements in order, out of order, repeated", () => {
    const build = (items: string[]) => {
      const set = rt.call("rt_set_new");
      for (const v of items) rt.call("rt_set_add", set, rt.rego(v));
      return rt.regoText(set);
    };
    expect(build(['"a"', '"b"', '"c"'])).toBe('{"a", "b", "c"}');
    expect(build(['"c"', '"a"', '"b"', '"c"', '"a"'])).toBe('{"a", "b", "c"}');
    expect(build(["3", "1", '"x"', "2", "1", "[]", "null"])).toBe('{null, 1, 2, 3, "x", []}');
  });
});

describe("values built over a rewound heap", () => {
  // The allocator does not zero the runtime's values (rt.ts __new): their
  // constructors write every field. Memory a rewind hands out again holds
  // the previous evaluation's bytes; values built there must not read them.
  test("every kind of value, built on memory full of garbage, is what was built", () => {
    const top = rt.call("opa_heap_ptr_get");
    const build = () => {
      const arr = rt.call("rt_array_new", 0);
      rt.call("rt_array_append", arr, rt.call("rt_number_int", 7));
      rt.call("rt_array_append", arr, rt.call("rt_number_ref", ...rt.bytes("1.5")));
      rt.call("rt_array_append", arr, rt.call("rt_string", ...rt.bytes("s")));
      const obj = rt.call("rt_object_new");
      rt.call("rt_object_insert", obj, rt.call("rt_string", ...rt.bytes("k")), arr);
      const set = rt.call("rt_set_new");
      rt.call("rt_set_add", set, obj);
      rt.call("rt_set_add", set, rt.call("rt_number_int", 1));
      const scanned = rt.call("rt_scan_key", arr, 1); // a number made for the index
      return [rt.regoText(set), rt.regoText(rt.valueText('{"x": [1, "y", {"z": null}], "n": 123456789012345678901234567890}')), rt.json(scanned)];
    };
    const clean = build();
    for (const garbage of [0xff, 0xa5, 0x01]) {
      rt.call("opa_heap_ptr_set", top);
      new Uint8Array(rt.memory.buffer).fill(garbage, top, top + 64 * 1024);
      expect(build()).toEqual(clean);
    }
    expect(clean).toEqual(['{1, {"k": [7, 1.5, "s"]}}', '{"n": 123456789012345678901234567890, "x": [1, "y", {"z": null}]}', 1]);
  });
});

describe("order and types", () => {
  test("rt_compare follows Rego's total order", () => {
    const order = [
      "null",
      "false",
      "true",
      "-1",
      "2.5",
      "10",
      '""',
      '"a"',
      '"b"',
      "[]",
      "[1]",
      "[1, 2]",
      "[2]",
      "{}",
      '{"a": 1}',
      '{"a": 2}',
      '{"b": 0}',
      "set()",
      "{1}",
      "{1, 2}",
      "{2}",
    ];
    const addrs = order.map((t) => rt.rego(t));
    for (let i = 0; i < addrs.length; i++) {
      for (let j = 0; j < addrs.length; j++) {
        expect([order[i], order[j], rt.call("rt_compare", addrs[i], addrs[j])]).toEqual([order[i], order[j], Math.sign(i - j)]);
      }
    }
  });

  test("rt_equal is structural and ignores key order", () => {
    expect(rt.call("rt_equal", rt.valueText('{"a":1,"b":[1,2]}'), rt.valueText('{"b":[1.0,2],"a":1}'))).toBe(1);
    expect(rt.call("rt_equal", rt.value([1, 2]), rt.value([2, 1]))).toBe(0);
    expect(rt.call("rt_equal", rt.value(null), rt.value(false))).toBe(0);
    expect(rt.call("rt_equal", rt.value(""), 0)).toBe(0);
  });

  test("rt_type codes", () => {
    expect(
      [0, rt.value(null), rt.value(true), rt.value(1), rt.value("s"), rt.value([]), rt.value({}), rt.rego("set()")].map((v) => rt.call("rt_type", v)),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
