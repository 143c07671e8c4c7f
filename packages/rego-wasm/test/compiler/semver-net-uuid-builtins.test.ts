/**
 * semver.*, net.cidr_* and uuid.parse, compiled natively into the runtime:
 * results, undefined (OPA's errors, non-strict mode) and the edge cases of
 * OPA's parsers (SemVer 2.0.0, Go's net.ParseCIDR/ParseIP).
 */
import { resultSet } from "./evaluate-rego";

/** Evaluates `p` of `package t` with the input; [] when undefined. */
const evaluate = (body: string, input: unknown = {}): Promise<unknown> => resultSet(`package t\n${body}`, input);

/** f(arg) for every input arg, each answer or "undefined". */
async function each(call: string, args: unknown[]): Promise<unknown> {
  const result = await evaluate(`p := [r | some a in input.args; r := answer(a)]\nanswer(a) := r if r := ${call}\nelse := "undefined"`, { args });
  return (result as Array<{ x: unknown }>)[0]!.x;
}

describe("semver", () => {
  test("is_valid: SemVer 2.0.0 strictly, a leading v allowed, false for non-strings", async () => {
    const valid = ["0.0.0", "1.2.3", "v1.2.3", "1.2.3-0", "1.2.3-0a", "1.2.3-alpha.1-x", "1.2.3+01", "1.2.3-rc.1+build.5", "9223372036854775807.0.0"];
    const invalid = [
      "1",
      "1.2",
      "1.2.3.4",
      "01.2.3",
      "1.02.3",
      "1.2.03",
      "1.2.3-01",
      "1.2.3-alpha.01",
      "1.2.3-",
      "1.2.3+",
      "1.2.3-a..b",
      "1.2.3+a_b",
      "V1.2.3",
      "vv1.2.3",
      " 1.2.3",
      "1.2.x",
      "9223372036854775808.0.0",
      "",
    ];
    expect(await each("semver.is_valid(a)", valid)).toEqual(valid.map(() => true));
    expect(await each("semver.is_valid(a)", invalid)).toEqual(invalid.map(() => false));
    expect(await each("semver.is_valid(a)", [1, null, ["1.2.3"]])).toEqual([false, false, false]);
  });

  test("compare: precedence by numbers, then pre-release identifiers; build metadata ignored", async () => {
    const pairs = [
      ["1.0.0", "2.0.0"],
      ["2.0.0", "1.0.0"],
      ["1.10.0", "1.9.0"],
      ["1.2.3", "1.2.3"],
      ["1.0.0-alpha", "1.0.0"],
      ["1.0.0", "1.0.0-alpha"],
      ["1.0.0-alpha", "1.0.0-alpha.1"],
      ["1.0.0-alpha.1", "1.0.0-alpha.beta"],
      ["1.0.0-alpha.beta", "1.0.0-beta"],
      ["1.0.0-beta.2", "1.0.0-beta.11"],
      ["1.0.0-beta.11", "1.0.0-rc.1"],
      ["1.0.0-rc.1", "1.0.0"],
      ["1.2.3+01", "1.2.3+2"],
      ["v1.2.3", "1.2.3"],
      ["1.0.0-A", "1.0.0-a"],
    ];
    expect(await each("semver.compare(a[0], a[1])", pairs)).toEqual([-1, 1, 1, 0, -1, 1, -1, -1, -1, -1, -1, -1, 0, 0, -1]);
  });

  test("compare: undefined (an error in OPA) for invalid versions and non-strings", async () => {
    const pairs = [
      ["1", "1.0.0"],
      ["1.2.3", "1.2.3-01"],
      ["1.2.3-", "1.2.3"],
      [1, "1.0.0"],
      ["1.0.0", null],
    ];
    expect(await each("semver.compare(a[0], a[1])", pairs)).toEqual(pairs.map(() => "undefined"));
  });
});

describe("net.cidr_*", () => {
  test("cidr_contains: addresses and whole networks, IPv4, IPv6 and IPv4-mapped forms", async () => {
    const pairs = [
      ["10.0.0.0/8", "10.1.2.3"],
      ["10.0.0.0/8", "11.0.0.1"],
      ["10.0.0.0/8", "10.1.0.0/24"],
      ["10.0.0.0/24", "10.0.0.0/8"],
      ["2001:4860::/32", "2001:4860:4860::8888"],
      ["2001:4860::/32", "2001:4861::/48"],
      ["::ffff:10.0.0.0/104", "10.1.2.3"],
      ["10.0.0.0/8", "::ffff:10.1.2.3"],
      ["1.2.3.4/024", "1.2.3.5"],
      ["10.0.0.0/8", "::/0"],
    ];
    expect(await each("net.cidr_contains(a[0], a[1])", pairs)).toEqual([true, false, true, false, true, false, true, true, true, false]);
  });

  test("cidr_contains: undefined (an error in OPA) for what Go's parsers reject", async () => {
    const pairs = [
      ["not-a-cidr", "1.2.3.4"],
      ["10.0.0.0/8", "not-an-ip"],
      ["10.1.2.3", "10.1.2.3"],
      ["10.0.0.0/8", "010.1.2.3"],
      ["10.0.0.0/33", "10.0.0.1"],
      ["fe80::1%eth0/64", "fe80::1"],
      ["1:2:3:4:5:6:7:8:9/64", "::1"],
      ["1::2::3/64", "::1"],
      ["10.0.0.0/8", 1],
      ["10.0.0.0/", "10.0.0.1"],
      ["10.0.0.0/+8", "10.0.0.1"],
    ];
    expect(await each("net.cidr_contains(a[0], a[1])", pairs)).toEqual(pairs.map(() => "undefined"));
  });

  test("cidr_intersects and cidr_is_valid", async () => {
    const pairs = [
      ["192.168.1.0/24", "192.168.1.128/25"],
      ["10.0.0.0/8", "11.0.0.0/8"],
      ["fd1e::/64", "fd1e:0:0:0:1111::/72"],
      ["10.0.0.0/8", "::/0"],
      ["10.0.0.0/8", "x"],
    ];
    expect(await each("net.cidr_intersects(a[0], a[1])", pairs)).toEqual([true, false, true, false, "undefined"]);
    const cidrs = ["192.168.0.0/30", "192.168.0.500/30", "::/0", "::ffff:1.2.3.4/128", "1.2.3.4", "1.2.3.4/33", 5];
    expect(await each("net.cidr_is_valid(a)", cidrs)).toEqual([true, false, true, true, false, false, false]);
  });

  test("cidr_expand: every address, printed as Go prints it", async () => {
    const cidrs = ["192.168.1.1/30", "10.0.0.0/32", "2001:db8::/127", "::ffff:1.2.3.4/127", "1.2.3.4/33"];
    expect(await each("net.cidr_expand(a)", cidrs)).toEqual([
      ["192.168.1.0", "192.168.1.1", "192.168.1.2", "192.168.1.3"],
      ["10.0.0.0"],
      ["2001:db8::", "2001:db8::1"],
      ["1.2.3.4", "1.2.3.5"],
      "undefined",
    ]);
    const single = ["1:0:0:2:0:0:3:4/128", "::1/128", "1:0:2:0:3:0:4:0/128", "::1.2.3.4/128", "ABCD:0DB8::/128"];
    expect(await each("net.cidr_expand(a)", single)).toEqual([["1::2:0:0:3:4"], ["::1"], ["1:0:2:0:3:0:4:0"], ["::102:304"], ["abcd:db8::"]]);
  });

  test("cidr_merge: adjacent and contained networks merge; unmerged ones print as given", async () => {
    const lists = [
      ["192.0.128.0/24", "192.0.129.0/24"],
      ["10.0.0.0/8", "10.1.0.0/16"],
      ["192.168.1.0/25", "192.168.1.128/26", "192.168.1.192/26"],
      ["10.0.0.0/32", "10.0.0.2/32"],
      ["10.0.0.0/24", "10.0.1.0/25"],
      ["1900::1/96", "1900::20/64"],
      ["10.0.0.0/8", "2001:db8::/32"],
      ["0.0.0.0/1", "128.0.0.0/1"],
      ["::/1", "8000::/1"],
      [],
      ["2001:db8::1/128", "2001:db8::/128"],
    ];
    expect(await each("net.cidr_merge(a)", lists)).toEqual([
      ["192.0.128.0/23"],
      ["10.0.0.0/8"],
      ["192.168.1.0/24"],
      ["10.0.0.0/32", "10.0.0.2/32"],
      ["10.0.0.0/24", "10.0.1.0/25"],
      ["1900::/64"],
      ["10.0.0.0/8", "2001:db8::/32"],
      ["0.0.0.0/0"],
      ["::/0"],
      [],
      ["2001:db8::/127"],
    ]);
  });

  test("cidr_merge: a bare IPv4 address takes its classful default mask, as in OPA; bad elements are undefined", async () => {
    expect(await each("net.cidr_merge(a)", [["1.1.1.1"], ["192.168.1.1", "192.168.1.1"]])).toEqual([["1.1.1.1/8"], ["192.168.1.0/24"]]);
    const bad = [["2001:db8::1"], ["bad"], [1], "10.0.0.0/8"];
    expect(await each("net.cidr_merge(a)", bad)).toEqual(bad.map(() => "undefined"));
    expect(await evaluate('p := net.cidr_merge({"10.0.0.0/24", "10.0.1.0/24"})')).toEqual([{ x: ["10.0.0.0/23"] }]);
  });

  test("cidr_contains_matches: keys by index, element or object key; errors only where OPA reaches them", async () => {
    const q = (a: string, b: string): string => `p := net.cidr_contains_matches(${a}, ${b})`;
    expect(await evaluate(q('{"a": "10.0.0.0/8", "b": ["192.168.0.0/16", "x"]}', '["10.1.2.3", "192.168.3.4"]'))).toEqual([
      {
        x: [
          ["a", 0],
          ["b", 1],
        ],
      },
    ]);
    expect(await evaluate(q('"10.0.0.0/8"', '{["10.1.2.3", 7]}'))).toEqual([{ x: [["10.0.0.0/8", ["10.1.2.3", 7]]] }]);
    expect(await evaluate(q("[]", "[1]"))).toEqual([{ x: [] }]);
    expect(await evaluate(q("7", '["10.1.2.3"]'))).toEqual([{ x: [] }]);
    expect(await evaluate(q('["10.0.0.0/8"]', "[1]"))).toEqual([]);
    expect(await evaluate(q('["10.0.0.0/8", []]', "[]"))).toEqual([]);
    expect(await evaluate(q('["bad"]', '["10.1.2.3"]'))).toEqual([]);
  });

  test("cidr_contains_matches: 1100 networks against 1100 addresses", async () => {
    // Parsing both operands inside the n*m loop took seconds and over a GB here.
    const n = 1100;
    const home = (j: number): number => (j * 7) % n; // the one network address j lies in
    const nets = Array.from({ length: n }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
    const addrs = Array.from({ length: n }, (_, j) => `10.${home(j) >> 8}.${home(j) & 255}.${j & 255}`);
    // Neither matches; a network wholly inside network 5 does.
    addrs.push("2001:db8::1", "10.0.0.0/23", "10.0.5.128/25");
    const want = addrs.slice(0, n).map((_, j) => [home(j), j]);
    want.push([5, n + 2]);
    want.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    expect(await evaluate("p := net.cidr_contains_matches(input.a, input.b)", { a: nets, b: addrs })).toEqual([{ x: want }]);
    expect(await evaluate("p := net.cidr_contains_matches(input.a, input.b)", { a: nets, b: [...addrs, "bad"] })).toEqual([]);
  });
});

describe("uuid.parse", () => {
  test("version and variant for every UUID; time, node and clock sequence for versions 1 and 2", async () => {
    const ids = [
      "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
      "000003e8-48b9-21ee-b205-335096b39f47",
      "ffffffff-ffff-1fff-bfff-ffffffffffff",
      "00000000-0000-4000-c000-000000000000",
      "00000000-0000-5000-0000-000000000000",
      "00000000-0000-3000-e000-000000000000",
      "00000001-0000-2000-8002-010000000000",
    ];
    /* eslint-disable no-loss-of-precision -- the times as JSON.parse reads OPA's answers */
    expect(await each("uuid.parse(a)", ids)).toEqual([
      { version: 1, variant: "RFC4122", time: 886630433151182400, nodeid: "00-c0-4f-d4-30-c8", macvariables: "global:unicast", clocksequence: 180 },
      {
        version: 2,
        variant: "RFC4122",
        time: 1693566990121469600,
        nodeid: "33-50-96-b3-9f-47",
        macvariables: "local:multicast",
        clocksequence: 12805,
        id: 1000,
        domain: "Domain5",
      },
      { version: 1, variant: "RFC4122", time: -7607606781572612196, nodeid: "ff-ff-ff-ff-ff-ff", macvariables: "local:multicast", clocksequence: 16383 },
      { version: 4, variant: "Microsoft" },
      { version: 5, variant: "Reserved" },
      { version: 3, variant: "Future" },
      {
        version: 2,
        variant: "RFC4122",
        time: expect.any(Number),
        nodeid: "01-00-00-00-00-00",
        macvariables: "global:multicast",
        clocksequence: 2,
        id: 1,
        domain: "Org",
      },
    ]);
    /* eslint-enable no-loss-of-precision */
  });

  test("the forms google/uuid accepts: bare, urn:uuid: in any case, one character each side, 32 hex digits", async () => {
    const forms = [
      "urn:uuid:00000000-0000-4000-8000-000000000000",
      "URN:UUID:00000000-0000-4000-8000-000000000000",
      "{00000000-0000-4000-8000-000000000000}",
      "(00000000-0000-4000-8000-000000000000)",
      "0000000000004000800000000000000A",
    ];
    expect(await each("uuid.parse(a)", forms)).toEqual(forms.map(() => ({ version: 4, variant: "RFC4122" })));
  });

  test("undefined for what is not a UUID, and for non-strings", async () => {
    const bad = [
      "",
      "00000000-0000-4000-8000-00000000000",
      "00000000-0000-4000-8000-0000000000000",
      "00000000x0000-4000-8000-000000000000",
      "0000000g-0000-4000-8000-000000000000",
      "urn:uuix:00000000-0000-4000-8000-000000000000",
      "000000000000400080000000000000g0",
      "é0000000-0000-4000-8000-00000000000",
      123,
      null,
      ["00000000-0000-4000-8000-000000000000"],
    ];
    expect(await each("uuid.parse(a)", bad)).toEqual(bad.map(() => "undefined"));
  });
});
