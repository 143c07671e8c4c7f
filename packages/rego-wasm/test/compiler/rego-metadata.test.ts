/**
 * Annotations (`# METADATA` blocks) and rego.metadata.rule()/chain(), which
 * the checker lowers to constants as OPA's compiler does.
 */
import { loadPolicy } from "@open-policy-agent/opa-wasm";
import { compile } from "../../compiler";
import { valueOfX } from "./evaluate-rego";

/** data.<query path> over several modules. */
async function evalModules(files: Array<[string, string]>, query: string): Promise<unknown> {
  const wasm = compile(
    files.map(([file, source]) => ({ file, source })),
    { entrypoints: [{ name: "q", query: `x = ${query}` }] },
  ).wasm;
  const policy = await loadPolicy(wasm);
  policy.setData({});
  const rs = policy.evaluate(new TextEncoder().encode("{}").buffer, "q") as Array<{ x: unknown }>;
  return rs.length ? rs[0].x : undefined;
}

function compileError(source: string): string {
  try {
    compile([{ file: "t.rego", source }], { entrypoints: [{ name: "q", query: "x = data.t" }] });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("compiled without error");
}

const PKG = `# METADATA
# title: pkg
# description: The package
package t
`;

test("rule(): the rule's own block, with all of OPA's fields; {} without one", async () => {
  const source = `${PKG}
# METADATA
# title: P
# description: the p rule
# organizations: [Acme]
# related_resources:
# - https://example.com
# - ref: https://example.com/b
#   description: docs
# authors:
# - Jane Doe <jane@example.com>
# - name: John
# schemas:
# - input: schema.input
# custom:
#   severity: 3
#   tags: [a, b]
#   nested: {k: null, f: 1.5, t: true}
p := rego.metadata.rule()
`;
  expect(await valueOfX(source)).toEqual({
    scope: "rule",
    title: "P",
    description: "the p rule",
    organizations: ["Acme"],
    related_resources: [{ ref: "https://example.com" }, { ref: "https://example.com/b", description: "docs" }],
    authors: [{ name: "Jane Doe", email: "jane@example.com" }, { name: "John" }],
    schemas: [{ path: ["input"], schema: ["schema", "input"] }],
    custom: { severity: 3, tags: ["a", "b"], nested: { k: null, f: 1.5, t: true } },
  });
  expect(await valueOfX(`${PKG}\np := rego.metadata.rule()\n`)).toEqual({});
});

test("chain(): rule, document, package and subpackages scopes, closest first", async () => {
  const files: Array<[string, string]> = [
    ["a.rego", "# METADATA\n# scope: subpackages\n# title: root\npackage a\n"],
    ["ab.rego", "# METADATA\n# scope: subpackages\n# title: sub\npackage a.b\n"],
    [
      "abc.rego",
      `# METADATA
# title: pkg
package a.b.c

# METADATA
# scope: document
# title: doc
p := 1 if false

# METADATA
# title: far

# METADATA
# title: near
p := rego.metadata.chain()
`,
    ],
  ];
  expect(await evalModules(files, "data.a.b.c.p")).toEqual([
    { path: ["a", "b", "c", "p"], annotations: { scope: "rule", title: "near" } },
    { path: ["a", "b", "c", "p"], annotations: { scope: "rule", title: "far" } },
    { path: ["a", "b", "c", "p"], annotations: { scope: "document", title: "doc" } },
    { path: ["a", "b", "c"], annotations: { scope: "package", title: "pkg" } },
    { path: ["a", "b"], annotations: { scope: "subpackages", title: "sub" } },
    { path: ["a"], annotations: { scope: "subpackages", title: "root" } },
  ]);
});

test("a rule without blocks: chain() starts with its bare path; output operand and nested uses", async () => {
  const source = `package t
q(x) := x
p := [c, r, n, q(rego.metadata.rule())] if {
  rego.metadata.chain(c)
  r := rego.metadata.rule()
  n := [y | y := rego.metadata.chain()[0].path]
}
`;
  expect(await valueOfX(source)).toEqual([[{ path: ["t", "p"] }], {}, [["t", "p"]], {}]);
});

test("entrypoint defaults the scope to document; ref heads use their ground prefix", async () => {
  const source = `package t
# METADATA
# entrypoint: true
a.b[k] := v if {
  some k in ["x"]
  v := rego.metadata.chain()
}
p := data.t.a.b.x
`;
  expect(await valueOfX(source)).toEqual([{ path: ["t", "a", "b"] }, { path: ["t", "a", "b"], annotations: { scope: "document", entrypoint: true } }]);
});

test("an else branch has no block of its own, as in OPA", async () => {
  const source = `package t
# METADATA
# title: P
p := rego.metadata.rule() if false else := rego.metadata.rule()
`;
  expect(await valueOfX(source)).toEqual({});
});

test("a METADATA block inside a rule body applies to the next rule", async () => {
  const source = `package t
q := 1 if {
# METADATA
# title: for p
  true
}
p := rego.metadata.rule()
`;
  expect(await valueOfX(source)).toEqual({ scope: "rule", title: "for p" });
  expect(compileError("package t\np := 1 if {\n# METADATA\n# title: x\n  true\n}\n")).toBe(
    "t.rego:3:1: rego_parse_error: invalid annotation scope ''. Use one of 'rule', 'document', 'package', or 'subpackages'",
  );
});

test("errors: scope, attachment, YAML, field types, redeclaration", () => {
  expect(compileError("# METADATA\n# scope: rule\npackage t\n")).toBe(
    "t.rego:1:1: rego_parse_error: annotation scope 'rule' must be applied to rule (have package)",
  );
  expect(compileError("package t\n# METADATA\n# scope: package\np := 1\n")).toBe(
    "t.rego:2:1: rego_parse_error: annotation scope 'package' must be applied to package (have rule)",
  );
  expect(compileError("package t\n# METADATA\n# scope: everywhere\np := 1\n")).toBe(
    "t.rego:2:1: rego_parse_error: invalid annotation scope 'everywhere'. Use one of 'rule', 'document', 'package', or 'subpackages'",
  );
  expect(compileError("package t\n# METADATA\n# entrypoint: true\n# scope: rule\np := 1\n")).toBe(
    "t.rego:2:1: rego_parse_error: annotation entrypoint applied to non-document or package scope 'rule'",
  );
  expect(compileError("package t\n# METADATA\np := 1\n")).toBe("t.rego:2:1: rego_parse_error: expected METADATA block, found whitespace");
  expect(compileError("package t\n# METADATA\n# title: [x\n# b: c\np := 1\n")).toMatch(/^t\.rego:4:1: rego_parse_error: yaml: line/);
  expect(compileError("package t\n# METADATA\n# title: {a: 1}\np := 1\n")).toMatch(
    /rego_parse_error: yaml: unmarshal errors:\n {2}line 1: cannot unmarshal !!map into string/,
  );
  expect(compileError("package t\n# METADATA\n# authors:\n# - {}\np := 1\n")).toBe(
    "t.rego:2:1: rego_parse_error: invalid author definition map[]: 'name' and/or 'email' values required in object",
  );
  expect(compileError("package t\n# METADATA\n# related_resources: [{description: x}]\np := 1\n")).toBe(
    "t.rego:2:1: rego_parse_error: invalid related-resource definition map[description:x]: 'ref' value required in object",
  );
  expect(compileError("package t\n# METADATA\n# scope: document\np := 1 if false\n# METADATA\n# scope: document\np := 2\n")).toBe(
    "t.rego:5:1: rego_type_error: document annotation redeclared: t.rego:2:1",
  );
});

test("block lines must follow at column 1: an indented block is empty", async () => {
  expect(await valueOfX("package t\n# just a comment\np := rego.metadata.rule()\n")).toEqual({});
  const source = "package t\n  # METADATA\n  # title: not part of the block\np := 1\n";
  expect(compileError(source)).toBe("t.rego:2:3: rego_parse_error: expected METADATA block, found whitespace");
});
