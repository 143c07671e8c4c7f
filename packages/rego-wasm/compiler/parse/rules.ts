/**
 * Rules with an `if` / `contains` / body (OPA's parseRules, parseHead,
 * parseElse). Rules written as a bare statement (`p := 1`, `f(x) := y`,
 * `a.b.c`) are parsed as query statements first and turned into rules by
 * `module.ts`, exactly as OPA does; so parseRules fails quietly (null, no
 * error) on them.
 *
 * Each rule carries parse-time facts OPA's v1 checks need (was the value or
 * body written, were `if` / `contains` used) in `RuleMeta`.
 */
import type { Body, Location, Rule, RuleHead, Term } from "../ast";
import { BodyParser } from "./body";
import { isGround, refString, valueName } from "./cursor";
import { visitTerm, type TermVisitor } from "../walk";

export interface RuleMeta {
  generatedBody: boolean;
  generatedValue: boolean;
  hasIf: boolean;
  hasContains: boolean;
}

interface HeadResult {
  head: RuleHead;
  generatedValue: boolean;
  usesContains: boolean;
}

export abstract class RuleParser extends BodyParser {
  readonly meta = new Map<Rule, RuleMeta>();

  protected parseRules(): Rule[] | null {
    const loc = this.loc();
    this.keywordAsRef();
    let isDefault = false;
    if (this.is("default")) {
      this.next();
      isDefault = true;
      this.keywordAsRef();
    }
    if (!this.is("ident")) return null;
    const parsed = this.parseHead(isDefault);
    if (!parsed) return null;
    const { head, usesContains } = parsed;
    let { generatedValue } = parsed;

    if (isDefault) {
      if (!this.validDefault(head, generatedValue, loc)) return null;
      return [this.rule(loc, true, head, [], { generatedBody: false, generatedValue, hasIf: false, hasContains: false })];
    }

    const hasIf = this.is("if");
    // `p[x] if ...` is a single-value rule `p[x] = true`; `p[x] { ... }` (v0) a partial set.
    if (hasIf && !usesContains && head.ref.length === 2 && !head.value) generatedValue = true;
    if (!hasIf && !usesContains && !head.args && head.ref.length === 2 && !head.value) {
      if (head.ref[0].type !== "var") return null;
      head.key = head.ref[1];
      head.ref = [head.ref[0]];
    }

    let body: Body | null = null;
    if (hasIf) {
      this.next();
      const s = this.save();
      const expr = this.parseLiteral();
      // `p if { true }` is a body, not a one-expression body holding a set.
      const isSet = expr?.kind === "term" && expr.term.type === "set";
      if (expr && !isSet) {
        body = [expr];
      } else {
        this.restore(s);
      }
    }
    if (!body && (hasIf || this.is("{"))) {
      this.next();
      body = this.parseBody("}");
      if (!body) return null;
      this.next();
    } else if (!body && usesContains) {
      const meta = { generatedBody: true, generatedValue, hasIf: false, hasContains: true };
      return [this.rule(head.loc, false, head, [], meta)];
    } else if (!body) {
      return null;
    }

    const meta: RuleMeta = { generatedBody: false, generatedValue, hasIf, hasContains: usesContains };
    const rule = this.rule(loc, false, head, body, meta);
    if (this.is("else") && !this.keywordAsRef()) {
      if (head.ref.length > 1 && !head.ref.slice(1).every(isGround)) {
        this.error(this.loc(), "else keyword cannot be used on rules with variables in head");
        return null;
      }
      if (head.key) {
        this.error(this.loc(), "else keyword cannot be used on multi-value rules");
        return null;
      }
      rule.else = this.parseElse(head);
      if (!rule.else) return null;
    }

    // `p if { a } { b }`: further bodies define more rules with the same head.
    const rules = [rule];
    while (this.is("{")) {
      if (rule.else) {
        this.error(this.loc(), "expected else keyword");
        return null;
      }
      const bodyLoc = this.loc();
      this.next();
      const next = this.parseBody("}");
      if (!next) return null;
      this.next();
      rules.push(this.rule(bodyLoc, false, { ...head, loc: bodyLoc }, next, { ...meta }));
    }
    return rules;
  }

  private rule(loc: Location, isDefault: boolean, head: RuleHead, body: Body, meta: RuleMeta): Rule {
    const rule: Rule = { type: "rule", default: isDefault, head, body, else: null, loc };
    this.meta.set(rule, meta);
    return rule;
  }

  /** `else [= v | := v] [if] [{ body } | expr]`, recursively. */
  private parseElse(parent: RuleHead): Rule | null {
    const loc = this.loc();
    const head: RuleHead = { ref: parent.ref, args: parent.args, key: null, value: null, assign: false, loc };
    let generatedValue = false;
    this.next();
    if (this.is("{", "if")) {
      generatedValue = true;
    } else if (this.is(":=", "=")) {
      head.assign = this.is(":=");
      this.next();
      head.value = this.parseTermInfixCall();
      if (!head.value) return null;
    } else {
      this.illegal("expected else value term or rule body");
      return null;
    }
    // An else needs its own `if` before a body (`else { ... }` is an error in v1).
    const meta: RuleMeta = { generatedValue, generatedBody: false, hasIf: false, hasContains: false };
    if (!this.is("if", "{")) {
      return this.rule(loc, false, head, [], { ...meta, generatedBody: true });
    }
    if (this.is("if")) {
      meta.hasIf = true;
      this.next();
    }
    let body: Body;
    if (this.is("{")) {
      this.next();
      const parsed = this.parseBody("}");
      if (!parsed) return null;
      body = parsed;
      this.next();
    } else if (!this.is("eof")) {
      const expr = this.parseLiteral();
      if (!expr) return null;
      body = [expr];
    } else {
      this.illegal("rule body expected");
      return null;
    }
    const rule = this.rule(loc, false, head, body, meta);
    if (this.is("else")) {
      rule.else = this.parseElse(parent);
      if (!rule.else) return null;
    }
    return rule;
  }

  /** The head: name (var, ref or call) and `contains k`, `= v` or `:= v`. */
  private parseHead(isDefault: boolean): HeadResult | null {
    const loc = this.loc();
    const name = this.parseHeadFinish({ type: "var", name: this.tok.text, loc });
    if (!name) {
      this.illegal("expected rule head name");
      return null;
    }
    let ref: Term[];
    let args: Term[] | null = null;
    if (name.type === "var") {
      ref = [name];
    } else if (name.type === "ref") {
      if (name.terms[0].type !== "var") return null;
      ref = name.terms;
    } else if (name.type === "call") {
      if (name.op.terms[0].type !== "var") {
        this.illegal(`rule head ref ${refString(name.op.terms)} invalid`);
        return null;
      }
      ref = name.op.terms;
      args = name.args.length > 0 ? name.args : null;
    } else {
      return null;
    }
    const head: RuleHead = { ref, args, key: null, value: null, assign: false, loc };
    const shown = refString(ref);

    if (this.is("contains")) {
      if (name.type === "call") {
        this.illegal(`the contains keyword can only be used with multi-value rule definitions (e.g., ${shown} contains <VALUE> { ... })`);
      }
      this.next();
      head.key = this.parseTermInfixCall();
      if (!head.key) this.illegal(`expected rule key term (e.g., ${shown} contains <VALUE> { ... })`);
      return { head, generatedValue: false, usesContains: true };
    }
    if (this.is("=", ":=")) {
      head.assign = this.is(":=");
      this.next();
      head.value = this.parseTermInfixCall();
      if (!head.value) {
        const example = args ? `${shown}(...) := <VALUE>` : isDefault ? `default ${shown} := <VALUE>` : `${shown} := <VALUE>`;
        this.illegal(`expected ${args ? "function" : isDefault ? "default rule" : "rule"} value term (e.g., ${example}${isDefault ? "" : " { ... }"})`);
      }
    }
    // `p` and `a.b.c` without a value are `true`; `p[x]` is decided by the caller.
    const generatedValue = !head.value && (ref.length !== 2 || args !== null);
    return { head, generatedValue, usesContains: false };
  }

  /** OPA's validateDefaultRuleValue / validateDefaultRuleArgs. */
  private validDefault(head: RuleHead, generatedValue: boolean, loc: Location): boolean {
    if (!head.value && !generatedValue) {
      this.error(loc, "illegal default rule (must have a value)");
      return false;
    }
    let valid = true;
    // Comprehensions are closures and may refer to anything: left out.
    const value: TermVisitor = {
      closures: false,
      term: (t) => {
        if (t.type !== "var" && t.type !== "ref" && t.type !== "call") return;
        this.error(loc, `illegal default rule (value cannot contain ${t.type})`);
        valid = false;
        return "skip";
      },
    };
    if (head.value) visitTerm(head.value, value);
    const seen = new Set<string>();
    for (const arg of head.args ?? []) {
      if (arg.type !== "var") {
        this.error(loc, `illegal default rule (arguments cannot contain ${valueName(arg)})`);
        valid = false;
      } else if (arg.name !== "_" && seen.has(arg.name)) {
        this.error(loc, `illegal default rule (arguments cannot be repeated ${arg.name})`);
        valid = false;
      } else {
        seen.add(arg.name);
      }
    }
    return valid;
  }
}
