/**
 * base64, base64url, hex and urlquery builtins
 * (runtime/assembly/builtins/encoding.ts, url-query.ts): conformance cases
 * (base64builtins, hexbuiltins, urlbuiltins) plus Go's encoding/base64,
 * encoding/hex and net/url rules.
 */
import { useStringsRuntime, rego } from "./strings-call";

const s = useStringsRuntime();

describe("base64", () => {
  test("encode/decode", () => {
    expect(s.call("base64.encode", "hello")).toBe("aGVsbG8=");
    expect(s.call("base64.encode", "there")).toBe("dGhlcmU=");
    expect(s.call("base64.decode", "aGVsbG8=")).toBe("hello");
    expect(s.call("base64.decode", "dGhlcmU=")).toBe("there");
    expect(s.call("base64.encode", "subjects?_d")).toBe("c3ViamVjdHM/X2Q=");
    expect(s.call("base64.decode", "c3ViamVjdHM/X2Q=")).toBe("subjects?_d");
    expect(s.call("base64.encode", "")).toBe("");
    expect(s.call("base64.encode", "é😀")).toBe("w6nwn5iA");
    expect(s.call("base64.decode", "w6nwn5iA")).toBe("é😀");
    expect(s.call("base64.decode", "aGVs\nbG8=\r\n")).toBe("hello"); // newlines are skipped
  });
  test("strict padding and alphabet", () => {
    expect(s.call("base64.decode", "aGVsbG8")).toBeUndefined();
    expect(s.call("base64.decode", "aGVsbG8=x")).toBeUndefined();
    expect(s.call("base64.decode", "aGVsbA=")).toBeUndefined();
    expect(s.call("base64.decode", "a===")).toBeUndefined();
    expect(s.call("base64.decode", "c3ViamVjdHM_X2Q=")).toBeUndefined();
    expect(s.call("base64.decode", 1)).toBeUndefined();
  });
  test("invalid UTF-8 reads back as U+FFFD", () => {
    expect(s.call("base64.decode", "/w==")).toBe("\ufffd");
  });
  test("is_valid", () => {
    expect(s.call("base64.is_valid", "aGVsbG8=")).toBe(true);
    expect(s.call("base64.is_valid", "{'not':'base64'}")).toBe(false);
    expect(s.call("base64.is_valid", 1)).toBe(false);
  });
});

describe("base64url", () => {
  test("encode, encode_no_pad, decode", () => {
    expect(s.call("base64url.encode", "subjects?_d")).toBe("c3ViamVjdHM_X2Q=");
    expect(s.call("base64url.encode_no_pad", "subjects?_d")).toBe("c3ViamVjdHM_X2Q");
    expect(s.call("base64url.decode", "c3ViamVjdHM_X2Q=")).toBe("subjects?_d");
    expect(s.call("base64url.decode", "c3ViamVjdHM_X2Q")).toBe("subjects?_d");
    expect(s.call("base64url.decode", "aGVsbA")).toBe("hell");
    expect(s.call("base64url.decode", "aGVsb")).toBeUndefined(); // length 1 mod 4
    expect(s.call("base64url.decode", "c3ViamVjdHM/X2Q=")).toBeUndefined();
  });
});

describe("hex", () => {
  test("encode/decode", () => {
    expect(s.call("hex.encode", "lorem ipsum")).toBe("6c6f72656d20697073756d");
    expect(s.call("hex.decode", "6c6f72656d20697073756d")).toBe("lorem ipsum");
    expect(s.call("hex.decode", "C3A9")).toBe("é");
    expect(s.call("hex.encode", "é")).toBe("c3a9");
    expect(s.call("hex.decode", "fghijkl")).toBeUndefined();
    expect(s.call("hex.decode", "abc")).toBeUndefined();
  });
});

describe("urlquery", () => {
  test("encode/decode", () => {
    expect(s.call("urlquery.encode", "a=b+1")).toBe("a%3Db%2B1");
    expect(s.call("urlquery.encode", "")).toBe("");
    expect(s.call("urlquery.encode", "a b~c/é")).toBe("a+b~c%2F%C3%A9");
    expect(s.call("urlquery.decode", "a%3Db%2B1")).toBe("a=b+1");
    expect(s.call("urlquery.decode", "a+b%7e%C3%A9")).toBe("a b~é");
    expect(s.call("urlquery.decode", "a%3")).toBeUndefined();
    expect(s.call("urlquery.decode", "a%zz")).toBeUndefined();
  });
  test("encode_object", () => {
    expect(s.call("urlquery.encode_object", {})).toBe("");
    expect(s.call("urlquery.encode_object", { a: "b", c: "d" })).toBe("a=b&c=d");
    expect(s.call("urlquery.encode_object", { a: "c=b+1" })).toBe("a=c%3Db%2B1");
    expect(s.call("urlquery.encode_object", { a: ["b+1", "c+2"] })).toBe("a=b%2B1&a=c%2B2");
    expect(s.call("urlquery.encode_object", rego('{"a": {"b+1"}}'))).toBe("a=b%2B1");
    expect(s.call("urlquery.encode_object", { "a b": [], c: "" })).toBe("c=");
    expect(s.call("urlquery.encode_object", { a: 1 })).toBeUndefined();
    expect(s.call("urlquery.encode_object", { a: [1] })).toBeUndefined();
    expect(s.call("urlquery.encode_object", "a")).toBeUndefined();
  });
  test("decode_object", () => {
    expect(s.call("urlquery.decode_object", "a=value_a1&b=value_b&a=value_a2")).toEqual({ a: ["value_a1", "value_a2"], b: ["value_b"] });
    expect(s.call("urlquery.decode_object", "a=value_a1&b")).toEqual({ a: ["value_a1"], b: [""] });
    expect(s.call("urlquery.decode_object", "")).toEqual({});
    expect(s.call("urlquery.decode_object", "&&x=1+2&=y")).toEqual({ x: ["1 2"], "": ["y"] });
    expect(s.call("urlquery.decode_object", "a=1;b=2")).toBeUndefined();
    expect(s.call("urlquery.decode_object", "a=%zz")).toBeUndefined();
  });
});
