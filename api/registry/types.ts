/**
 * The route record: everything the chain needs to know about one operation,
 * declared once. Express routes are mounted FROM these records (api/app.ts),
 * the OpenAPI document is generated from them, and start-up refuses to serve
 * a route that has no record or no policy (api/registry/check.ts).
 */

/** Who the operation is for: public API, internal tooling, or diagnostics. */
export type Audience = "public" | "internal" | "diagnostic";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Rate-limit classes; budgets are configured per class (api/middleware/rate-limit.ts).
 * `authentication` is not a route class: it budgets failed token verifications per client address.
 */
export type RateLimitClass = "default" | "sensitive" | "diagnostic" | "authentication";

/** A small JSON-schema subset, enough for our bodies and checked strictly. */
export type FieldSchema =
  | { type: "string"; minLength?: number; maxLength?: number; pattern?: string; format?: "email"; enum?: string[] }
  | { type: "integer"; minimum?: number; maximum?: number }
  | { type: "array"; items: FieldSchema; minItems?: number; maxItems?: number; uniqueItems?: boolean };

export interface BodySchema {
  type: "object";
  properties: Record<string, FieldSchema>;
  required?: string[];
  /** Routes without a body schema refuse any body. */
}

export interface QueryParam {
  name: string;
  description: string;
  schema: FieldSchema;
  /** An object id: checked through the decision scope like a path id. */
  objectId?: boolean;
}

export interface RouteRecord {
  /** The policy's version-free route id (rego/portcullis/routes/data.json). */
  id: string;
  method: HttpMethod;
  /**
   * Path templates in OpenAPI form (`/invoices/{invoice_id}`). A template
   * starting with `/api/{version}` is served under every servable version;
   * the others are served unversioned (version from the header or Accept).
   */
  paths: string[];
  /** Versions the route exists in; "*" for every servable version. */
  versions: string[] | "*";
  resource: string;
  action: string;
  owner: string;
  summary: string;
  /** Query parameters the route declares; every other one is refused (400). */
  params: QueryParam[];
  /** Path parameter holding the object id, when there is one. */
  idParam?: string;
  /** Body field holding the object id (POST /admin/users/ban {user_id}), checked like a path id. */
  idField?: string;
  body?: BodySchema;
  rateLimit: RateLimitClass;
  audience: Audience;
  /** Listed in /openapi.json (internal and undocumented routes are not). */
  documented: boolean;
  /** Status of a successful answer. */
  successStatus: number;
  /** Media types the route answers instead of JSON when the request's body asks for them (`format: "csv"` -> text/csv). */
  produces?: string[];
  /** A non-GET route that changes nothing (a read with a body): its decision takes the log's batched path. */
  readOnly?: true;
}
