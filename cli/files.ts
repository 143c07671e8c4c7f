/**
 * Collects policy inputs the way `opa build` / `opa test` do: .rego files
 * from files and directories, and JSON data files rooted at their directory
 * path (`a/b/data.json` becomes `data.a.b`). A directory holding a bundle
 * `.manifest` gives its files the syntax the manifest says (`rego_version`,
 * `file_rego_versions`); other files take the command's (`--v0-compatible`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type Manifest, regoVersionForFile, type SourceFile } from "@portcullis/rego-wasm";

export interface PolicyInputs {
  sources: SourceFile[];
  data: Record<string, unknown>;
}

export function collectPolicyInputs(paths: string[]): PolicyInputs {
  const sources: SourceFile[] = [];
  const data: Record<string, unknown> = {};
  for (const root of paths) {
    if (!fs.existsSync(root)) throw new Error(`${root}: no such file or directory`);
    const stat = fs.statSync(root);
    const files = stat.isDirectory() ? walk(root) : [root];
    const manifest = stat.isDirectory() ? readManifest(root) : null;
    for (const file of files) {
      if (file.endsWith(".rego")) {
        const source: SourceFile = { file, source: fs.readFileSync(file, "utf8") };
        if (manifest) {
          const rel = path.relative(root, file).split(path.sep).join("/");
          try {
            const version = regoVersionForFile(manifest, rel);
            if (version) source.regoVersion = version;
          } catch (err) {
            throw new Error(`${path.join(root, ".manifest")}: ${(err as Error).message}`, { cause: err });
          }
        }
        sources.push(source);
      } else if (path.basename(file) === "data.json") {
        const rel = stat.isDirectory() ? path.relative(root, path.dirname(file)) : "";
        const segments = rel === "" ? [] : rel.split(path.sep);
        let parsed: unknown;
        try {
          parsed = JSON.parse(fs.readFileSync(file, "utf8"));
        } catch (err) {
          throw new Error(`${file}: invalid JSON: ${(err as Error).message}`, { cause: err });
        }
        mergeAt(data, segments, parsed, file);
      }
    }
  }
  return { sources, data };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(full));
    else out.push(full);
  }
  return out;
}

function mergeAt(target: Record<string, unknown>, segments: string[], value: unknown, file: string): void {
  let node = target;
  for (const seg of segments) {
    const next = node[seg];
    if (next === undefined) node[seg] = {};
    else if (typeof next !== "object" || next === null || Array.isArray(next)) throw new Error(`${file}: data conflicts at ${seg}`);
    node = node[seg] as Record<string, unknown>;
  }
  if (segments.length > 0 && (typeof value !== "object" || value === null || Array.isArray(value))) {
    const parent = segments.slice(0, -1).reduce<Record<string, unknown>>((n, s) => n[s] as Record<string, unknown>, target);
    parent[segments[segments.length - 1]] = value;
    return;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`${file}: root data must be an object`);
  for (const [k, v] of Object.entries(value)) {
    if (k in node && typeof node[k] === "object" && typeof v === "object" && v !== null && !Array.isArray(v)) {
      mergeAt(node, [k], v, file);
    } else if (k in node) {
      throw new Error(`${file}: data conflicts at ${k}`);
    } else node[k] = v;
  }
}

/** The bundle manifest at the root of a directory, if any (only what decides syntax is read). */
function readManifest(root: string): Pick<Manifest, "rego_version" | "file_rego_versions"> | null {
  const file = path.join(root, ".manifest");
  if (!fs.existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: must be a JSON object`);
  const { rego_version, file_rego_versions } = parsed as Manifest;
  if (file_rego_versions !== undefined && (typeof file_rego_versions !== "object" || file_rego_versions === null || Array.isArray(file_rego_versions))) {
    throw new Error(`${file}: file_rego_versions must be an object`);
  }
  return { rego_version, file_rego_versions };
}
