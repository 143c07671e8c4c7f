/**
 * Differential test of the regex engine against JavaScript's RegExp (with
 * the `u` flag) on random patterns from the syntax both engines share and
 * mean the same by: Go's leftmost-first semantics are Perl's, which is
 * what a backtracking engine computes. Known differences are avoided by
 * construction: JavaScript resets captures inside a repeated group on each
 * iteration (Go keeps the last ones that matched), so only the whole match
 * is compared for such patterns; and where a repeated group can match the
 * empty string, JavaScript retries other paths while Go (like Perl) stops
 * iterating, so repeated groups always contain a mandatory character here.
 * `.` is tested on text without \r. A quarter of the patterns run under
 * (?i) / the `i` flag; the texts hold no ſ or K (Kelvin), which JavaScript
 * counts as word characters for \b under /iu and Go never does. JavaScript's search loop may also try a match in
 * the middle of a surrogate pair (Go never looks inside a code point);
 * such texts are skipped.
 */
import { regexCaller, Caller } from "./regex-call";

let c: Caller;
beforeAll(async () => {
  c = await regexCaller();
});
afterEach(() => c.rt.reset());

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function genPattern(r: () => number, depth: number, inRepeat: boolean, st: { caps: number; capInRepeat: boolean }): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const atom = (): string => {
    const k = r();
    if (depth > 2 || k < 0.45)
      return pick(["a", "b", "c", ".", "[ab]", "[^a]", "\\d", "\\w", "\\W", "x", "é", "😀", "[a-c]", "\\b", "\\B", "^", "$", "(?i:A)", "[[:alpha:]]"]);
    if (k < 0.7) {
      st.caps++;
      if (inRepeat) st.capInRepeat = true;
      return "(" + genPattern(r, depth + 1, inRepeat, st) + ")";
    }
    return "(?:" + genPattern(r, depth + 1, inRepeat, st) + ")";
  };
  const piece = (): string => {
    const q = r();
    if (q < 0.6) return atom();
    const op = pick(["*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{0,2}?", "{2,}"]);
    const a = (() => {
      const k = r();
      if (depth > 2 || k < 0.5) return pick(["a", "b", ".", "[ab]", "\\w", "x"]);
      st.caps++;
      st.capInRepeat = true;
      // A mandatory character keeps the repeated group from matching "":
      // on empty iterations JavaScript backtracks where Perl and Go stop.
      const body = "(?:" + genPattern(r, depth + 1, true, st) + ")" + pick(["a", "b", "[ab]", "."]);
      return k < 0.75 ? "(" + body + ")" : "(?:" + body + ")";
    })();
    return a + op;
  };
  const n = 1 + Math.floor(r() * 3);
  let s = "";
  for (let i = 0; i < n; i++) s += piece();
  if (r() < 0.2) s += "|" + genPattern(r, depth + 1, inRepeat, st);
  return s;
}

function genText(r: () => number): string {
  const alphabet = ["a", "b", "c", "x", " ", "1", "é", "😀", "A", "\n"];
  const n = Math.floor(r() * 8);
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
  return s;
}

/** Go's FindAllStringSubmatch(s, -1), computed with a JavaScript RegExp. */
function jsFindAll(re: RegExp, s: string): (string | undefined)[][] | null {
  const out: (string | undefined)[][] = [];
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    if (start > 0 && /[\udc00-\udfff]/.test(s[start]) && /[\ud800-\udbff]/.test(s[start - 1])) return null;
    const end = start + m[0].length;
    let accept = true;
    if (end === pos) {
      if (start === prevEnd) accept = false;
      const cp = s.codePointAt(pos);
      pos += pos < s.length ? (cp! > 0xffff ? 2 : 1) : 1;
    } else pos = end;
    prevEnd = end;
    if (accept) out.push([...m]);
  }
  return out;
}

test("random patterns agree with a backtracking engine", () => {
  const r = rng(Number(process.env.RX_SEED ?? 20261121));
  let compared = 0;
  for (let i = 0; i < 1500; i++) {
    const st = { caps: 0, capInRepeat: false };
    const body = genPattern(r, 0, false, st);
    // Every fourth pattern is case-insensitive as a whole: Go's (?i) and
    // JavaScript's /iu both fold with Unicode simple case folding.
    const fold = i % 4 == 3;
    const p = fold ? "(?i)" + body : body;
    let js: RegExp;
    try {
      // Go's (?i:A) is JavaScript's [Aa] here; [[:alpha:]] is [A-Za-z].
      js = new RegExp(body.replace(/\(\?i:A\)/g, "(?:[Aa])").replace(/\[\[:alpha:\]\]/g, "[A-Za-z]"), fold ? "giu" : "gu");
    } catch {
      continue;
    }
    for (let k = 0; k < 5; k++) {
      const s = genText(r);
      const all = jsFindAll(js, s);
      if (all === null) continue;
      const want = all.map((m) => (st.capInRepeat ? [m[0]] : m.map((g) => g ?? "")));
      const got = (c.call("regex.find_all_string_submatch_n", p, s, -1) as string[][]).map((m) => (st.capInRepeat ? [m[0]] : m));
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        throw new Error(`pattern ${JSON.stringify(p)} on ${JSON.stringify(s)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      }
      compared++;
    }
    c.rt.reset();
  }
  expect(compared).toBeGreaterThan(1000);
});
