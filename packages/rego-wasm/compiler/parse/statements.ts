/**
 * The statement loop (OPA's Parser.Parse): at each position try a package,
 * an import, a rule, then a query, keeping the first that parses. Queries
 * found in a module are bare rules (`p := 1`); `module.ts` converts them.
 */
import type { Body, Import, Location, Package, RefTerm, RegoVersion, Rule } from "../ast";
import { CompileError, CompileErrors } from "../errors";
import { valueName } from "./cursor";
import { FUTURE_KEYWORDS_V0, KEYWORDS, type Token, type TokenKind } from "./lexer";
import { RuleParser } from "./rules";

export type Statement = { kind: "package"; pkg: Package } | { kind: "import"; imp: Import } | { kind: "rules"; rules: Rule[] } | { kind: "body"; body: Body };

const IMPORT_ROOTS = new Set(["data", "input", "future", "rego"]);
const FUTURE_KEYWORDS = ["contains", "every", "if", "in", "not"];

export class StatementParser extends RuleParser {
  /**
   * The file's Rego syntax, decided here and nowhere else: the caller's
   * (v1 by default, v0 under `--v0-compatible` or a bundle's rego_version 0),
   * turned into `v0v1` by the file's own `import rego.v1`.
   */
  regoVersion: RegoVersion;

  constructor(tokens: Token[], file: string, version: "v0" | "v1" = "v1") {
    super(tokens, file);
    this.regoVersion = version;
    // v0: `in`, `every`, `contains` and `if` are identifiers until imported.
    if (version === "v0") this.setKeywords(FUTURE_KEYWORDS_V0, false);
  }

  /**
   * From the current token on, `words` scan as keywords (`on`) or as
   * identifiers: what OPA's scanner AddKeyword does when an import is read,
   * done on the token array (the lexer ran ahead of the parser).
   */
  private setKeywords(words: readonly string[], on: boolean): void {
    for (let i = this.pos; i < this.tokens.length; i++) {
      const t = this.tokens[i];
      if (on && t.kind === "ident" && words.includes(t.text)) t.kind = t.text as TokenKind;
      else if (!on && words.includes(t.kind)) t.kind = "ident";
    }
  }

  /** Imports `words` as OPA's scanner does: importing `every` imports `in` too. */
  private importKeywords(words: readonly string[]): void {
    this.setKeywords(words.includes("every") && !words.includes("in") ? [...words, "in"] : words, true);
  }

  /** OPA's IsKeywordInRegoVersion: v0's keywords exclude the future ones, even once imported. */
  private isVersionKeyword(name: string): boolean {
    return KEYWORDS.has(name) && (this.regoVersion === "v1" || !FUTURE_KEYWORDS_V0.includes(name));
  }
  /** All statements of the source; throws the parse errors, if any. */
  parseStatements(skipRules: boolean): Statement[] {
    const out: Statement[] = [];
    while (!this.is("eof")) {
      this.forgetTerms();
      const s = this.save();
      const pkg = this.parsePackage();
      if (pkg) {
        out.push({ kind: "package", pkg });
        continue;
      }
      if (this.errors.length) break;
      this.restore(s);
      const imp = this.parseImport();
      if (imp) {
        out.push({ kind: "import", imp });
        continue;
      }
      if (this.errors.length) break;
      this.restore(s);
      if (!skipRules) {
        const rules = this.parseRules();
        if (rules) {
          out.push({ kind: "rules", rules });
          continue;
        }
        if (this.errors.length) break;
        this.restore(s);
      }
      const body = this.parseQuery(true, "eof");
      if (body) {
        out.push({ kind: "body", body });
        continue;
      }
      if (!this.errors.length) this.illegal();
      break;
    }
    if (this.errors.length) {
      throw new CompileErrors(this.errors.map((e) => new CompileError("rego_parse_error", e.message, e.loc)));
    }
    return out;
  }

  private parsePackage(): Package | null {
    if (!this.is("package")) return null;
    const loc = this.loc();
    this.next();
    // `package.x := 1` is a rule whose ref starts with the keyword.
    if (this.isAdjacent(".", "[")) return null;
    if (!this.identOrKeyword()) {
      this.illegal();
      return null;
    }
    const term = this.parseTerm();
    if (!term) return null;
    if (term.type === "var") return { path: [term.name], loc };
    if (term.type !== "ref") {
      this.illegal();
      return null;
    }
    const [head, ...rest] = term.terms;
    if (head.type !== "var") {
      this.error(head.loc, `unexpected ${valueName(head)} token: expecting var`);
      return null;
    }
    const path = [head.name];
    for (const t of rest) {
      if (t.type !== "string") {
        this.error(t.loc, `unexpected ${valueName(t)} token: expecting string`);
        return null;
      }
      path.push(t.value);
    }
    return { path, loc };
  }

  private parseImport(): Import | null {
    if (!this.is("import")) return null;
    const loc = this.loc();
    this.next();
    if (this.isAdjacent(".", "[")) return null;
    if (!this.identOrKeyword()) {
      this.illegal();
      return null;
    }
    const term = this.parseTerm();
    let path: RefTerm | null = null;
    if (term?.type === "var") path = { type: "ref", terms: [term], loc: term.loc };
    if (term?.type === "ref") {
      const bad = term.terms.slice(1).find((t) => t.type !== "string");
      if (bad) {
        this.error(bad.loc, `unexpected ${valueName(bad)} token: expecting string`);
        return null;
      }
      path = term;
    }
    if (!path) {
      this.error(this.loc(), "expected path");
      return null;
    }
    const root = path.terms[0];
    const rootName = root.type === "var" ? root.name : "";
    if (!IMPORT_ROOTS.has(rootName)) {
      this.error(
        path.loc,
        `unexpected import path, must begin with one of: {data, future, input, rego}, got: ${rootName || valueName(root)} (hint: if this is unexpected, try updating OPA)`,
      );
      return null;
    }
    let alias: string | null = null;
    if (this.is("as")) {
      this.next();
      const aliasTerm = this.is("ident") ? this.parseTerm() : null;
      if (aliasTerm?.type !== "var") {
        this.illegal("expected var");
        return null;
      }
      alias = aliasTerm.name;
    } else {
      const last = path.terms[path.terms.length - 1];
      const lastName = last.type === "var" ? last.name : last.type === "string" ? last.value : "";
      if (rootName !== "future" && this.isVersionKeyword(lastName)) {
        this.error(last.loc, `unexpected import path, must not end with a keyword, got: ${lastName}`);
      }
    }
    this.checkSpecialImport(rootName, path, alias, loc);
    return { path, alias, loc };
  }

  /**
   * `future.keywords[.kw]` and `rego.v1` are the only imports of their roots.
   * In v1 they are no-ops (but `future.keywords.not`); in v0 they make their
   * keywords keywords from here on, and `rego.v1` puts the file under v1's
   * rules as well (OPA's RegoV0CompatV1).
   */
  private checkSpecialImport(root: string, path: RefTerm, alias: string | null, loc: Location): void {
    const segs = path.terms.slice(1).map((t) => (t.type === "string" ? t.value : ""));
    if (root === "rego") {
      if (segs.length !== 1 || segs[0] !== "v1") this.error(path.loc, `invalid import \`${renderPath(root, segs)}\`, must be \`rego.v1\``);
      else if (alias) this.error(loc, "`rego` imports cannot be aliased");
      else if (this.regoVersion !== "v1") {
        this.regoVersion = "v0v1";
        this.importKeywords(FUTURE_KEYWORDS_V0);
      }
    } else if (root === "future") {
      if (segs[0] !== "keywords" || segs.length > 2) {
        this.error(path.loc, "invalid import, must be `future.keywords`");
      } else if (segs.length === 2 && !FUTURE_KEYWORDS.includes(segs[1])) {
        this.error(path.loc, `unexpected keyword, must be one of [${FUTURE_KEYWORDS.join(" ")}]`);
      } else if (alias) {
        this.error(loc, "`future` imports cannot be aliased");
      } else {
        if (this.regoVersion !== "v1") this.importKeywords(segs.length === 1 ? FUTURE_KEYWORDS_V0 : FUTURE_KEYWORDS_V0.filter((k) => k === segs[1]));
        // `not` enables `not { ... }` bodies.
        if (segs.length === 1 || segs[1] === "not") this.notBodies = true;
      }
    }
  }

  /** The current token starts a path: an identifier, or a keyword read as one. */
  private identOrKeyword(): boolean {
    if (this.is("ident")) return true;
    if (KEYWORDS.has(this.tok.kind)) {
      this.asIdent = true;
      return true;
    }
    return false;
  }
}

function renderPath(root: string, segs: string[]): string {
  return [root, ...segs].join(".");
}
