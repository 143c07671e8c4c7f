/**
 * JSON pointers (RFC 6901) over a decision event, restricted as OPA's masking
 * is: a pointer must start with /input, /result or /nd_builtin_cache. Remove
 * and upsert follow OPA's mask semantics: removing something absent is a
 * no-op (and is not reported), an upsert adds what is absent.
 */
import { DecisionLogError } from "./errors";

const ROOTS = new Set(["input", "result", "nd_builtin_cache"]);
const INDEX = /^(0|[1-9][0-9]*)$/;

type Json = Record<string, unknown> | unknown[];

/** Splits a pointer into unescaped parts; throws mask_invalid_rule for anything outside the allowed roots. */
export function parsePointer(pointer: string): string[] {
  if (!pointer.startsWith("/")) throw new DecisionLogError("mask_invalid_rule", `pointer ${JSON.stringify(pointer)} must start with "/"`);
  const parts = pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (!ROOTS.has(parts[0])) {
    throw new DecisionLogError("mask_invalid_rule", `pointer ${JSON.stringify(pointer)} must start with /input, /result or /nd_builtin_cache`);
  }
  return parts;
}

export function formatPointer(parts: string[]): string {
  return "/" + parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/** Removes the value at parts from root; true when something was removed. */
export function removeAt(root: Record<string, unknown>, parts: string[]): boolean {
  const parent = walk(root, parts.slice(0, -1));
  if (parent === undefined) return false;
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) {
    if (!INDEX.test(key) || Number(key) >= parent.length) return false;
    parent.splice(Number(key), 1);
    return true;
  }
  if (!Object.prototype.hasOwnProperty.call(parent, key)) return false;
  delete parent[key];
  return true;
}

/**
 * Sets the value at parts, creating absent intermediate objects; true when
 * set. A path through a scalar, or an array index past the end, cannot be
 * set and is ignored (false).
 */
export function upsertAt(root: Record<string, unknown>, parts: string[], value: unknown): boolean {
  let node: Json = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = child(node, parts[i]);
    if (next === undefined && !Array.isArray(node) && !Object.prototype.hasOwnProperty.call(node, parts[i])) {
      const created: Record<string, unknown> = {};
      node[parts[i]] = created;
      node = created;
    } else if (isContainer(next)) {
      node = next;
    } else {
      return false;
    }
  }
  const key = parts[parts.length - 1];
  if (Array.isArray(node)) {
    // Index === length appends, as in JSON Patch.
    if (!INDEX.test(key) || Number(key) > node.length) return false;
    node[Number(key)] = value;
    return true;
  }
  node[key] = value;
  return true;
}

function walk(root: Json, parts: string[]): Json | undefined {
  let node: Json = root;
  for (const part of parts) {
    const next = child(node, part);
    if (!isContainer(next)) return undefined;
    node = next;
  }
  return node;
}

function child(node: Json, key: string): unknown {
  if (Array.isArray(node)) return INDEX.test(key) && Number(key) < node.length ? node[Number(key)] : undefined;
  return Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
}

function isContainer(value: unknown): value is Json {
  return typeof value === "object" && value !== null;
}
