/**
 * Compile cache for patterns (regexes, globs, templates) within one
 * evaluation: the same pattern string used in a loop is compiled once.
 *
 * Why it must be per evaluation: compiled patterns live on the bump heap,
 * which the host rewinds before every evaluation (opa_heap_ptr_set,
 * rt_eval_begin), freeing them. `resetRegexCache()` is the exact hook for
 * that moment; until the runtime core calls it from its rewind path, the
 * cache protects itself: it drops itself when the heap top is found below
 * where it last saw it (a rewind), or when a sentinel it allocated no
 * longer holds its 128-bit tag, or when its arrays no longer have the
 * length it recorded outside linear memory (the memory was reused since).
 * That is a heuristic: the runtime core should call resetRegexCache().
 *
 * Storage is two parallel arrays grown by push, searched linearly, and
 * cleared beyond MAX_ENTRIES (OPA keeps 100): the runtime's allocator does
 * not zero memory, and the AssemblyScript std library assumes it does when
 * built for a custom runtime, so a Map created after a heap rewind starts
 * with stale buckets. Arrays filled by push never read unwritten slots.
 */

export class CacheEntry {
  /** The compiled object (a Regexp), or null for a pattern that does not compile. */
  constructor(public value: Object | null) {}
}

const MAX_ENTRIES: i32 = 128;

/** Pattern kinds, so that equal strings of different kinds do not collide. */
export const KIND_REGEX: i32 = 1;
export const KIND_GLOB: i32 = 2;
export const KIND_TEMPLATE: i32 = 3;
export const KIND_GLOB_NO_DELIMITERS: i32 = 4;

let kinds: Array<i32> | null = null;
let keys: Array<string> | null = null;
let values: Array<CacheEntry> | null = null;
/** Number of entries, mirrored outside linear memory to cross-check the arrays. */
let count: i32 = 0;
/** Heap top when the cache was last used; the heap only grows within an evaluation. */
let mark: usize = 0;
let sentinel: usize = 0;
let tagLo: u64 = 0;
let tagHi: u64 = 0;
let generation: u64 = 0;

/** Forgets every cached pattern (to be called whenever the heap is rewound). */
export function resetRegexCache(): void {
  kinds = null;
  keys = null;
  values = null;
  sentinel = 0;
}

function valid(): bool {
  if (keys === null || sentinel == 0) return false;
  // @ts-ignore: __rt_heap_top is a global of the runtime (rt.ts)
  const top: usize = __rt_heap_top();
  if (top < mark) return false;
  if (load<u64>(sentinel) != tagLo || load<u64>(sentinel + 8) != tagHi) return false;
  return kinds!.length == count && keys!.length == count && values!.length == count;
}

/** Makes sure the arrays belong to the current evaluation (and are not full). */
function prepare(): void {
  if (!valid() || keys!.length >= MAX_ENTRIES) {
    kinds = new Array<i32>();
    keys = new Array<string>();
    values = new Array<CacheEntry>();
    count = 0;
    const s = new StaticArray<u64>(2);
    sentinel = changetype<usize>(s);
    generation++;
    tagLo = (generation * 0x9e3779b97f4a7c15) ^ <u64>sentinel;
    tagHi = ~tagLo ^ 0x5bd1e9955bd1e995;
    store<u64>(sentinel, tagLo);
    store<u64>(sentinel + 8, tagHi);
  }
}

function touch(): void {
  // @ts-ignore: __rt_heap_top is a global of the runtime (rt.ts)
  mark = __rt_heap_top();
}

/** The cached entry for (kind, key), or null when it has not been compiled in this evaluation. */
export function cacheGet(kind: i32, key: string): CacheEntry | null {
  prepare();
  touch();
  const k = keys!;
  const t = kinds!;
  for (let i = k.length - 1; i >= 0; i--) {
    if (unchecked(t[i]) == kind && unchecked(k[i]) == key) return values![i];
  }
  return null;
}

export function cachePut(kind: i32, key: string, value: Object | null): void {
  prepare();
  kinds!.push(kind);
  keys!.push(key);
  values!.push(new CacheEntry(value));
  count++;
  touch();
}
