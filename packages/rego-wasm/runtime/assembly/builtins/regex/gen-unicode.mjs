#!/usr/bin/env node
/**
 * Generates unicode-data.ts: the Unicode tables of the regex engine, taken
 * from the JavaScript engine's own Unicode database (V8/ICU `\p{...}` and
 * case-insensitive `u` regexps), so nothing is downloaded.
 *
 *   node runtime/assembly/builtins/regex/gen-unicode.mjs
 *
 * Tables (what Go's regexp/syntax knows through package unicode):
 * - the two-letter general categories (one-letter ones are unions of them,
 *   built at run time) and the scripts Go 1.21+ lists;
 * - simple case folding orbits: for every code point with a non-trivial
 *   orbit, the next code point of its orbit (Go's unicode.SimpleFold order:
 *   the next larger one, wrapping around to the smallest).
 *
 * Everything is stored as raw numbers in static arrays (no string headers):
 * range tables as base-128 varints of "gap since the previous range's end"
 * and "range length - 1" (about 1.3 bytes per number), so the runtime's
 * static data grows by about 17 KB.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CATEGORIES = ["Cc","Cf","Co","Cs","Ll","Lm","Lo","Lt","Lu","Mc","Me","Mn","Nd","Nl","No",
  "Pc","Pd","Pe","Pf","Pi","Po","Ps","Sc","Sk","Sm","So","Zl","Zp","Zs"];
const SCRIPTS = ["Adlam","Ahom","Anatolian_Hieroglyphs","Arabic","Armenian","Avestan","Balinese","Bamum",
  "Bassa_Vah","Batak","Bengali","Bhaiksuki","Bopomofo","Brahmi","Braille","Buginese","Buhid",
  "Canadian_Aboriginal","Carian","Caucasian_Albanian","Chakma","Cham","Cherokee","Chorasmian","Common",
  "Coptic","Cuneiform","Cypriot","Cypro_Minoan","Cyrillic","Deseret","Devanagari","Dives_Akuru","Dogra",
  "Duployan","Egyptian_Hieroglyphs","Elbasan","Elymaic","Ethiopic","Georgian","Glagolitic","Gothic",
  "Grantha","Greek","Gujarati","Gunjala_Gondi","Gurmukhi","Han","Hangul","Hanifi_Rohingya","Hanunoo",
  "Hatran","Hebrew","Hiragana","Imperial_Aramaic","Inherited","Inscriptional_Pahlavi",
  "Inscriptional_Parthian","Javanese","Kaithi","Kannada","Katakana","Kawi","Kayah_Li","Kharoshthi",
  "Khitan_Small_Script","Khmer","Khojki","Khudawadi","Lao","Latin","Lepcha","Limbu","Linear_A","Linear_B",
  "Lisu","Lycian","Lydian","Mahajani","Makasar","Malayalam","Mandaic","Manichaean","Marchen",
  "Masaram_Gondi","Medefaidrin","Meetei_Mayek","Mende_Kikakui","Meroitic_Cursive","Meroitic_Hieroglyphs",
  "Miao","Modi","Mongolian","Mro","Multani","Myanmar","Nabataean","Nag_Mundari","Nandinagari",
  "New_Tai_Lue","Newa","Nko","Nushu","Nyiakeng_Puachue_Hmong","Ogham","Ol_Chiki","Old_Hungarian",
  "Old_Italic","Old_North_Arabian","Old_Permic","Old_Persian","Old_Sogdian","Old_South_Arabian",
  "Old_Turkic","Old_Uyghur","Oriya","Osage","Osmanya","Pahawh_Hmong","Palmyrene","Pau_Cin_Hau",
  "Phags_Pa","Phoenician","Psalter_Pahlavi","Rejang","Runic","Samaritan","Saurashtra","Sharada",
  "Shavian","Siddham","SignWriting","Sinhala","Sogdian","Sora_Sompeng","Soyombo","Sundanese",
  "Syloti_Nagri","Syriac","Tagalog","Tagbanwa","Tai_Le","Tai_Tham","Tai_Viet","Takri","Tamil","Tangsa",
  "Tangut","Telugu","Thaana","Thai","Tibetan","Tifinagh","Tirhuta","Toto","Ugaritic","Vai","Vithkuqi",
  "Wancho","Warang_Citi","Yezidi","Yi","Zanabazar_Square"];

const MAX = 0x10ffff;
const chars = [];
for (let cp = 0; cp <= MAX; cp++) chars.push(String.fromCodePoint(cp));

function ranges(re) {
  const out = [];
  let lo = -1;
  for (let cp = 0; cp <= MAX + 1; cp++) {
    const m = cp <= MAX && re.test(chars[cp]);
    if (m && lo < 0) lo = cp;
    if (!m && lo >= 0) { out.push([lo, cp - 1]); lo = -1; }
  }
  return out;
}

/** Appends n as a little-endian base-128 varint (high bit: more bytes follow). */
function varint(n, bytes) {
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n > 0) b |= 0x80;
    bytes.push(b);
  } while (n > 0);
}

/** A range table as varints: gap since the previous range's end, then length - 1, per range. */
function encode(rs, bytes) {
  let prev = -1;
  for (const [lo, hi] of rs) { varint(lo - prev - 1, bytes); varint(hi - lo, bytes); prev = hi; }
}

const wrap = (nums) => nums.map(String).join(",").replace(/(.{1,110})(,|$)/g, "\n  $1$2").trimEnd();

// Case folding orbits: union of x with its single-code-point lower/upper
// forms when a case-insensitive Unicode regexp equates them.
const parent = new Map();
const find = (x) => { while (parent.has(x) && parent.get(x) !== x) x = parent.get(x); return x; };
const union = (a, b) => { const ra = find(a), rb = find(b); if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb)); if (!parent.has(Math.min(ra, rb))) parent.set(Math.min(ra, rb), Math.min(ra, rb)); };
const esc = (c) => c.replace(/[\\^$.*+?()[\]{}|\/-]/g, "\\$&");
for (let cp = 0; cp <= MAX; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = chars[cp];
  const cands = new Set([c.toLowerCase(), c.toUpperCase(), c.toUpperCase().toLowerCase(), c.toLowerCase().toUpperCase()]);
  for (const d of cands) {
    if (d === c || [...d].length !== 1) continue;
    if (new RegExp("^" + esc(c) + "$", "iu").test(d)) union(cp, d.codePointAt(0));
  }
}
const orbits = new Map();
for (const x of parent.keys()) { const r = find(x); if (!orbits.has(r)) orbits.set(r, []); orbits.get(r).push(x); }
const next = [];
for (const members of orbits.values()) {
  if (members.length < 2) continue;
  members.sort((a, b) => a - b);
  members.forEach((m, i) => next.push([m, members[(i + 1) % members.length]]));
}
next.sort((a, b) => a[0] - b[0]);
// Runs lo..hi (step stride) with next = c + delta. Upper/lower pairs
// interleave (U+0100 -> +1, U+0101 -> -1, ...), so a code point may extend
// either of the two most recent runs; any code point is thus covered by at
// most two runs, adjacent in lo order (the lookup in charclass.ts relies on it).
const runs = [];
for (const [c, n] of next) {
  const delta = n - c;
  let extended = false;
  for (const r of runs.slice(-2).reverse()) {
    if (r.delta !== delta) continue;
    const step = c - r.hi;
    if ((r.stride === 0 && (step === 1 || step === 2)) || (r.stride !== 0 && step === r.stride)) {
      r.stride = step; r.hi = c; extended = true; break;
    }
  }
  if (!extended) runs.push({ lo: c, hi: c, delta, stride: 0 });
}
runs.sort((a, b) => a.lo - b.lo);
const here = path.dirname(fileURLToPath(import.meta.url));
const names = [...CATEGORIES, ...SCRIPTS];
const blob = [];
const offsets = [];
for (const c of CATEGORIES) { offsets.push(blob.length); encode(ranges(new RegExp("^\\p{gc=" + c + "}$", "u")), blob); }
for (const sc of SCRIPTS) { offsets.push(blob.length); encode(ranges(new RegExp("^\\p{sc=" + sc + "}$", "u")), blob); }
offsets.push(blob.length);
const nameBytes = [...Buffer.from(names.join(","), "ascii")];
const foldWords = [];
for (const r of runs) {
  if (r.hi - r.lo >= 1 << 11 || Math.abs(r.delta) >= 1 << 20) throw new Error("fold run does not pack");
  foldWords.push(r.lo | (r.stride << 21), (r.hi - r.lo) | ((r.delta + (1 << 20)) << 11));
}
const out = `/**
 * GENERATED by gen-unicode.mjs from the JavaScript engine's Unicode ${process.versions.unicode}
 * database: do not edit. Go's regexp uses Unicode 15.0; the differences are
 * newly assigned code points only. Decoded by charclass.ts.
 */

/** Table names (${CATEGORIES.length} two-letter general categories, then ${SCRIPTS.length} scripts), ASCII, comma-separated. */
export const TABLE_NAMES: StaticArray<u8> = [${wrap(nameBytes)}
];

/** Number of general categories at the start of TABLE_NAMES. */
export const CATEGORY_COUNT: i32 = ${CATEGORIES.length};

/** Table i occupies TABLE_BLOB[TABLE_OFFSETS[i] .. TABLE_OFFSETS[i + 1]). */
export const TABLE_OFFSETS: StaticArray<i32> = [${wrap(offsets)}
];

/** Range tables: per range, varint(gap since the previous range's end), varint(length - 1). */
export const TABLE_BLOB: StaticArray<u8> = [${wrap(blob)}
];

/**
 * Simple case folding orbits as runs, two words each: lo | stride << 21,
 * then (hi - lo) | (delta + 2^20) << 11. For c in lo..hi stepping by
 * stride (0: lo only), the next member of c's orbit is c + delta. Sorted by lo.
 */
export const FOLD_RUNS: StaticArray<u32> = [${wrap(foldWords)}
];
`;
writeFileSync(path.join(here, "unicode-data.ts"), out);
console.log(`${names.length} tables, ${blob.length} blob bytes, ${runs.length} fold runs, ${next.length} folding code points`);
