/**
 * The policy's string constants, findable by their bytes: the JSON parser
 * hands out the constant's own value for a string it already holds.
 *
 * Why: an input's strings are mostly names the policy itself spells out
 * ("actor", "route", "id", "member"...). Reusing the constant instead of
 * building a new value saves the parse two allocations per string, and a
 * later lookup of that key by the policy's constant meets the very same
 * string, which compareStrings settles by address.
 *
 * Safe to share: string values are immutable. Safe across heap rewinds: the
 * table and the constants are built by the module's start function (see
 * compiler/emit/constants.ts), below every rewind point, and the start
 * function seals the table when it is done, so nothing allocated later (and
 * rewound later) can ever be entered.
 */

import { StrV } from "./value";

/** Only short strings are looked up: names, not payloads. */
const MAX_INTERNED_LENGTH: i32 = 32;

/** Open addressing, power-of-two capacity, at most half full. */
let slots: StaticArray<StrV | null> | null = null;
let count: i32 = 0;
let sealed = false;

// @ts-ignore: decorator
@inline function hashStep(h: u32, c: u32): u32 {
  return (h ^ c) * 16777619; // FNV-1a
}

/** Remembers a constant (ASCII and short, else ignored); only before sealing. */
export function internConstant(v: StrV): void {
  if (sealed) return;
  const s = v.value;
  const n = s.length;
  if (n > MAX_INTERNED_LENGTH) return;
  let h: u32 = 2166136261;
  for (let i = 0; i < n; i++) {
    const c = <u32>s.charCodeAt(i);
    if (c >= 0x80) return;
    h = hashStep(h, c);
  }
  let table = slots;
  if (table === null || (count + 1) << 1 > table.length) table = grow(table);
  if (place(table, v, h)) count++;
}

/** No more entries: called at the end of the start function. */
export function sealInterned(): void {
  sealed = true;
}

/** The interned string equal to the ASCII bytes [ptr, ptr + len), or null. */
export function internedAscii(ptr: usize, len: i32): StrV | null {
  const table = slots;
  if (table === null || len > MAX_INTERNED_LENGTH) return null;
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) h = hashStep(h, <u32>load<u8>(ptr + <usize>i));
  const mask = table.length - 1;
  let i = <i32>h & mask;
  // Never full (at most half), so an empty slot ends every probe.
  while (true) {
    const v = unchecked(table[i]);
    if (v === null) return null;
    if (sameAscii(v.value, ptr, len)) return v;
    i = (i + 1) & mask;
  }
  return null;
}

function sameAscii(s: string, ptr: usize, len: i32): bool {
  if (s.length != len) return false;
  const p = changetype<usize>(s);
  for (let i = 0; i < len; i++) {
    if (<u32>load<u16>(p + (<usize>i << 1)) != <u32>load<u8>(ptr + <usize>i)) return false;
  }
  return true;
}

/** Enters v unless an equal string is there; true when entered. */
function place(table: StaticArray<StrV | null>, v: StrV, h: u32): bool {
  const mask = table.length - 1;
  let i = <i32>h & mask;
  while (true) {
    const w = unchecked(table[i]);
    if (w === null) {
      unchecked((table[i] = v));
      return true;
    }
    if (w.value == v.value) return false;
    i = (i + 1) & mask;
  }
  return false;
}

function grow(old: StaticArray<StrV | null> | null): StaticArray<StrV | null> {
  const table = new StaticArray<StrV | null>(old === null ? 64 : old.length << 1);
  if (old !== null) {
    for (let i = 0; i < old.length; i++) {
      const v = unchecked(old[i]);
      if (v === null) continue;
      const s = v.value;
      let h: u32 = 2166136261;
      for (let j = 0; j < s.length; j++) h = hashStep(h, <u32>s.charCodeAt(j));
      place(table, v, h);
    }
  }
  slots = table;
  return table;
}

/**
 * The interned string equal to the UTF-16 units [ptr, ptr + 2 * len), or
 * null (also when a unit is not ASCII: only ASCII constants are entered).
 * The binary input encoding (binary.ts) carries strings as UTF-16.
 */
export function internedUtf16(ptr: usize, len: i32): StrV | null {
  const table = slots;
  if (table === null || len > MAX_INTERNED_LENGTH) return null;
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) {
    const c = <u32>load<u16>(ptr + (<usize>i << 1));
    if (c >= 0x80) return null;
    h = hashStep(h, c);
  }
  const mask = table.length - 1;
  let i = <i32>h & mask;
  while (true) {
    const v = unchecked(table[i]);
    if (v === null) return null;
    const s = v.value;
    if (s.length == len && sameUnits(changetype<usize>(s), ptr, len)) return v;
    i = (i + 1) & mask;
  }
  return null;
}

function sameUnits(a: usize, b: usize, len: i32): bool {
  for (let i = 0; i < len; i++) {
    if (load<u16>(a + (<usize>i << 1)) != load<u16>(b + (<usize>i << 1))) return false;
  }
  return true;
}
