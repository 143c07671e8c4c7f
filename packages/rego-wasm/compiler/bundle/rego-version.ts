/**
 * Which Rego syntax each file of a bundle is in, from its manifest, as OPA
 * 1.x decides it (bundle.RegoVersionForFile):
 *
 *   regoVersionForFile(manifest, "/authz/legacy.rego") ?? "v1"   // "v0" | "v1"
 *
 * `file_rego_versions` (glob pattern -> 0 | 1, `*` matching across `/` as
 * gobwas/glob without separators does) wins, then the manifest's
 * `rego_version`; undefined when neither says (the caller's default
 * applies: `--v0-compatible` or v1).
 */
import type { SyntaxVersion } from "../parse";
import type { Manifest } from "./bundle";

export function regoVersionForFile(manifest: Pick<Manifest, "rego_version" | "file_rego_versions">, file: string): SyntaxVersion | undefined {
  const rooted = `/${file.replace(/^\/+/, "")}`;
  for (const [pattern, version] of Object.entries(manifest.file_rego_versions ?? {})) {
    if (globRegExp(pattern).test(rooted) || globRegExp(pattern).test(rooted.slice(1)))
      return toSyntax(version, `file_rego_versions[${JSON.stringify(pattern)}]`);
  }
  return manifest.rego_version === undefined ? undefined : toSyntax(manifest.rego_version, "rego_version");
}

/** The manifest's number as a syntax; anything but 0 or 1 is refused, as OPA refuses it. */
export function toSyntax(version: unknown, where: string): SyntaxVersion {
  if (version === 0) return "v0";
  if (version === 1) return "v1";
  throw new Error(`.manifest: ${where} must be 0 or 1, got ${JSON.stringify(version)}`);
}

/** gobwas/glob syntax: `*` any run, `?` one character, `[...]` a class, `{a,b}` alternatives; the rest literal. */
function globRegExp(pattern: string): RegExp {
  let out = "";
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*") out += ".*";
    else if (c === "?") out += ".";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end < 0) out += "\\[";
      else {
        const body = pattern.slice(i + 1, end);
        out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else if (c === "{") {
      out += "(?:";
      depth++;
    } else if (c === "}" && depth > 0) {
      out += ")";
      depth--;
    } else if (c === "," && depth > 0) out += "|";
    else if (c === "\\" && i + 1 < pattern.length) out += `\\${pattern[++i]}`;
    else out += c.replace(/[.+^$()|\\/]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}
