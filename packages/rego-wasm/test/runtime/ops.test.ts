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
