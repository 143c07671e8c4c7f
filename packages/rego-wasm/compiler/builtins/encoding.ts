/** base64, hex, urlquery (json.* is under collections). */
import { specs, type BuiltinSpec } from "./spec";

export const ENCODING: BuiltinSpec[] = [
  ...specs(1, [
    "base64.encode",
    "base64.decode",
    "base64.is_valid",
    "base64url.encode",
    "base64url.encode_no_pad",
    "base64url.decode",
    "hex.encode",
    "hex.decode",
    "urlquery.encode",
    "urlquery.decode",
    "urlquery.encode_object",
    "urlquery.decode_object",
  ]),
  // The npm SDK ships these three as JS builtins: dispatched to the host.
  ...specs(1, ["yaml.marshal", "yaml.unmarshal"], { host: true }),
  ...specs(1, ["yaml.is_valid"], { host: true, falseForNonString: true }),
];
