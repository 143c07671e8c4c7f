/**
 * GET /openapi.json, generated from the route registry and the policy's
 * field data: documented, non-internal operations only, the published
 * versions (below). What it says is what the service answers, and
 * test/api/openapi-responses.test.ts proves it by validating real answers
 * of every matrix cell against this document:
 *
 * - success bodies: the fields the route's grants read (api/fields.ts, from
 *   rego/portcullis/fields/data.json), typed by the public views
 *   (api/views.ts WIRE_FIELDS); fields only some roles read (owner_id:
 *   admins) are optional and say who reads them; list answers are their
 *   wrapper objects (api/views.ts LISTS);
 * - request bodies: the registry's schema, limited to the fields the policy
 *   lets some grant write; retired and protected fields never appear there;
 * - errors: every status the chain or the route can answer, each an
 *   RFC 9457 problem whose `type` is one of that status' codes.
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
import { readFieldsByRole, writeFields } from "./fields";
import { PATH_PARAMS } from "./registry/routes";
import type { FieldSchema, RouteRecord } from "./registry/types";
import { REPORTS_OUTAGES } from "./middleware/keep-record";
import { PROBLEM_TYPE_PREFIX, PROBLEMS, type ProblemCode } from "./problems";
import { isPublishedAt, stateAt, successorOf, type VersionCatalog } from "./versions";
import { LISTS, WIRE_FIELDS, type JsonSchema } from "./views";

/**
 * Problems any request can meet, whatever its route: malformed HTTP, token, version, parameters, body, budget,
 * the PDP itself, a data store locked by another writer, a shared rate-limit store out of reach (`redis.onFailure: refuse`),
 * a data store out of reach (every authenticated request reads its user).
 */
const EVERY_ROUTE: ProblemCode[] = [
  "invalid_param",
  "invalid_body",
  "forbidden_key",
  "version_conflict",
  "invalid_token",
  "account_inactive",
  "field_not_writable",
  "unknown_version",
  "version_retired",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  "policy_unavailable",
  "rate_limit_unavailable",
  "malformed_request",
  "request_timeout",
  "headers_too_large",
  "database_busy",
  "database_unavailable",
];
/** Routes the policy may refuse on its own grounds (every route but the public ones). */
const POLICY_REFUSALS: ProblemCode[] = ["authentication_required", "forbidden", "not_found"];
/** Actions whose operation can find its row in the wrong state, or a unique key taken (an invited email). */
const CONFLICTING_ACTIONS = new Set(["approve", "refund", "publish", "invite", "suspend", "disable", "ban"]);

/** The object one read returns: every field some grant reads; `required` the ones every grant reads. */
function readSchema(route: RouteRecord): JsonSchema {
  const byRole = readFieldsByRole(route.id);
  const wire = WIRE_FIELDS[route.resource] ?? {};
  const roles = [...byRole.keys()];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const fields of byRole.values()) {
    for (const f of fields) {
      // A policy view naming a field the view does not have is never answered: not documented (and the drift test fails).
      if (!Object.hasOwn(wire, f) || Object.hasOwn(properties, f)) continue;
      const readers = roles.filter((r) => byRole.get(r)?.includes(f));
      properties[f] = readers.length === roles.length ? wire[f] : { ...wire[f], description: `read only by ${readers.join(", ")}` };
      if (readers.length === roles.length) required.push(f);
    }
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/** A success body: the read object, or the list wrapper holding such objects. */
function successSchema(route: RouteRecord): JsonSchema {
  const one = readSchema(route);
  const list = Object.hasOwn(LISTS, route.id) ? LISTS[route.id] : undefined;
  if (!list) return one;
  const members = Object.keys(list.members);
  return {
    type: "object",
    properties: { [list.rows]: { type: "array", items: one }, ...list.members },
    required: [list.rows, ...members],
    additionalProperties: false,
  };
}

/** Status -> the problem codes a route can answer with it. */
function problemsOf(route: RouteRecord): Map<number, ProblemCode[]> {
  const codes = [...EVERY_ROUTE];
  if (!readFieldsByRole(route.id).has("anyone")) codes.push(...POLICY_REFUSALS);
  if (CONFLICTING_ACTIONS.has(route.action)) codes.push("conflict");
  if (route.produces) codes.push("not_acceptable");
  // Refused while the decision log cannot store decisions: writes by default, reads too under `refuse-all`.
  if (!REPORTS_OUTAGES.has(route.id)) codes.push("decision_log_unavailable");
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = PROBLEMS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort((a, b) => a[0] - b[0]));
}

/** Headers an error status always carries. */
const PROBLEM_HEADERS: Record<number, Record<string, unknown>> = {
  401: { "WWW-Authenticate": { description: "the Bearer challenge (RFC 6750)", schema: { type: "string" } } },
  429: { "Retry-After": { description: "seconds until the budget refills", schema: { type: "string" } } },
};

function problemResponse(codes: ProblemCode[], status: number): Record<string, unknown> {
  return {
    description: codes.join(", "),
    ...(PROBLEM_HEADERS[status] ? { headers: PROBLEM_HEADERS[status] } : {}),
    content: {
      "application/problem+json": {
        schema: {
          allOf: [
            { $ref: "#/components/schemas/Problem" },
            { type: "object", properties: { type: { enum: codes.map((c) => PROBLEM_TYPE_PREFIX + c) }, status: { const: status } } },
          ],
        },
      },
    },
  };
}

/** Every answer of a route: its success, and each error status with its problem codes. */
function responsesOf(route: RouteRecord, mediaTypes: string[]): Record<string, unknown> {
  const json = (schema: JsonSchema) => Object.fromEntries(mediaTypes.map((m) => [m, { schema }]));
  const content: Record<string, unknown> = json(successSchema(route));
  for (const m of route.produces ?? []) content[m] = { schema: { type: "string", description: `asked for by the body's format; ${m}` } };
  const success: Record<string, unknown> = { description: route.summary, content };
  if (route.id === "admin.export")
    success.headers = { Location: { description: "where the job is polled (GET /api/admin/export/{job_id})", schema: { type: "string" } } };
  const responses: Record<string, unknown> = { [String(route.successStatus)]: success };
  for (const [status, codes] of problemsOf(route)) {
    const problem = problemResponse(codes, status);
    // Health answers 503 with its own body when the instance cannot serve (no active bundle; the decision log down under refuse-all), and a problem when the PDP fails.
    if (status === 503 && route.id === "health.get") {
      (problem.content as Record<string, unknown>) = { ...(problem.content as Record<string, unknown>), ...json(readSchema(route)) };
      problem.description = `unavailable (with its reasons), or ${codes.join(", ")}`;
    }
    responses[String(status)] = problem;
  }
  return responses;
}

/** A request body: the registry's value constraints for the fields the policy lets some grant write. */
function requestSchema(route: RouteRecord): JsonSchema | undefined {
  if (!route.body) return undefined;
  const writable = new Set(writeFields(route.id));
  const properties: Record<string, FieldSchema> = {};
  for (const [name, schema] of Object.entries(route.body.properties)) if (writable.has(name)) properties[name] = schema;
  const required = (route.body.required ?? []).filter((r) => writable.has(r));
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
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

/**
 * `undocumented: true` describes every route, internal and diagnostic ones
 * too: never served, it lets the tests hold those answers to the same rules.
 */
export function generateOpenApi(
  routes: RouteRecord[],
  versions: VersionCatalog,
  now: number = Date.now(),
  options: { undocumented?: boolean } = {},
): Record<string, unknown> {
  const { schema: versionParam, list: versionList } = versionSchema(versions, now);
  // A request that negotiated its version by Accept gets that vendor type back (api/versions).
  const mediaTypes = ["application/json", ...versionList.map((v) => `application/vnd.portcullis.${String(v.name)}+json`)];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (!options.undocumented && (!route.documented || route.audience === "internal")) continue;
    for (const template of route.paths) {
      const pathParams = [...template.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]);
      const parameters: unknown[] = pathParams.map((name) => ({
        name,
        in: "path",
        required: true,
        schema: name === "version" ? versionParam : (PATH_PARAMS[name] ?? { type: "string" }),
      }));
      if (!pathParams.includes("version")) {
        parameters.push({ name: "Api-Version", in: "header", required: false, schema: versionParam });
      }
      for (const p of route.params) parameters.push({ name: p.name, in: "query", required: false, description: p.description, schema: p.schema });
      const operation: Record<string, unknown> = {
        operationId: `${route.id}${template.startsWith("/api/{version}") ? ".versioned" : ""}`,
        summary: route.summary,
        tags: [route.owner],
        parameters,
        responses: responsesOf(route, mediaTypes),
      };
      const body = requestSchema(route);
      if (body) operation.requestBody = { required: body.required !== undefined, content: { "application/json": { schema: body } } };
      if (route.id !== "health.get" && route.id !== "openapi.get") operation.security = [{ bearer: [] }];
      (paths[template] ??= {})[route.method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Portcullis API",
      version: versions.default,
      description: "Every request is decided by the Portcullis policy decision point.",
      "x-api-versions": versionList,
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        Problem: {
          type: "object",
          properties: {
            type: { type: "string", description: `${PROBLEM_TYPE_PREFIX}<code>` },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            decision_id: { type: "string" },
            reason: { type: "string", description: "the policy's reason (403 forbidden, field_not_writable)" },
            instance: { type: "string" },
          },
          required: ["type", "title", "status", "detail", "decision_id"],
        },
      },
    },
  };
}
