/**
 * regex.globs_match, compiled natively: the answers of OPA's library
 * (yashtewari/glob-intersection v0.2.0, NonEmpty), quirks included, and
 * undefined where OPA reports a builtin error (malformed glob, non-string;
 * non-strict mode). Expected values were checked against the library's
 * algorithm run in Go.
 */
import { valueOfX } from "./evaluate-rego";

const evaluate = valueOfX;

/** Each [glob1, glob2] pair through regex.globs_match: true, false or "undefined". */
async function globsMatch(pairs: unknown[][]): Promise<unknown> {
  const source = `package t
m(pr) := x if { x := regex.globs_match(pr[0], pr[1]) } else := "undefined"
p := [m(pr) | some pr in input]`;
  return evaluate(source, pairs);
}

async function expectAll(table: Array<[string, string, boolean | "undefined"]>): Promise<void> {
  const got = await globsMatch(table.map(([a, b]) => [a, b]));
  expect(table.map(([a, b], i) => [a, b, (got as unknown[])[i]])).toEqual(table);
}

test("literals, dots and classes", async () => {
  await expectAll([
    ["abc", "abc", true],
    ["abc", "abd", false],
    ["abc", "ab", false],
    ["a.c", "abc", true],
    ["[abc]", "[cde]", true],
    ["[abc]", "[def]", false],
    ["[😀-😂]", "😁", true],
    ["[a\\-z]", "-", true],
    ["[a\\-z]", "b", false],
  ]);
});

test("star and plus against each other and against literals", async () => {
  await expectAll([
    ["a*b", ".*", true],
    [".*", "a*b", true],
    ["a*b", "c.*", false],
    ["a*b", "aaab", true],
    ["a*b", "aaac", false],
    ["[a-z]+", "[0-9]*", false],
    ["[a-z]+", "[0-9a]*", true],
    ["[a-z]+", "[0-9]+", false],
    ["a+", "a*", true],
    ["a+", "b+", false],
    ["x.*y", "x123y", true],
    ["x.*y", "x123z", false],
    ["foo*bar", "fobar", true],
    ["a.a.[0-9]+z", ".b.b2359825792*594823z", true],
  ]);
});

test("escapes make special characters literal", async () => {
  await expectAll([
    ["a\\*", "a\\*", true],
    ["a\\*", "a*", false],
    ["a\\*", "ab", false],
    ["\\.", "a", false],
    [".", "\\.", true],
    ["\\[x\\]", "[x]", false],
    ["[\\]]", "\\]", true],
    ["[a-z]+\\[[0-9]+\\]", "foo\\[1\\]", true],
    ["[a-z]+\\[[0-9]+\\]", 'foo["bar"]', false],
  ]);
});

test("the library's quirks: non-empty strings only, merged flags, dot against an empty class", async () => {
  await expectAll([
    ["", "", true],
    ["", "a*", false],
    ["", ".*", false],
    ["a", "", false],
    ["a*", "b*", false],
    ["a+a+", "a", true],
    ["a*a+", "a", true],
    [".", "[]", true],
    ["a", "[]", false],
  ]);
});

test("malformed globs and non-strings make the call undefined", async () => {
  await expectAll([
    ["*a", "a", "undefined"],
    ["a**", "a", "undefined"],
    ["a*+", "a", "undefined"],
    ["]", "a", "undefined"],
    ["[\\]]", "]", "undefined"],
    ["[a", "a", "undefined"],
    ["a\\", "a", "undefined"],
    ["[-a]", "a", "undefined"],
    ["[a-c-e]", "a", "undefined"],
    ["[a-]", "a", "undefined"],
    ["[a--]", "a", "undefined"],
    ["[z-a]", "a", "undefined"],
    ["a", "[a-", "undefined"],
  ]);
  expect(
    await globsMatch([
      [1, "a"],
      ["a", null],
      [["a"], "a"],
    ]),
  ).toEqual(["undefined", "undefined", "undefined"]);
});

test("globs from data, and a long adversarial pair answers quickly", async () => {
  const source = `package t
p contains i if { some i, g in input.globs; regex.globs_match("b.*", g) }`;
  expect(await evaluate(source, { globs: ["bar", "baz", "foo", "b*"] })).toEqual([0, 1, 3]);
  const many = ".*a".repeat(40);
  // The library tries every split of the a's among the stars here (seconds
  // in Go); the memoised walk answers at once.
  const splits = ".*.".repeat(12) + "c.*";
  const start = Date.now();
  const pairs = [
    [many, "a".repeat(60) + "b"],
    [many, "a".repeat(60)],
    [".*a".repeat(14) + "c", "a".repeat(40)],
    [splits, "a".repeat(30)],
    [splits, "a".repeat(30) + "c"],
  ];
  expect(await globsMatch(pairs)).toEqual([false, true, false, false, false]);
  expect(Date.now() - start).toBeLessThan(5000);
});

test("long globs: every step is memoised and the walk needs no deep recursion", async () => {
  // Each (star, position) pair took its own walk over the rest (seconds
  // here); 9 KB globs nest the walk thousands of steps deep, which
  // overflowed the Wasm stack when it recursed.
  const blocks = "a+b+".repeat(2250);
  await expectAll([
    [".*a".repeat(400) + "b+", "a".repeat(800) + "c+", false],
    [".*a".repeat(400) + "b+", "a".repeat(800) + "b", true],
    [blocks, "aabb".repeat(2250), true],
    [blocks, "aabb".repeat(2249) + "aabc", false],
    [blocks, "aabb".repeat(2251), false],
  ]);
});
