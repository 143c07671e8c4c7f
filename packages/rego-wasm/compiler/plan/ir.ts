/**
 * The planner's intermediate representation: the contract between `plan/`
 * (AST -> IR) and `emit/` (IR -> Wasm). Modelled on OPA's `ir` package.
 *
 * Execution model
 * - Every local holds an i32: the address of a runtime value, or 0 meaning
 *   "undefined". Locals are numbered per function; params come first.
 * - A Block runs its statements in order. A statement that "fails" (see each
 *   statement) stops the innermost enclosing Block; execution continues after
 *   that Block. Nothing else is implicit: no statement jumps anywhere else.
 * - BreakStmt leaves `index + 1` enclosing blocks (0 = the current one).
 * - ScanStmt runs its block once per element; failing inside the block only
 *   ends that iteration. NotStmt fails when its block runs to completion.
 * - Each function's body is a list of blocks run in order; the function
 *   returns the local named by `ret` (0 if never assigned = undefined).
 *
 * Every planned function takes `input` and `data` as its first two params,
 * so `with input as ...` / `with data.x as ...` can pass replaced documents.
 *
 * Runtime calls are named by the runtime's export name (see
 * `../runtime-contract.ts`); user functions by `Func.name`.
 */

/** Index of a local within its function. */
export type Local = number;

export interface Policy {
  /** String constants; statements refer to them by index. Stored UTF-8 in the data segment. */
  strings: string[];
  /** Rule and function bodies. Names are unique. */
  funcs: Func[];
  /** One plan per entrypoint, in entrypoint-id order. */
  plans: Plan[];
  /** Builtins the module dispatches to the host (`opa_builtinN`), in id order. */
  hostBuiltins: HostBuiltin[];
  /**
   * The rule bodies TrailStmts name, indexed by their id (../trail.ts);
   * absent when the compilation records no trail.
   */
  trail?: TrailBody[];
}

/** A rule body as the decision trail names it (../trail.ts). */
export interface TrailBody {
  /** The rule's path, dotted, without `data`: `portcullis.outcome`. */
  rule: string;
  file: string;
  row: number;
  /** The body's place in its rule: a plain body, an `else` branch, or the `default`. */
  kind: "body" | "else" | "default";
  /** The rules (dotted paths) this body and its head read: what it may depend on. */
  refs: string[];
  /** The input paths it reads (`input.route.id`): the longest constant prefix of each input ref. */
  reads: string[];
}

export interface HostBuiltin {
  name: string;
  arity: number;
}

/**
 * An entrypoint. Its code runs with locals 0 = input, 1 = data and adds one
 * binding object per solution with ResultSetAddStmt. `name` is the slash path
 * (`portcullis/decision`) the `entrypoints()` export maps to the plan's id.
 */
export interface Plan {
  name: string;
  blocks: Block[];
  /** Total locals used, including input and data. */
  locals: number;
}

export interface Func {
  name: string;
  /**
   * Param locals: [input, data, ...mock slots, ...args]. Always 0..params.length-1.
   * Mock slots carry run-time `with` replacement values (`with count as v`)
   * into functions planned under that mock; most functions have none.
   */
  params: Local[];
  /** Local holding the result when the body finishes. */
  ret: Local;
  blocks: Block[];
  /** Total locals used, params included. */
  locals: number;
  /** Source path of the rule or function, for names and debugging: `data.a.b.p`. */
  path: string;
}

export interface Block {
  stmts: Stmt[];
}

// ------------------------------------------------------------- statements

/** target = value of a constant. Never fails. */
export interface MakeNullStmt {
  type: "MakeNull";
  target: Local;
}
export interface MakeBooleanStmt {
  type: "MakeBoolean";
  value: boolean;
  target: Local;
}
/** A number from its literal text (strings[index], e.g. "3", "-1.5e3"). Never fails. */
export interface MakeNumberRefStmt {
  type: "MakeNumberRef";
  index: number;
  target: Local;
}
/** A small integer. Never fails. */
export interface MakeNumberIntStmt {
  type: "MakeNumberInt";
  value: number;
  target: Local;
}
/** A string from strings[index]. Never fails. */
export interface MakeStringStmt {
  type: "MakeString";
  index: number;
  target: Local;
}
/**
 * target = a composite constant (an array, set or object whose elements are
 * all constants), built once per module instance by the start function
 * (emit/constants.ts) and shared by every use. Never fails. Its local is
 * never the target of a mutating statement (ArrayAppend, ObjectInsert,
 * SetAdd): those only ever target MakeArray/MakeObject/MakeSet locals.
 */
export interface MakeConstantStmt {
  type: "MakeConstant";
  value: CompositeConstant;
  target: Local;
}
/** An element of a composite constant: a scalar, a small integer, or a nested composite. */
export type ConstantValue = ScalarConstant | { type: "int"; value: number } | CompositeConstant;
/** Elements in source order: the start function inserts them as MakeArray/SetAdd/ObjectInsert would (a repeated key: the last wins). */
export type CompositeConstant =
  { type: "array"; items: ConstantValue[] } | { type: "set"; items: ConstantValue[] } | { type: "object"; items: Array<[ConstantValue, ConstantValue]> };

export interface MakeArrayStmt {
  type: "MakeArray";
  capacity: number;
  target: Local;
}
export interface MakeObjectStmt {
  type: "MakeObject";
  target: Local;
}
export interface MakeSetStmt {
  type: "MakeSet";
  target: Local;
}

/** Appends value to the array in `array` (mutates). Never fails. */
export interface ArrayAppendStmt {
  type: "ArrayAppend";
  array: Local;
  value: Local;
}
/** object[key] = value, replacing (mutates). Never fails. */
export interface ObjectInsertStmt {
  type: "ObjectInsert";
  object: Local;
  key: Local;
  value: Local;
}
/**
 * object[key] = value; if key is present with a different value, the runtime
 * aborts with an eval_conflict_error (OPA: "object keys must be unique").
 */
export interface ObjectInsertOnceStmt {
  type: "ObjectInsertOnce";
  object: Local;
  key: Local;
  value: Local;
}
/**
 * target = deep merge of a and b, as OPA merges base data (a) with a virtual
 * document (b): keys of both; under a shared key two objects merge
 * recursively, otherwise a's value stays (base data wins). If a or b is not
 * an object, target = a. Fails if either is undefined.
 */
export interface ObjectMergeStmt {
  type: "ObjectMerge";
  a: Local;
  b: Local;
  target: Local;
}
/** Adds value to the set in `set` (mutates). Never fails. */
export interface SetAddStmt {
  type: "SetAdd";
  set: Local;
  value: Local;
}

/** target = source[key] (array index, object key, set member). Fails when undefined. */
export interface DotStmt {
  type: "Dot";
  source: Local;
  key: Local;
  target: Local;
}
/** target = number of elements of an array/object/set/string (code points). Fails otherwise. */
export interface LenStmt {
  type: "Len";
  source: Local;
  target: Local;
}
/**
 * For each element of array/object/set `source` (arrays by index, objects and
 * sets in the runtime's total order): key = index/key/element, value =
 * element/value/element, then runs `block`. Fails if source is not a collection
 * (or undefined); an empty collection runs nothing and does not fail.
 */
export interface ScanStmt {
  type: "Scan";
  source: Local;
  key: Local;
  value: Local;
  block: Block;
}
/** Fails when `block` runs to completion; succeeds when the block fails. */
export interface NotStmt {
  type: "Not";
  block: Block;
}
/** Runs each block in order (a failing block does not stop the next one). Never fails itself. */
export interface BlockStmt {
  type: "Block";
  blocks: Block[];
}
/**
 * A rule index's dispatch (rule-index.ts): runs the one case whose key
 * equals the value in `source` (Rego equality: 1 == 1.0, a string never
 * equals a number), or no case when `source` is undefined or equals no key.
 * Keys are scalar constants, pairwise unequal. Each case's block is an IR
 * block (failing inside it ends that case). Never fails itself.
 */
export interface SwitchStmt {
  type: "Switch";
  source: Local;
  cases: SwitchCase[];
}
export interface SwitchCase {
  key: ScalarConstant;
  block: Block;
}
/** A scalar constant: strings and number literal texts by index in Policy.strings. */
export type ScalarConstant = { type: "null" } | { type: "boolean"; value: boolean } | { type: "number"; index: number } | { type: "string"; index: number };

/** Leaves `index + 1` enclosing blocks (Block bodies, Scan/Not bodies and Switch cases count as blocks). */
export interface BreakStmt {
  type: "Break";
  index: number;
}

/**
 * Calls a runtime builtin export (`bi_*`), a host builtin (`host:<name>`) or a
 * planned Func (by name) with the argument locals; result into `result`.
 * Fails when the callee returns 0 (undefined).
 */
export interface CallStmt {
  type: "Call";
  func: string;
  args: Local[];
  result: Local;
}

/** Fails unless the two values are equal (structural, 1 == 1.0). Fails if either is undefined. */
export interface EqualStmt {
  type: "Equal";
  a: Local;
  b: Local;
}
/** Fails if the two values are equal. Fails if either is undefined. */
export interface NotEqualStmt {
  type: "NotEqual";
  a: Local;
  b: Local;
}
/** Fails unless source is defined (non-zero). */
export interface IsDefinedStmt {
  type: "IsDefined";
  source: Local;
}
/** Fails unless source is undefined (zero). */
export interface IsUndefinedStmt {
  type: "IsUndefined";
  source: Local;
}
/** Fail unless the value has the given type. */
export interface IsArrayStmt {
  type: "IsArray";
  source: Local;
}
export interface IsObjectStmt {
  type: "IsObject";
  source: Local;
}
export interface IsSetStmt {
  type: "IsSet";
  source: Local;
}

/** target = source (the same value address). Never fails. */
export interface AssignVarStmt {
  type: "AssignVar";
  source: Local;
  target: Local;
}
/**
 * If target is undefined, target = source. If it is defined and equal to
 * source, nothing. If it differs: abort with `message` (an eval_conflict_error).
 */
export interface AssignVarOnceStmt {
  type: "AssignVarOnce";
  source: Local;
  target: Local;
  message: string;
}
/** target = undefined (0). Never fails. */
export interface ResetLocalStmt {
  type: "ResetLocal";
  target: Local;
}
/** Returns from the function now with the value in source. */
export interface ReturnLocalStmt {
  type: "ReturnLocal";
  source: Local;
}
/** Adds the binding object in value to the entrypoint's result set. Never fails. */
export interface ResultSetAddStmt {
  type: "ResultSetAdd";
  value: Local;
}

/**
 * Memoisation of rule values within one evaluation (keyed by Func index in
 * Policy.funcs). MemoInsert records the value, undefined included; MemoGet
 * fails on a miss and otherwise sets target to the recorded value (0 when it
 * was undefined: a rule that does not hold is not evaluated again).
 * MemoPush/MemoPop bracket the scope of a `with` so values computed under a
 * replaced input/data are not reused outside.
 */
export interface MemoGetStmt {
  type: "MemoGet";
  func: number;
  target: Local;
}
export interface MemoInsertStmt {
  type: "MemoInsert";
  func: number;
  value: Local;
}
export interface MemoPushStmt {
  type: "MemoPush";
}
export interface MemoPopStmt {
  type: "MemoPop";
}

/**
 * The rule body `body` (an index in Policy.trail) succeeded: appends its id
 * to the evaluation's trail unless it is there already (../trail.ts).
 * Never fails.
 */
export interface TrailStmt {
  type: "Trail";
  body: number;
}

/** print(): `args` is a local holding an array of the argument values (undefined ones shown as `<undefined>`). */
export interface PrintStmt {
  type: "Print";
  args: Local;
}

export type Stmt =
  | MakeNullStmt
  | MakeBooleanStmt
  | MakeNumberRefStmt
  | MakeNumberIntStmt
  | MakeStringStmt
  | MakeArrayStmt
  | MakeObjectStmt
  | MakeSetStmt
  | MakeConstantStmt
  | ArrayAppendStmt
  | ObjectInsertStmt
  | ObjectInsertOnceStmt
  | ObjectMergeStmt
  | SetAddStmt
  | DotStmt
  | LenStmt
  | ScanStmt
  | NotStmt
  | BlockStmt
  | SwitchStmt
  | BreakStmt
  | CallStmt
  | EqualStmt
  | NotEqualStmt
  | IsDefinedStmt
  | IsUndefinedStmt
  | IsArrayStmt
  | IsObjectStmt
  | IsSetStmt
  | AssignVarStmt
  | AssignVarOnceStmt
  | ResetLocalStmt
  | ReturnLocalStmt
  | ResultSetAddStmt
  | MemoGetStmt
  | MemoInsertStmt
  | MemoPushStmt
  | MemoPopStmt
  | PrintStmt
  | TrailStmt;
