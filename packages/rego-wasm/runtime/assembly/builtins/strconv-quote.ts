/**
 * Go's strconv quoting (Quote, QuoteToASCII, QuoteRune, CanBackquote) for
 * sprintf's %q and %#U. A helper module: index.ts does not re-export it.
 *
 * strconv.IsPrint needs Unicode's category tables; this keeps the parts that
 * decide real inputs (controls, non-ASCII spaces, line/paragraph separators,
 * format characters, private use, surrogates, non-characters) and treats
 * unassigned code points as printable.
 */

import { codePointAt, unitsOf, pushCodePoint } from "./text";

/** Approximation of Go's strconv.IsPrint (see the module comment). */
export function isPrint(r: i32): bool {
  if (r < 0x20 || (r >= 0x7f && r <= 0xa0) || r == 0xad) return false;
  if (r < 0x300) return true;
  if (r >= 0x600 && r <= 0x605) return false;
  if (r == 0x61c || r == 0x6dd || r == 0x70f || r == 0x180e || r == 0x1680) return false;
  if (r >= 0x2000 && r <= 0x200f) return false; // spaces, zero-width and direction marks
  if (r >= 0x2028 && r <= 0x202f) return false; // separators, embeddings, narrow nbsp
  if (r == 0x205f || (r >= 0x2060 && r <= 0x206f) || r == 0x3000) return false;
  if (r >= 0xd800 && r <= 0xf8ff) return false; // surrogates, private use
  if (r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb) || r == 0xfffe || r == 0xffff) return false;
  if (r == 0x110bd || r == 0x110cd || (r >= 0x1bca0 && r <= 0x1bca3) || (r >= 0x1d173 && r <= 0x1d17a)) return false;
  if ((r >= 0xe0000 && r <= 0xe0fff) || r >= 0xf0000) return false; // tags, private use planes
  if ((r & 0xfffe) == 0xfffe) return false; // non-characters at the end of each plane
  return r <= 0x10ffff;
}

const HEX = "0123456789abcdef";

function hexDigits(units: Array<i32>, v: i32, n: i32): void {
  for (let s = (n - 1) * 4; s >= 0; s -= 4) units.push(HEX.charCodeAt((v >> s) & 15));
}

/** strconv appendEscapedRune. */
function escapeRune(units: Array<i32>, r: i32, quote: i32, asciiOnly: bool): void {
  if (r == quote || r == 0x5c) {
    units.push(0x5c);
    pushCodePoint(units, r);
    return;
  }
  if (asciiOnly ? r < 0x80 && isPrint(r) : isPrint(r)) {
    pushCodePoint(units, r);
    return;
  }
  units.push(0x5c);
  switch (r) {
    case 0x07: units.push(0x61); return; // \a
    case 0x08: units.push(0x62); return; // \b
    case 0x0c: units.push(0x66); return; // \f
    case 0x0a: units.push(0x6e); return; // \n
    case 0x0d: units.push(0x72); return; // \r
    case 0x09: units.push(0x74); return; // \t
    case 0x0b: units.push(0x76); return; // \v
  }
  if (r < 0x20 || r == 0x7f) {
    units.push(0x78); // \xHH
    hexDigits(units, r, 2);
  } else if (r < 0x10000) {
    units.push(0x75); // \uHHHH
    hexDigits(units, r, 4);
  } else {
    units.push(0x55); // \UHHHHHHHH
    hexDigits(units, r, 8);
  }
}

/** Lone surrogates (JSON "\ud800") are U+FFFD to Go, whose JSON decoder replaces them. */
// @ts-ignore: decorator
@inline function validRune(r: i32): i32 {
  return r >= 0xd800 && r <= 0xdfff ? 0xfffd : r;
}

/** strconv.Quote / QuoteToASCII. */
export function quoteString(s: string, asciiOnly: bool): string {
  const units = new Array<i32>();
  units.push(0x22);
  for (let i = 0; i < s.length; ) {
    const r = codePointAt(s, i);
    i += unitsOf(r);
    escapeRune(units, validRune(r), 0x22, asciiOnly);
  }
  units.push(0x22);
  return String.fromCharCodes(units);
}

/** strconv.QuoteRune / QuoteRuneToASCII; r must be a valid code point. */
export function quoteRune(r: i32, asciiOnly: bool): string {
  const units = new Array<i32>();
  units.push(0x27);
  escapeRune(units, validRune(r), 0x27, asciiOnly);
  units.push(0x27);
  return String.fromCharCodes(units);
}

/** strconv.CanBackquote: one line, no backquote, no control characters but tab, no U+FEFF. */
export function canBackquote(s: string): bool {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x60 || c == 0xfeff || c == 0x7f || (c < 0x20 && c != 0x09)) return false;
  }
  return true;
}
