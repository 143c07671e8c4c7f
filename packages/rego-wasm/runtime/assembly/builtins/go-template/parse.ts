/** The text/template parser: the tree of nodes, pipelines, commands and operands. */

import { GV, NIL, failed } from "./values";
import {
  K_TEXT, K_LEFT, K_RIGHT, K_FIELD, K_VAR, K_DOT, K_IDENT, K_STRING, K_NUMBER, K_CHAR, K_BOOL, K_NIL,
  K_PIPE, K_LPAREN, K_RPAREN, K_DECLARE, K_ASSIGN, K_COMMA, K_EOF, Tok, parseNumber,
} from "./lex";

export const N_TEXT: i32 = 0;
export const N_ACTION: i32 = 1;
export const N_IF: i32 = 2;
export const N_WITH: i32 = 3;
export const N_RANGE: i32 = 4;
export const N_BREAK: i32 = 5;
export const N_CONTINUE: i32 = 6;
export const N_TEMPLATE: i32 = 7;

// operands
const O_FIELD: i32 = 0; // fields on dot
export const O_VAR: i32 = 1; // variable, then fields
export const O_DOT: i32 = 2;
export const O_NIL: i32 = 3;
export const O_CONST: i32 = 4; // bool, number, string, char
export const O_IDENT: i32 = 5; // function
export const O_PIPE: i32 = 6; // parenthesised pipeline, then fields

export class Operand {
  kind: i32 = O_DOT;
  name: string = ""; // variable or function name
  fields: Array<string> = [];
  value: GV = NIL;
  pipe: Pipe | null = null;
}

export class Cmd {
  args: Array<Operand> = [];
}

export class Pipe {
  decl: Array<string> = [];
  isAssign: bool = false;
  cmds: Array<Cmd> = [];
}

export class Node {
  kind: i32 = N_TEXT;
  text: string = "";
  pipe: Pipe | null = null;
  list: Array<Node> = [];
  elseList: Array<Node> | null = null;
}

const FUNCS = ["and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "len", "index", "slice",
  "print", "printf", "println", "html", "js", "urlquery", "call"];

export class Parser {
  p: i32 = 0;
  vars: Array<string> = ["$"];
  rangeDepth: i32 = 0;
  defs: Map<string, Array<Node>> = new Map<string, Array<Node>>();

  constructor(public toks: Array<Tok>) {}

  peek(): Tok { return unchecked(this.toks[this.p]); }
  next(): Tok { return unchecked(this.toks[this.p++]); }
  expect(kind: i32): bool {
    if (this.peek().kind != kind) { failed = true; return false; }
    this.p++;
    return true;
  }
  isKeyword(t: Tok, word: string): bool { return t.kind == K_IDENT && t.text == word; }

  /** Nodes up to a {{end}} / {{else}} (returned: "end", "else") or EOF (""). */
  list(out: Array<Node>): string {
    while (!failed) {
      const t = this.next();
      if (t.kind == K_EOF) { this.p--; return ""; }
      if (t.kind == K_TEXT) {
        const n = new Node();
        n.text = t.text;
        out.push(n);
        continue;
      }
      // K_LEFT
      const k = this.peek();
      if (k.kind == K_IDENT) {
        const w = k.text;
        if (w == "end" || w == "else") {
          this.p++;
          if (w == "end" && !this.expect(K_RIGHT)) return "";
          return w;
        }
        if (w == "if" || w == "with" || w == "range") {
          this.p++;
          out.push(this.control(w == "if" ? N_IF : w == "with" ? N_WITH : N_RANGE));
          continue;
        }
        if (w == "break" || w == "continue") {
          this.p++;
          if (this.rangeDepth == 0) { failed = true; return ""; }
          const n = new Node();
          n.kind = w == "break" ? N_BREAK : N_CONTINUE;
          out.push(n);
          this.expect(K_RIGHT);
          continue;
        }
        if (w == "define" || w == "block" || w == "template") {
          this.p++;
          this.templateAction(w, out);
          continue;
        }
      }
      const n = new Node();
      n.kind = N_ACTION;
      n.pipe = this.pipeline(false, K_RIGHT);
      out.push(n);
    }
    return "";
  }

  /** {{define "n"}}...{{end}}, {{template "n" pipe}}, {{block "n" pipe}}...{{end}}. */
  templateAction(w: string, out: Array<Node>): void {
    const name = this.next();
    if (name.kind != K_STRING) { failed = true; return; }
    if (w == "define") {
      if (!this.expect(K_RIGHT)) return;
      this.definition(name.text);
      return;
    }
    const n = new Node();
    n.kind = N_TEMPLATE;
    n.text = name.text;
    if (this.peek().kind != K_RIGHT) n.pipe = this.pipeline(false, K_RIGHT);
    else this.p++;
    out.push(n);
    if (w == "block") this.definition(name.text);
  }

  /** A define's or block's body up to its {{end}}, kept under `name`; its vars start afresh from `$`. */
  definition(name: string): void {
    const saved = this.vars;
    this.vars = ["$"];
    const body = new Array<Node>();
    if (this.list(body) != "end") { failed = true; return; }
    this.vars = saved;
    this.defs.set(name, body);
  }

  control(kind: i32): Node {
    const n = new Node();
    n.kind = kind;
    const mark = this.vars.length;
    n.pipe = this.pipeline(kind == N_RANGE, K_RIGHT);
    if (kind == N_RANGE) this.rangeDepth++;
    let end = this.list(n.list);
    if (kind == N_RANGE) this.rangeDepth--;
    if (end == "else") {
      const els = new Array<Node>();
      const t = this.peek();
      // {{else if ...}} / {{else with ...}} nest a control that shares this {{end}}.
      if (kind != N_RANGE && t.kind == K_IDENT && ((kind == N_IF && t.text == "if") || (kind == N_WITH && t.text == "with"))) {
        this.p++;
        els.push(this.control(kind));
        end = "end";
      } else {
        if (!this.expect(K_RIGHT)) return n;
        end = this.list(els);
      }
      n.elseList = els;
    }
    if (end != "end") failed = true;
    this.vars.length = mark;
    return n;
  }

  pipeline(isRange: bool, end: i32): Pipe {
    const pipe = new Pipe();
    // Declarations: $x := / $x = / (range) $i, $v :=
    const t = this.peek();
    if (t.kind == K_VAR) {
      const a = unchecked(this.toks[this.p + 1]);
      if (a.kind == K_DECLARE || a.kind == K_ASSIGN) {
        pipe.decl.push(t.text);
        pipe.isAssign = a.kind == K_ASSIGN;
        this.p += 2;
      } else if (isRange && a.kind == K_COMMA) {
        const v2 = unchecked(this.toks[this.p + 2]);
        const op = unchecked(this.toks[this.p + 3]);
        if (v2.kind != K_VAR || (op.kind != K_DECLARE && op.kind != K_ASSIGN)) { failed = true; return pipe; }
        pipe.decl.push(t.text);
        pipe.decl.push(v2.text);
        pipe.isAssign = op.kind == K_ASSIGN;
        this.p += 4;
      }
      for (let k = 0; k < pipe.decl.length; k++) {
        const name = pipe.decl[k];
        if (pipe.isAssign) { if (!this.vars.includes(name)) failed = true; }
      }
    }
    while (!failed) {
      const cmd = new Cmd();
      while (!failed) {
        const k = this.peek().kind;
        if (k == end || k == K_PIPE) break;
        if (k == K_EOF || k == K_RIGHT || k == K_RPAREN) { failed = true; break; }
        cmd.args.push(this.operand());
      }
      if (cmd.args.length == 0) { failed = true; break; }
      pipe.cmds.push(cmd);
      if (this.next().kind == end) break;
    }
    if (!pipe.isAssign) for (let k = 0; k < pipe.decl.length; k++) this.vars.push(pipe.decl[k]);
    return pipe;
  }

  operand(): Operand {
    const o = new Operand();
    const t = this.next();
    switch (t.kind) {
      case K_FIELD: o.kind = O_FIELD; o.fields.push(t.text); break;
      case K_VAR:
        o.kind = O_VAR;
        o.name = t.text;
        if (!this.vars.includes(t.text)) failed = true;
        break;
      case K_DOT: o.kind = O_DOT; break;
      case K_NIL: o.kind = O_NIL; break;
      case K_BOOL: o.kind = O_CONST; o.value = GV.bool(t.text == "true"); break;
      case K_STRING: o.kind = O_CONST; o.value = GV.str(t.text); break;
      case K_CHAR: o.kind = O_CONST; o.value = GV.int(I64.parseInt(t.text)); break;
      case K_NUMBER: o.kind = O_CONST; o.value = parseNumber(t.text); break;
      case K_IDENT:
        if (!FUNCS.includes(t.text)) failed = true;
        o.kind = O_IDENT;
        o.name = t.text;
        break;
      case K_LPAREN:
        o.kind = O_PIPE;
        o.pipe = this.pipeline(false, K_RPAREN);
        break;
      default:
        failed = true;
        return o;
    }
    // .a.b, $x.a, (pipe).a: fields written right after the operand chain onto it.
    while (this.peek().kind == K_FIELD && !this.peek().spaced) {
      if (o.kind != O_FIELD && o.kind != O_VAR && o.kind != O_PIPE) { failed = true; break; }
      o.fields.push(this.next().text);
    }
    return o;
  }
}
