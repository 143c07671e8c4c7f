/**
 * Canonical strings: the policy's string constants, and the short strings
 * of the data document, findable by their bytes. Among canonical strings,
 * equal content means the same value (one address), which two things use:
 *
 * - the parsers hand out the canonical value for a string they would
 *   otherwise build: an input's names ("actor", "id", "member"...) cost no
 *   allocation, and a later lookup meets the very same string. The JSON
 *   parser (json.ts) hands out data strings too (a route id the data lists);
 *   the binary input decoder (binary.ts) constants only (internedUtf16);
 * - a lookup of a canonical string in a collection marked canonical (every
 *   string key in it is canonical: value.ts lookupString) is decided by
 *   comparing addresses: a key absent by address is absent, with no string
 *   compared. That is what makes `data.fields.retired[field]`, a field
 *   looked up in a set of hidden ones, or a route id among twenty cheap.
 *
 * Marks: a canonical string (StrV) or collection (ObjV, SetV) carries a mark
 * in its object header's spare `gcInfo2` word (the bump allocator has no
 * collector; __rt_new_uninit writes 0 there): STATIC_MARK for constants and
 * collections of constants only, which stay canonical for the instance's
 * life, or the current `__rt_canon_mark` (rt.ts) for data strings and the
 * collections holding them. A mark that is neither means "not known to be
 * canonical", never "different".
 *
 * Why this is safe:
 * - Constants are built by the module's start function (see
 *   compiler/emit/constants.ts), below every rewind point, and entered
 *   before `sealInterned`; nothing else enters the constants' table.
 * - Data strings are entered only by a JSON parse (opa_json_parse) while no
 *   evaluation has begun since the instance started or since the last data
 *   strings were forgotten (`__rt_loading_data`: how OPA hosts load data:
 *   the SDK's setData rewinds to its base and parses the data before any
 *   evaluation on it). They and the copy of the table holding them lie below
 *   `__rt_interned_top`; any rewind below that (opa_heap_ptr_set,
 *   rt_eval_begin, opa_free, __reset: rt.ts `lowered`) drops them all and
 *   moves `__rt_canon_mark` on, so nothing marked before counts as
 *   canonical again. A host that parses its input before its first
 *   evaluation gets the input's strings entered too: correct (they are
 *   forgotten when it rewinds below them), only no faster.
 * - A collection is marked only when every string key in it is canonical:
 *   empty ones (rt_object_new, rt_set_new), objects of the data's parse
 *   whose keys all are (json.ts), and ObjV#set/SetV#add keep or drop the
 *   mark by the key they add (value.ts keepCanonical).
 * - Only ASCII strings of at most MAX_INTERNED_LENGTH units are entered:
 *   anything else simply is not canonical (its lookups compare strings).
 */

import { OBJECT, TOTAL_OVERHEAD } from "~lib/rt/common";
import { StrV } from "./value";

/** Only short strings are entered: names, not payloads. */
const MAX_INTERNED_LENGTH: i32 = 32;

/** The mark of constants and of collections of constants only: canonical for the instance's life. */
export const STATIC_MARK: u32 = 1;

/** Open addressing, power-of-two capacity, at most half full. */
class InternTable {
  constructor(
    public slots: StaticArray<StrV | null>,
    public count: i32,
  ) {}
}

let sealed = false;

// @ts-ignore: decorator
@inline function hashStep(h: u32, c: u32): u32 {
  return (h ^ c) * 16777619; // FNV-1a
}

// @ts-ignore: decorator
@inline function current(): InternTable | null {
  return changetype<InternTable | null>(__rt_intern_table);
}

/** The mark in a value's header (see above). */
// @ts-ignore: decorator
@inline export function markOf(addr: usize): u32 {
  return changetype<OBJECT>(addr - TOTAL_OVERHEAD).gcInfo2;
}

// @ts-ignore: decorator
@inline export function setMark(addr: usize, mark: u32): void {
  changetype<OBJECT>(addr - TOTAL_OVERHEAD).gcInfo2 = mark;
}

/** Whether a mark says canonical now. */
// @ts-ignore: decorator
@inline export function isCanonicalMark(mark: u32): bool {
  return mark == STATIC_MARK || mark == __rt_canon_mark;
}

/** Hash of v's units when it can be entered (ASCII, short); -1 otherwise. */
function hashOfEnterable(s: string): i64 {
  const n = s.length;
  if (n > MAX_INTERNED_LENGTH) return -1;
  let h: u32 = 2166136261;
  for (let i = 0; i < n; i++) {
    const c = <u32>s.charCodeAt(i);
    if (c >= 0x80) return -1;
    h = hashStep(h, c);
  }
  return <i64>h;
}

/** Remembers a constant (ASCII and short, else ignored); only before sealing. */
export function internConstant(v: StrV): void {
  if (sealed) return;
  const h = hashOfEnterable(v.value);
  if (h < 0) return;
  let table = current();
  if (table === null || (table.count + 1) << 1 > table.slots.length) table = grow(table);
  if (place(table.slots, v, <u32>h)) {
    table.count++;
    setMark(changetype<usize>(v), STATIC_MARK);
  }
}

/** No more constants: called at the end of the start function. Data strings are entered into copies from now on. */
export function sealInterned(): void {
  sealed = true;
  __rt_constant_table = __rt_intern_table;
}

/** Whether a parse now is taken to load data (see above): its strings are entered. */
export function loadingData(): bool {
  return sealed && __rt_loading_data;
}

/** An evaluation begins: parses from now on are inputs, not data. */
export function evaluationBegins(): void {
  __rt_loading_data = false;
}

/**
 * Enters a string the data's parse made, that no canonical string equals
 * (the parser asked internedAscii first); ignored unless ASCII and short.
 */
export function internDataString(v: StrV): void {
  const h = hashOfEnterable(v.value);
  if (h < 0) return;
  let table = current();
  // The constants' table is never written after sealing: the first data string gets a copy.
  if (table === null || __rt_intern_table == __rt_constant_table || (table.count + 1) << 1 > table.slots.length) table = grow(table);
  if (place(table.slots, v, <u32>h)) {
    table.count++;
    setMark(changetype<usize>(v), __rt_canon_mark);
  }
  // The string, its value's bytes and the table are all below the heap top now.
  __rt_interned_top = __rt_heap_top();
}

/** The interned string equal to the ASCII bytes [ptr, ptr + len), or null. */
export function internedAscii(ptr: usize, len: i32): StrV | null {
  const table = current();
  if (table === null || len > MAX_INTERNED_LENGTH) return null;
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) h = hashStep(h, <u32>load<u8>(ptr + <usize>i));
  const slots = table.slots;
  const mask = slots.length - 1;
  let i = <i32>h & mask;
  // Never full (at most half), so an empty slot ends every probe.
  while (true) {
    const v = unchecked(slots[i]);
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
function place(slots: StaticArray<StrV | null>, v: StrV, h: u32): bool {
  const mask = slots.length - 1;
  let i = <i32>h & mask;
  while (true) {
    const w = unchecked(slots[i]);
    if (w === null) {
      unchecked((slots[i] = v));
      return true;
    }
    if (w.value == v.value) return false;
    i = (i + 1) & mask;
  }
  return false;
}

/** A new table in use, twice the size when old is at half load (else the same size: a copy), holding old's strings. */
function grow(old: InternTable | null): InternTable {
  let capacity = 64;
  if (old !== null) capacity = (old.count + 1) << 1 > old.slots.length ? old.slots.length << 1 : old.slots.length;
  const slots = new StaticArray<StrV | null>(capacity);
  if (old !== null) {
    const from = old.slots;
    for (let i = 0; i < from.length; i++) {
      const v = unchecked(from[i]);
      if (v === null) continue;
      const s = v.value;
      let h: u32 = 2166136261;
      for (let j = 0; j < s.length; j++) h = hashStep(h, <u32>s.charCodeAt(j));
      place(slots, v, h);
    }
  }
  const table = new InternTable(slots, old === null ? 0 : old.count);
  __rt_intern_table = changetype<usize>(table);
  return table;
}

/**
 * The policy constant equal to the UTF-16 units [ptr, ptr + 2 * len), or
 * null (also when a unit is not ASCII: only ASCII strings are entered).
 * The binary input encoding (binary.ts) carries strings as UTF-16. Constants
 * only, never a data string: the decoder remembers the answers in static
 * memory for the module's life (binary.ts constantOf), and a data string is
 * forgotten, its memory reused, when the host rewinds below it.
 */
export function internedUtf16(ptr: usize, len: i32): StrV | null {
  const table = changetype<InternTable | null>(__rt_constant_table);
  if (table === null || len > MAX_INTERNED_LENGTH) return null;
  let h: u32 = 2166136261;
  for (let i = 0; i < len; i++) {
    const c = <u32>load<u16>(ptr + (<usize>i << 1));
    if (c >= 0x80) return null;
    h = hashStep(h, c);
  }
  const slots = table.slots;
  const mask = slots.length - 1;
  let i = <i32>h & mask;
  while (true) {
    const v = unchecked(slots[i]);
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
