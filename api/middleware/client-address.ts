/**
 * The client's address: what per-address budgets (failed tokens, anonymous
 * and unmatched requests) are keyed by, and what the log records.
 *
 *   const resolve = clientAddressResolver(["10.0.0.0/8", "::1"]);
 *   resolve("10.1.2.3", "198.51.100.7, 10.1.2.4")   // -> "198.51.100.7"
 *   resolve("203.0.113.9", "1.2.3.4")               // -> "203.0.113.9" (not a trusted peer: header ignored)
 *
 * `X-Forwarded-For` is client-controlled: anyone can send one, so it is
 * read ONLY when the socket peer is a configured trusted proxy (the edge
 * gateway), and then from the right: each trusted proxy appends the
 * address it received the request from, so the first address from the
 * right that is not itself a trusted proxy is the client. Whatever a
 * client wrote to the left of that is never read. An entry that is not an
 * IP address stops the walk at the last trusted hop (a budget keyed by
 * arbitrary text would be a fresh budget per request).
 *
 * Trusted proxies are IP addresses or CIDR ranges (IPv4 and IPv6); an
 * IPv4-mapped IPv6 peer (`::ffff:10.0.0.1`) is its IPv4 address. With no
 * trusted proxy configured (the default) the socket peer is the client.
 */
import * as net from "node:net";
import { ConfigError } from "../../config/errors";

export type ClientAddressResolver = (peer: string, forwardedFor: string | undefined) => string;

/** Parses the configured list; throws ConfigError (CONFIG_INVALID_ADDRESS) on an entry that is neither an IP address nor a CIDR range. */
export function clientAddressResolver(trustedProxies: readonly string[] = []): ClientAddressResolver {
  if (trustedProxies.length === 0) return (peer) => normalise(peer);
  const trusted = new net.BlockList();
  for (const entry of trustedProxies) {
    const [address, prefix, extra] = entry.trim().split("/");
    const family = net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : null;
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = family === "ipv4" ? 32 : 128;
    if (family === null || extra !== undefined || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= max && /^\d+$/.test(prefix)))) {
      throw new ConfigError("CONFIG_INVALID_ADDRESS", "trustedProxies", `trusted proxy ${JSON.stringify(entry)} is not an IP address or CIDR range`);
    }
    if (bits === undefined) trusted.addAddress(normalise(address), family);
    else trusted.addSubnet(normalise(address), bits, family);
  }
  const isTrusted = (address: string) => trusted.check(address, net.isIPv4(address) ? "ipv4" : "ipv6");
  return (peer, forwardedFor) => {
    let client = normalise(peer);
    if (!net.isIP(client) || !isTrusted(client) || !forwardedFor) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalise(hops[i].trim());
      if (!net.isIP(hop)) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client;
  };
}

/** `::ffff:10.0.0.1` -> `10.0.0.1`; anything else unchanged. */
function normalise(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}
