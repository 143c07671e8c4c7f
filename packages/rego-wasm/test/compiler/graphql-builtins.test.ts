/**
 * GraphQL builtins dispatched to the host (compiler/host/graphql/,
 * supplied by EvaluationClock.builtins()): graphql.parse_query,
 * parse_schema, parse, parse_and_verify, is_valid and schema_is_valid. The
 * policies run as real Wasm through the SDK; OPA's builtin errors make the
 * call undefined. Error wording (gqlparser's) is checked on the modules.
 */
import { hostValueOf } from "./evaluate-rego";
import { parseQuery } from "../../compiler/host/graphql/parser";
import { parseSchema } from "../../compiler/host/graphql/schema-parser";
import { buildSchema } from "../../compiler/host/graphql/schema-validation";
import { validateQuery } from "../../compiler/host/graphql/query-validation";

const p = hostValueOf;

const SCHEMA = `
  type Query { hero(episode: Episode): Character, droid(id: ID!): Droid }
  enum Episode { NEWHOPE EMPIRE JEDI }
  interface Character { id: ID!, name: String }
  type Droid implements Character { id: ID!, name: String, primaryFunction: String }
`;

describe("graphql.parse_query", () => {
  test("gives the pruned AST", async () => {
    expect(
      await p("p := graphql.parse_query(input.q)", { q: "query Q($e: Episode = JEDI) { hero(episode: $e) { name ... on Droid { primaryFunction } } }" }),
    ).toEqual({
      Operations: [
        {
          Name: "Q",
          Operation: "query",
          VariableDefinitions: [{ Variable: "e", Type: { NamedType: "Episode", NonNull: false }, DefaultValue: { Kind: 7, Raw: "JEDI" }, Used: false }],
          SelectionSet: [
            {
              Alias: "hero",
              Name: "hero",
              Arguments: [{ Name: "episode", Value: { Kind: 0, Raw: "e" } }],
              SelectionSet: [
                { Alias: "name", Name: "name" },
                { TypeCondition: "Droid", SelectionSet: [{ Alias: "primaryFunction", Name: "primaryFunction" }] },
              ],
            },
          ],
        },
      ],
    });
  });

  test("a block string is dedented, escapes are read", async () => {
    const q = '{ f(a: """\n    x\n      y\n  """, b: "\\u0041\\n") }';
    const ast = (await p("p := graphql.parse_query(input.q)", { q })) as { Operations: Array<{ SelectionSet: Array<{ Arguments: unknown[] }> }> };
    expect(ast.Operations[0]!.SelectionSet[0]!.Arguments).toEqual([
      { Name: "a", Value: { Kind: 4, Raw: "x\n  y" } },
      { Name: "b", Value: { Kind: 3, Raw: "A\n" } },
    ]);
  });

  test("a syntax error makes the call undefined", async () => {
    for (const q of ["{", "{ field: {} }", "notanoperation Foo { field }", "...", "{ f(a: 'x') }", "query Foo($x: T = { a: $v }) { f }"]) {
      expect(await p("p := graphql.parse_query(input.q)", { q })).toBeUndefined();
    }
  });

  test("a non-string operand makes the call undefined", async () => {
    expect(await p("p := graphql.parse_query(input.q)", { q: 1 })).toBeUndefined();
  });

  test("errors are worded as gqlparser words them", () => {
    const message = (q: string): string => {
      try {
        parseQuery(q);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(message("{")).toBe("Expected Name, found <EOF> (1:2)");
    expect(message("notanoperation Foo { field }")).toBe('Unexpected Name "notanoperation" (1:1)');
    expect(message("\n  { ...MissingOn }\n  fragment MissingOn Type\n")).toBe('Expected "on", found Name "Type" (3:22)');
    expect(message("{ f }}")).toBe("Unexpected } (1:6)");
  });
});

describe("graphql.parse_schema", () => {
  test("gives the pruned AST, empty strings and false kept", async () => {
    expect(await p("p := graphql.parse_schema(input.s)", { s: '"Doc" type Hello { world(flag: Boolean = true): [String!] }' })).toEqual({
      Definitions: [
        {
          BuiltIn: false,
          Description: "Doc",
          Kind: "OBJECT",
          Name: "Hello",
          Fields: [
            {
              Description: "",
              Name: "world",
              Arguments: [{ Description: "", Name: "flag", DefaultValue: { Kind: 5, Raw: "true" }, Type: { NamedType: "Boolean", NonNull: false } }],
              Type: { NamedType: "", NonNull: false, Elem: { NamedType: "String", NonNull: true } },
            },
          ],
        },
      ],
    });
  });

  test("extensions, directives and schema definitions land in their lists", async () => {
    const s = "schema { query: Q } extend schema @d directive @d repeatable on SCHEMA | OBJECT extend union U = A";
    expect(await p("p := graphql.parse_schema(input.s)", { s })).toEqual({
      Schema: [{ Description: "", OperationTypes: [{ Operation: "query", Type: "Q" }] }],
      SchemaExtension: [{ Description: "", Directives: [{ Location: "", Name: "d" }] }],
      Directives: [{ Description: "", IsRepeatable: true, Locations: ["SCHEMA", "OBJECT"], Name: "d" }],
      Extensions: [{ BuiltIn: false, Description: "", Kind: "UNION", Name: "U", Types: ["A"] }],
    });
  });

  test("a syntax error makes the call undefined", async () => {
    for (const s of ["type Hello {}", "extend type Hello", '"D" extend type A { a: Int }', "union U = | A |", "directive @x on NOWHERE"]) {
      expect(await p("p := graphql.parse_schema(input.s)", { s })).toBeUndefined();
    }
  });

  test("errors are worded as gqlparser words them", () => {
    expect(() => parseSchema("type Hello {}")).toThrow("expected at least one definition, found } (1:13)");
    expect(() => parseSchema("union Foo = | Bar |")).toThrow("Expected Name, found <EOF> (1:20)");
  });
});

describe("graphql.schema_is_valid", () => {
  test.each([
    [SCHEMA, true],
    ["extend type Query { a: Int }", true],
    ["type A implements B { a: Int } interface B { a: Int, b: Int }", false],
    ["type A { a: Nope }", false],
    ["input I { a: Int } type Q { f(i: I): Int, g: I }", false],
    ["enum E { true }", false],
    ["type A { a: Int } type A { b: Int }", false],
    ["type A { a: Int @nope }", false],
    ["type __A { a: Int }", false],
    ['scalar S @specifiedBy(url: "u")', true],
  ])("%s -> %s", async (s, want) => {
    expect(await p("p := graphql.schema_is_valid(input.s)", { s })).toBe(want);
  });

  test("a schema AST object is read like the SDL it came from", async () => {
    expect(await p("p := graphql.schema_is_valid(graphql.parse_schema(input.s))", { s: SCHEMA })).toBe(true);
    expect(
      await p("p := graphql.schema_is_valid(input.s)", {
        s: { Definitions: [{ Kind: "OBJECT", Name: "Q", Fields: [{ Name: "a", Type: { NamedType: "Nope" } }] }] },
      }),
    ).toBe(false);
    expect(await p("p := graphql.schema_is_valid(input.s)", { s: 7 })).toBe(false);
  });
});

describe("graphql.is_valid", () => {
  test.each([
    ["{ hero { name } }", true],
    ["{ hero { ... on Droid { primaryFunction } } }", true],
    ["{ hero { nope } }", false],
    ["{ hero }", false],
    ["{ droid { name } }", false],
    ["{ hero(episode: MARS) { name } }", false],
    ["query ($e: Episode) { hero { name } }", false],
    ["{ hero(episode: $e) { name } }", false],
    ["query ($id: ID) { droid(id: $id) { name } }", false],
    ["query ($id: ID = 1) { droid(id: $id) { name } }", true],
    ["{ hero { ...F } } fragment F on Character { name }", true],
    ["{ hero { name } } fragment F on Character { name }", false],
    ["{ hero { a: id a: name } }", false],
    ["{ hero @include(if: true) { name } }", true],
    ["{ hero @include { name } }", false],
    ["mutation { x }", false],
    ['{ __type(name: "Droid") { name } }', true],
    ["{", false],
  ])("%s -> %s", async (q, want) => {
    expect(await p("p := graphql.is_valid(input.q, input.s)", { q, s: SCHEMA })).toBe(want);
  });

  test("an invalid schema or a non-document operand answers false", async () => {
    expect(await p("p := graphql.is_valid(input.q, input.s)", { q: "{ a }", s: "type Query { a: Nope }" })).toBe(false);
    expect(await p("p := graphql.is_valid(input.q, input.s)", { q: 1, s: SCHEMA })).toBe(false);
  });

  test("repeated fields: identical copies merge, a differing one among thousands still conflicts", async () => {
    const rule = "p := graphql.is_valid(input.q, input.s)";
    const copies = (n: number, field: string): string => Array.from({ length: n }, () => field).join(" ");
    expect(await p(rule, { q: `{ ${copies(2000, "hero { name }")} }`, s: SCHEMA })).toBe(true);
    expect(await p(rule, { q: `{ ${copies(2000, "hero { name }")} hero: droid(id: 1) { name } }`, s: SCHEMA })).toBe(false);
    expect(await p(rule, { q: `{ ${copies(1000, "hero { name }")} hero { name: id } }`, s: SCHEMA })).toBe(false);
    expect(await p(rule, { q: `{ ${copies(1000, "x: hero(episode: JEDI) { id }")} x: hero(episode: EMPIRE) { id } }`, s: SCHEMA })).toBe(false);
  });

  test("validation errors are worded as gqlparser words them", () => {
    const schema = buildSchema(parseSchema(SCHEMA));
    expect(() => validateQuery(schema, parseQuery("{ droid { name } }"))).toThrow(
      'Field "droid" argument "id" of type "ID!" is required, but it was not provided.',
    );
    expect(() => validateQuery(schema, parseQuery("{ hero { nope } }"))).toThrow('Cannot query field "nope" on type "Character".');
  });
});

describe("graphql.parse and graphql.parse_and_verify", () => {
  test("parse gives both ASTs of a valid pair, and is undefined otherwise", async () => {
    const [q, s] = (await p("p := graphql.parse(input.q, input.s)", { q: "{ hero { name } }", s: "type Query { hero: H } type H { name: String }" })) as [
      unknown,
      unknown,
    ];
    expect(q).toEqual({
      Operations: [{ Name: "", Operation: "query", SelectionSet: [{ Alias: "hero", Name: "hero", SelectionSet: [{ Alias: "name", Name: "name" }] }] }],
    });
    expect(s).toMatchObject({ Definitions: [{ Name: "Query" }, { Name: "H" }] });
    expect(await p("p := graphql.parse(input.q, input.s)", { q: "{ droid { name } }", s: SCHEMA })).toBeUndefined();
  });

  test("AST objects round-trip through parse", async () => {
    const rule = "p if { q := graphql.parse_query(input.q); s := graphql.parse_schema(input.s); [q, s] = graphql.parse(q, s) }";
    expect(await p(rule, { q: '{ droid(id: "1") { name } }', s: SCHEMA })).toBe(true);
  });

  test("parse_and_verify answers [false, {}, {}] for an invalid pair", async () => {
    expect(await p("p := graphql.parse_and_verify(input.q, input.s)", { q: "{ droid { name } }", s: SCHEMA })).toEqual([false, {}, {}]);
    const [ok] = (await p("p := graphql.parse_and_verify(input.q, input.s)", { q: "{ droid(id: 1) { name } }", s: SCHEMA })) as [boolean];
    expect(ok).toBe(true);
  });
});
