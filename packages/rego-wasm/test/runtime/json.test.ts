/** JSON and Rego-literal parsing and serialisation (opa_json_parse/_dump, opa_value_parse/_dump). */
import { loadRuntime, Runtime } from "./harness";

let rt: Runtime;
beforeAll(async () => {
  rt = await loadRuntime();
});
afterEach(() => rt.reset());

const parse = (text: string, exportName = "opa_json_parse") => rt.call(exportName, ...rt.bytes(text));
const roundTrip = (text: string) => rt.jsonText(rt.valueText(text));

describe("JSON parsing", () => {
  test.each([
    ["null", "null"],
    ["true", "true"],
    [" false ", "false"],
    ["0", "0"],
    ["-12", "-12"],
    ['"a"', '"a"'],
    ["[]", "[]"],
    ["{}", "{}"],
    ['{"b": [1, {"c": null}], "a": {"x": []}}', '{"a":{"x":[]},"b":[1,{"c":null}]}'],
    ['[[[["deep"]]]]', '[[[["deep"]]]]'],
    ['{"a": 1, "a": 2}', '{"a":2}'],
  ])("%s -> %s", (text, want) => {
    expect(roundTrip(text)).toBe(want);
  });

  test.each([
    "",
    " ",
    "[1,",
    "[1,]",
    '{"a":1,}',
    "{1:2}",
    "{1,2}",
    "set()",
    "tru",
    "nul",
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "+1",
    '"abc',
    '"\\x"',
    '"\\u12"',
    '"a\nb"',
    "[1] 2",
    "NaN",
    "Infinity",
    "`raw`",
    '{"a" 1}',
  ])("invalid JSON %j -> 0", (text) => {
    expect(parse(text)).toBe(0);
  });

  test("unicode escapes, surrogate pairs and raw UTF-8", () => {
    expect(rt.json(rt.valueText('"\\u00e9\\u4e2d\\ud83d\\ude00"'))).toBe("é中😀");
    expect(rt.json(rt.valueText('"é中😀"'))).toBe("é中😀");
    expect(rt.jsonText(rt.valueText('"\\ud83d\\ude00"'))).toBe('"😀"');
    // unpaired surrogates become U+FFFD, as in Go
    expect(rt.json(rt.valueText('"a\\ud800b"'))).toBe("a\ufffdb");
    expect(rt.json(rt.valueText('"\\udc00"'))).toBe("\ufffd");
    expect(rt.json(rt.valueText('"\\ud800\\u0041"'))).toBe("\ufffdA");
  });

  test("escapes in output", () => {
    expect(rt.jsonText(rt.value('q"b\\s/\n\t\r\b\f\u0001'))).toBe('"q\\"b\\\\s/\\n\\t\\r\\b\\f\\u0001"');
    expect(rt.json(rt.valueText('"\\/"'))).toBe("/");
  });

  test("the dump of a string is JSON.stringify's text: every ASCII character at every offset of four-unit groups", () => {
    // The writer copies four units at a time while none needs escaping: each character,
    // escaped or not, at each position of a group, in strings of every length up to 13,
    // and one non-ASCII unit (two- and three-byte UTF-8, a surrogate pair) likewise.
    const plain = "abcdefghijklm";
    const specials = [...Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)), "é", "ࠀ", "￿", "😀"];
    for (const special of specials) {
      for (let len = 0; len <= 12; len++) {
        for (let at = 0; at <= len; at++) {
          const value = plain.slice(0, at) + special + plain.slice(at, len);
          expect(rt.jsonText(rt.value(value))).toBe(JSON.stringify(value));
        }
      }
    }
  });

  test("strings of every length with a special character at every offset", () => {
    // Quote and backslash (escaped), a control character (escaped), DEL (plain), non-ASCII:
    // each at every position of strings up to 20 bytes (plain ASCII is interned or widened
    // in one step; anything else takes the decoding path).
    const plain = "abcdefghijklmnopqrstu";
    for (const special of ['"', "\\", "\n", "\u0001", "\u007f", "é", "😀"]) {
      for (let len = 0; len <= 20; len++) {
        for (let at = 0; at <= len; at++) {
          const value = plain.slice(0, at) + special + plain.slice(at, len);
          expect(rt.json(rt.valueText(JSON.stringify(value)))).toBe(value);
        }
      }
    }
    // A raw control character or a missing closing quote is refused wherever it falls.
    for (let at = 0; at <= 17; at++) {
      expect(parse(`"${plain.slice(0, at)}\u0001${plain.slice(at, 17)}"`)).toBe(0);
      expect(parse(`"${plain.slice(0, at)}`)).toBe(0);
    }
  });

  test("long strings with a special byte anywhere across eight-byte blocks", () => {
    const plain = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
    for (const special of ['"', "\\", "\u001f", " ", "!", "#", "[", "]", "\u007f", "é", "😀"]) {
      for (let at = 0; at <= plain.length; at++) {
        const value = plain.slice(0, at) + special + plain.slice(at) + special;
        expect(rt.json(rt.valueText(JSON.stringify(value)))).toBe(value);
      }
    }
    // A raw control character or a byte above 0x7f at any offset of a long string.
    for (let at = 0; at < 40; at++) {
      const bytes = Buffer.from(`"${plain.slice(0, 40)}"`);
      bytes[1 + at] = 0xff;
      const addr = rt.call("opa_malloc", bytes.length);
      new Uint8Array(rt.memory.buffer).set(bytes, addr);
      expect(rt.json(rt.call("opa_json_parse", addr, bytes.length))).toBe(plain.slice(0, at) + "\ufffd" + plain.slice(at + 1, 40));
      bytes[1 + at] = 0x0a;
      new Uint8Array(rt.memory.buffer).set(bytes, addr);
      expect(rt.call("opa_json_parse", addr, bytes.length)).toBe(0);
    }
  });

  test("invalid UTF-8 bytes become U+FFFD", () => {
    const bytes = Uint8Array.from([0x22, 0x61, 0xff, 0x62, 0xc3, 0x22]); // "a\xffb\xc3"
    const addr = rt.call("opa_malloc", bytes.length);
    new Uint8Array(rt.memory.buffer).set(bytes, addr);
    expect(rt.json(rt.call("opa_json_parse", addr, bytes.length))).toBe("a\ufffdb\ufffd");
  });

  test("deep nesting is rejected instead of overflowing the stack", () => {
    expect(parse("[".repeat(100000) + "]".repeat(100000))).toBe(0);
    expect(roundTrip("[".repeat(500) + "]".repeat(500))).toBe("[".repeat(500) + "]".repeat(500));
  });

  test("objects print in sorted key order (byte order of UTF-8)", () => {
    expect(roundTrip('{"b":1,"a":2,"é":3,"😀":4,"\uffff":5,"B":6}')).toBe('{"B":6,"a":2,"b":1,"é":3,"\uffff":5,"😀":4}');
  });

  test("keys in any order, with duplicates and non-ASCII keys, sort and keep the last value", () => {
    // The parser sorts an object's pairs where it collected them: sorted keys (the fast
    // case), reversed, shuffled, duplicated (adjacent or not), escaped, non-ASCII, and
    // sizes on both sides of the 32 keys sorted by insertion, against a JS model.
    const names = ["a", "b", "id", "actor", "action", "B", "é", "中", "😀", "\uffff", "", "a\u0000", "ab", "aa", "route", "z".repeat(40)];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    for (let round = 0; round < 300; round++) {
      const n = round < 40 ? round : random(70);
      const pairs: Array<[string, number]> = [];
      for (let i = 0; i < n; i++) pairs.push([random(3) === 0 ? names[random(names.length)]! : `k${random(60)}`, i]);
      if (round % 3 === 0) pairs.sort(([a], [b]) => utf8Order(a, b));
      if (round % 3 === 1) pairs.sort(([a], [b]) => utf8Order(b, a));
      const model = new Map<string, number>();
      for (const [k, v] of pairs) model.set(k, v);
      const want =
        "{" +
        [...model.keys()]
          .sort(utf8Order)
          .map((k) => `${JSON.stringify(k)}:${model.get(k)}`)
          .join(",") +
        "}";
      const text = "{" + pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(", ") + "}";
      expect(roundTrip(text)).toBe(want);
      expect(rt.jsonText(rt.rego(text))).toBe(want);
    }
  });

  test("nested objects sort their own pairs only", () => {
    expect(roundTrip('{"z": {"b": 1, "a": 2}, "a": {"d": 1, "c": {"y": 0, "x": 1}, "d": 3}, "m": {}}')).toBe(
      '{"a":{"c":{"x":1,"y":0},"d":3},"m":{},"z":{"a":2,"b":1}}',
    );
  });
});

describe("numbers", () => {
  test.each([
    ["1.0", "1"],
    ["-0", "0"],
    ["1e2", "100"],
    ["1.5", "1.5"],
    ["0.1", "0.1"],
    ["-2.5e-3", "-0.0025"],
    ["1e21", "1e+21"],
    ["1e-7", "1e-7"],
    ["123456789012345", "123456789012345"],
    ["999999999999999", "999999999999999"],
    ["1000000000000000", "1000000000000000"],
    ["-1000", "-1000"],
    ["10", "10"],
    ["[0, -7, 100, 9]", "[0,-7,100,9]"],
    ["9007199254740993", "9007199254740993"], // kept exact via its text
    ["12345678901234567890", "12345678901234567890"],
    ["-98765432109876543210123", "-98765432109876543210123"],
    ["0.12345678901234567890", "0.12345678901234567890"],
    ["1e400", "1e400"],
    ["100000000000000000000", "100000000000000000000"],
    ["1e22", "1e+22"],
    ["1e23", "1e+23"], // AssemblyScript's strtod alone gives 9.999999999999999e22
    ["123.456", "123.456"],
    ["0.000001", "0.000001"],
    ["1.5e300", "1.5e+300"],
    ["5e-324", "5e-324"],
    ["1e-400", "1e-400"], // underflows to 0 in f64: keeps its text
    ["0e10", "0"],
    ["-0.0", "0"],
    ["2.2250738585072014e-308", "2.2250738585072014e-308"],
  ])("%s -> %s", (text, want) => {
    expect(roundTrip(text)).toBe(want);
  });

  test("random doubles survive parse and dump exactly, printed like JS", () => {
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const values: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const kind = i % 3;
      if (kind === 0) values.push((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
      else if (kind === 1) values.push(Math.round(rand() * 1e6) / 100);
      else values.push(new Float64Array(new Uint32Array([Math.floor(rand() * 2 ** 32), Math.floor(rand() * 2 ** 31)]).buffer)[0]);
    }
    const finite = values.filter(Number.isFinite);
    const text = rt.jsonText(rt.value(finite));
    expect(JSON.parse(text)).toEqual(finite);
    expect(text).toBe(JSON.stringify(finite));
  });

  test("numbers beyond f64 precision compare exactly (by their literal text)", () => {
    const cmp = (a: string, b: string) => rt.call("rt_compare", rt.valueText(a), rt.valueText(b));
    expect(cmp("28857836529306024611913", "28857836529306024611912")).toBe(1);
    expect(cmp("28857836529306024611912", "28857836529306024611913")).toBe(-1);
    expect(cmp("28857836529306024611913", "2.8857836529306024611913e22")).toBe(0);
    expect(cmp("-9007199254740993", "-9007199254740992")).toBe(-1);
    expect(cmp("9007199254740993", "9007199254740992")).toBe(1); // the second has no text: exact f64
    expect(cmp("1e-400", "0")).toBe(1);
    expect(cmp("-1e-400", "1e-400")).toBe(-1);
    expect(cmp("1e400", "2e400")).toBe(-1);
    expect(rt.regoText(rt.rego("{9007199254740993, 9007199254740992, 9007199254740994}"))).toBe("{9007199254740992, 9007199254740993, 9007199254740994}");
  });

  test("1 and 1.0 are equal; big integers compare numerically", () => {
    expect(rt.call("rt_equal", rt.valueText("1"), rt.valueText("1.0"))).toBe(1);
    expect(rt.call("rt_equal", rt.valueText('[1, {"a": 2}]'), rt.valueText('[1.0, {"a": 2e0}]'))).toBe(1);
    expect(rt.call("rt_compare", rt.valueText("12345678901234567890"), rt.valueText("2"))).toBe(1);
  });
});

describe("Rego literals", () => {
  const rego = (text: string) => rt.regoText(rt.rego(text));

  test.each([
    ["{1, 2}", "{1, 2}", "[1,2]"],
    ["{2, 1, 2}", "{1, 2}", "[1,2]"],
    ["set()", "set()", "[]"],
    ["{}", "{}", "{}"],
    ['{1: "a", "b": 2}', '{1: "a", "b": 2}', '{"1":"a","b":2}'],
    ['{[1, 2]: true, {"k": 1}: false}', '{[1, 2]: true, {"k": 1}: false}', '{"[1,2]":true,"{\\"k\\":1}":false}'],
    ["{{1}: 1}", "{{1}: 1}", '{"[1]":1}'],
    ['{"s": {set(), {1}}}', '{"s": {set(), {1}}}', '{"s":[[],[1]]}'],
    ["[1, 2,]", "[1, 2]", "[1,2]"],
    ["{1, 2,}", "{1, 2}", "[1,2]"],
    ['{"a": 1,}', '{"a": 1}', '{"a":1}'],
    ["`raw \\n`", '"raw \\\\n"', '"raw \\\\n"'],
    ['{"x": [null, true, 1.5, "s"]}', '{"x": [null, true, 1.5, "s"]}', '{"x":[null,true,1.5,"s"]}'],
  ])("%s", (text, wantRego, wantJson) => {
    expect(rego(text)).toBe(wantRego);
    expect(rt.jsonText(rt.rego(text))).toBe(wantJson);
  });

  test("keys of mixed kinds sort in Rego's order, a duplicate keeping the last value", () => {
    expect(rego('{"b": 1, 2: "x", "a": 3, 2: "y", "b": 4, null: 0, [1]: 5, 1.5: 6, "b": 7}')).toBe('{null: 0, 1.5: 6, 2: "y", "a": 3, "b": 7, [1]: 5}');
  });

  test("non-string keys that print alike collide in JSON, as in Go", () => {
    expect(rt.jsonText(rt.rego('{1: "num", "1": "str"}'))).toBe('{"1":"str"}');
    expect(rt.jsonText(rt.rego('{10: "a", 9: "b"}'))).toBe('{"10":"a","9":"b"}');
  });

  test.each(["{1, 2", "{1: 2, 3}", "{1, 2: 3}", "set(", "set(1)", "{,}", "[,]", "`open"])("invalid %j -> 0", (text) => {
    expect(parse(text, "opa_value_parse")).toBe(0);
  });

  test("sets and arrays differ", () => {
    expect(rt.call("rt_equal", rt.rego("{1, 2}"), rt.rego("[1, 2]"))).toBe(0);
    expect(rt.call("rt_type", rt.rego("{1}"))).toBe(7);
  });
});
