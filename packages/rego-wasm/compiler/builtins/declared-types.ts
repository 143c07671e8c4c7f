/**
 * Types of a host builtin's operands as OPA's capabilities JSON declares them
 * (`decl.args`, OPA's types/decode.go), and the check the compiler makes with
 * them: an operand written as a literal (a string, number, array, set
 * comprehension, ...) must be of a kind the declaration accepts.
 *
 *   {"type": "string"}                         a string
 *   {"type": "any", "of": [{"type": "string"}, {"type": "number"}]}
 *   {"type": "any"}                            anything
 *   {"type": "array", "dynamic": {"type": "string"}}  (element types not checked)
 *
 * Only the operand's top-level kind is checked, and only for literals: a
 * variable's or a reference's type is known at evaluation time alone here
 * (the compiler has no type inference), which is also why the catalogue's own
 * builtins are checked for arity only.
 */
import type { Term } from "../ast";

export interface DeclaredType {
  type: "null" | "boolean" | "number" | "string" | "array" | "object" | "set" | "any" | "function";
  /** `any`: the union of these (none: anything). */
  of?: DeclaredType[] | DeclaredType;
}

const KINDS = new Set(["null", "boolean", "number", "string", "array", "object", "set", "any", "function"]);

/** Validates one declared type (recursively through `any.of`); returns an error text or null. */
export function invalidType(t: unknown): string | null {
  if (typeof t !== "object" || t === null || Array.isArray(t)) return "a type must be an object";
  const { type, of } = t as { type?: unknown; of?: unknown };
  if (typeof type !== "string" || !KINDS.has(type)) return `unknown type ${JSON.stringify(type)}`;
  if (type === "any" && Array.isArray(of)) {
    for (const member of of) {
      const bad = invalidType(member);
      if (bad) return bad;
    }
  }
  return null;
}

/** The kind of value a literal term is, or null when only evaluation can tell (vars, refs, calls). */
export function literalKind(t: Term): DeclaredType["type"] | null {
  switch (t.type) {
    case "null":
    case "boolean":
    case "number":
    case "string":
    case "array":
    case "object":
    case "set":
      return t.type;
    case "arraycompr":
      return "array";
    case "setcompr":
      return "set";
    case "objectcompr":
      return "object";
    default:
      return null;
  }
}

export function accepts(t: DeclaredType, kind: DeclaredType["type"]): boolean {
  if (t.type !== "any") return t.type === kind;
  const members = Array.isArray(t.of) ? t.of : [];
  return members.length === 0 || members.some((m) => accepts(m, kind));
}

/** `string`, `any<number, string>`, `any`: as OPA prints types in its type errors. */
export function describeType(t: DeclaredType): string {
  if (t.type !== "any") return t.type;
  const members = Array.isArray(t.of) ? t.of : [];
  return members.length === 0 ? "any" : `any<${members.map(describeType).join(", ")}>`;
}
