/**
 * Annotations: `# METADATA` comment blocks, read as OPA's parser reads them
 * (v1/ast/parser.go parseAnnotations / metadataParser, annotations.go).
 *
 * A block starts at a comment whose text begins with `METADATA` and takes
 * every following comment on the next row at column 1. Its lines (one
 * leading space dropped) are a YAML document of OPA's annotation fields.
 * The block applies to the first package, import or rule starting on a later
 * row; without a `scope` it is `rule` (`document` for an `entrypoint`) on a
 * rule and `package` on a package. Errors are rego_parse_error at the block.
 *
 * The result keeps OPA's object form of each block (what rego.metadata.rule
 * and rego.metadata.chain answer); the checker lowers those calls to
 * constants (check/metadata.ts).
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node as YamlNode, type Pair } from "yaml";
import type { AnnotationScope, Annotations, Import, Location, ObjectTerm, Package, Rule, Term } from "../ast";
import { CompileError } from "../errors";
import type { Comment } from "./lexer";
import { parseTerm } from "./index";

/** A package, import or rule, in source order: what a block may precede. */
export type AnnotatableNode = { kind: "package"; node: Package } | { kind: "import"; node: Import } | { kind: "rule"; node: Rule };

const SCOPES: readonly string[] = ["rule", "document", "package", "subpackages"];

/** Thrown inside a block's parse; becomes a rego_parse_error at `loc`. */
class BlockError extends Error {
  constructor(
    message: string,
    readonly loc?: Location,
  ) {
    super(message);
  }
}

interface Block {
  loc: Location;
  lines: Comment[];
}

/**
 * Reads the METADATA blocks of a module and attaches them to `nodes`.
 * Errors go to `errors`; as in OPA, a block whose YAML is invalid stops the
 * module's parse before any attachment is checked.
 */
export function parseAnnotations(file: string, comments: Comment[], nodes: AnnotatableNode[], errors: CompileError[]): Annotations[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  comments.forEach((c, i) => {
    if (current) {
      if (c.row === comments[i - 1].row + 1 && c.col === 1) {
        current.lines.push(c);
        return;
      }
      current = null;
    }
    if (c.text.trim().startsWith("METADATA")) {
      current = { loc: { file, row: c.row, col: c.col }, lines: [] };
      blocks.push(current);
    }
  });

  const parsed: Array<{ block: Block; fields: Fields }> = [];
  let failed = false;
  for (const block of blocks) {
    try {
      parsed.push({ block, fields: parseBlock(file, block) });
    } catch (e) {
      if (!(e instanceof BlockError)) throw e;
      errors.push(new CompileError("rego_parse_error", e.message, e.loc ?? block.loc));
      failed = true;
    }
  }
  if (failed) return [];

  const out: Annotations[] = [];
  for (const { block, fields } of parsed) {
    const next = nodes.find((n) => n.node.loc.row > block.loc.row);
    let scope = fields.scope;
    if (scope === "") {
      if (next?.kind === "rule") scope = fields.entrypoint ? "document" : "rule";
      else if (next?.kind === "package") scope = "package";
      else if (next?.kind === "import") scope = "import"; // not a scope: named in the error below
    }
    const fail = (message: string): void => {
      errors.push(new CompileError("rego_parse_error", message, block.loc));
    };
    const nodeName = next ? ` (have ${next.kind})` : "";
    if (scope === "rule" || scope === "document") {
      if (next?.kind !== "rule") fail(`annotation scope '${scope}' must be applied to rule${nodeName}`);
    } else if (scope === "package" || scope === "subpackages") {
      if (next?.kind !== "package") fail(`annotation scope '${scope}' must be applied to package${nodeName}`);
    } else {
      fail(`invalid annotation scope '${scope}'. Use one of 'rule', 'document', 'package', or 'subpackages'`);
    }
    if (fields.entrypoint && scope !== "document" && scope !== "package") {
      fail(`annotation entrypoint applied to non-document or package scope '${scope}'`);
    }
    if (!next || next.kind === "import" || !SCOPES.includes(scope)) continue;
    const loc = block.loc;
    out.push({ scope: scope as AnnotationScope, value: toObject(scope, fields, loc), target: next.node, loc });
  }
  return out;
}

// ---------------------------------------------------------------- one block

/** The fields OPA reads from a block (its rawAnnotation), already validated. */
interface Fields {
  scope: string;
  title: string;
  description: string;
  entrypoint: boolean;
  organizations: string[];
  relatedResources: Array<{ ref: string; description: string }>;
  authors: Array<{ name: string; email: string }>;
  schemas: Array<{ path: Term[]; schema: Term[] | null; definition: Term | null }>;
  custom: Array<[string, Term]>;
}

function parseBlock(file: string, block: Block): Fields {
  const text = block.lines.map((c) => `${stripCR(c.text).replace(/^ /, "")}\n`).join("");
  if (text.trim() === "") throw new BlockError("expected METADATA block, found whitespace");
  const doc = parseDocument(text, { intAsBigInt: true, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) {
    const line = yamlError.linePos?.[0].line;
    throw new BlockError(`yaml: ${line ? `line ${line}: ` : ""}${yamlError.message.split(/ at line \d+|\n/)[0]}`, errorLoc(file, block, line));
  }
  const root = doc.contents;
  const fields: Fields = {
    scope: "",
    title: "",
    description: "",
    entrypoint: false,
    organizations: [],
    relatedResources: [],
    authors: [],
    schemas: [],
    custom: [],
  };
  if (root === null || isNullScalar(root)) return fields;
  if (!isMap(root)) throw unmarshalError(file, block, text, root, "ast.rawAnnotation");
  const ctx: Ctx = { file, block, text, doc };
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    const value = pair.value as YamlNode | null;
    switch (key) {
      case "scope":
        fields.scope = scalarString(ctx, value);
        break;
      case "title":
        fields.title = scalarString(ctx, value);
        break;
      case "description":
        fields.description = scalarString(ctx, value);
        break;
      case "entrypoint":
        fields.entrypoint = yamlBool(ctx, value);
        break;
      case "organizations":
        fields.organizations = seqItems(ctx, value, "[]string").map((v) => scalarString(ctx, v));
        break;
      case "related_resources":
        fields.relatedResources = seqItems(ctx, value, "[]interface {}").map((v) => relatedResource(ctx, v));
        break;
      case "authors":
        fields.authors = seqItems(ctx, value, "[]interface {}").map((v) => author(ctx, v));
        break;
      case "schemas":
        fields.schemas = seqItems(ctx, value, "[]map[string]interface {}").map((v) => schema(ctx, v));
        break;
      case "custom":
        fields.custom = customFields(ctx, value);
        break;
    }
  }
  return fields;
}

interface Ctx {
  file: string;
  block: Block;
  text: string;
  doc: Document;
}

/** Go's yaml reports "line N" of the block; OPA then points at comment N (the line after), or the last. */
function errorLoc(file: string, block: Block, line: number | undefined): Location {
  const c = line === undefined ? block.lines[0] : block.lines[Math.min(line, block.lines.length - 1)];
  return c ? { file, row: c.row, col: c.col } : block.loc;
}

function lineOf(text: string, node: YamlNode): number {
  const offset = node.range?.[0] ?? 0;
  return text.slice(0, offset).split("\n").length;
}

/** Go's yaml.v3 message for a node that does not fit the field's Go type. */
function unmarshalError(file: string, block: Block, text: string, node: YamlNode, goType: string): BlockError {
  const line = lineOf(text, node);
  let shown = "!!map";
  if (isSeq(node)) shown = "!!seq";
  else if (isScalar(node)) shown = `${scalarTag(node.value)} \`${scalarSource(node)}\``;
  return new BlockError(`yaml: unmarshal errors:\n  line ${line}: cannot unmarshal ${shown} into ${goType}`, errorLoc(file, block, line));
}

function scalarTag(v: unknown): string {
  if (typeof v === "bigint") return "!!int";
  if (typeof v === "number") return Number.isInteger(v) ? "!!int" : "!!float";
  if (typeof v === "boolean") return "!!bool";
  return "!!str";
}

function scalarSource(node: YamlNode): string {
  if (!isScalar(node)) return "";
  return typeof node.source === "string" ? node.source : String(node.value);
}

function stripCR(s: string): string {
  return s.endsWith("\r") ? s.slice(0, -1) : s;
}

function isNullScalar(node: YamlNode | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

/** A scalar read into a Go string field: its text, whatever it resolves to ("" for null). */
function scalarString(ctx: Ctx, node: YamlNode | null): string {
  if (isNullScalar(node)) return "";
  if (!isScalar(node!)) throw unmarshalError(ctx.file, ctx.block, ctx.text, node!, "string");
  return typeof node.value === "string" ? node.value : scalarSource(node);
}

/** A Go bool field accepts YAML 1.1 spellings too (yaml.v3 decoding into bool). */
function yamlBool(ctx: Ctx, node: YamlNode | null): boolean {
  if (isNullScalar(node)) return false;
  if (isScalar(node!)) {
    if (typeof node.value === "boolean") return node.value;
    const s = scalarSource(node);
    if (/^(y|Y|yes|Yes|YES|on|On|ON)$/.test(s)) return true;
    if (/^(n|N|no|No|NO|off|Off|OFF)$/.test(s)) return false;
  }
  throw unmarshalError(ctx.file, ctx.block, ctx.text, node!, "bool");
}

function seqItems(ctx: Ctx, node: YamlNode | null, goType: string): Array<YamlNode | null> {
  if (isNullScalar(node)) return [];
  if (!isSeq(node!)) throw unmarshalError(ctx.file, ctx.block, ctx.text, node!, goType);
  return node.items as Array<YamlNode | null>;
}

/** A YAML value as Go's fmt %s shows the decoded interface{} (for OPA's messages). */
function goString(v: unknown): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (typeof v === "string") return v;
  if (typeof v === "bigint") return `%!s(int=${v})`;
  if (typeof v === "number") return Number.isInteger(v) ? `%!s(int=${v})` : `%!s(float64=${v})`;
  if (typeof v === "boolean") return `%!s(bool=${v})`;
  if (Array.isArray(v)) return `[${v.map(goString).join(" ")}]`;
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, x]) => [String(k), x] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goString(x)}`).join(" ")}]`;
  }
  return String(v);
}

/** A YAML value as JS (maps as Map, so that non-string keys stay visible; big integers as bigint). */
function plain(ctx: Ctx, node: YamlNode | null): unknown {
  return node === null ? null : node.toJS(ctx.doc, { mapAsMap: true });
}

function mapField(node: YamlNode, key: string): string {
  if (!isMap(node)) return "";
  const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
  const v = pair?.value as YamlNode | null | undefined;
  return v && isScalar(v) && typeof v.value === "string" ? v.value : "";
}

function relatedResource(ctx: Ctx, node: YamlNode | null): { ref: string; description: string } {
  const fail = (why: string): never => {
    throw new BlockError(`invalid related-resource definition ${goString(plain(ctx, node))}: ${why}`);
  };
  checkMapKeys(plain(ctx, node), []);
  if (node && isScalar(node) && typeof node.value === "string") {
    if (node.value.length === 0) fail("ref URL may not be empty string");
    return { ref: node.value, description: "" };
  }
  if (node && isMap(node)) {
    const ref = mapField(node, "ref").trim();
    if (ref.length === 0) fail("'ref' value required in object");
    return { ref, description: mapField(node, "description").trim() };
  }
  return fail("invalid value type, must be string or map");
}

function author(ctx: Ctx, node: YamlNode | null): { name: string; email: string } {
  const fail = (why: string): never => {
    throw new BlockError(`invalid author definition ${goString(plain(ctx, node))}: ${why}`);
  };
  checkMapKeys(plain(ctx, node), []);
  if (node && isScalar(node) && typeof node.value === "string") {
    // "Jane Doe <jane@example.com>": a last word in <> is the email.
    const words = node.value.split(/\s+/).filter((w) => w.length > 0);
    if (words.length === 0) fail("author is an empty string");
    const last = words[words.length - 1];
    if (last.length >= 2 && last.startsWith("<") && last.endsWith(">")) {
      return { name: words.slice(0, -1).join(" "), email: last.slice(1, -1) };
    }
    return { name: words.join(" "), email: "" };
  }
  if (node && isMap(node)) {
    const name = mapField(node, "name").trim();
    const email = mapField(node, "email").trim();
    if (name.length === 0 && email.length === 0) fail("'name' and/or 'email' values required in object");
    return { name, email };
  }
  return fail("invalid value type, must be string or map");
}

/** `- input.x: schema.y` or `- input.x: {definition}`: OPA keeps the path, and a schema ref or definition. */
function schema(ctx: Ctx, node: YamlNode | null): Fields["schemas"][number] {
  if (isNullScalar(node)) throw new BlockError("invalid document reference");
  if (!isMap(node!)) throw unmarshalError(ctx.file, ctx.block, ctx.text, node!, "map[string]interface {}");
  const pair = node.items[0] as Pair<YamlNode, YamlNode | null> | undefined;
  const key = pair && isScalar(pair.key) ? String(pair.key.value) : "";
  const path = refParts(key);
  if (!path) throw new BlockError("invalid document reference");
  const value = pair?.value ?? null;
  if (value && isScalar(value) && typeof value.value === "string") {
    const ref = refParts(value.value);
    if (!ref || ref[0] !== "schema") throw new BlockError("invalid schema reference");
    return { path: path.map((p) => str(p)), schema: ref.map((p) => str(p)), definition: null };
  }
  if (value && isMap(value)) {
    const definition = plain(ctx, value);
    checkMapKeys(definition, [], "invalid schema definition: ");
    return { path: path.map((p) => str(p)), schema: null, definition: valueTerm(definition) };
  }
  throw new BlockError(`invalid schema declaration for path "${key}"`);
}

/** A ref's parts as strings (OPA's Ref.toArray), or null when `s` is not a ref. */
function refParts(s: string): string[] | null {
  let term: Term;
  try {
    term = parseTerm(s, "annotation");
  } catch {
    return null;
  }
  if (term.type === "var") return [term.name];
  if (term.type !== "ref" || term.terms[0].type !== "var") return null;
  return term.terms.map((t) => (t.type === "var" ? t.name : t.type === "string" ? t.value : t.type === "number" ? t.value : ""));
}

function customFields(ctx: Ctx, node: YamlNode | null): Array<[string, Term]> {
  if (isNullScalar(node)) return [];
  if (!isMap(node!)) throw unmarshalError(ctx.file, ctx.block, ctx.text, node!, "map[string]interface {}");
  const out: Array<[string, Term]> = [];
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? scalarSource(pair.key) : "";
    const value = plain(ctx, pair.value as YamlNode | null);
    checkMapKeys(value, [key]);
    out.push([isScalar(pair.key) && typeof pair.key.value === "string" ? pair.key.value : key, valueTerm(value)]);
  }
  return out;
}

/** Nested maps must have string keys (OPA's convertYAMLMapKeyTypes). */
function checkMapKeys(v: unknown, path: string[], prefix = ""): void {
  if (v instanceof Map) {
    for (const [k, x] of v) {
      if (typeof k !== "string") throw new BlockError(`${prefix}invalid map key type(s): ${path.join("/")}`);
      checkMapKeys(x, [...path, k], prefix);
    }
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => checkMapKeys(x, [...path, String(i)], prefix));
  }
}

// ---------------------------------------------------------------- object form

/** OPA's Annotations.toTerm: only the fields that are set, `scope` always. */
function toObject(scope: string, f: Fields, loc: Location): ObjectTerm {
  const items: Array<[Term, Term]> = [];
  const add = (key: string, value: Term): void => {
    items.push([str(key, loc), value]);
  };
  add("scope", str(scope, loc));
  if (f.title) add("title", str(f.title, loc));
  if (f.entrypoint) add("entrypoint", { type: "boolean", value: true, loc });
  if (f.description) add("description", str(f.description, loc));
  if (f.organizations.length)
    add(
      "organizations",
      arr(
        f.organizations.map((o) => str(o, loc)),
        loc,
      ),
    );
  if (f.relatedResources.length) {
    add(
      "related_resources",
      arr(
        f.relatedResources.map((r) =>
          obj(
            [
              ["ref", str(r.ref, loc)],
              ["description", r.description ? str(r.description, loc) : null],
            ],
            loc,
          ),
        ),
        loc,
      ),
    );
  }
  if (f.authors.length) {
    add(
      "authors",
      arr(
        f.authors.map((a) =>
          obj(
            [
              ["name", a.name ? str(a.name, loc) : null],
              ["email", a.email ? str(a.email, loc) : null],
            ],
            loc,
          ),
        ),
        loc,
      ),
    );
  }
  if (f.schemas.length) {
    add(
      "schemas",
      arr(
        f.schemas.map((s) =>
          obj(
            [
              ["path", arr(s.path, loc)],
              ["schema", s.schema ? arr(s.schema, loc) : null],
              ["definition", s.definition],
            ],
            loc,
          ),
        ),
        loc,
      ),
    );
  }
  if (f.custom.length) add("custom", { type: "object", items: f.custom.map(([k, v]) => [str(k, loc), v]), loc });
  return { type: "object", items, loc };
}

const NOWHERE: Location = { file: "", row: 0, col: 0 };

function str(value: string, loc: Location = NOWHERE): Term {
  return { type: "string", value, loc };
}

function arr(items: Term[], loc: Location): Term {
  return { type: "array", items, loc };
}

function obj(fields: Array<[string, Term | null]>, loc: Location): Term {
  const items: Array<[Term, Term]> = [];
  for (const [k, v] of fields) if (v) items.push([str(k, loc), v]);
  return { type: "object", items, loc };
}

/** A decoded YAML value (custom field, schema definition) as a Rego term, as OPA's InterfaceToValue converts it. */
function valueTerm(v: unknown): Term {
  const loc = NOWHERE;
  if (v === null || v === undefined) return { type: "null", loc };
  if (typeof v === "boolean") return { type: "boolean", value: v, loc };
  if (typeof v === "bigint") return { type: "number", value: v.toString(), loc };
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new BlockError(`invalid custom annotation: ${v} is not a JSON number`);
    return { type: "number", value: String(v), loc };
  }
  if (Array.isArray(v)) return arr(v.map(valueTerm), loc);
  if (v instanceof Map) return { type: "object", items: [...v.entries()].map(([k, x]) => [str(String(k)), valueTerm(x)]), loc };
  return str(String(v));
}
