/** Executes a parsed template over the data, as text/template's exec.go. */

import { utf8Bytes, decodeUtf8Lossy, queryEscape } from "../text";
import { Arg, formatArgs } from "../sprintf-verbs";
import {
  G_NIL, G_INT, G_UINT, G_STR, G_SLICE, G_MAP, GV, NIL, MISSING, failed, fail, fmtV, toArg, sprint, truth,
} from "./values";
import {
  N_TEXT, N_ACTION, N_IF, N_WITH, N_RANGE, N_BREAK, N_CONTINUE, N_TEMPLATE,
  O_VAR, O_DOT, O_NIL, O_CONST, O_IDENT, O_PIPE, Operand, Cmd, Pipe, Node,
} from "./parse";
import { eq, less, htmlEscape, jsEscape } from "./funcs";

const WALK_OK: i32 = 0;
const WALK_BREAK: i32 = 1;
const WALK_CONTINUE: i32 = 2;

export class Exec {
  out: Array<string> = [];
  names: Array<string> = [];
  vals: Array<GV> = [];
  depth: i32 = 0;

  constructor(public defs: Map<string, Array<Node>>) {}

  lookup(name: string): GV {
    for (let k = this.names.length - 1; k >= 0; k--) if (unchecked(this.names[k]) == name) return unchecked(this.vals[k]);
    return fail();
  }
  setVar(name: string, v: GV): void {
    for (let k = this.names.length - 1; k >= 0; k--) {
      if (unchecked(this.names[k]) == name) { this.vals[k] = v; return; }
    }
    fail();
  }
  push(name: string, v: GV): void { this.names.push(name); this.vals.push(v); }
  pop(mark: i32): void { this.names.length = mark; this.vals.length = mark; }

  walkList(dot: GV, list: Array<Node>): i32 {
    for (let k = 0; k < list.length && !failed; k++) {
      const r = this.walk(dot, unchecked(list[k]));
      if (r != WALK_OK) return r;
    }
    return WALK_OK;
  }

  walk(dot: GV, n: Node): i32 {
    switch (n.kind) {
      case N_TEXT: this.out.push(n.text); break;
      case N_ACTION: {
        const pipe = n.pipe!;
        const v = this.pipeline(dot, pipe);
        if (pipe.decl.length == 0 && !failed) this.out.push(v === MISSING ? "<undefined>" : v.kind == G_NIL ? "<no value>" : fmtV(v));
        break;
      }
      case N_IF: case N_WITH: {
        const mark = this.names.length;
        const v = this.pipeline(dot, n.pipe!);
        let r = WALK_OK;
        if (failed) return r;
        if (truth(v)) r = this.walkList(n.kind == N_WITH ? v : dot, n.list);
        else if (n.elseList !== null) r = this.walkList(dot, n.elseList!);
        this.pop(mark);
        return r;
      }
      case N_RANGE: return this.range(dot, n);
      case N_BREAK: return WALK_BREAK;
      case N_CONTINUE: return WALK_CONTINUE;
      case N_TEMPLATE: {
        if (!this.defs.has(n.text) || ++this.depth > 100000) { fail(); break; }
        const arg = n.pipe !== null ? this.pipeline(dot, n.pipe!) : NIL;
        if (failed) break;
        // A template runs with its own variables: only $, bound to its argument.
        const names = this.names;
        const vals = this.vals;
        this.names = ["$"];
        this.vals = [arg];
        this.walkList(arg, this.defs.get(n.text));
        this.names = names;
        this.vals = vals;
        this.depth--;
        break;
      }
    }
    return WALK_OK;
  }

  range(dot: GV, n: Node): i32 {
    const pipe = n.pipe!;
    const mark = this.names.length;
    const v = this.pipeline(dot, pipe, false);
    if (failed) return WALK_OK;
    const decl = pipe.decl;
    let count = 0;
    if (v.kind == G_SLICE) count = v.items.length;
    else if (v.kind == G_MAP) count = v.keys.length;
    else if (v.kind == G_INT || v.kind == G_UINT) {
      if (decl.length > 1) { fail(); return WALK_OK; }
      count = v.i > 0 ? <i32>v.i : 0;
    } else if (v.kind != G_NIL) { fail(); return WALK_OK; }
    if (!pipe.isAssign) for (let k = 0; k < decl.length; k++) this.push(decl[k], v);
    const inner = this.names.length;
    for (let k = 0; k < count && !failed; k++) {
      let key: GV, elem: GV;
      if (v.kind == G_SLICE) { key = GV.int(k); elem = unchecked(v.items[k]); }
      else if (v.kind == G_MAP) { key = GV.str(unchecked(v.keys[k])); elem = unchecked(v.items[k]); }
      else { key = GV.int(k); elem = key; }
      if (decl.length == 1) this.setVar(decl[0], elem);
      else if (decl.length == 2) { this.setVar(decl[0], key); this.setVar(decl[1], elem); }
      const r = this.walkList(elem, n.list);
      this.pop(inner);
      if (r == WALK_BREAK) break;
    }
    if (count == 0 && n.elseList !== null) this.walkList(dot, n.elseList!);
    this.pop(mark);
    return WALK_OK;
  }

  pipeline(dot: GV, pipe: Pipe, bind: bool = true): GV {
    let v: GV | null = null;
    for (let k = 0; k < pipe.cmds.length && !failed; k++) v = this.command(dot, unchecked(pipe.cmds[k]), v);
    const r = v === null ? NIL : v;
    if (bind) {
      for (let k = 0; k < pipe.decl.length; k++) {
        if (pipe.isAssign) this.setVar(pipe.decl[k], r);
        else this.push(pipe.decl[k], r);
      }
    }
    return r;
  }

  /** One command; `last` is the previous command's value, passed as a final argument. */
  command(dot: GV, cmd: Cmd, last: GV | null): GV {
    const first = unchecked(cmd.args[0]);
    if (first.kind == O_IDENT) return this.call(dot, first.name, cmd.args, 1, last);
    // Anything but a function takes no arguments (maps have no methods).
    if (cmd.args.length > 1 || last !== null) return fail();
    if (first.kind == O_NIL) return fail();
    return this.arg(dot, first);
  }

  arg(dot: GV, o: Operand): GV {
    let v: GV;
    switch (o.kind) {
      case O_DOT: return dot;
      case O_NIL: return NIL;
      case O_CONST: return o.value;
      case O_IDENT: return this.call(dot, o.name, [], 0, null);
      case O_VAR: v = this.lookup(o.name); break;
      case O_PIPE: {
        const mark = this.names.length;
        v = this.pipeline(dot, o.pipe!);
        this.pop(mark);
        break;
      }
      default: v = dot;
    }
    for (let k = 0; k < o.fields.length && !failed; k++) {
      // A missing key is MISSING (and so are its fields); a field of any other non-map fails.
      if (v === MISSING) continue;
      if (v.kind != G_MAP) return fail();
      const f = v.mapGet(unchecked(o.fields[k]));
      v = f === null ? MISSING : f;
    }
    return v;
  }

  call(dot: GV, name: string, ops: Array<Operand>, from: i32, last: GV | null): GV {
    const nargs = ops.length - from + (last !== null ? 1 : 0);
    // and/or evaluate their operands lazily, left to right.
    if (name == "and" || name == "or") {
      if (nargs < 1) return fail();
      let v = NIL;
      for (let k = 0; k < nargs; k++) {
        v = this.nth(dot, ops, from, last, k, false);
        if (failed) return NIL;
        if (truth(v) != (name == "and")) return v;
      }
      return v;
    }
    const anyArgs = name == "print" || name == "printf" || name == "println" || name == "html" || name == "js" || name == "urlquery";
    const args = new Array<GV>(nargs);
    for (let k = 0; k < nargs && !failed; k++) args[k] = this.nth(dot, ops, from, last, k, anyArgs);
    if (failed) return NIL;
    if (name == "print") return GV.str(sprint(args));
    if (name == "println") {
      const parts = new Array<string>(nargs);
      for (let k = 0; k < nargs; k++) parts[k] = fmtV(args[k]);
      return GV.str(parts.join(" ") + "\n");
    }
    if (name == "printf") {
      if (nargs < 1 || args[0].kind != G_STR) return fail();
      const fa = new Array<Arg>(nargs - 1);
      for (let k = 1; k < nargs; k++) fa[k - 1] = toArg(args[k]);
      return GV.str(formatArgs(args[0].s, fa));
    }
    if (name == "html" || name == "js" || name == "urlquery") {
      const s = nargs == 1 && args[0].isString() ? args[0].s : sprint(args);
      return GV.str(name == "html" ? htmlEscape(s) : name == "js" ? jsEscape(s) : queryEscape(s));
    }
    if (name == "not") return nargs == 1 ? GV.bool(!truth(args[0])) : fail();
    if (name == "len") {
      if (nargs != 1) return fail();
      const a = args[0];
      if (a.isString()) return GV.int(utf8Bytes(a.s).length);
      if (a.kind == G_SLICE) return GV.int(a.items.length);
      if (a.kind == G_MAP) return GV.int(a.keys.length);
      return fail();
    }
    if (name == "eq") {
      if (nargs < 2) return fail();
      for (let k = 1; k < nargs; k++) {
        const r = eq(args[0], args[k]);
        if (failed) return NIL;
        if (r) return GV.bool(true);
      }
      return GV.bool(false);
    }
    if (name == "ne" || name == "lt" || name == "le" || name == "gt" || name == "ge") {
      if (nargs != 2) return fail();
      const a = args[0];
      const b = args[1];
      if (name == "ne") { const r = eq(a, b); return failed ? NIL : GV.bool(!r); }
      const l = less(a, b);
      if (failed) return NIL;
      const e = name == "lt" || name == "ge" ? false : eq(a, b);
      if (failed) return NIL;
      if (name == "lt") return GV.bool(l);
      if (name == "ge") return GV.bool(!l);
      return GV.bool(name == "le" ? l || e : !(l || e));
    }
    if (name == "index") {
      if (nargs < 1) return fail();
      let v = args[0];
      if (v.kind == G_NIL) return fail();
      for (let k = 1; k < nargs; k++) {
        const x = args[k];
        if (v.kind == G_MAP) {
          if (x.kind != G_STR) return fail();
          const f = v.mapGet(x.s);
          v = f === null ? NIL : f;
          continue;
        }
        if (x.kind != G_INT && x.kind != G_UINT) return fail();
        if (v.kind == G_SLICE) {
          if (x.i < 0 || x.i >= v.items.length) return fail();
          v = v.items[<i32>x.i];
        } else if (v.isString()) {
          const b = utf8Bytes(v.s);
          if (x.i < 0 || x.i >= b.length) return fail();
          v = GV.of(G_UINT);
          v.i = b[<i32>x.i];
        } else return fail();
      }
      return v;
    }
    if (name == "slice") {
      if (nargs < 1 || nargs > 4) return fail();
      const v = args[0];
      const isStr = v.isString();
      if (!isStr && v.kind != G_SLICE) return fail();
      if (isStr && nargs == 4) return fail();
      const bytes = isStr ? utf8Bytes(v.s) : new Array<u8>();
      const len = isStr ? bytes.length : v.items.length;
      const idx: i64[] = [0, len, len];
      for (let k = 1; k < nargs; k++) {
        const x = args[k];
        if (x.kind != G_INT && x.kind != G_UINT) return fail();
        if (x.i < 0 || x.i > len) return fail();
        idx[k - 1] = x.i;
      }
      if (idx[0] > idx[1] || (nargs == 4 && idx[1] > idx[2])) return fail();
      if (isStr) {
        const r = GV.str(decodeUtf8Lossy(bytes.slice(<i32>idx[0], <i32>idx[1])));
        r.kind = G_STR;
        return r;
      }
      const r = GV.of(G_SLICE);
      r.items = v.items.slice(<i32>idx[0], <i32>idx[1]);
      return r;
    }
    return fail(); // call: no function values in JSON data
  }

  /** The k-th argument of a call: the operands, then the piped value. */
  nth(dot: GV, ops: Array<Operand>, from: i32, last: GV | null, k: i32, nilOk: bool): GV {
    const i = from + k;
    if (i < ops.length) {
      const o = unchecked(ops[i]);
      // A nil literal fits only an interface parameter, not reflect.Value.
      if (o.kind == O_NIL && !nilOk) return fail();
      return this.arg(dot, o);
    }
    return last!;
  }
}
