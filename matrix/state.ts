/**
 * What the run knows about the data it changes, and how it re-reads it
 * THROUGH THE API (never the database), as a persona who may read it.
 *
 * How state-changing cells stay harmless to later cells (and to later runs
 * against the same instance):
 * - invoice workflow (approve, publish, refund): the run reads every
 *   catalogue invoice's status first and keeps a model of it. An allowed
 *   cell expects 200 when the row is in a start state of the transition and
 *   409 `conflict` otherwise (the policy let it through, the row is left as
 *   it is); after every cell the row is re-read and compared with the model.
 *   Route order in the matrix file (publish before refund) makes each
 *   transition happen for real at least once on fresh seed data.
 * - moderation (suspend, disable, ban): an allowed same-tenant cell targets
 *   a "victim" the run invites first, never a persona; denied cells target
 *   personas, re-read by the target's own GET /users/me (200 = still active).
 * - users.invite: every cell invites a unique address; the re-read is a
 *   search by that address in each tenant (found once when allowed, never
 *   when denied).
 * - users.me.update: every persona's profile is read before the run; after
 *   each profile cell a changed profile is patched back, by the persona
 *   itself, through the route it may use (PATCH /profile), and re-read;
 *   after the run every persona is re-read and compared with the start.
 *   A restore that fails is a failure of the run, named in the report, so a
 *   run never leaves a persona changed without saying so.
 * - export jobs (admin.export.get): none is seeded, so each tenant's first
 *   reader starts one before the cells run; cells read those jobs.
 *
 * What a run leaves changed (invoice states, invited and moderated users,
 * export jobs) is listed in the report's `changes`.
 */
import type { MatrixClient } from "./client";
import type { Matrix } from "./model";

/** The writable part of a profile: what a cell can change and the run must put back. */
export interface Profile {
  displayName?: unknown;
}

export class WorldState {
  readonly invoiceStatus = new Map<string, string>();
  /** Invoice statuses as the run found them. */
  readonly invoiceStart = new Map<string, string>();
  /** Every persona's profile as the run found it. */
  readonly profileStart = new Map<string, Profile>();
  /** Restores that did not take: run failures, listed in the report. */
  readonly restoreProblems: string[] = [];
  readonly victims = new Map<string, string>();
  /** tenant -> the export job the run started there. */
  readonly exportJobs = new Map<string, string>();
  private turn = 0;

  constructor(
    private readonly client: MatrixClient,
    private readonly matrix: Matrix,
    private readonly run: string,
  ) {}

  /** Reads the starting status of every catalogue invoice; invites one victim and starts one export job per tenant when cells need them. */
  async setup(needs: { victims: boolean; exportJobs: boolean }): Promise<string[]> {
    const problems: string[] = [];
    for (const id of Object.keys(this.matrix.objects.invoice ?? {})) {
      const status = await this.readInvoice(id);
      if (status === undefined) problems.push(`setup: invoice ${id} cannot be read by its tenant's reader`);
      else {
        this.invoiceStatus.set(id, status);
        this.invoiceStart.set(id, status);
      }
    }
    for (const p of this.matrix.personas) {
      if (p.role === "anonymous") continue;
      const read = await this.readProfile(p.id);
      if (read.status === 200) this.profileStart.set(p.id, { displayName: read.profile.displayName });
      else problems.push(`setup: ${p.id} cannot read its own profile (${read.status} ${read.code ?? ""})`);
    }
    if (needs.exportJobs) problems.push(...(await this.startExportJobs()));
    if (!needs.victims) return problems;
    for (const tenant of Object.keys(this.matrix.readers)) {
      const admin = this.matrix.readers[tenant][0];
      const res = await this.client.send({
        persona: admin,
        method: "POST",
        path: "/users/invite",
        version: "v2",
        body: { email: `matrix-victim-${this.run}-${tenant.replace(/_/g, "-")}@example.test`, displayName: `Matrix victim ${this.run}` },
      });
      const id = (res.body as { id?: unknown } | undefined)?.id;
      if (res.status === 201 && typeof id === "string") this.victims.set(tenant, id);
      else problems.push(`setup: ${admin} could not invite a moderation victim in ${tenant} (${res.status} ${res.code ?? ""})`);
    }
    return problems;
  }

  private async startExportJobs(): Promise<string[]> {
    const problems: string[] = [];
    for (const [tenant, readers] of Object.entries(this.matrix.readers)) {
      const res = await this.client.send({ persona: readers[0], method: "POST", path: "/api/admin/export", version: "v2", body: { format: "json" } });
      const id = (res.body as { id?: unknown } | undefined)?.id;
      if (res.status === 202 && typeof id === "string") this.exportJobs.set(tenant, id);
      else problems.push(`setup: ${readers[0]} could not start an export job in ${tenant} (${res.status} ${res.code ?? ""})`);
    }
    return problems;
  }

  /** A cell's object id: victims and export jobs are the ones setup created (undefined when setup could not). */
  resolve(object: string | undefined): string | undefined {
    if (object?.startsWith("victim:")) return this.victims.get(object.slice("victim:".length));
    if (object?.startsWith("export:")) return this.exportJobs.get(object.slice("export:".length));
    return object;
  }

  /** An invoice's status, read by an admin of its tenant (readers take turns: their rate budgets are per actor). */
  async readInvoice(id: string): Promise<string | undefined> {
    const tenant = this.matrix.objects.invoice?.[id]?.tenant;
    const readers = tenant ? (this.matrix.readers[tenant] ?? []) : [];
    if (readers.length === 0) return undefined;
    const reader = readers[this.turn++ % readers.length];
    const res = await this.client.send({ persona: reader, method: "GET", path: `/invoices/${encodeURIComponent(id)}`, version: "v2" });
    const status = (res.body as { status?: unknown } | undefined)?.status;
    return res.status === 200 && typeof status === "string" ? status : undefined;
  }

  /** GET /users/me as the user: the HTTP status (403 account_inactive once moderated) and the profile. */
  async readProfile(user: string): Promise<{ status: number; code?: string; profile: Profile }> {
    const res = await this.client.send({ persona: user, method: "GET", path: "/users/me", version: "v2" });
    return { status: res.status, code: res.code, profile: (res.body ?? {}) as Profile };
  }

  /**
   * Puts a profile back as it was before a cell changed it: the persona
   * itself, through PATCH /profile (users.me.update), then a re-read. A
   * restore that does not take is recorded (the report fails on it).
   */
  async restoreProfile(user: string, before: Profile): Promise<void> {
    const res = await this.client.send({ persona: user, method: "PATCH", path: "/profile", version: "v2", body: { displayName: before.displayName } });
    const now = await this.readProfile(user);
    if (res.status !== 200 || now.profile.displayName !== before.displayName) {
      this.restoreProblems.push(
        `restore: ${user}'s profile could not be put back (PATCH /profile answered ${res.status} ${res.code ?? ""}; displayName is ${JSON.stringify(now.profile.displayName)}, was ${JSON.stringify(before.displayName)})`,
      );
    }
  }

  /** After the run: every persona re-read and compared with how the run found it (restoring any difference once more). */
  async verifyPersonas(): Promise<void> {
    for (const [user, start] of this.profileStart) {
      const now = await this.readProfile(user);
      if (now.status === 200 && now.profile.displayName === start.displayName) continue;
      if (now.status !== 200) {
        this.restoreProblems.push(`restore: ${user} can no longer read its profile after the run (${now.status} ${now.code ?? ""})`);
        continue;
      }
      await this.restoreProfile(user, start);
    }
  }

  /** What the run left changed on the instance, in plain words. */
  changes(invited: number, exportJobs: number, run: string): string[] {
    const out: string[] = [];
    for (const [id, start] of this.invoiceStart) {
      const now = this.invoiceStatus.get(id);
      if (now !== start) out.push(`invoice ${id}: ${start} -> ${now ?? "unknown"}`);
    }
    for (const [tenant, id] of this.victims) out.push(`user ${id} invited in ${tenant} as the moderation victim (suspended, disabled, banned by the run)`);
    if (invited > 0) out.push(`${invited} users invited (matrix-${run}-<cell>@example.test)`);
    const jobs = exportJobs + this.exportJobs.size;
    if (jobs > 0) out.push(`${jobs} export jobs started`);
    out.push(
      `personas: ${this.restoreProblems.length === 0 ? `all ${this.profileStart.size} profiles as the run found them (re-read)` : "NOT all restored (see failures)"}`,
    );
    return out;
  }

  /** How many users each tenant's reader finds by a search text: {tenant: count}. */
  async findUsers(text: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [tenant, readers] of Object.entries(this.matrix.readers)) {
      const res = await this.client.send({ persona: readers[0], method: "GET", path: `/api/v2/search?q=${encodeURIComponent(text)}&limit=100` });
      const results = (res.body as { results?: Array<{ type?: string }> } | undefined)?.results;
      out[tenant] = res.status === 200 && Array.isArray(results) ? results.filter((r) => r.type === "user").length : -1;
    }
    return out;
  }
}
