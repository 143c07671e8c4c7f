/**
 * Prints AST nodes back as Rego, with every call in prefix form
 * (`plus(1, mul(2, 3))`) so that grouping is explicit. Used by tests and for
 * debugging; not a formatter (comments and layout are gone).
 */
import type { Body, Expr, Module, Rule, RuleHead, Term } from "../ast";

export function printTerm(t: Term): string {
  switch (t.type) {
    case "null":
      return "null";
    case "boolean":
      return String(t.value);
    case "number":
      return t.value;
    case "string":
      return JSON.stringify(t.value);
    case "var":
      return t.name;
    case "ref":
      return printRef(t.terms);
    case "array":
      return `[${t.items.map(printTerm).join(", ")}]`;
    case "set":
      return t.items.length ? `{${t.items.map(printTerm).join(", ")}}` : "set()";
    case "object":
      return `{${t.items.map(([k, v]) => `${printTerm(k)}: ${printTerm(v)}`).join(", ")}}`;
    case "arraycompr":
      return `[${printTerm(t.term)} | ${printBody(t.body)}]`;
    case "setcompr":
      return `{${printTerm(t.term)} | ${printBody(t.body)}}`;
    case "objectcompr":
      return `{${printTerm(t.key)}: ${printTerm(t.value)} | ${printBody(t.body)}}`;
    case "call":
      return `${printRef(t.op.terms)}(${t.args.map(printTerm).join(", ")})`;
  }
}

function printRef(terms: Term[]): string {
  return terms
    .map((t, i) => {
      if (i === 0) return t.type === "var" || t.type === "call" ? printTerm(t) : `(${printTerm(t)})`;
      if (t.type === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) return `.${t.value}`;
      return `[${printTerm(t)}]`;
    })
    .join("");
}

export function printExpr(e: Expr): string {
  const withs = e.with.map((w) => ` with ${printTerm(w.target)} as ${printTerm(w.value)}`).join("");
  const not = e.negated ? "not " : "";
  switch (e.kind) {
    case "term":
      return `${not}${printTerm(e.term)}${withs}`;
    case "some":
      return `some ${e.vars.map(printTerm).join(", ")}`;
    case "somein":
      return `some ${e.key ? `${printTerm(e.key)}, ` : ""}${printTerm(e.value)} in ${printTerm(e.collection)}${withs}`;
    case "every": {
      const key = e.key ? `${printTerm(e.key)}, ` : "";
      return `${not}every ${key}${printTerm(e.value)} in ${printTerm(e.domain)} { ${printBody(e.body)} }${withs}`;
    }
  }
}

export function printBody(b: Body): string {
  return b.map(printExpr).join("; ");
}

function printHead(h: RuleHead): string {
  let s = printRef(h.ref);
  if (h.args) s += `(${h.args.map(printTerm).join(", ")})`;
  if (h.key) s += ` contains ${printTerm(h.key)}`;
  if (h.value) s += ` ${h.assign ? ":=" : "="} ${printTerm(h.value)}`;
  return s;
}

export function printRule(r: Rule): string {
  let s = (r.default ? "default " : "") + printHead(r.head);
  if (r.body.length) s += ` if { ${printBody(r.body)} }`;
  for (let e = r.else; e; e = e.else) {
    s += " else";
    if (e.head.value) s += ` ${e.head.assign ? ":=" : "="} ${printTerm(e.head.value)}`;
    if (e.body.length) s += ` if { ${printBody(e.body)} }`;
  }
  return s;
}

export function printModule(m: Module): string {
  const lines = [`package ${m.package.path.join(".")}`];
  for (const i of m.imports) lines.push(`import ${printTerm(i.path)}${i.alias ? ` as ${i.alias}` : ""}`);
  for (const r of m.rules) lines.push(printRule(r));
  return lines.join("\n");
}
