/**
 * AST nodes as the values OPA's GraphQL builtins return: the JSON rendering
 * of gqlparser's structs, pruned as OPA's pruneIrrelevantGraphQLASTNodes
 * prunes it. Positions go; so do nulls and (after pruning their insides)
 * empty arrays and objects, in objects and in arrays alike. Empty strings,
 * false and 0 stay: they are values, not absences.
 *
 * One field is left out: a Value's ExpectedTypeHasDefault, which newer
 * gqlparsers carry and validation alone sets. OPA's own conformance cases
 * disagree about it (most expect values without it, a few with it
 * "false"); the majority's rendering, that of the gqlparser OPA's GraphQL
 * builtins were written against, is kept.
 */
const OMITTED = new Set(["Position", "ExpectedTypeHasDefault"]);

export function astValue(node: unknown): unknown {
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    for (const item of node) {
      const v = astValue(item);
      if (!isAbsent(v)) out.push(v);
    }
    return out;
  }
  if (node !== null && typeof node === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      if (OMITTED.has(key)) continue;
      const v = astValue((node as Record<string, unknown>)[key]);
      if (!isAbsent(v)) out[key] = v;
    }
    return out;
  }
  return node;
}

function isAbsent(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v).length === 0;
}
