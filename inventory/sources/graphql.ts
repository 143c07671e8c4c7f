/**
 * Source "graphql": a GraphQL SDL (inventory/schemas/*.graphql), parsed and
 * validated with the `graphql` package (`buildASTSchema`), so a malformed
 * schema is an error, not a silent empty source.
 *
 *   readGraphqlSchemas("inventory/schemas")   // -> Sighting[] (source "graphql")
 *
 * Every Query and Mutation field is an operation. `@rest(method, path)`
 * names the REST operation it resolves through; a field without it has no
 * route at all and is reported under the method "GRAPHQL" and the path
 * `graphql:Query.field`. `@deprecated` marks the operation deprecated.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { buildASTSchema, getDirectiveValues, GraphQLDirective, parse, type GraphQLObjectType } from "graphql";
import type { Sighting } from "../types";

export function sightingsFromSdl(sdl: string, label: string): Sighting[] {
  const schema = buildASTSchema(parse(sdl));
  const rest = schema.getDirective("rest");
  const out: Sighting[] = [];
  const roots: Array<[string, GraphQLObjectType | null | undefined]> = [
    ["Query", schema.getQueryType()],
    ["Mutation", schema.getMutationType()],
    ["Subscription", schema.getSubscriptionType()],
  ];
  for (const [kind, type] of roots) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const node = field.astNode;
      const where = `${label}#${kind}.${field.name}`;
      // buildASTSchema fills deprecationReason from the standard @deprecated directive.
      const deprecated = field.deprecationReason !== undefined && field.deprecationReason !== null;
      const target = rest instanceof GraphQLDirective && node ? (getDirectiveValues(rest, node) as { method?: string; path?: string } | undefined) : undefined;
      if (target?.method && target.path) {
        out.push({ source: "graphql", method: target.method.toUpperCase(), path: target.path, where, deprecated });
      } else {
        out.push({ source: "graphql", method: "GRAPHQL", path: `graphql:${kind}.${field.name}`, where, deprecated });
      }
    }
  }
  return out;
}

export function readGraphqlSchemas(dir: string): Sighting[] {
  if (!fs.existsSync(dir)) return [];
  const out: Sighting[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    if (!/\.(graphql|gql)$/.test(name)) continue;
    out.push(...sightingsFromSdl(fs.readFileSync(path.join(dir, name), "utf8"), name));
  }
  return out;
}
