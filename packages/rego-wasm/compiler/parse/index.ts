/**
 * The Rego parser (v1, and v0 as OPA 1.x's `--v0-compatible`), stage `parse/` of the compiler: source text to the AST
 * of `../ast.ts`, following OPA's parser (v1/ast/parser.go, parser_ext.go)
 * production by production so that what OPA accepts, and how it groups it,
 * carries over. Syntax errors throw `CompileErrors` with code
 * rego_parse_error at file:row:col.
 */
import type { Body, Module, Term } from "../ast";
import { DEFAULT_CATALOGUE, type Catalogue } from "../builtins";
import { CompileError, CompileErrors } from "../errors";
import { lex, type Comment } from "./lexer";
import { assembleModule } from "./module";
import { StatementParser } from "./statements";

/** The syntax a caller asks for: v1 (OPA 1.x's default) or v0 (`--v0-compatible`, a bundle's `rego_version: 0`). */
export type SyntaxVersion = "v0" | "v1";

/**
 * Parses a whole module; `builtins` decides which bare calls are builtin
 * names (not rules). `version` is the file's syntax unless the file itself
 * imports `rego.v1` (StatementParser decides, once per file).
 */
export function parseModule(source: string, file: string, builtins: Catalogue = DEFAULT_CATALOGUE, version: SyntaxVersion = "v1"): Module {
  const comments: Comment[] = [];
  const parser = new StatementParser(lex(source, file, comments), file, version);
  const stmts = parser.parseStatements(false);
  return assembleModule(file, source, stmts, parser.meta, builtins, comments, parser.regoVersion);
}

/**
 * Parses a query: expressions separated by `;` or newlines (OPA's ParseBody,
 * which reads statements without trying rules and concatenates the bodies).
 */
export function parseQuery(source: string, file: string, version: SyntaxVersion = "v1"): Body {
  const stmts = new StatementParser(lex(source, file), file, version).parseStatements(true);
  const body: Body = [];
  for (const stmt of stmts) {
    if (stmt.kind !== "body") {
      const loc = stmt.kind === "package" ? stmt.pkg.loc : stmt.kind === "import" ? stmt.imp.loc : stmt.rules[0].loc;
      throw new CompileErrors([new CompileError("rego_parse_error", `expected body but got ${stmt.kind}`, loc)]);
    }
    body.push(...stmt.body);
  }
  return body;
}

/** Parses a single term, such as an `input_term` of a conformance case. */
export function parseTerm(source: string, file: string): Term {
  const body = parseQuery(source, file);
  const fail = (message: string): never => {
    const loc = body[0]?.loc ?? { file, row: 1, col: 1 };
    throw new CompileErrors([new CompileError("rego_parse_error", message, loc)]);
  };
  if (body.length !== 1) return fail(`expected exactly one term but got ${body.length} expressions`);
  const expr = body[0];
  if (expr.kind !== "term" || expr.negated || expr.with.length > 0) return fail("expected term");
  // A top-level call is an expression in OPA, not a term.
  if (expr.term.type === "call") return fail("expected term but got call");
  return expr.term;
}

export { printBody, printExpr, printModule, printRule, printTerm } from "./print";
