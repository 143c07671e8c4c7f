/**
 * providers.aws.sign_req(request, aws_config, time_ns) (OPA
 * v1/topdown/providers.go, internal/providers/aws/signing_v4.go): the
 * request object with its headers replaced by AWS Signature Version 4
 * signed ones. Every error OPA raises (a missing or non-string required
 * config key, a non-boolean disable_payload_signing, a request key that
 * http.send does not know, a non-string url or method, headers that are not
 * an object, a URL Go cannot parse, a time that is not an integer in i64)
 * makes the call undefined here (no strict mode in Wasm).
 */

import { Value, ObjV, StrV, T_BOOLEAN, T_OBJECT, T_STRING, asBool, asObj, asStr } from "../value";
import { utf8Bytes } from "./text";
import { hexOf, hmac, sha256 } from "./crypto-digest";
import { bi_json_marshal } from "./json";
import { bi_lower } from "./strings-edit";
import { parseURL } from "./net-url";
import { UTC } from "./time/zone";
import { intArg, localOf, timeFromUnixNano } from "./time/instant";
import { formatTime } from "./time/layout";

/** The request keys http.send accepts (OPA's allowedKeyNames); sign_req rejects any other. */
const REQUEST_KEYS: string[] = [
  "method", "url", "body", "enable_redirect", "force_json_decode", "force_yaml_decode", "headers", "raw_body",
  "tls_use_system_certs", "tls_ca_cert", "tls_ca_cert_file", "tls_ca_cert_env_variable", "tls_client_cert",
  "tls_client_cert_file", "tls_client_cert_env_variable", "tls_client_key", "tls_client_key_file",
  "tls_client_key_env_variable", "tls_insecure_skip_verify", "tls_server_name", "timeout", "cache", "force_cache",
  "force_cache_duration_seconds", "raise_error", "caching_mode", "max_retry_attempts", "cache_ignored_headers",
];

const CONFIG_KEYS: string[] = ["aws_service", "aws_access_key", "aws_secret_access_key", "aws_region"];

/** Request headers a proxy may change on the way, left out of the signature (as the AWS SDK does). */
function unsignedHeader(lower: string): bool {
  return lower == "authorization" || lower == "user-agent" || lower == "x-amzn-trace-id";
}

/** OPA's stringFromTerm: the string, or "" for any other value. */
function stringOf(v: Value | null): string {
  return v !== null && v.kind == T_STRING ? asStr(v).value : "";
}

function sha256Hex(s: string): string {
  return hexOf(sha256(utf8Bytes(s)));
}

function hmacSha256(key: Array<u8>, msg: string): Array<u8> {
  return hmac(sha256, 64, key, utf8Bytes(msg));
}

/** Whether every key is a string http.send knows, and method and url are there. */
function validRequestKeys(req: ObjV): bool {
  for (let i = 0; i < req.keys.length; i++) {
    const k = unchecked(req.keys[i]);
    if (k.kind != T_STRING || !REQUEST_KEYS.includes(asStr(k).value)) return false;
  }
  return req.getStr("method") !== null && req.getStr("url") !== null;
}

/**
 * The payload: raw_body as given when present (a non-string reads as ""),
 * else body serialised as OPA does (Go's json.Marshal), else nothing.
 */
function payloadOf(req: ObjV): string {
  const raw = req.getStr("raw_body");
  if (raw !== null) return stringOf(raw);
  const body = req.getStr("body");
  if (body !== null) return asStr(changetype<Value>(bi_json_marshal(body))).value;
  return "";
}

export function bi_providers_aws_sign_req(request: Value | null, awsConfig: Value | null, timeNs: Value | null): Value | null {
  if (request === null || request.kind != T_OBJECT) return null;
  if (awsConfig === null || awsConfig.kind != T_OBJECT) return null;
  const req = asObj(request);
  const config = asObj(awsConfig);
  for (let i = 0; i < CONFIG_KEYS.length; i++) {
    const v = config.getStr(unchecked(CONFIG_KEYS[i]));
    if (v === null || v.kind != T_STRING) return null;
  }
  const service = stringOf(config.getStr("aws_service"));
  const accessKey = stringOf(config.getStr("aws_access_key"));
  const secretKey = stringOf(config.getStr("aws_secret_access_key"));
  const region = stringOf(config.getStr("aws_region"));
  const sessionToken = stringOf(config.getStr("aws_session_token"));

  const ns = intArg(timeNs);
  if (ns === null) return null;
  const local = localOf(timeFromUnixNano(ns.value, UTC));
  if (local === null) return null;
  const date = formatTime(local, "20060102");
  const dateTime = formatTime(local, "20060102T150405Z");

  if (!validRequestKeys(req)) return null;
  let headers = new ObjV();
  const headersValue = req.getStr("headers");
  if (headersValue !== null) {
    if (headersValue.kind != T_OBJECT) return null;
    headers = asObj(headersValue);
  }
  const urlValue = req.getStr("url")!;
  const methodValue = req.getStr("method")!;
  if (urlValue.kind != T_STRING || methodValue.kind != T_STRING) return null;
  const url = parseURL(asStr(urlValue).value);
  if (url === null) return null;
  const method = asStr(methodValue).value;
  const payload = payloadOf(req);

  let unsignedPayload = false;
  const dps = config.getStr("disable_payload_signing");
  if (dps !== null) {
    if (dps.kind != T_BOOLEAN) return null;
    unsignedPayload = asBool(dps).value;
  }
  const contentHash = unsignedPayload ? "UNSIGNED-PAYLOAD" : sha256Hex(payload);

  // The headers this signer adds; they win over the request's in the result.
  const amz = new ObjV();
  amz.setStr("host", new StrV(url.host));
  amz.setStr("x-amz-date", new StrV(dateTime));
  // S3 and Glacier require the payload hash as a header; other services do not.
  if (service == "s3" || service == "glacier") amz.setStr("x-amz-content-sha256", new StrV(contentHash));
  // Temporary credentials (e.g. from the EC2 metadata service) need the token.
  if (sessionToken.length > 0) amz.setStr("x-amz-security-token", new StrV(sessionToken));

  // Signed: the added headers, then the request's, by lower-case name (a
  // request header of the same name replaces an added one in the signature).
  const signed = new ObjV();
  for (let i = 0; i < amz.keys.length; i++) signed.set(unchecked(amz.keys[i]), unchecked(amz.vals[i]));
  const out = new ObjV();
  for (let i = 0; i < headers.keys.length; i++) {
    const name = stringOf(unchecked(headers.keys[i]));
    const value = new StrV(stringOf(unchecked(headers.vals[i])));
    out.setStr(name, value);
    const lower = asStr(changetype<Value>(bi_lower(new StrV(name)))).value;
    if (!unsignedHeader(lower)) signed.setStr(lower, value);
  }

  // The canonical request lists the signed headers sorted by name: object
  // keys are kept sorted already.
  let canonical = method + "\n" + url.escapedPath + "\n" + url.rawQuery + "\n";
  const names = new Array<string>();
  for (let i = 0; i < signed.keys.length; i++) {
    const name = asStr(unchecked(signed.keys[i])).value;
    names.push(name);
    canonical += name + ":" + asStr(unchecked(signed.vals[i])).value + "\n";
  }
  const signedHeaders = names.join(";");
  canonical += "\n" + signedHeaders + "\n" + contentHash;

  const scope = date + "/" + region + "/" + service + "/aws4_request";
  const stringToSign = "AWS4-HMAC-SHA256\n" + dateTime + "\n" + scope + "\n" + sha256Hex(canonical);
  let key = hmacSha256(utf8Bytes("AWS4" + secretKey), date);
  key = hmacSha256(key, region);
  key = hmacSha256(key, service);
  key = hmacSha256(key, "aws4_request");
  const signature = hexOf(hmacSha256(key, stringToSign));

  out.setStr("Authorization", new StrV(
    "AWS4-HMAC-SHA256 Credential=" + accessKey + "/" + scope + ",SignedHeaders=" + signedHeaders + ",Signature=" + signature,
  ));
  for (let i = 0; i < amz.keys.length; i++) out.set(unchecked(amz.keys[i]), unchecked(amz.vals[i]));

  // The request as given, with the signed headers.
  const result = new ObjV(req.keys.slice(), req.vals.slice());
  result.setStr("headers", out);
  return result;
}
