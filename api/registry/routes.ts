/**
 * The route registry: one record per operation. This list is the only place
 * a route is declared; api/app.ts mounts Express routes from it, so a route
 * cannot be served without a record (and start-up checks the router anyway).
 */
import type { BodySchema, FieldSchema, QueryParam, RouteRecord } from "./types";

/** Every object id the API hands out (inv_..., u_..., exp_<uuid>): in paths, bodies and query lists alike. */
export const ID: FieldSchema = { type: "string", minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" };

/**
 * The schema of every path parameter a template may name (`{version}` is
 * resolved against the version catalogue instead). guard-params refuses a
 * value outside it with 400 invalid_param; start-up refuses a template
 * naming a parameter missing here.
 */
export const PATH_PARAMS: Readonly<Record<string, FieldSchema>> = { invoice_id: ID, user_id: ID, job_id: ID };
const REASON: FieldSchema = { type: "string", minLength: 1, maxLength: 500 };
const LIMIT: QueryParam = { name: "limit", description: "page size (1-100)", schema: { type: "integer", minimum: 1, maximum: 100 } };

const MODERATION_BODY: BodySchema = { type: "object", properties: { reason: REASON } };

const INVOICE_WORKFLOW = (action: "approve" | "refund" | "publish", summary: string, body?: BodySchema): RouteRecord => ({
  id: `invoices.${action}`,
  method: "POST",
  paths: [`/invoices/{invoice_id}/${action}`],
  versions: "*",
  resource: "invoice",
  action,
  owner: "billing",
  summary,
  params: [],
  idParam: "invoice_id",
  body,
  rateLimit: "sensitive",
  audience: "public",
  documented: true,
  successStatus: 200,
});

export const ROUTES: RouteRecord[] = [
  {
    id: "health.get", method: "GET", paths: ["/health", "/api/{version}/health"], versions: "*",
    resource: "health", action: "read", owner: "platform", summary: "Liveness of the service and its policy bundle",
    params: [], rateLimit: "diagnostic", audience: "diagnostic", documented: true, successStatus: 200,
  },
  {
    id: "metrics.get", method: "GET", paths: ["/metrics"], versions: "*",
    resource: "metrics", action: "read", owner: "platform", summary: "Instance counters (staff only)",
    params: [], rateLimit: "diagnostic", audience: "diagnostic", documented: false, successStatus: 200,
  },
  {
    id: "openapi.get", method: "GET", paths: ["/openapi.json"], versions: "*",
    resource: "openapi", action: "read", owner: "platform", summary: "This API's OpenAPI description",
    params: [], rateLimit: "diagnostic", audience: "public", documented: true, successStatus: 200,
  },
  // Static segments before the templated one: /invoices/export is not an invoice id.
  {
    id: "invoices.export", method: "GET", paths: ["/invoices/export"], versions: "*",
    resource: "invoice", action: "export", owner: "billing", summary: "Export the invoices the caller may see",
    params: [{ name: "ids", description: "comma-separated invoice ids to export (each checked)", schema: { type: "string", maxLength: 2000 }, objectId: true }],
    rateLimit: "sensitive", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "invoices.batch", method: "POST", paths: ["/invoices/batch"], versions: "*",
    resource: "invoice", action: "read", owner: "billing", summary: "Read several invoices by id (all or nothing)",
    params: [],
    body: { type: "object", properties: { ids: { type: "array", items: ID, minItems: 1, maxItems: 50, uniqueItems: true } }, required: ["ids"] },
    rateLimit: "default", audience: "public", documented: true, successStatus: 200, readOnly: true,
  },
  {
    id: "invoices.list", method: "GET", paths: ["/invoices"], versions: "*",
    resource: "invoice", action: "list", owner: "billing", summary: "The invoices the caller may see",
    params: [LIMIT, { name: "offset", description: "rows to skip", schema: { type: "integer", minimum: 0, maximum: 1_000_000 } }],
    rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "invoices.get", method: "GET", paths: ["/invoices/{invoice_id}"], versions: "*",
    resource: "invoice", action: "read", owner: "billing", summary: "One invoice",
    params: [], idParam: "invoice_id", rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  INVOICE_WORKFLOW("approve", "Approve a draft invoice (admins)"),
  INVOICE_WORKFLOW("refund", "Refund a paid invoice (admins; support with a reason, never their own)", {
    type: "object", properties: { amount_cents: { type: "integer", minimum: 1, maximum: 100_000_000 }, reason: REASON },
  }),
  INVOICE_WORKFLOW("publish", "Publish an approved invoice (admins, or its owner)"),
  {
    id: "users.invite", method: "POST", paths: ["/users/invite"], versions: "*",
    resource: "user", action: "invite", owner: "identity", summary: "Invite a member into the caller's tenant (admins)",
    params: [],
    body: {
      type: "object",
      properties: {
        email: { type: "string", format: "email", maxLength: 254 },
        displayName: { type: "string", minLength: 1, maxLength: 100 },
      },
      required: ["email"],
    },
    rateLimit: "sensitive", audience: "public", documented: true, successStatus: 201,
  },
  {
    id: "admin.users.suspend", method: "POST", paths: ["/admin/users/{user_id}/suspend"], versions: "*",
    resource: "user", action: "suspend", owner: "identity", summary: "Suspend a user of the caller's tenant (admins)",
    params: [], idParam: "user_id", body: MODERATION_BODY, rateLimit: "sensitive", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "admin.users.disable", method: "POST", paths: ["/admin/users/{user_id}/disable"], versions: "*",
    resource: "user", action: "disable", owner: "identity", summary: "Disable a user of the caller's tenant (admins)",
    params: [], idParam: "user_id", body: MODERATION_BODY, rateLimit: "sensitive", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "admin.users.ban", method: "POST", paths: ["/admin/users/ban"], versions: "*",
    resource: "user", action: "ban", owner: "identity", summary: "Ban a user of the caller's tenant (admins)",
    params: [], idField: "user_id", body: { type: "object", properties: { user_id: ID, reason: REASON }, required: ["user_id"] },
    rateLimit: "sensitive", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "admin.export", method: "POST", paths: ["/api/admin/export"], versions: "*",
    resource: "export", action: "export", owner: "data", summary: "Start a tenant-wide export (admins)",
    params: [], body: { type: "object", properties: { format: { type: "string", enum: ["json", "csv"] } } },
    rateLimit: "sensitive", audience: "public", documented: true, successStatus: 202,
  },
  {
    id: "admin.export.get", method: "GET", paths: ["/api/admin/export/{job_id}"], versions: "*",
    resource: "export", action: "read", owner: "data", summary: "An export job's status and, once done, its result (admins)",
    params: [], idParam: "job_id", rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "users.me.get", method: "GET", paths: ["/users/me", "/api/{version}/users/me"], versions: "*",
    resource: "user", action: "read", owner: "identity", summary: "The caller's own profile",
    params: [], rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "users.me.update", method: "PATCH", paths: ["/profile", "/api/{version}/users/me"], versions: "*",
    resource: "user", action: "update", owner: "identity", summary: "Change the caller's display name",
    params: [],
    body: { type: "object", properties: { displayName: { type: "string", minLength: 1, maxLength: 100 } } },
    rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  {
    id: "search.get", method: "GET", paths: ["/api/{version}/search"], versions: "*",
    resource: "search", action: "search", owner: "discovery", summary: "Search users and invoices of the caller's tenant",
    params: [{ name: "q", description: "search text (1-100 characters)", schema: { type: "string", minLength: 1, maxLength: 100 } }, LIMIT],
    rateLimit: "default", audience: "public", documented: true, successStatus: 200,
  },
  ...(["GET", "POST"] as const).map((method): RouteRecord => ({
    id: "internal.reports.export", method, paths: ["/api/internal/reports/export"], versions: "*",
    resource: "report", action: "export", owner: "data", summary: "Tenant report export (internal tooling, admins)",
    params: [], body: method === "POST" ? { type: "object", properties: { format: { type: "string", enum: ["json", "csv"] } } } : undefined,
    rateLimit: "sensitive", audience: "internal", documented: false, successStatus: 200, produces: method === "POST" ? ["text/csv"] : undefined,
    ...(method === "POST" ? { readOnly: true as const } : {}),
  })),
];

/**
 * Whether a route may change state: every method but GET, unless its record
 * says it only reads. A POST nobody marked stays a write (its decision is
 * made durable before it acts: middleware/keep-record.ts).
 */
export function changesState(record: RouteRecord): boolean {
  return record.method !== "GET" && record.readOnly !== true;
}

/** Express path syntax for a template: `/invoices/{invoice_id}` -> `/invoices/:invoice_id`. */
export function expressPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
}
