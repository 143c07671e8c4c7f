/**
 * Inputs and rules shared by more than one bench, so that a comparison
 * across benches (bench/ab.bench.ts re-times the PDP and the peers rule of
 * bench/pdp.bench.ts and bench/peers.bench.ts) measures the same thing.
 */
import type { DecisionInput } from "../pdp/types";

/** A member reading one invoice: the common case on the request path (the PDP benches' input). */
export const READ_INVOICE_INPUT: DecisionInput = {
  actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] },
  action: "read",
  resource: { type: "invoice", id: "inv_1" },
  route: { id: "invoices.get", method: "GET", version: "v2" },
  fields: { submitted: [] },
  params: ["q"],
};

interface PeerActor {
  id: string;
  tenant: string;
  roles: string[];
}
interface PeerInvoice {
  id: string;
  owner: string;
  tenant: string;
}
export interface PeerInput {
  actor: PeerActor;
  action: string;
  resource: PeerInvoice;
}

const INVOICE: PeerInvoice = { id: "inv_1", owner: "u_alice", tenant: "t_acme" };
/** The peers rule's inputs: owner (allow), tenant admin (allow), same-tenant member (deny), other tenant's admin (deny). */
export const PEER_INPUTS: PeerInput[] = [
  { actor: { id: "u_alice", tenant: "t_acme", roles: ["member"] }, action: "read", resource: INVOICE },
  { actor: { id: "u_admin", tenant: "t_acme", roles: ["admin"] }, action: "read", resource: INVOICE },
  { actor: { id: "u_bob", tenant: "t_acme", roles: ["member"] }, action: "read", resource: INVOICE },
  { actor: { id: "u_eve", tenant: "t_other", roles: ["admin"] }, action: "read", resource: INVOICE },
];
/** What every peer must answer for PEER_INPUTS. */
export const PEER_EXPECTED = [true, true, false, false];

/** The peers rule in Rego (entrypoint peers/allow): read if owner, or admin of the invoice's tenant. */
export const PEERS_REGO = `package peers

default allow := false

allow if {
	input.action == "read"
	input.resource.owner == input.actor.id
}

allow if {
	input.action == "read"
	input.resource.tenant == input.actor.tenant
	"admin" in input.actor.roles
}
`;

/** Distinct short field names, as many as a JSON object body of `limit` bytes holds (`{"f0":0,"f7919":0,...}`, out of order). */
export function manyFieldNames(limit: number): string[] {
  const names: string[] = [];
  for (let i = 0, bytes = 2; ; i++) {
    const name = `f${(i * 7919) % 1_000_000}`;
    bytes += name.length + 5; // "name":0,
    if (bytes > limit) return names;
    names.push(name);
  }
}
