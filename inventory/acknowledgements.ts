/**
 * Acknowledged findings: what the team accepts, on the record, for a while.
 * inventory/acknowledgements.yaml lists entries
 *
 *   - finding: "deprecated-live:v1"     # a finding id from the report
 *     owner: api-platform
 *     reason: "v1 stays until its sunset; clients are migrating"
 *     expires: 2027-03-31
 *
 * An entry covers its finding until the end of its `expires` day (UTC).
 * After that the finding fails `--check` again AND the expired entry is a
 * finding of its own (`acknowledgement-expired`), so nobody can accept a
 * risk forever by forgetting it. Entries matching no finding are reported
 * as stale notes, expired or not: the finding went away (a version retired
 * by its sunset, the day its entry expires), nothing is being accepted, and
 * the entry should go too.
 */
import * as fs from "node:fs";
import { parse } from "yaml";
import type { Finding } from "./types";

export interface Acknowledgement {
  finding: string;
  owner: string;
  reason: string;
  /** YYYY-MM-DD. */
  expires: string;
}

export class AcknowledgementError extends Error {}

export function parseAcknowledgements(text: string, label = "acknowledgements.yaml"): Acknowledgement[] {
  const doc = parse(text) as { acknowledgements?: unknown } | null;
  const list = doc?.acknowledgements ?? [];
  if (!Array.isArray(list)) throw new AcknowledgementError(`${label}: acknowledgements must be a list`);
  return list.map((raw, i) => {
    const e = raw as Record<string, unknown>;
    const where = `${label} entry ${i + 1}`;
    for (const field of ["finding", "owner", "reason"]) {
      if (typeof e[field] !== "string" || (e[field] as string).trim() === "") throw new AcknowledgementError(`${where}: ${field} is required`);
    }
    // YAML reads an unquoted 2027-03-31 as a date; accept both spellings.
    const expires = e.expires instanceof Date ? e.expires.toISOString().slice(0, 10) : e.expires;
    if (typeof expires !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(expires) || Number.isNaN(Date.parse(expires))) {
      throw new AcknowledgementError(`${where}: expires must be a date (YYYY-MM-DD)`);
    }
    return { finding: e.finding as string, owner: e.owner as string, reason: e.reason as string, expires };
  });
}

export function readAcknowledgements(file: string): Acknowledgement[] {
  return fs.existsSync(file) ? parseAcknowledgements(fs.readFileSync(file, "utf8"), file) : [];
}

export function expired(ack: Acknowledgement, now: Date): boolean {
  return Date.parse(`${ack.expires}T23:59:59.999Z`) < now.getTime();
}

/** Marks acknowledged findings, adds one finding per expired entry; returns what fails and the stale entries. */
export function applyAcknowledgements(
  findings: Finding[],
  acks: Acknowledgement[],
  now: Date,
): { findings: Finding[]; failing: Finding[]; stale: Acknowledgement[] } {
  const byId = new Map(acks.map((a) => [a.finding, a]));
  const out: Finding[] = findings.map((f) => {
    const a = byId.get(f.id);
    return a && !expired(a, now) ? { ...f, acknowledged: { owner: a.owner, reason: a.reason, expires: a.expires } } : f;
  });
  const ids = new Set(findings.map((f) => f.id));
  for (const a of acks) {
    if (!expired(a, now) || !ids.has(a.finding)) continue;
    out.push({
      id: `acknowledgement-expired:${a.finding}`,
      kind: "acknowledgement-expired",
      subject: a.finding,
      detail: `acknowledged by ${a.owner} until ${a.expires} ("${a.reason}"): expired; fix the finding or renew with a new reason`,
    });
  }
  return { findings: out, failing: out.filter((f) => !f.acknowledged), stale: acks.filter((a) => !ids.has(a.finding)) };
}
