/**
 * compile()'s `hostBuiltins` option: builtins the host supplies beyond the
 * catalogue (the npm SDK's `customBuiltins`). A declared builtin parses,
 * checks and plans like a catalogue one, and the module dispatches each call
 * to the host through opa_builtinN, listing it in its `builtins` export.
 * Declarations belong to one compilation: nothing leaks into the next.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile, type HostBuiltinDecl } from "../../compiler";
import { CompileErrors } from "../../compiler/errors";

const HOST: HostBuiltinDecl[] = [
  { name: "acme.tier", arity: 1 },
  { name: "acme.now", arity: 0 },
];

function build(source: string, hostBuiltins?: HostBuiltinDecl[]): Uint8Array {
  return compile([{ file: "h.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t.p" }], hostBuiltins }).wasm;
}

test("a policy calls a declared host builtin; the SDK's customBuiltins answer it", async () => {
  const calls: unknown[] = [];
  const wasm = build('package t\np := [acme.tier(input.user), t] if { acme.tier("bob", t) }', HOST);
  const policy = await loadPolicy(wasm, undefined, {
    "acme.tier": (user: unknown) => {
      calls.push(user);
      return user === "alice" ? "gold" : { level: 1 };
    },
  });
  policy.setData({});
  const input = new TextEncoder().encode(JSON.stringify({ user: "alice" })).buffer;
  expect(policy.evaluate(input, "q")).toEqual([{ x: ["gold", { level: 1 }] }]);
  expect(calls.sort()).toEqual(["alice", "bob"]);
});

test("the module's `builtins` export lists exactly the host builtins it calls", async () => {
  const wasm = build("package t\np := acme.now()", HOST);
  const { instance } = await WebAssembly.instantiate(new Uint8Array(wasm), {
    env: {
      memory: new WebAssembly.Memory({ initial: 5 }),
      opa_abort: () => undefined,
      opa_println: () => undefined,
      opa_builtin0: () => 0,
      opa_builtin1: () => 0,
      opa_builtin2: () => 0,
      opa_builtin3: () => 0,
      opa_builtin4: () => 0,
    },
  });
  const ex = instance.exports as Record<string, (...a: number[]) => number> & { memory: WebAssembly.Memory };
  const addr = ex.opa_json_dump!(ex.builtins!());
  const bytes = new Uint8Array(ex.memory.buffer, addr);
  const text = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
  expect(Object.keys(JSON.parse(text))).toEqual(["acme.now"]);
});

test("`with` mocks a host builtin like any other", async () => {
  const wasm = build('package t\np := y if y := acme.tier("a") with acme.tier as "mocked"', HOST);
  const policy = await loadPolicy(wasm, undefined, { "acme.tier": () => "real" });
  policy.setData({});
  expect(policy.evaluate(undefined, "q")).toEqual([{ x: "mocked" }]);
});

test("undeclared, it is an undefined function; declarations do not leak between compilations", () => {
  const source = 'package t\np := acme.tier("a")';
  expect(() => build(source, HOST)).not.toThrow();
  let err: unknown;
  try {
    build(source);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(CompileErrors);
  expect((err as CompileErrors).message).toBe("h.rego:2:6: rego_type_error: undefined function acme.tier");
});

test("arity is checked against the declaration", () => {
  expect(() => build('package t\np := acme.tier("a", "b", "c")', HOST)).toThrow(/rego_type_error: acme.tier: arity mismatch/);
});

test("a rule may not take a host builtin's name", () => {
  expect(() => build('package t\np := 1\nacme.tier("a")', HOST)).toThrow(/rule name conflicts with built-in function/);
});

test("bad declarations are refused, naming the option", () => {
  expect(() => build("package t\np := 1", [{ name: "count", arity: 1 }])).toThrow('hostBuiltins: "count" is already a builtin');
  expect(() => build("package t\np := 1", [{ name: "print", arity: 1 }])).toThrow(/is already a builtin/);
  expect(() => build("package t\np := 1", [{ name: "a b", arity: 1 }])).toThrow(/is not a builtin name/);
  expect(() => build("package t\np := 1", [{ name: "x.y", arity: 5 }])).toThrow(/arity must be an integer from 0 to 4/);
  expect(() => build("package t\np := 1", [HOST[0]!, HOST[0]!])).toThrow(/declared twice/);
});

test("declared operand types check literal operands only: variables and references are known at evaluation", () => {
  const typed: HostBuiltinDecl[] = [{ name: "acme.tag", arity: 2, args: [{ type: "string" }, { type: "any", of: [{ type: "number" }, { type: "set" }] }] }];
  expect(() => build("package t\np := acme.tag(input.a, input.b)", typed)).not.toThrow();
  expect(() => build('package t\np := acme.tag("a", {x | x := input.b[_]})', typed)).not.toThrow();
  expect(() => build('package t\np := acme.tag("a", [1])', typed)).toThrow(
    "h.rego:2:20: rego_type_error: acme.tag: invalid argument(s): operand 2 is array, want any<number, set>",
  );
  expect(() => build("package t\np := acme.tag(1, 2)", typed)).toThrow(/operand 1 is number, want string/);
  expect(() => build("package t\np := 1", [{ name: "x.y", arity: 1, args: [] }])).toThrow(/0 operand types declared for arity 1/);
});
