/**
 * The regex.* builtins (OPA's topdown/regex.go and regex_template.go) on
 * top of the engine in regexp.ts. Type errors and invalid patterns make the
 * call undefined (null), as in OPA's non-strict mode; regex.is_valid alone
 * answers false instead.
 */

import { Value, ArrV, StrV, T_STRING, T_NUMBER, asStr, asNum, boolV, FALSE } from "../../value";
import { getRegexp, compileRegexp, quoteMeta, Regexp } from "./regexp";
import { cacheGet, cachePut, KIND_TEMPLATE } from "./cache";
import { parseRegex } from "./parser";

function isStr(v: Value | null): bool {
  return v !== null && v.kind == T_STRING;
}

/**
 * An integral number operand (OPA's IntOperand), clamped to the i32 range
 * (any count beyond it means "all matches" anyway); i64.MIN_VALUE if the
 * operand is not an integral number.
 */
function intArg(v: Value | null): i64 {
  if (v === null || v.kind != T_NUMBER) return i64.MIN_VALUE;
  const f = asNum(v).value;
  if (!isFinite(f) || Math.floor(f) != f) return i64.MIN_VALUE;
  if (f > 2147483647) return 2147483647;
  if (f < -2147483648) return -2147483648;
  return <i64>f;
}

function strArray(items: Array<string>): ArrV {
  const out = new Array<Value>(items.length);
  for (let i = 0; i < items.length; i++) out[i] = new StrV(items[i]);
  return new ArrV(out);
}

/** regex.is_valid(pattern): whether Go's regexp/syntax accepts pattern; false for non-strings. */
export function bi_regex_is_valid(pattern: Value | null): Value | null {
  if (!isStr(pattern)) return FALSE;
  return boolV(getRegexp(asStr(pattern!).value) !== null);
}

/** regex.match(pattern, value): whether value contains a match of pattern. */
export function bi_regex_match(pattern: Value | null, value: Value | null): Value | null {
  if (!isStr(pattern) || !isStr(value)) return null;
  const re = getRegexp(asStr(pattern!).value);
  if (re === null) return null;
  return boolV(re.matchString(asStr(value!).value));
}

/** regex.split(pattern, value): value cut at every match of pattern (Go's Split(s, -1)). */
export function bi_regex_split(pattern: Value | null, value: Value | null): Value | null {
  if (!isStr(pattern) || !isStr(value)) return null;
  const re = getRegexp(asStr(pattern!).value);
  if (re === null) return null;
  return strArray(re.split(asStr(value!).value));
}

/** regex.find_n(pattern, value, number): up to number matches (all when negative). */
export function bi_regex_find_n(pattern: Value | null, value: Value | null, number: Value | null): Value | null {
  if (!isStr(pattern) || !isStr(value)) return null;
  const n = intArg(number);
  if (n == i64.MIN_VALUE) return null;
  const re = getRegexp(asStr(pattern!).value);
  if (re === null) return null;
  const s = asStr(value!).value;
  const ms = re.allMatches(s, <i32>n, 2);
  const out = new Array<Value>(ms.length);
  for (let i = 0; i < ms.length; i++) out[i] = new StrV(s.substring(ms[i][0], ms[i][1]));
  return new ArrV(out);
}

/**
 * regex.find_all_string_submatch_n(pattern, value, number): for up to
 * number matches, the match and its groups ("" for a group that did not
 * take part), as Go's FindAllStringSubmatch.
 */
export function bi_regex_find_all_string_submatch_n(pattern: Value | null, value: Value | null, number: Value | null): Value | null {
  if (!isStr(pattern) || !isStr(value)) return null;
  const n = intArg(number);
  if (n == i64.MIN_VALUE) return null;
  const re = getRegexp(asStr(pattern!).value);
  if (re === null) return null;
  const s = asStr(value!).value;
  const ms = re.allMatches(s, <i32>n, 2 * (re.numSubexp + 1));
  const out = new Array<Value>(ms.length);
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    const groups = new Array<Value>(m.length >>> 1);
    for (let g = 0; g < groups.length; g++) {
      groups[g] = new StrV(m[2 * g] >= 0 ? s.substring(m[2 * g], m[2 * g + 1]) : "");
    }
    out[i] = new ArrV(groups);
  }
  return new ArrV(out);
}

/** regex.replace(s, pattern, value): Go's ReplaceAllString, $1 and ${name} expanded. */
export function bi_regex_replace(s: Value | null, pattern: Value | null, value: Value | null): Value | null {
  if (!isStr(s) || !isStr(pattern) || !isStr(value)) return null;
  const re = getRegexp(asStr(pattern!).value);
  if (re === null) return null;
  const src = asStr(s!).value;
  const res = re.replaceAll(src, asStr(value!).value);
  return res == src ? s : new StrV(res);
}

/**
 * regex.template_match(template, value, delimiter_start, delimiter_end):
 * the template's text outside the delimiters matches literally, the
 * regexes inside them as groups, anchored at both ends (OPA's copy of
 * gorilla/mux's template compiler). Delimiters are single ASCII characters
 * (one byte in OPA); nesting is counted, unbalanced delimiters are errors.
 */
export function bi_regex_template_match(template: Value | null, value: Value | null, start: Value | null, end: Value | null): Value | null {
  if (!isStr(template) || !isStr(value) || !isStr(start) || !isStr(end)) return null;
  const ds = asStr(start!).value;
  const de = asStr(end!).value;
  if (ds.length != 1 || de.length != 1 || ds.charCodeAt(0) >= 0x80 || de.charCodeAt(0) >= 0x80) return null;
  const tpl = asStr(template!).value;
  const re = cachedTemplate(tpl, ds.charCodeAt(0), de.charCodeAt(0));
  if (re === null) return null;
  return boolV(re.matchString(asStr(value!).value));
}

function cachedTemplate(tpl: string, ds: i32, de: i32): Regexp | null {
  const key = String.fromCharCode(ds) + String.fromCharCode(de) + tpl;
  const hit = cacheGet(KIND_TEMPLATE, key);
  if (hit !== null) return hit.value === null ? null : changetype<Regexp>(hit.value);
  const re = compileTemplate(tpl, ds, de);
  cachePut(KIND_TEMPLATE, key, re);
  return re;
}

function compileTemplate(tpl: string, ds: i32, de: i32): Regexp | null {
  // Top-level delimiter positions: pairs [open, close + 1].
  const idxs = new Array<i32>();
  let level = 0;
  let idx = 0;
  for (let i = 0; i < tpl.length; i++) {
    const c = tpl.charCodeAt(i);
    if (c == ds) {
      if (++level == 1) idx = i;
    } else if (c == de) {
      if (--level == 0) {
        idxs.push(idx);
        idxs.push(i + 1);
      } else if (level < 0) return null;
    }
  }
  if (level != 0) return null;
  const parts = new Array<string>();
  parts.push("^");
  let endAt = 0;
  for (let i = 0; i < idxs.length; i += 2) {
    const raw = tpl.substring(endAt, idxs[i]);
    endAt = idxs[i + 1];
    const patt = tpl.substring(idxs[i] + 1, endAt - 1);
    // Each variable must be a valid regex on its own, not just inside the whole.
    if (parseRegex("^" + patt + "$") === null) return null;
    parts.push(quoteMeta(raw));
    parts.push("(");
    parts.push(patt);
    parts.push(")");
  }
  parts.push(quoteMeta(tpl.substring(endAt)));
  parts.push("$");
  return compileRegexp(parts.join(""));
}
