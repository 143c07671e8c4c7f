/**
 * Building blocks of one IR function: locals, the "current block" statements
 * are appended to, and the var -> local bindings of the code being planned.
 *
 * Planning is continuation-passing (as in OPA's planner): to plan an
 * expression, the planner appends its statements and then plans the rest of
 * the body *inside* whatever block the expression opened (a Scan body, say),
 * so a failing statement ends exactly the solutions it should.
 */
import type { Block, Local, Stmt } from "./ir";

export class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  get(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    return i;
  }
}

export class FuncBuilder {
  nlocals = 0;
  readonly blocks: Block[] = [];
  curr: Block = { stmts: [] };
  /** Bindings of rule/query vars to locals; copied on entering a scope. */
  vars = new Map<string, Local>();

  newLocal(): Local {
    return this.nlocals++;
  }

  private generatedVars = 0;

  /** A var name of the planner's own, unique in the function (no Rego var has a `%`). */
  freshVar(): string {
    return `%${this.generatedVars++}`;
  }

  private maxLocals = 0;

  /** Locals needed by the whole function (regions may reuse the same numbers). */
  get totalLocals(): number {
    return Math.max(this.nlocals, this.maxLocals);
  }

  /**
   * Plans `fn` with locals that are free again afterwards: the rule bodies
   * of one function each reuse the same local numbers (every local is
   * written before it is read), so thousands of rules stay within Wasm's
   * limit on locals.
   */
  reusingLocals(fn: () => void): void {
    const base = this.nlocals;
    fn();
    this.maxLocals = Math.max(this.maxLocals, this.nlocals);
    this.nlocals = base;
  }

  emit(stmt: Stmt): void {
    this.curr.stmts.push(stmt);
  }

  /** Starts a new top-level block of the function and plans `fn` into it. */
  topBlock(fn: () => void): void {
    const b: Block = { stmts: [] };
    this.blocks.push(b);
    this.into(b, fn);
  }

  /** Number of IR blocks enclosing the current one, itself included (what Break counts). */
  depth = 0;

  /** Plans `fn` into block `b` (restoring the current block afterwards). */
  into(b: Block, fn: () => void): void {
    const prev = this.curr;
    this.curr = b;
    this.depth++;
    try {
      fn();
    } finally {
      this.curr = prev;
      this.depth--;
    }
  }

  /** Leaves every block up to and including the one entered at `depth` (see `depth`). */
  breakTo(depth: number): void {
    this.emit({ type: "Break", index: this.depth - depth });
  }

  /**
   * Appends a Block statement whose single block holds what `fn` plans: a
   * failure inside ends only that block. Var bindings made inside are dropped.
   */
  nested(fn: () => void): void {
    const b: Block = { stmts: [] };
    this.emit({ type: "Block", blocks: [b] });
    this.scoped(() => this.into(b, fn));
  }

  /** Runs `fn` with a copy of the var bindings, restored afterwards. */
  scoped<T>(fn: () => T): T {
    const saved = this.vars;
    this.vars = new Map(saved);
    try {
      return fn();
    } finally {
      this.vars = saved;
    }
  }
}
