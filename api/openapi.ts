/**
 * GET /openapi.json, generated from the route registry: documented,
 * non-internal operations only, the published versions (below), request bodies from
 * the registry's schemas, responses as public views. Protected and retired
 * fields (isAdmin, ownerId/owner_id, credits, role, billingPlan,
 * internalNotes, ...) never appear: the generator drops them even if a view
 * lists them, and the tests check the document for them.
 *
 * Versions: the document offers only what a new client may choose at `now`:
 * Current and Deprecated versions before their sunset. Zombie versions are
 * still served to the clients they have, but never offered; retired ones
 * (declared, or past their sunset) are gone. Deprecated versions are marked
 * where the version is chosen (the `version` path parameter and the
 * `Api-Version` header): one `oneOf` branch per version with
 * `deprecated: true`, `x-sunset` and `x-successor`, next to a plain `enum`
 * for tools that read only that; `info.x-api-versions` lists the same.
 */
import { PROTECTED_FIELDS } from "./middleware/guard-body";
import type { FieldSchema, RouteRecord } from "./registry/types";
import { PROBLEM_TYPE_PREFIX } from "./problems";
import { isPublishedAt, stateAt, successorOf, type VersionCatalog } from "./versions";

const PROTECTED = new Set(PROTECTED_FIELDS);

/** A response property: a request-body field schema, or any JSON Schema (nullable and mixed types). */
type ResponseField = FieldSchema | Record<string, unknown>;

const NULLABLE_STRING = { type: ["string", "null"] };

/** Public response shapes per resource type (the widest view any role may read). */
const VIEWS: Record<string, Record<string, ResponseField>> = {
  invoice: { id: { type: "string" }, number: { type: "string" }, status: { type: "string" }, amount_cents: { type: "integer" }, currency: { type: "string" }, created_at: { type: "string" } },
  user: { id: { type: "string" }, email: { type: "string" }, displayName: { type: "string" }, locale: { type: "string" }, status: { type: "string" }, createdAt: { type: "string" } },
  health: { status: { type: "string" } },
  search: { id: { type: "string" }, type: { type: "string" }, title: { type: "string" } },
  export: {
    id: { type: "string" }, status: { type: "string", enum: ["queued", "running", "done", "failed"] }, format: { type: "string", enum: ["json", "csv"] },
    createdAt: { type: "string" }, startedAt: NULLABLE_STRING, finishedAt: NULLABLE_STRING, rowCount: { type: ["integer", "null"] },
    error: { type: ["string", "null"], enum: ["row_limit_exceeded", "export_failed", null] },
    result: { type: ["array", "string", "null"], items: { type: "object" }, description: "once done: the rows (json) or the CSV text (csv)" },
  },
};

function schemaOf(fields: Record<string, ResponseField>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) if (!PROTECTED.has(name)) properties[name] = schema;
  return { type: "object", properties, additionalProperties: false };
}

/** The version parameter's schema: the published names, each deprecated one marked with its sunset and successor. */
function versionSchema(versions: VersionCatalog, now: number): { schema: Record<string, unknown>; list: Array<Record<string, unknown>> } {
  const published = versions.versions.filter((v) => isPublishedAt(v, now));
  const list = published.map((v) => {
    const deprecated = stateAt(v, now) === "Deprecated";
    return deprecated
      ? { name: v.name, deprecated: true, deprecatedAt: v.deprecated_at, sunset: v.sunset, successor: successorOf(versions, v, now)?.name ?? null }
      : { name: v.name, deprecated: false };
  });
  const oneOf = list.map((v) => (v.deprecated ? { const: v.name, deprecated: true, "x-sunset": v.sunset, "x-successor": v.successor } : { const: v.name }));
  const notes = list.filter((v) => v.deprecated).map((v) => `${v.name} (sunset ${String(v.sunset).slice(0, 10)}, use ${v.successor ?? "the default"})`);
  const description = `The API version.${notes.length > 0 ? ` Deprecated: ${notes.join(", ")}.` : ""}`;
  return { schema: { type: "string", enum: published.map((v) => v.name), oneOf, description }, list };
}

/**
 * The document as GET /openapi.json serves it: regenerated when the clock
 * moves a version to another state (a sunset passing), otherwise the same
 * object.
 */
export function openApiDocument(routes: RouteRecord[], versions: VersionCatalog, clock: () => number = Date.now): () => Record<string, unknown> {
  let cached: { key: string; doc: Record<string, unknown> } | undefined;
  return () => {
    const now = clock();
    const key = versions.versions.map((v) => stateAt(v, now)).join(",");
    if (cached?.key !== key) cached = { key, doc: generateOpenApi(routes, versions, now) };
    return cached.doc;
  };
}

export function generateOpenApi(routes: RouteRecord[], versions: VersionCatalog, now: number = Date.now()): Record<string, unknown> {
  const { schema: versionParam, list: versionList } = versionSchema(versions, now);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!route.documented || route.audience === "internal") continue;
    for (const template of route.paths) {
      const pathParams = [...template.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]);
      const parameters: unknown[] = pathParams.map((name) => ({
        name, in: "path", required: true,
        schema: name === "version" ? versionParam : { type: "string" },
      }));
      if (!pathParams.includes("version")) {
        parameters.push({ name: "Api-Version", in: "header", required: false, schema: versionParam });
      }
      for (const p of route.params) parameters.push({ name: p.name, in: "query", required: false, description: p.description, schema: p.schema });
      const view = VIEWS[route.resource];
      const operation: Record<string, unknown> = {
        operationId: `${route.id}${template.startsWith("/api/{version}") ? ".versioned" : ""}`,
        summary: route.summary,
        tags: [route.owner],
        parameters,
        responses: {
          [String(route.successStatus)]: { description: "OK", content: { "application/json": { schema: view ? schemaOf(view) : { type: "object" } } } },
          default: { description: "An RFC 9457 problem", content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } },
        },
      };
      if (route.body) {
        const body = schemaOf(route.body.properties);
        if (route.body.required) body.required = route.body.required.filter((r) => !PROTECTED.has(r));
        operation.requestBody = { required: (route.body.required ?? []).length > 0, content: { "application/json": { schema: body } } };
      }
      if (route.id !== "health.get" && route.id !== "openapi.get") operation.security = [{ bearer: [] }];
      (paths[template] ??= {})[route.method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: "3.1.0",
    info: { title: "Portcullis API", version: versions.default, description: "Every request is decided by the Portcullis policy decision point.", "x-api-versions": versionList },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        Problem: {
          type: "object",
          properties: {
            type: { type: "string", description: `${PROBLEM_TYPE_PREFIX}<code>` },
            title: { type: "string" }, status: { type: "integer" }, detail: { type: "string" }, decision_id: { type: "string" },
          },
          required: ["type", "title", "status", "decision_id"],
        },
      },
    },
  };
}
