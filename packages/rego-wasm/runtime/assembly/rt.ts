/**
 * The runtime's memory manager: a bump allocator, passed to asc with
 * `--runtime`, modelled on AssemblyScript's rt/stub.ts.
 *
 * Why a bump allocator: OPA hosts free memory by rewinding the heap pointer
 * (`opa_heap_ptr_set`) before every evaluation, so per-object freeing is not
 * needed and a GC would only cost time. Every managed AssemblyScript object
 * (values, arrays, strings) lives between the heap start and `offset`.
 *
 * Where the heap starts: above the runtime's static data (`__heap_base`) and
 * above the policy's data segment, which the policy linker appends after the
 * runtime's; the linker says where that ends by patching the initializer of
 * the exported mutable global `__heap_start`. The start is computed on the
 * first allocation, after the globals have their linked values.
 *
 * asc compiles this file as an entry, so everything `export`ed here would
 * become a Wasm export: only `__heap_start` is. The helpers other modules
 * need (`__rt_heap_top`, `__rt_set_heap_top`, `__rt_heap_floor`,
 * `__rt_is_heap_block`, `__rt_new_uninit`) are `@global` instead, like AssemblyScript's own
 * `__alloc`/`__new`. build.mjs also turns off the shadow stack asc would
 * otherwise add for a custom runtime.
 *
 * Also here: the `--use abort=` shim, so that failed assertions and `throw`s
 * reach the host through `env.opa_abort` instead of a missing `env.abort`.
 */

import { AL_MASK, OBJECT, OBJECT_OVERHEAD, BLOCK_MAXSIZE, BLOCK_OVERHEAD, BLOCK, OBJECT_MAXSIZE } from "~lib/rt/common";

import { hostAbort } from "./host";

/** Patched by the policy linker: the heap starts at or above this address. */
export let __heap_start: i32 = 0;

/** Top of the heap: the next block header goes here. 0 until the first use. */
let offset: usize = 0;
/** Lowest address the heap may use (for pointer validation in opa_free). */
let heapStart: usize = 0;

/**
 * The intern table (intern.ts) beyond the policy's constants: strings of a
 * data document entered by its parse live on the heap below
 * `__rt_interned_top` (0: none), and so does the table holding them. The
 * heap top going below that frees memory they occupy, so `lowered` forgets
 * them at once: the table in use becomes the constants' own again, and the
 * canonical mark moves on, so no string or collection marked before (see
 * intern.ts) is taken for canonical any more. This module cannot import
 * intern.ts (its values would be built before the heap exists): these are
 * globals both see.
 */
// @ts-ignore: decorator
@global let __rt_interned_top: usize = 0;
/** The intern table in use (an address: intern.ts InternTable), and the constants' one. */
// @ts-ignore: decorator
@global let __rt_intern_table: usize = 0;
// @ts-ignore: decorator
@global let __rt_constant_table: usize = 0;
/** The mark (OBJECT.gcInfo2) of a string or collection canonical now; 1 marks the constants', always canonical. */
// @ts-ignore: decorator
@global let __rt_canon_mark: u32 = 2;
/** True until an evaluation begins, and again once data strings are forgotten: a parse then is taken to load data. */
// @ts-ignore: decorator
@global let __rt_loading_data: bool = true;

/** The heap top went down to `top`: data strings (and their table) at or above it are forgotten. */
// @ts-ignore: decorator
@inline function lowered(top: usize): void {
  if (top < __rt_interned_top) {
    __rt_interned_top = 0;
    __rt_intern_table = __rt_constant_table;
    __rt_canon_mark++;
    __rt_loading_data = true;
  }
}

/** Rounds an address up so that the payload after the block header is aligned. */
// @ts-ignore: decorator
@inline function alignBlock(addr: usize): usize {
  return ((addr + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
}

function initHeap(): void {
  const linked = <usize>__heap_start;
  const base = linked > __heap_base ? linked : __heap_base;
  heapStart = alignBlock(base);
  offset = heapStart;
}

/** Current heap top (`opa_heap_ptr_get`). */
// @ts-ignore: decorator
@global function __rt_heap_top(): usize {
  if (offset == 0) initHeap();
  return offset;
}

/** Rewinds (or advances) the heap top (`opa_heap_ptr_set`). */
// @ts-ignore: decorator
@global function __rt_set_heap_top(ptr: usize): void {
  if (offset == 0) initHeap();
  lowered(ptr);
  offset = ptr;
}

/** Lowest heap address. */
// @ts-ignore: decorator
@global function __rt_heap_floor(): usize {
  if (offset == 0) initHeap();
  return heapStart;
}

/**
 * Bytes of memory known to exist. Only ever too low (the host may grow the
 * memory too), so a check against it is a cheap fast path; the slow path
 * asks memory.size() before growing.
 */
let memoryEnd: usize = 0;

function growMemory(newOffset: usize): void {
  const pagesBefore = memory.size();
  const maxOffset = <usize>pagesBefore << 16;
  if (newOffset > maxOffset) {
    const pagesNeeded = <i32>(((newOffset - maxOffset + 0xffff) & ~0xffff) >>> 16);
    // Double the memory when possible so growth is amortised.
    const pagesWanted = max(pagesBefore, pagesNeeded);
    if (memory.grow(pagesWanted) < 0) {
      if (memory.grow(pagesNeeded) < 0) hostAbort("out of memory");
    }
  }
  memoryEnd = <usize>memory.size() << 16;
}

// @ts-ignore: decorator
@inline function maybeGrowMemory(newOffset: usize): void {
  if (newOffset > memoryEnd) growMemory(newOffset);
  offset = newOffset;
}

// @ts-ignore: decorator
@inline function computeSize(size: usize): usize {
  return ((size + BLOCK_OVERHEAD + AL_MASK) & ~AL_MASK) - BLOCK_OVERHEAD;
}

// Inlined (here and __rt_new_uninit): every value, array and string a parse
// or an evaluation makes goes through them, and as calls they cost about as
// much as the bump itself (measured: parsing a 223-byte input 2.1 -> 1.7 us).
// __new stays a call: inlining it too grew the module by 19 KB for no
// measurable gain.
// @ts-ignore: decorator
@unsafe @global @inline
function __alloc(size: usize): usize {
  if (size > BLOCK_MAXSIZE) throw new Error("allocation too large");
  // The host may have set an unaligned heap top (after copying input bytes).
  const start = alignBlock(offset == 0 ? __rt_heap_top() : offset);
  const block = changetype<BLOCK>(start);
  const ptr = start + BLOCK_OVERHEAD;
  const payloadSize = computeSize(size);
  maybeGrowMemory(ptr + payloadSize);
  block.mmInfo = payloadSize;
  // Not zeroed: raw blocks (opa_malloc, output buffers) are written before
  // they are read. Managed objects are zeroed by __new.
  return ptr;
}

/** Largest block zeroed by plain stores; bigger ones use memory.fill. */
const SMALL_BLOCK: usize = 128;

/**
 * Zeroes [ptr, ptr + size). Most blocks are small (a value, an array header,
 * a short string) and V8 runs `memory.fill` as a call out of Wasm, which
 * costs more than the few stores such a block needs.
 */
// @ts-ignore: decorator
@inline function zero(ptr: usize, size: usize): void {
  if (size > SMALL_BLOCK) {
    memory.fill(ptr, 0, size);
    return;
  }
  const end = ptr + size;
  let p = ptr;
  while (p + 8 <= end) {
    store<u64>(p, 0);
    p += 8;
  }
  // Block payloads are 12 bytes past a multiple of 16 (computeSize), and
  // what is zeroed starts at a multiple of 4 into one: the rest is 0 or 4 bytes.
  if (p < end) store<u32>(p, 0);
}

// @ts-ignore: decorator
@unsafe @global
function __realloc(ptr: usize, size: usize): usize {
  let block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  const actualSize = block.mmInfo;
  const isLast = ptr + actualSize == offset;
  const payloadSize = computeSize(size);
  if (size > actualSize) {
    if (isLast) {
      if (size > BLOCK_MAXSIZE) throw new Error("allocation too large");
      maybeGrowMemory(ptr + payloadSize);
      memory.fill(ptr + actualSize, 0, payloadSize - actualSize); // zeroed like fresh blocks
      block.mmInfo = payloadSize;
    } else {
      // Not the last block: copy to a new one at least double the size,
      // the part past the copy zeroed like fresh blocks.
      const newPtr = __alloc(max<usize>(payloadSize, actualSize << 1));
      memory.copy(newPtr, ptr, actualSize);
      zero(newPtr + actualSize, changetype<BLOCK>(newPtr - BLOCK_OVERHEAD).mmInfo - actualSize);
      ptr = newPtr;
    }
  } else if (isLast) {
    lowered(ptr + payloadSize);
    offset = ptr + payloadSize;
    block.mmInfo = payloadSize;
  }
  return ptr;
}

/** Frees the block only when it is the most recent one; otherwise the next rewind reclaims it. */
// @ts-ignore: decorator
@unsafe @global
function __free(ptr: usize): void {
  const block = changetype<BLOCK>(ptr - BLOCK_OVERHEAD);
  if (ptr + block.mmInfo == offset) {
    lowered(changetype<usize>(block));
    offset = changetype<usize>(block);
  }
}

/** True when ptr could be a live block returned by __alloc (for opa_free's check). */
// @ts-ignore: decorator
@global function __rt_is_heap_block(ptr: usize): bool {
  if (ptr & AL_MASK) return false;
  if (ptr < __rt_heap_floor() + BLOCK_OVERHEAD || ptr > offset) return false;
  return ptr + changetype<BLOCK>(ptr - BLOCK_OVERHEAD).mmInfo <= offset;
}

// @ts-ignore: decorator
@unsafe @global
function __reset(): void {
  lowered(__rt_heap_floor());
  offset = __rt_heap_floor();
}

// @ts-ignore: decorator
@unsafe @global
function __new(size: usize, id: u32): usize {
  const obj = __rt_new_uninit(size, id);
  // The runtime's values (value.ts), most of what an evaluation allocates,
  // are written whole by their constructors: no zeroing for them.
  if (id < 64 && ((__rt_filled_by_constructor >> id) & 1) != 0) return obj;
  // AssemblyScript's library treats a custom runtime like its GC runtime and
  // expects fresh objects to be zeroed; after a heap rewind this memory holds
  // the previous evaluation's bytes, so zero it here.
  zero(obj, changetype<BLOCK>(obj - OBJECT_OVERHEAD - BLOCK_OVERHEAD).mmInfo - OBJECT_OVERHEAD);
  return obj;
}

/**
 * Class ids (bits) whose constructors assign every field: value.ts sets it
 * to its value classes (whose fields are all constructor parameters) before
 * it builds any value; this module cannot import them.
 */
// @ts-ignore: decorator
@global let __rt_filled_by_constructor: u64 = 0;

/**
 * __new without the zeroing, for objects the caller fills completely right
 * away (strings decoded from input bytes: most of the bytes a parse
 * allocates).
 */
// @ts-ignore: decorator
@unsafe @global @inline
function __rt_new_uninit(size: usize, id: u32): usize {
  if (size > OBJECT_MAXSIZE) throw new Error("allocation too large");
  const ptr = __alloc(OBJECT_OVERHEAD + size);
  const object = changetype<OBJECT>(ptr - BLOCK_OVERHEAD);
  object.gcInfo = 0;
  object.gcInfo2 = 0;
  object.rtId = id;
  object.rtSize = <u32>size;
  return ptr + OBJECT_OVERHEAD;
}

// @ts-ignore: decorator
@unsafe @global
function __renew(oldPtr: usize, size: usize): usize {
  if (size > OBJECT_MAXSIZE) throw new Error("allocation too large");
  const newPtr = __realloc(oldPtr - OBJECT_OVERHEAD, OBJECT_OVERHEAD + size);
  changetype<OBJECT>(newPtr - BLOCK_OVERHEAD).rtSize = <u32>size;
  return newPtr + OBJECT_OVERHEAD;
}

// No collector: linking, pinning, visiting and collecting are no-ops.

// @ts-ignore: decorator
@global @unsafe
function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}

// @ts-ignore: decorator
@global @unsafe
function __pin(ptr: usize): usize {
  return ptr;
}

// @ts-ignore: decorator
@global @unsafe
function __unpin(ptr: usize): void {}

// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {} // eslint-disable-line @typescript-eslint/no-unused-vars

// @ts-ignore: decorator
@global @unsafe
function __collect(): void {}

/**
 * Target of `--use abort=`: AssemblyScript's abort (failed assertion,
 * `throw`, out-of-range index) forwarded to the host's opa_abort.
 */
function opaAbortShim(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let text = message !== null ? message : "abort";
  if (fileName !== null) text += " (" + fileName + ":" + line.toString() + ":" + column.toString() + ")";
  hostAbort(text);
}
