/**
 * OPA bundles: the gzip-compressed tarball `opa build -t wasm` writes, with
 * `/policy.wasm`, `/data.json`, `/.manifest` and the `.rego` sources.
 *
 *   const buf = writeBundle({ wasm, data: {}, manifest: { revision: "", roots: [""],
 *     rego_version: 1, wasm: [{ entrypoint: "authz/allow", module: "/policy.wasm" }] },
 *     sources: [{ path: "authz.rego", content: src }] });
 *   const { wasm, data, manifest, files } = readBundle(buf);
 *
 * Reading accepts what OPA writes (entry names with or without a leading
 * `/`, GNU/pax headers), merges nested `data.json` / `data.yaml` files at
 * their directory's path as OPA does, and throws a BundleError rather than
 * return part of a malformed bundle.
 */
import * as zlib from "node:zlib";
import { parse as parseYaml } from "yaml";
import { readTar, TarError, writeTar, type TarEntry } from "./tar";

export class BundleError extends Error {
  constructor(message: string) {
    super(`invalid bundle: ${message}`);
    this.name = "BundleError";
  }
}

export interface WasmResolver {
  entrypoint: string;
  module: string;
  annotations?: unknown[];
}

export interface Manifest {
  revision: string;
  roots: string[];
  /** 0 (v0 syntax) or 1; absent: the reader's default. */
  rego_version?: number;
  /** Per-file syntax: glob pattern over the file's bundle path -> 0 or 1 (bundle/rego-version.ts). */
  file_rego_versions?: Record<string, number>;
  wasm?: WasmResolver[];
  metadata?: Record<string, unknown>;
}

export interface BundleSource {
  /** Path of the file; stored under `/` with `./` and leading `../` segments dropped. */
  path: string;
  content: string;
}

export interface BundleInput {
  wasm: Uint8Array;
  data: unknown;
  manifest: Manifest;
  sources: BundleSource[];
}

export interface Bundle {
  wasm: Uint8Array;
  /** The merged base documents. */
  data: Record<string, unknown>;
  manifest: Manifest;
  /** Every regular file by normalised path (`/policy.wasm`, `/authz.rego`, ...). */
  files: Map<string, Uint8Array>;
}

const utf8 = new TextEncoder();

export function writeBundle(input: BundleInput): Buffer {
  if (!isObject(input.data)) throw new BundleError("data must be a JSON object");
  checkManifest(input.manifest);
  const entries: TarEntry[] = [{ name: "/data.json", data: utf8.encode(JSON.stringify(input.data)) }];
  const seen = new Set(["/data.json", "/policy.wasm", "/.manifest"]);
  for (const s of input.sources) {
    const name = bundleFilePath(s.path);
    if (seen.has(name)) throw new BundleError(`two files would be stored as ${name}`);
    seen.add(name);
    entries.push({ name, data: utf8.encode(s.content) });
  }
  entries.push({ name: "/policy.wasm", data: input.wasm });
  entries.push({ name: "/.manifest", data: utf8.encode(JSON.stringify(input.manifest)) });
  return zlib.gzipSync(writeTar(entries));
}

export function readBundle(buf: Uint8Array): Bundle {
  let tar: Buffer;
  try {
    tar = zlib.gunzipSync(buf);
  } catch (err) {
    throw new BundleError(`not gzip data (${(err as Error).message})`);
  }
  let entries;
  try {
    entries = readTar(tar);
  } catch (err) {
    if (err instanceof TarError) throw new BundleError(err.message);
    throw err;
  }
  const files = new Map<string, Uint8Array>();
  for (const e of entries) {
    const name = normalise(e.name);
    if (files.has(name)) throw new BundleError(`duplicate file ${name}`);
    files.set(name, e.data);
  }
  const wasm = files.get("/policy.wasm");
  if (!wasm) throw new BundleError("no /policy.wasm");
  const manifestBytes = files.get("/.manifest");
  const manifest = manifestBytes ? parseJson("/.manifest", manifestBytes) : {};
  checkManifest(manifest);
  for (const w of manifest.wasm ?? []) {
    if (!files.has(normalise(w.module))) throw new BundleError(`.manifest: wasm module ${w.module} (entrypoint ${w.entrypoint}) is not in the bundle`);
  }
  // OPA's defaults for a manifest that leaves them out.
  manifest.revision ??= "";
  manifest.roots ??= [""];
  return { wasm, data: mergeData(files), manifest, files };
}

/** Where writeBundle stores a source file: `./a/b.rego`, `../a/b.rego` -> `/a/b.rego`. */
export function bundleFilePath(file: string): string {
  return normalise(file.replace(/^(\.\.\/)+/, ""));
}

/** `/a/./b.rego`, `a/b.rego`, `//a/b.rego` -> `/a/b.rego`; `..` is refused. */
function normalise(name: string): string {
  const parts = name
    .replace(/\\/g, "/")
    .split("/")
    .filter((p) => p !== "" && p !== ".");
  if (parts.length === 0) throw new BundleError(`empty file name ${JSON.stringify(name)}`);
  if (parts.includes("..")) throw new BundleError(`file name ${JSON.stringify(name)} leaves the bundle root`);
  return "/" + parts.join("/");
}

/** Every `.../data.json` and `.../data.yaml` placed at its directory path, as OPA merges them. */
function mergeData(files: Map<string, Uint8Array>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, bytes] of files) {
    const base = name.slice(name.lastIndexOf("/") + 1);
    let doc: unknown;
    if (base === "data.json") doc = parseJson(name, bytes);
    else if (base === "data.yaml" || base === "data.yml") doc = parseYamlFile(name, bytes);
    else continue;
    insert(data, name.split("/").slice(1, -1), doc, name);
  }
  return data;
}

function insert(data: Record<string, unknown>, dirs: string[], doc: unknown, file: string): void {
  if (dirs.length === 0) {
    if (!isObject(doc)) throw new BundleError(`${file} must hold a JSON object`);
    merge(data, doc, file);
    return;
  }
  let target = data;
  for (const d of dirs.slice(0, -1)) {
    const child = target[d] ?? (target[d] = {});
    if (!isObject(child)) throw new BundleError(`${file} conflicts with other data at ${d}`);
    target = child;
  }
  merge(target, { [dirs[dirs.length - 1]]: doc }, file);
}

function merge(into: Record<string, unknown>, from: Record<string, unknown>, file: string): void {
  for (const [k, v] of Object.entries(from)) {
    if (!(k in into)) into[k] = v;
    else if (isObject(into[k]) && isObject(v)) merge(into[k] as Record<string, unknown>, v, file);
    else throw new BundleError(`${file}: key ${JSON.stringify(k)} conflicts with other data`);
  }
}

function parseJson(name: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new BundleError(`${name}: ${(err as Error).message}`);
  }
}

function parseYamlFile(name: string, bytes: Uint8Array): unknown {
  try {
    return parseYaml(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new BundleError(`${name}: ${(err as Error).message}`);
  }
}

function checkManifest(m: unknown): asserts m is Manifest {
  if (!isObject(m)) throw new BundleError(".manifest must be a JSON object");
  if (m.revision !== undefined && typeof m.revision !== "string") throw new BundleError(".manifest: revision must be a string");
  if (m.roots !== undefined && !(Array.isArray(m.roots) && m.roots.every((r) => typeof r === "string"))) {
    throw new BundleError(".manifest: roots must be an array of strings");
  }
  if (m.rego_version !== undefined && m.rego_version !== 0 && m.rego_version !== 1) throw new BundleError(".manifest: rego_version must be 0 or 1");
  if (m.file_rego_versions !== undefined && !(isObject(m.file_rego_versions) && Object.values(m.file_rego_versions).every((v) => v === 0 || v === 1))) {
    throw new BundleError(".manifest: file_rego_versions must map file patterns to 0 or 1");
  }
  if (m.wasm !== undefined) {
    if (!Array.isArray(m.wasm)) throw new BundleError(".manifest: wasm must be an array");
    for (const w of m.wasm) {
      if (!isObject(w) || typeof w.entrypoint !== "string" || typeof w.module !== "string") {
        throw new BundleError(".manifest: each wasm entry needs string entrypoint and module");
      }
    }
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) throw new BundleError(".manifest: metadata must be an object");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
