/** IP network builtins (OPA v1/topdown/cidr.go); net.lookup_ip_addr is not offered. */
import { specs, type BuiltinSpec } from "./spec";

export const NET: BuiltinSpec[] = [
  ...specs(1, ["net.cidr_expand", "net.cidr_merge", "net.cidr_is_valid"]),
  ...specs(2, ["net.cidr_contains", "net.cidr_intersects", "net.cidr_contains_matches"]),
];
