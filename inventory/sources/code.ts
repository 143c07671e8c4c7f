/**
 * Source "code": a static scan of the API's TypeScript/JavaScript sources
 * with the TypeScript compiler API (a real parser: comments, strings and
 * formatting cannot fool it the way a regular expression can).
 *
 *   scanCode("api")   // -> Sighting[] (source "code"), `where` = file:line
 *
 * Two kinds of registration are found:
 *
 * 1. Route records: object literals with `method` and `paths` properties
 *    (api/registry/routes.ts). Values are evaluated by a small constant
 *    evaluator: string and template literals, consts, `as const`, and the
 *    two ways the registry builds records from parameters: a const arrow
 *    function called with literal arguments (`INVOICE_WORKFLOW("approve")`)
 *    and `[...].map((method) => ({ ... }))` over a literal array.
 * 2. Direct Express registrations: `<x>.get|post|put|patch|delete|all(path, ...)`
 *    whose path is a literal. These bypass the registry; the inventory
 *    reports them (`code-unregistered`) unless a record declares the same
 *    route. Calls with a computed path (app.ts mounting the registry) are
 *    not registrations of their own and are skipped.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import type { Sighting } from "../types";

const EXPRESS_METHODS = new Set(["get", "post", "put", "patch", "delete", "all"]);
type Env = Map<string, string>;

export interface CodeSighting extends Sighting {
  /** true for a direct Express registration, false for a route record. */
  direct: boolean;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") out.push(...listSources(full));
    } else if (/\.(ts|js|mts|cts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out.sort();
}

function unwrap(node: ts.Expression): ts.Expression {
  while (ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isSatisfiesExpression(node)) node = node.expression;
  return node;
}

class FileScanner {
  private readonly consts = new Map<string, ts.Expression>();

  constructor(private readonly file: ts.SourceFile) {
    const collect = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) this.consts.set(node.name.text, node.initializer);
      ts.forEachChild(node, collect);
    };
    collect(file);
  }

  /** Every string value an expression can take in env, or null when it is not a constant. */
  strings(expr: ts.Expression, env: Env): string[] | null {
    const e = unwrap(expr);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
    if (ts.isIdentifier(e)) {
      const bound = env.get(e.text);
      if (bound !== undefined) return [bound];
      const init = this.consts.get(e.text);
      return init ? this.strings(init, env) : null;
    }
    if (ts.isConditionalExpression(e)) {
      const a = this.strings(e.whenTrue, env);
      const b = this.strings(e.whenFalse, env);
      return a && b ? [...a, ...b] : null;
    }
    if (ts.isTemplateExpression(e)) {
      let acc = [e.head.text];
      for (const span of e.templateSpans) {
        const values = this.strings(span.expression, env);
        if (!values) return null;
        acc = acc.flatMap((prefix) => values.map((v) => prefix + v + span.literal.text));
      }
      return acc;
    }
    return null;
  }

  /** Elements of an array literal of strings (`["GET", "POST"] as const`). */
  private array(expr: ts.Expression, env: Env): string[] | null {
    const e = unwrap(expr);
    if (!ts.isArrayLiteralExpression(e)) return null;
    const out: string[] = [];
    for (const el of e.elements) {
      const v = this.strings(el, env);
      if (!v) return null;
      out.push(...v);
    }
    return out;
  }

  /** Environments an object literal is evaluated in, from the functions around it. */
  private environments(node: ts.Node): Env[] {
    let envs: Env[] = [new Map()];
    for (let p: ts.Node | undefined = node.parent; p; p = p.parent) {
      if (!ts.isArrowFunction(p) && !ts.isFunctionExpression(p)) continue;
      const names = p.parameters.map((x) => (ts.isIdentifier(x.name) ? x.name.text : ""));
      const bindings = this.bindingsFor(p);
      if (bindings.length === 0) continue;
      envs = envs.flatMap((env) =>
        bindings.map((b) => {
          const next = new Map(env);
          names.forEach((n, i) => {
            if (n && b[i] !== undefined && !next.has(n)) next.set(n, b[i]);
          });
          return next;
        }),
      );
    }
    return envs;
  }

  /** Argument values the function is called with: `.map` over a literal array, or calls of the const it is assigned to. */
  private bindingsFor(fn: ts.ArrowFunction | ts.FunctionExpression): Array<Array<string | undefined>> {
    const parent = fn.parent;
    if (ts.isCallExpression(parent) && ts.isPropertyAccessExpression(parent.expression) && parent.expression.name.text === "map") {
      const items = this.array(parent.expression.expression, new Map());
      return items ? items.map((v) => [v]) : [];
    }
    if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) {
      const name = parent.name.text;
      const calls: Array<Array<string | undefined>> = [];
      const visit = (n: ts.Node): void => {
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === name) {
          calls.push(n.arguments.map((a) => this.strings(a, new Map())?.[0]));
        }
        ts.forEachChild(n, visit);
      };
      visit(this.file);
      return calls;
    }
    return [];
  }

  scan(label: string): CodeSighting[] {
    const out: CodeSighting[] = [];
    const at = (node: ts.Node) => `${label}:${this.file.getLineAndCharacterOfPosition(node.getStart(this.file)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node)) {
        const props = new Map<string, ts.Expression>();
        for (const p of node.properties) {
          if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) props.set(p.name.text, p.initializer);
          else if (ts.isShorthandPropertyAssignment(p)) props.set(p.name.text, p.name);
        }
        const methodExpr = props.get("method");
        const pathsExpr = props.get("paths");
        if (methodExpr && pathsExpr) {
          for (const env of this.environments(node)) {
            const methods = this.strings(methodExpr, env);
            const paths = this.array(pathsExpr, env);
            if (!methods || !paths) continue;
            for (const m of methods) for (const p of paths) out.push({ source: "code", method: m.toUpperCase(), path: p, where: at(node), direct: false });
          }
        }
      }
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        EXPRESS_METHODS.has(node.expression.name.text) &&
        node.arguments.length >= 2
      ) {
        const first = node.arguments[0];
        const literal = ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first) ? first.text : null;
        if (literal !== null && literal.startsWith("/")) {
          const method = node.expression.name.text === "all" ? "*" : node.expression.name.text.toUpperCase();
          out.push({ source: "code", method, path: literal.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}"), where: at(node), direct: true });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(this.file);
    return out;
  }
}

export function scanSource(text: string, label: string): CodeSighting[] {
  const file = ts.createSourceFile(label, text, ts.ScriptTarget.ES2022, true, label.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  return new FileScanner(file).scan(label);
}

/** Scans every source under dir; `where` is relative to base. */
export function scanCode(dir: string, base = path.dirname(dir)): CodeSighting[] {
  return listSources(dir).flatMap((f) => scanSource(fs.readFileSync(f, "utf8"), path.relative(base, f)));
}
