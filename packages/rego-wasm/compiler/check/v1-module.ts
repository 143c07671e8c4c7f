/**
 * The compile checks OPA 1.x applies to v1 modules (and v0 modules importing
 * rego.v1) but not to v0 ones: compile.go's checkKeywordOverrides and
 * checkDeprecatedBuiltins run when `mod.regoV1Compatible()`.
 *
 * - rules, function arguments and `:=` variables must not shadow `input` or
 *   `data` (rego_compile_error);
 * - deprecated builtins the catalogue still holds for v0 (`any`, `all`) are
 *   a rego_type_error.
 */
import type { Module, Rule, Term } from "../ast";
import { CompileError } from "../errors";
import { visitBody, visitTerm, type TermVisitor } from "../walk";

const ROOT_DOCUMENTS = new Set(["input", "data"]);
/** Deprecated builtins of OPA's capabilities that the catalogue offers (v0 modules may call them). */
const DEPRECATED_IN_CATALOGUE = new Set(["any", "all"]);

export function checkV1Module(m: Module, errors: CompileError[]): void {
  if (m.regoVersion === "v0") return;
  // A rule or import of the module named like a deprecated builtin is what the call means.
  const ownNames = new Set<string>();
  for (const r of m.rules) if (r.head.ref[0]?.type === "var") ownNames.add(r.head.ref[0].name);
  for (const i of m.imports) {
    const last = i.path.terms[i.path.terms.length - 1];
    ownNames.add(i.alias ?? (last.type === "string" ? last.value : last.type === "var" ? last.name : ""));
  }
  const visit = (t: Term): void => {
    if (t.type !== "call") return;
    const op = t.op.terms;
    if (op.length !== 1 || op[0].type !== "var") return;
    const name = op[0].name;
    if (name === "assign") {
      const target = rootDocumentName(t.args[0]);
      if (target) errors.push(new CompileError("rego_compile_error", `variables must not shadow ${target} (use a different variable name)`, t.loc));
    } else if (DEPRECATED_IN_CATALOGUE.has(name) && !ownNames.has(name)) {
      errors.push(new CompileError("rego_type_error", `deprecated built-in function calls in expression: ${name}`, t.loc));
    }
  };
  const calls: TermVisitor = { term: visit };
  for (const rule of m.rules) {
    for (let r: Rule | null = rule; r; r = r.else) {
      const head = r.head;
      const name = head.ref.length === 1 ? rootDocumentName(head.ref[0]) : null;
      if (name) errors.push(new CompileError("rego_compile_error", `rules must not shadow ${name} (use a different rule name)`, r.loc));
      for (const arg of head.args ?? []) {
        const shadowed = rootDocumentName(arg);
        if (shadowed) errors.push(new CompileError("rego_compile_error", `args must not shadow ${shadowed} (use a different variable name)`, arg.loc));
      }
      [...(head.args ?? []), head.key, head.value].forEach((x) => x && visitTerm(x, calls));
      visitBody(r.body, calls);
    }
  }
}

/** `input` or `data` written alone (a var, or a ref of just that var), else null. */
function rootDocumentName(t: Term | undefined | null): string | null {
  if (!t) return null;
  if (t.type === "var") return ROOT_DOCUMENTS.has(t.name) ? t.name : null;
  if (t.type === "ref" && t.terms.length === 1) return rootDocumentName(t.terms[0]);
  return null;
}
