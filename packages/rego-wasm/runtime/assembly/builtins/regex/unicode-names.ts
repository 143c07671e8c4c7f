/**
 * Resolves the names of \p{...} classes to code point sets exactly as Go's
 * regexp/syntax unicodeTable does (Go 1.25+): the name is canonicalised
 * (separators " ", "_" and "-" dropped, first letter upper case, the rest
 * lower case) and then looked up among Any, Assigned, ASCII, LC, the general
 * categories ("L", "Lu", "Cn"), the scripts, and the category aliases of
 * Unicode ("Letter", "Uppercase_Letter", "digit", "punct", ...).
 *
 * So \p{greek}, \p{LU} and \p{uppercase letter} work, and, as in Go,
 * scripts whose names are not already canonical (Old_Italic, SignWriting)
 * cannot be named. Go's "C" is Cc|Cf|Co|Cs; unassigned code points are Cn.
 */

import { TABLE_NAMES, CATEGORY_COUNT } from "./unicode-data";
import { MAX_RUNE, addRange, cleanClass, negateClass, decodeTable, tableHas } from "./charclass";

/** Unicode's long category names, canonicalised, and the category each names. */
const ALIASES: string[] = [
  "Other:C", "Control:Cc", "Cntrl:Cc", "Format:Cf", "Unassigned:Cn", "Privateuse:Co", "Surrogate:Cs",
  "Letter:L", "Casedletter:LC", "Lowercaseletter:Ll", "Modifierletter:Lm", "Otherletter:Lo",
  "Titlecaseletter:Lt", "Uppercaseletter:Lu", "Mark:M", "Combiningmark:M", "Spacingmark:Mc",
  "Enclosingmark:Me", "Nonspacingmark:Mn", "Number:N", "Decimalnumber:Nd", "Digit:Nd", "Letternumber:Nl",
  "Othernumber:No", "Punctuation:P", "Punct:P", "Connectorpunctuation:Pc", "Dashpunctuation:Pd",
  "Closepunctuation:Pe", "Finalpunctuation:Pf", "Initialpunctuation:Pi", "Otherpunctuation:Po",
  "Openpunctuation:Ps", "Symbol:S", "Currencysymbol:Sc", "Modifiersymbol:Sk", "Mathsymbol:Sm",
  "Othersymbol:So", "Separator:Z", "Lineseparator:Zl", "Paragraphseparator:Zp", "Spaceseparator:Zs"
];

/** Go's canonicalName: no " ", "_", "-"; first letter upper case, the rest lower case (ASCII). */
function canonical(s: string): string {
  const parts = new Array<string>();
  let first = true;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c == 0x20 || c == 0x5f || c == 0x2d) continue;
    if (first) {
      if (c >= 0x61 && c <= 0x7a) c -= 0x20;
      first = false;
    } else if (c >= 0x41 && c <= 0x5a) c += 0x20;
    parts.push(String.fromCharCode(c));
  }
  return parts.join("");
}

/** Name of table i of unicode-data.ts, as spelt there. */
function tableName(i: i32): string {
  let idx = 0;
  let start = 0;
  const n = TABLE_NAMES.length;
  for (let k = 0; k <= n; k++) {
    if (k < n && TABLE_NAMES[k] != 0x2c) continue;
    if (idx == i) {
      const parts = new Array<string>();
      for (let j = start; j < k; j++) parts.push(String.fromCharCode(<i32>TABLE_NAMES[j]));
      return parts.join("");
    }
    idx++;
    start = k + 1;
  }
  return "";
}

/**
 * Appends the general category named exactly `name` ("Lu"; "L" for all of
 * L*; "LC" = Lu|Ll|Lt; "Cn" = unassigned) to out; false if there is none.
 */
function categoryInto(name: string, out: Array<i32>): bool {
  if (name == "LC") return categoryInto("Lu", out) && categoryInto("Ll", out) && categoryInto("Lt", out);
  if (name == "Cn") {
    const all = new Array<i32>();
    for (let i = 0; i < CATEGORY_COUNT; i++) decodeTable(i, all);
    const cn = negateClass(cleanClass(all));
    for (let i = 0; i < cn.length; i++) out.push(cn[i]);
    return true;
  }
  if (name.length == 0 || name.length > 2) return false;
  let found = false;
  for (let i = 0; i < CATEGORY_COUNT; i++) {
    const t = tableName(i);
    if (t == name || (name.length == 1 && t.charAt(0) == name)) {
      decodeTable(i, out);
      found = true;
    }
  }
  return found;
}

/** The class named by \p{name}, or null when Go does not know the name. */
export function unicodeClass(name: string): Array<i32> | null {
  const key = canonical(name);
  const out = new Array<i32>();
  if (key == "Any") {
    addRange(out, 0, MAX_RUNE);
    return out;
  }
  if (key == "Assigned") {
    categoryInto("Cn", out);
    return negateClass(cleanClass(out));
  }
  if (key == "Ascii") {
    addRange(out, 0, 0x7f);
    return out;
  }
  if (key == "Lc") {
    categoryInto("LC", out);
    return cleanClass(out);
  }
  if (categoryInto(key, out)) return cleanClass(out);
  for (let i = CATEGORY_COUNT; ; i++) {
    const t = tableName(i);
    if (t.length == 0) break;
    if (t == key) {
      decodeTable(i, out);
      return out;
    }
  }
  for (let i = 0; i < ALIASES.length; i++) {
    const entry = ALIASES[i];
    const colon = entry.indexOf(":");
    if (entry.substring(0, colon) == key) {
      categoryInto(entry.substring(colon + 1), out);
      return cleanClass(out);
    }
  }
  return null;
}

/** Unicode letters and decimal digits, for the names in Go's Regexp.Expand ($name). */
export function isLetterOrDigit(c: i32): bool {
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a);
  // Rare path (non-ASCII names in a replacement template): walk L* and Nd.
  for (let i = 0; i < CATEGORY_COUNT; i++) {
    const name = tableName(i);
    if ((name.charAt(0) == "L" || name == "Nd") && tableHas(i, c)) return true;
  }
  return false;
}
