/**
 * Sizing a policy module's memory from what it needs, for every loader (the
 * PDP's Engine, `rego eval`, `rego test`, `rego conformance`).
 *
 *   const policy = await loadSizedPolicy(wasm, data, { maxPages, builtins });
 *
 * The module imports `env.memory` with a minimum (our linker raises it past
 * the policy's static data; `opa build` writes its own). The SDK's default
 * memory is 5 pages and no maximum: a module with more static data does not
 * instantiate, and nothing bounds growth. Here the initial size is the
 * larger of the module's minimum and the SDK's 5 pages, and the maximum is
 * the configured limit, never above MAX_MEMORY_PAGES. When the module or its
 * data needs more than the limit, the load fails with a MemoryLimitError
 * (stable code `memory_limit_exceeded`) naming the needed and allowed sizes.
 */
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { findSection, readModule, SectionId } from "../emit/wasm/module";
import { ExternKind, readImports } from "../emit/wasm/sections";

export const PAGE_BYTES = 65536;
/** The SDK's default initial memory; modules needing less still get it. */
export const SDK_INITIAL_PAGES = 5;
/**
 * The most memory one policy module may grow to: 1 GiB. Deliberately far
 * below 2 GiB: past it, addresses the module hands back are negative as i32,
 * and a typed-array view longer than 2^31-1 bytes makes encodeInto write
 * nothing, so an evaluation would silently run without its input (a policy
 * denying through `not deny` would allow). Memory never shrinks, so this is
 * also what one loaded bundle can hold on to for its lifetime.
 */
export const MAX_MEMORY_PAGES = 16384;

/** What a module or its data needs beyond the configured limit. */
export class MemoryLimitError extends Error {
  readonly code = "memory_limit_exceeded";
  constructor(
    /** What needs the memory: the module's static data alone, or the module instantiated with the bundle's data. */
    readonly what: "module" | "data",
    /** Pages needed; for data beyond even MAX_MEMORY_PAGES, undefined (more than that). */
    readonly neededPages: number | undefined,
    readonly allowedPages: number,
  ) {
    const needed = neededPages === undefined ? `more than ${describePages(MAX_MEMORY_PAGES)}` : describePages(neededPages);
    const subject = what === "module" ? "policy.wasm's static data" : "policy.wasm with the bundle's data";
    super(`memory_limit_exceeded: ${subject} needs ${needed}; the limit is ${describePages(allowedPages)}`);
    this.name = "MemoryLimitError";
  }
}

export function describePages(pages: number): string {
  return `${pages} pages (${((pages * PAGE_BYTES) / (1024 * 1024)).toFixed(1)} MiB)`;
}

/** A valid limit: an integer in 1..MAX_MEMORY_PAGES; anything else throws a RangeError. */
export function checkMaxPages(maxPages: number): number {
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_MEMORY_PAGES) {
    throw new RangeError(`the memory limit must be a whole number of 64 KiB pages between 1 and ${MAX_MEMORY_PAGES}, got ${maxPages}`);
  }
  return maxPages;
}

/** The minimum pages of the module's `env.memory` import (0 when it has none: instantiation will say so). */
export function importedMemoryPages(wasm: Uint8Array): number {
  const imports = readImports(findSection(readModule(wasm), SectionId.import)?.body);
  return imports.find((i) => i.kind === ExternKind.memory)?.limits?.min ?? 0;
}

/** The descriptor for `loadPolicy(wasm, descriptor)`; throws MemoryLimitError when the module alone exceeds the limit. */
export function policyMemory(wasm: Uint8Array, maxPages = MAX_MEMORY_PAGES): { initial: number; maximum: number } {
  checkMaxPages(maxPages);
  const needed = Math.max(importedMemoryPages(wasm), 1);
  if (needed > maxPages) throw new MemoryLimitError("module", needed, maxPages);
  return { initial: Math.min(Math.max(needed, SDK_INITIAL_PAGES), maxPages), maximum: maxPages };
}

export interface SizedLoadOptions {
  /** The configured limit in 64 KiB pages (default and ceiling MAX_MEMORY_PAGES). */
  maxPages?: number;
  builtins?: Record<string, (...args: never[]) => unknown>;
}

/**
 * Instantiates `wasm` with memory sized for it and sets `data`. When that
 * fails under a configured limit (the module's start function allocates its
 * constants, setData the data), it is loaded once more under the ceiling: if
 * it fits there, the limit was the cause, and a MemoryLimitError says what the
 * data needs and what is allowed.
 */
export async function loadSizedPolicy(wasm: Uint8Array, data: unknown, options: SizedLoadOptions = {}): Promise<LoadedPolicy> {
  const maxPages = options.maxPages ?? MAX_MEMORY_PAGES;
  const memory = policyMemory(wasm, maxPages);
  try {
    const policy = await loadPolicy(wasm, memory, options.builtins);
    policy.setData(data as object);
    return policy;
  } catch (err) {
    if (maxPages < MAX_MEMORY_PAGES) {
      const needed = await pagesUnderCeiling(wasm, data, options);
      if (needed !== undefined) throw new MemoryLimitError("data", needed, maxPages);
    }
    // Our runtime aborts with "out of memory", OPA's with "opa_malloc: ..." when memory cannot grow.
    if (/out of memory|malloc/i.test(String(err instanceof Error ? err.message : err))) throw new MemoryLimitError("data", undefined, maxPages);
    throw err;
  }
}

/** The pages the module holds once `data` is set under the ceiling, or undefined when it does not load there either. */
async function pagesUnderCeiling(wasm: Uint8Array, data: unknown, options: SizedLoadOptions): Promise<number | undefined> {
  try {
    const probe = await loadPolicy(wasm, policyMemory(wasm, MAX_MEMORY_PAGES), options.builtins);
    probe.setData(data as object);
    // The heap's top, not the memory's size: the allocator grows by doubling when it can.
    return Math.ceil(probe.dataHeapPtr / PAGE_BYTES);
  } catch {
    return undefined;
  }
}
