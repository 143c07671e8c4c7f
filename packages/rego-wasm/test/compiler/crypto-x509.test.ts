/**
 * crypto.x509.* and crypto.parse_private_keys dispatched to the host
 * (compiler/host/x509/, supplied by EvaluationClock.builtins()). The
 * fixtures were made with openssl: a P-256 chain Root -> Inter -> leaf (leaf
 * for clientAuth, DNS www.example.com, valid 2026-11-21T20:44:17Z for two
 * days), the leaf's key, another key, a CSR with SANs and a CA with name
 * constraints and policy extensions. Field values were
 * checked against Go's encoding/json of crypto/x509's structures.
 */
import { generateKeyPairSync, type KeyExportOptions, type KeyObject } from "crypto";
import { compile } from "../../compiler";
import { hostValueOf } from "./evaluate-rego";

const p = hostValueOf;

const ROOT =
  "-----BEGIN CERTIFICATE-----\nMIIBgzCCASmgAwIBAgIUUp6kctf/oIpzWfUaMVaDP+IG7NowCgYIKoZIzj0EAwIw\nDzENMAsGA1UEAwwEUm9vdDAeFw0yNjExMjEyMDQ0MTdaFw0yNjEyMDEyMDQ0MTda\nMA8xDTALBgNVBAMMBFJvb3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQyJ7Pm\nzeH3xkiqPws6bdpsHjc8Kbz3xVRHL0NHe1j2x81gVQGbidyiBaKkS0+OXXVHCT05\nXbbB03PQX2Ug5uKSo2MwYTAdBgNVHQ4EFgQUJOMCaaDK/pc328eVLr6GlHosvVww\nHwYDVR0jBBgwFoAUJOMCaaDK/pc328eVLr6GlHosvVwwDwYDVR0TAQH/BAUwAwEB\n/zAOBgNVHQ8BAf8EBAMCAgQwCgYIKoZIzj0EAwIDSAAwRQIhAMvYBDgt8qTNPSWz\nQyjXtyLxz3yuY3ZHwfGPZV/9ulcHAiA1P0Yjma3P0XnuW6QjzUAU4CayZbcSjqsX\nRhiFkkdi/w==\n-----END CERTIFICATE-----\n";
const INTER =
  "-----BEGIN CERTIFICATE-----\nMIIBgzCCASqgAwIBAgIUPmuc4l2zjdigGMi7nPPKrP3PV8IwCgYIKoZIzj0EAwIw\nDzENMAsGA1UEAwwEUm9vdDAeFw0yNjExMjEyMDQ0MTdaFw0yNjExMjYyMDQ0MTda\nMBAxDjAMBgNVBAMMBUludGVyMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEMZum\n4cHsxeII9mmDMMtCEFbrpEahvixVONuIGHrZJh/8XuRHED5rc6cwiqTDek5L/Sb3\n0Fd9rf+V/YhHKIXQx6NjMGEwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMC\nAgQwHQYDVR0OBBYEFJ++Nk2xCuPtexbUT/qP0raJ9dMgMB8GA1UdIwQYMBaAFCTj\nAmmgyv6XN9vHlS6+hpR6LL1cMAoGCCqGSM49BAMCA0cAMEQCIHKwr4KF0x0xrRWH\nZC4rs+c4maCh3+nkG2txHrsxvvkBAiB9U14RZB4jS7XCg7JpmFEJhF8xAddygvD2\nwd4eoHQ9cg==\n-----END CERTIFICATE-----\n";
const LEAF =
  "-----BEGIN CERTIFICATE-----\nMIIBlDCCATqgAwIBAgIUZhhzvbVCee4QdN19V5UHEKLqit8wCgYIKoZIzj0EAwIw\nEDEOMAwGA1UEAwwFSW50ZXIwHhcNMjYxMTIxMjA0NDE3WhcNMjYxMTIzMjA0NDE3\nWjAPMQ0wCwYDVQQDDARsZWFmMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAECmfJ\n7LvoEMO5Lys1CNgMFZgl2QGo+oC9hhTFMU0F072b4b8lnJfMO8ft7d7Q07bG+Ct2\nbloknYvQEnip2lgsP6NzMHEwGgYDVR0RBBMwEYIPd3d3LmV4YW1wbGUuY29tMBMG\nA1UdJQQMMAoGCCsGAQUFBwMCMB0GA1UdDgQWBBSqWFqXAShlp6vH45VbGJU5+igo\n/jAfBgNVHSMEGDAWgBSfvjZNsQrj7XsW1E/6j9K2ifXTIDAKBggqhkjOPQQDAgNI\nADBFAiA2NDS+L4Zq5fTh7KeEGzzkNuMgNeijDx3hayCWgO1NMwIhAI7EHmeN/IKj\nSr/B9Q3WSE72sEyvh+CNjBaEv+ny+pmx\n-----END CERTIFICATE-----\n";
const LEAF_KEY =
  "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgrUmHkTS6tMui7YvB\nw5JUCZ7hk8pRyaBov2Hxv1hUva+hRANCAAQKZ8nsu+gQw7kvKzUI2AwVmCXZAaj6\ngL2GFMUxTQXTvZvhvyWcl8w7x+3t3tDTtsb4K3ZuWiSdi9ASeKnaWCw/\n-----END PRIVATE KEY-----\n";
const OTHER_KEY =
  "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgA+NnCVN89oqtgfed\nm1J3ngcRCx+D+KW8c9B7LsgZJRihRANCAAQxm6bhwezF4gj2aYMwy0IQVuukRqG+\nLFU424gYetkmH/xe5EcQPmtzpzCKpMN6Tkv9JvfQV32t/5X9iEcohdDH\n-----END PRIVATE KEY-----\n";
const CONSTRAINED =
  "-----BEGIN CERTIFICATE-----\nMIICOjCCAeCgAwIBAgIUPmuc4l2zjdigGMi7nPPKrP3PV8MwCgYIKoZIzj0EAwIw\nDzENMAsGA1UEAwwEUm9vdDAeFw0yNjExMjEyMDQ2MzVaFw0yNjExMjYyMDQ2MzVa\nMBAxDjAMBgNVBAMMBUludGVyMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEMZum\n4cHsxeII9mmDMMtCEFbrpEahvixVONuIGHrZJh/8XuRHED5rc6cwiqTDek5L/Sb3\n0Fd9rf+V/YhHKIXQx6OCARcwggETMA8GA1UdEwEB/wQFMAMBAf8wegYDVR0eAQH/\nBHAwbqAuMA6CDC5leGFtcGxlLmNvbTAKhwgKAAAA/wAAADAQpA4wDDEKMAgGA1UE\nAwwBeKE8MAmBB2JhZC5jb20wC4YJLmV2aWwuY29tMCKHICABDbgAAAAAAAAAAAAA\nAAD/////AAAAAAAAAAAAAAAAMA8GA1UdJAQIMAaAAQCBAQIwCgYDVR02BAMCAQAw\nFQYDVR0hBA4wDDAKBgMqAwQGAyoDBTAQBgNVHSAECTAHMAUGAyoDBDAdBgNVHQ4E\nFgQUn742TbEK4+17FtRP+o/Ston10yAwHwYDVR0jBBgwFoAUJOMCaaDK/pc328eV\nLr6GlHosvVwwCgYIKoZIzj0EAwIDSAAwRQIgUikwOb11Fqq4BYVQxLoVobJPrw8K\nlRyrKVYgZ4wXLw0CIQDhQqjUGfxzMBE3T/4+L1xOwUcRS0/paJ2GzL3nCfTeVQ==\n-----END CERTIFICATE-----\n";
const CSR =
  "-----BEGIN CERTIFICATE REQUEST-----\nMIIBVDCB+wIBADBEMQswCQYDVQQGEwJVUzENMAsGA1UECgwEQWNtZTEMMAoGA1UE\nCwwDRGV2MRgwFgYDVQQDDA9jc3IuZXhhbXBsZS5jb20wWTATBgcqhkjOPQIBBggq\nhkjOPQMBBwNCAATVZ/wDNIIgkX1X14xdu4Cmnd69tV69oTDEXZXOSmUkssDDswpG\nC5lK9bpfppubPa4mZH7AVmpxEcTMgbtvvCmaoFUwUwYJKoZIhvcNAQkOMUYwRDBC\nBgNVHREEOzA5gg1hLmV4YW1wbGUuY29thwQKAQIDhxAgAQ24AAAAAAAAAAAAAAAB\nhhBzcGlmZmU6Ly94L3k/cT0xMAoGCCqGSM49BAMCA0gAMEUCIFyfRJLUMU+nP/uP\nmKY5YHlxjBIg7dzxSJbPVNaejIkrAiEAw6mx2mrtPD2+UPlQ8zWHZX7h2iGYAD37\ncvSTokXrmGI=\n-----END CERTIFICATE REQUEST-----\n";

const b64 = (s: string): string => Buffer.from(s).toString("base64");
const derB64 = (pem: string): string => pem.replace(/-----[^-]+-----|\s/g, "");
const CHAIN = ROOT + INTER + LEAF;

test("parse_certificates: PEM, base64 of PEM and base64 of DER give Go's Certificate fields", async () => {
  const rule =
    "p := [[c.Subject.CommonName, c.Issuer.CommonName, c.Version, c.IsCA, c.BasicConstraintsValid, c.DNSNames, c.ExtKeyUsage, c.PublicKeyAlgorithm, c.SignatureAlgorithm, c.NotAfter] | some c in crypto.x509.parse_certificates(input.c)]";
  const want = [
    ["Root", "Root", 3, true, true, null, null, 3, 10, expect.any(String)],
    ["Inter", "Root", 3, true, true, null, null, 3, 10, expect.any(String)],
    ["leaf", "Inter", 3, false, false, ["www.example.com"], [2], 3, 10, "2026-11-23T20:44:17Z"],
  ];
  expect(await p(rule, { c: CHAIN })).toEqual(want);
  expect(await p(rule, { c: b64(CHAIN) })).toEqual(want);
  expect(await p(rule, { c: derB64(LEAF) })).toEqual([want[2]]);
  expect(await p("p := crypto.x509.parse_certificates(input.c)[0].Raw", { c: LEAF })).toBe(derB64(LEAF));
  expect(await p("p := crypto.x509.parse_certificates(input.c)[0].URIStrings", { c: LEAF })).toBeNull();
});

test("parse_certificates: name constraints and policy extensions", async () => {
  const rule = `p := [c.PermittedDNSDomainsCritical, c.PermittedDNSDomains, c.PermittedIPRanges, c.ExcludedIPRanges, c.ExcludedEmailAddresses,
    c.ExcludedURIDomains, c.UnhandledCriticalExtensions, c.Policies, c.PolicyMappings, c.InhibitAnyPolicyZero, c.InhibitPolicyMapping,
    c.RequireExplicitPolicyZero] if c := crypto.x509.parse_certificates(input.c)[0]`;
  expect(await p(rule, { c: CONSTRAINED })).toEqual([
    true,
    [".example.com"],
    [{ IP: "10.0.0.0", Mask: "/wAAAA==" }],
    [{ IP: "2001:db8::", Mask: "/////wAAAAAAAAAAAAAAAA==" }],
    ["bad.com"],
    [".evil.com"],
    [[2, 5, 29, 30]],
    ["1.2.3.4"],
    [{ IssuerDomainPolicy: "1.2.3.4", SubjectDomainPolicy: "1.2.3.5" }],
    true,
    2,
    true,
  ]);
});

test("parse_certificates: a big serial number keeps every digit", async () => {
  expect(await p("p := crypto.x509.parse_certificates(input.c)[0].SerialNumber == 582862358975981298775602322473650407439990426335", { c: LEAF })).toBe(true);
});

test("parse_certificates: PEM that once took quadratic time (blank runs, many BEGIN lines) is read as Go reads it", async () => {
  const rule = "p := [c.Subject.CommonName | some c in crypto.x509.parse_certificates(input.c)]";
  expect(await p(rule, { c: `-----BEGIN ${" ".repeat(32000)}x\n${LEAF}` })).toEqual(["leaf"]);
  expect(await p(rule, { c: `${"-----BEGIN A-----\n".repeat(20000)}${LEAF}` })).toEqual(["leaf"]);
  expect(await p(rule, { c: `-----BEGIN CERTIFICATE-----${" \t\r".repeat(10000)}\n${LEAF.split("\n").slice(1).join("\n")}` })).toEqual(["leaf"]);
  // No block at all: as in OPA, a "-----BEGIN" text is PEM and holds no certificate.
  expect(await p("p := crypto.x509.parse_certificates(input.c)", { c: "-----BEGIN A-----\n".repeat(20000) })).toEqual([]);
});

test("parse_certificates: errors (bad base64, bad DER, a non-certificate PEM block, non-string) are undefined", async () => {
  for (const c of ["foobar", "YmFkc3RyaW5n", LEAF_KEY, 7]) {
    expect(await p("p := crypto.x509.parse_certificates(input.c)", { c })).toBeUndefined();
  }
});

test("parse_and_verify_certificates(_with_options) are not offered: a policy calling them does not compile", () => {
  for (const call of ["crypto.x509.parse_and_verify_certificates(input.c)", "crypto.x509.parse_and_verify_certificates_with_options(input.c, {})"]) {
    expect(() => compile([{ file: "t.rego", source: `package t\np := ${call}` }], { entrypoints: ["t/p"] })).toThrow(
      /undefined function crypto\.x509\.parse_and_verify_certificates/,
    );
  }
});

test("parse_certificate_request: subject, SANs and extensions; garbage is undefined", async () => {
  const rule =
    "p := [c.Subject.CommonName, c.Subject.Organization, c.DNSNames, c.IPAddresses, [u.Scheme | some u in c.URIs], c.Version, c.PublicKeyAlgorithm] if c := crypto.x509.parse_certificate_request(input.c)";
  const want = ["csr.example.com", ["Acme"], ["a.example.com"], ["10.1.2.3", "2001:db8::1"], ["spiffe"], 0, 3];
  expect(await p(rule, { c: CSR })).toEqual(want);
  expect(await p(rule, { c: b64(CSR) })).toEqual(want);
  expect(await p(rule, { c: derB64(CSR) })).toEqual(want);
  expect(await p(rule, { c: "foobar" })).toBeUndefined();
  expect(await p(rule, { c: LEAF })).toBeUndefined();
});

test("parse_keypair: the certificates as base64 DER, the key as Go's struct; a key that does not match is undefined", async () => {
  const rule = "p := [k.Certificate, k.Leaf.Subject.CommonName, object.keys(k.PrivateKey)] if k := crypto.x509.parse_keypair(input.c, input.k)";
  const want = [[derB64(LEAF)], "leaf", ["Curve", "D", "X", "Y"]];
  expect(await p(rule, { c: LEAF, k: LEAF_KEY })).toEqual(want);
  expect(await p(rule, { c: b64(LEAF), k: b64(LEAF_KEY) })).toEqual(want);
  expect(await p(rule, { c: derB64(LEAF), k: derB64(LEAF_KEY) })).toEqual(want);
  expect(await p(rule, { c: LEAF, k: OTHER_KEY })).toBeUndefined();
  expect(await p(rule, { c: "%%%", k: LEAF_KEY })).toBeUndefined();
});

test("parse_rsa_private_key: the first key as a JWK; no key is null; bad input is undefined", async () => {
  const rule = "p := crypto.x509.parse_rsa_private_key(input.k)";
  expect(await p(rule, { k: LEAF_KEY })).toEqual({ kty: "EC", crv: "P-256", x: expect.any(String), y: expect.any(String), d: expect.any(String) });
  expect(await p(rule, { k: b64(LEAF_KEY) })).toEqual(await p(rule, { k: LEAF_KEY }));
  expect(await p(rule, { k: LEAF })).toBeNull();
  expect(await p(rule, { k: "invalid" })).toBeUndefined();
  expect(await p(rule, { k: "" })).toBeUndefined();
});

test("parse_private_keys: every key block in Go's JSON form; empty input is null, no key []", async () => {
  const rule = "p := [object.keys(k) | some k in crypto.parse_private_keys(input.k)]";
  expect(await p(rule, { k: LEAF_KEY + OTHER_KEY })).toEqual([
    ["Curve", "D", "X", "Y"],
    ["Curve", "D", "X", "Y"],
  ]);
  expect(await p("p := crypto.parse_private_keys(input.k)", { k: "" })).toBeNull();
  expect(await p("p := crypto.parse_private_keys(input.k)", { k: LEAF })).toEqual([]);
  expect(await p("p := crypto.parse_private_keys(input.k)", { k: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" })).toBeUndefined();
});

test("private keys: only the algorithms and named curves Go parses reach node:crypto; DSA, DH, X25519 and explicit curves are errors", async () => {
  const pem = (k: KeyObject, type: "pkcs1" | "pkcs8" | "sec1"): string => k.export({ type, format: "pem" } as KeyExportOptions<"pem">) as string;
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey;
  const ec = generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey;
  const ed = generateKeyPairSync("ed25519").privateKey;
  const keys = "p := [object.keys(k) | some k in crypto.parse_private_keys(input.k)]";
  expect(await p(keys, { k: pem(rsa, "pkcs1") + pem(rsa, "pkcs8") + pem(ec, "sec1") + pem(ec, "pkcs8") })).toEqual([
    ["D", "E", "N", "Precomputed", "Primes"],
    ["D", "E", "N", "Precomputed", "Primes"],
    ["Curve", "D", "X", "Y"],
    ["Curve", "D", "X", "Y"],
  ]);
  expect(await p("p := count(crypto.parse_private_keys(input.k))", { k: pem(ed, "pkcs8") })).toBe(1);
  // Go's x509.ParsePKCS8PrivateKey refuses DSA and DH keys (OpenSSL would compute g^x mod p: seconds for a crafted key).
  const dsa = generateKeyPairSync("dsa", { modulusLength: 1024, divisorLength: 160 }).privateKey;
  // @types/node has no overload for "dh" keys, which node supports.
  const generate = generateKeyPairSync as unknown as (type: string, options: object) => { privateKey: KeyObject };
  const dh = generate("dh", { group: "modp14" }).privateKey;
  const x25519 = generateKeyPairSync("x25519").privateKey;
  // An EC key with explicit P-256 parameters, made by `openssl ecparam -param_enc explicit`.
  const explicit =
    "-----BEGIN EC PRIVATE KEY-----\nMIIBaAIBAQQggowZPoE5aHnJvsw75Jvw6PqF0BxYAOxK4Fg7X6CF3TuggfowgfcC\nAQEwLAYHKoZIzj0BAQIhAP////8AAAABAAAAAAAAAAAAAAAA////////////////\nMFsEIP////8AAAABAAAAAAAAAAAAAAAA///////////////8BCBaxjXYqjqT57Pr\nvVV2mIa8ZR0GsMxTsPY7zjw+J9JgSwMVAMSdNgiG5wSTamZ44ROdJreBn36QBEEE\naxfR8uEsQkf4vOblY6RA8ncDfYEt6zOg9KE5RdiYwpZP40Li/hp/m47n60p8D54W\nK84zV2sxXs7LtkBoN79R9QIhAP////8AAAAA//////////+85vqtpxeehPO5ysL8\nYyVRAgEBoUQDQgAEKgcl5dlrEDZ8A/Nf9IIrmGzQL+eChb04Z7MfEM+LPnHYoRLP\nTfA4e6YuGEZqqq8imwhUYqF0P7mMotzO2WORHg==\n-----END EC PRIVATE KEY-----\n";
  for (const k of [pem(dsa, "pkcs8"), pem(dh, "pkcs8"), pem(x25519, "pkcs8"), explicit]) {
    expect(await p("p := crypto.parse_private_keys(input.k)", { k })).toBeUndefined();
    expect(await p("p := crypto.x509.parse_rsa_private_key(input.k)", { k })).toBeUndefined();
    // parse_keypair tries PKCS #1, PKCS #8 and SEC 1 on the block whatever its type.
    expect(
      await p("p := crypto.x509.parse_keypair(input.c, input.k)", { c: LEAF, k: k.replace(/(BEGIN|END) [A-Z ]+-----/g, "$1 PRIVATE KEY-----") }),
    ).toBeUndefined();
  }
});
