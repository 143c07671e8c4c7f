/**
 * Security events: suspicious patterns noticed on finished requests, stored
 * through db securityEvents (append-only) for auditors (`portcullis events`).
 *
 *   kind                        when
 *   admin_route_denied          a caller without the role calls an admin,
 *                               internal or staff-only diagnostic route
 *   protected_field_submission  a body names a protected field (any depth,
 *                               any letter case) or a __proto__/constructor key
 *   forbidden_param             a security-relevant query parameter (debug,
 *                               admin, role, include, ...) on a route that
 *                               does not declare it
 *   cross_tenant_id             a path or body id names a row of another tenant
 *   cross_owner_id              an allowed read or write by id found no row in the
 *                               caller's owner scope because the row is another
 *                               user's of the same tenant (a BOLA attempt)
 *   invalid_token               a bearer token was refused: detail.reason is the class
 *                               (malformed, bad_signature, expired, unknown_key,
 *                               claims_invalid, algorithm_not_allowed, unknown_subject)
 *   invalid_test_run            a Portcullis-Test-Run credential did not verify (same classes):
 *                               someone tried to pass traffic off as a test run
 *   enumeration                 one actor gets 404 for `threshold` distinct ids
 *                               of one resource type within the window
 *   inactive_account            a genuine token of a suspended/disabled/banned account
 *
 * Details hold names, ids and reasons, never bodies or tokens. A request
 * of a verified test run carries its run id (`test_run`), so auditors can
 * tell a matrix or inventory run's provocations from an attacker's. Recording
 * never fails a request: errors go to the structured log. Events are held
 * by the store and written behind (db/store.ts recordLater); the lookups
 * that classify a 404 (which tenant, which owner) run after the answer, as
 * background work the service waits for before closing the store
 * (ApiDeps.background).
 */
import type { RequestState } from "../context";
import { BackgroundWork, type ApiDeps } from "../deps";
import { UNWRITABLE_FIELDS } from "../fields";
import { SECURITY_PARAMS } from "../middleware/guard-params";

const PRIVILEGED_ROUTE = /^(admin\.|internal\.|metrics\.)/;
const PROTECTED = new Set([...UNWRITABLE_FIELDS, "__proto__", "constructor", "prototype"]);

/** 5 distinct unknown ids within 60 s: the enumeration report's default (ApiDeps.enumeration). */
export const DEFAULT_ENUMERATION = { threshold: 5, windowMs: 60_000 };

export class SecurityMonitor {
  /** actor|resource type -> recent 404 ids with their times. */
  private readonly misses = new Map<string, Array<{ id: string; at: number }>>();
  private readonly threshold: number;
  private readonly windowMs: number;
  private readonly background: BackgroundWork;

  constructor(
    private readonly deps: ApiDeps,
    private readonly now: () => number = Date.now,
  ) {
    this.threshold = deps.enumeration?.threshold ?? DEFAULT_ENUMERATION.threshold;
    this.windowMs = deps.enumeration?.windowMs ?? DEFAULT_ENUMERATION.windowMs;
    this.background = deps.background ?? new BackgroundWork();
  }

  /** Runs on every finished request: the common (clean) request allocates nothing here. */
  observe(state: RequestState, status: number): void {
    const route = state.route;
    const reason = state.decision && !state.decision.allow ? state.decision.reason : undefined;

    if (state.problem === "account_inactive") this.record(state, status, "inactive_account", {});
    if (state.problem === "invalid_token") this.record(state, status, "invalid_token", { reason: state.tokenFailure ?? "invalid" });
    if (state.problem === "invalid_test_run") this.record(state, status, "invalid_test_run", { reason: state.testRunFailure ?? "invalid" });
    if (!route) return;
    if (PRIVILEGED_ROUTE.test(route.id) && (reason === "role_required" || reason === "authentication_required")) {
      this.record(state, status, "admin_route_denied", { reason });
    }
    if (state.submitted.length > 0) {
      const protectedNames = state.submitted.filter((f) => PROTECTED.has(f));
      if (protectedNames.length > 0)
        this.record(state, status, "protected_field_submission", { fields: protectedNames, outcome: reason ?? state.problem ?? "refused" });
    }
    if (state.params.length > 0) {
      const securityParams = state.params.filter((p) => SECURITY_PARAMS.has(p.toLowerCase()));
      if (securityParams.length > 0) this.record(state, status, "forbidden_param", { params: securityParams.slice(0, 10) });
    }
    if (state.resource.tenant || (status === 404 && state.resource.id) || state.scopeFound === false)
      this.background.track(this.crossing(state, status, route.resource));
    if (status === 404 && state.resource.id && state.actor.id !== "anonymous") {
      const ids = this.notFound(`${state.actor.id}|${route.resource}`, state.resource.id);
      if (ids) this.record(state, status, "enumeration", { resource_type: route.resource, distinct_ids: ids, window_sec: this.windowMs / 1000 });
    }
  }

  /** A request naming another tenant's row, or (owner-scoped) another member's row of the same tenant. */
  private async crossing(state: RequestState, status: number, resource: string): Promise<void> {
    const resourceTenant = state.resource.tenant ?? (status === 404 ? await this.ownerTenant(resource, state.resource.id) : undefined);
    if (resourceTenant && state.actor.tenant && resourceTenant !== state.actor.tenant) {
      this.record(state, status, "cross_tenant_id", { resource_type: resource, resource_id: state.resource.id, resource_tenant: resourceTenant });
    } else if (state.scopeFound === false && state.actor.tenant && state.decision?.scope.owner_id) {
      const owner = await this.ownerInTenant(resource, state.resource.id, state.actor.tenant);
      if (owner && owner !== state.decision.scope.owner_id) {
        this.record(state, status, "cross_owner_id", { resource_type: resource, resource_id: state.resource.id, outcome: "not_found" });
      }
    }
  }

  private record(state: RequestState, status: number, kind: string, detail: Record<string, unknown>): void {
    try {
      this.deps.db.securityEvents.recordLater({
        kind,
        actorId: state.actor.id,
        tenantId: state.actor.tenant,
        // Authentication runs before route resolution: an inactive account is refused before a route is known.
        routeId: state.route?.id ?? "unresolved",
        decisionId: state.decisionId,
        testRun: state.testRun ?? null,
        detail: { status, version: state.version?.name ?? null, client: state.client, ...detail },
      });
    } catch (err) {
      this.deps.logger({ level: "error", event: "security_event.record_failed", kind, message: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * The tenant owning a row the caller was told is not found (invoices and
   * export jobs, the tenant-owned rows reached by id). They are only ever
   * read through the caller's scope, so a 404 cannot tell another tenant's
   * id from a missing one; after the answer has gone out, the monitor asks
   * which tenant owns the id (never the caller).
   */
  private async ownerTenant(resource: string, id: string | undefined): Promise<string | undefined> {
    if (!id) return undefined;
    try {
      if (resource === "invoice") return await this.deps.db.invoices.tenantOf(id);
      if (resource === "export") return await this.deps.db.exportJobs.tenantOf(id);
      return undefined;
    } catch {
      return undefined; // a malformed id (nothing owns it), or a database gone meanwhile: no classification
    }
  }

  /**
   * Who owns a row of the caller's tenant that the caller's owner scope did
   * not find: read within the tenant only, after the answer has gone out,
   * to classify the attempt (never to answer it). The owner is never put in
   * the event: the caller's scope did not allow them to learn it.
   */
  private async ownerInTenant(resource: string, id: string | undefined, tenant: string): Promise<string | undefined> {
    if (!id) return undefined;
    try {
      if (resource === "invoice") return (await this.deps.db.invoices.getScoped(id, { tenant_id: tenant }))?.owner_id;
      if (resource === "export") return (await this.deps.db.exportJobs.getScoped(id, { tenant_id: tenant }))?.requested_by;
      return undefined;
    } catch {
      return undefined; // a malformed id (nothing owns it), or a database gone meanwhile: no classification
    }
  }

  /** Tracks one miss; returns the ids once the threshold is reached (then starts counting afresh). */
  private notFound(key: string, id: string): string[] | null {
    const now = this.now();
    const recent = (this.misses.get(key) ?? []).filter((m) => now - m.at < this.windowMs && m.id !== id);
    recent.push({ id, at: now });
    if (recent.length >= this.threshold) {
      this.misses.delete(key);
      return recent.map((m) => m.id.slice(0, 64));
    }
    this.misses.set(key, recent);
    if (this.misses.size > 10_000) this.misses.delete(this.misses.keys().next().value as string);
    return null;
  }
}
