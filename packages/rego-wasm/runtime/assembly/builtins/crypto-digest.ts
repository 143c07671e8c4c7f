/**
 * Message digests (MD5 RFC 1321, SHA-1 and SHA-2 FIPS 180-4) and HMAC
 * (RFC 2104) over bytes, for the crypto.* and io.jwt.* builtins. Not a
 * builtin module: index.ts does not re-export it.
 *
 * The Wasm module has no host crypto to call, so the algorithms are written
 * out here; they are checked against Node's crypto in
 * test/compiler/graph-crypto-builtins.test.ts.
 */

/** A digest function: the bytes of a message to the bytes of its hash. */
export type Digest = (msg: Array<u8>) => Array<u8>;

/**
 * msg padded to whole blocks as all these hashes do: a 1 bit, zeros, then
 * the message length in bits over the last lenBytes bytes (little-endian for
 * MD5, big-endian for SHA). Lengths beyond 2^61 bytes cannot occur here.
 */
function pad(msg: Array<u8>, block: i32, lenBytes: i32, littleEndian: bool): Uint8Array {
  const n = msg.length;
  const total = ((n + 1 + lenBytes + block - 1) / block) * block;
  const p = new Uint8Array(total);
  for (let i = 0; i < n; i++) unchecked((p[i] = msg[i]));
  p[n] = 0x80;
  const bits = <u64>n << 3;
  for (let i = 0; i < 8; i++) {
    const at = littleEndian ? total - lenBytes + i : total - 1 - i;
    p[at] = <u8>(bits >> (<u64>i << 3));
  }
  return p;
}

// @ts-ignore: decorator
@inline function be32(p: Uint8Array, at: i32): u32 {
  return (<u32>p[at] << 24) | (<u32>p[at + 1] << 16) | (<u32>p[at + 2] << 8) | <u32>p[at + 3];
}

// @ts-ignore: decorator
@inline function le32(p: Uint8Array, at: i32): u32 {
  return (<u32>p[at + 3] << 24) | (<u32>p[at + 2] << 16) | (<u32>p[at + 1] << 8) | <u32>p[at];
}

function be64(p: Uint8Array, at: i32): u64 {
  return (<u64>be32(p, at) << 32) | <u64>be32(p, at + 4);
}

function wordsBE(h: StaticArray<u32>, count: i32): Array<u8> {
  const out = new Array<u8>(count * 4);
  for (let i = 0; i < count; i++) {
    const w = h[i];
    out[4 * i] = <u8>(w >> 24);
    out[4 * i + 1] = <u8>(w >> 16);
    out[4 * i + 2] = <u8>(w >> 8);
    out[4 * i + 3] = <u8>w;
  }
  return out;
}

// ------------------------------------------------------------ MD5

const MD5_K: StaticArray<u32> = [
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
  0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
  0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
  0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
  0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
  0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/** Per-round left rotations: four per group of 16 rounds. */
const MD5_S: StaticArray<u32> = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

export function md5(msg: Array<u8>): Array<u8> {
  const p = pad(msg, 64, 8, true);
  const h: StaticArray<u32> = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  const m = new StaticArray<u32>(16);
  for (let off = 0; off < p.length; off += 64) {
    for (let i = 0; i < 16; i++) m[i] = le32(p, off + 4 * i);
    let a = h[0], b = h[1], c = h[2], d = h[3];
    for (let i = 0; i < 64; i++) {
      let f: u32;
      let g: i32;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const t = d;
      d = c;
      c = b;
      b = b + rotl<u32>(a + f + MD5_K[i] + m[g], MD5_S[((i >> 4) << 2) | (i & 3)]);
      a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  }
  const out = new Array<u8>(16);
  for (let i = 0; i < 16; i++) out[i] = <u8>(h[i >> 2] >> ((<u32>i & 3) << 3));
  return out;
}

// ------------------------------------------------------------ SHA-1

export function sha1(msg: Array<u8>): Array<u8> {
  const p = pad(msg, 64, 8, false);
  const h: StaticArray<u32> = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
  const w = new StaticArray<u32>(80);
  for (let off = 0; off < p.length; off += 64) {
    for (let t = 0; t < 16; t++) w[t] = be32(p, off + 4 * t);
    for (let t = 16; t < 80; t++) w[t] = rotl<u32>(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (let t = 0; t < 80; t++) {
      let f: u32;
      let k: u32;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const tmp = rotl<u32>(a, 5) + f + e + k + w[t];
      e = d;
      d = c;
      c = rotl<u32>(b, 30);
      b = a;
      a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  return wordsBE(h, 5);
}

// ------------------------------------------------------------ SHA-256

/** Fractional parts of the cube roots of the first 64 primes. */
const K256: StaticArray<u32> = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

export function sha256(msg: Array<u8>): Array<u8> {
  const p = pad(msg, 64, 8, false);
  // Fractional parts of the square roots of the first 8 primes.
  const h: StaticArray<u32> = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ];
  const w = new StaticArray<u32>(64);
  for (let off = 0; off < p.length; off += 64) {
    for (let t = 0; t < 16; t++) w[t] = be32(p, off + 4 * t);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15];
      const y = w[t - 2];
      const s0 = rotr<u32>(x, 7) ^ rotr<u32>(x, 18) ^ (x >> 3);
      const s1 = rotr<u32>(y, 17) ^ rotr<u32>(y, 19) ^ (y >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let t = 0; t < 64; t++) {
      const t1 = hh + (rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25)) + ((e & f) ^ (~e & g)) + K256[t] + w[t];
      const t2 = (rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  return wordsBE(h, 8);
}

// ------------------------------------------------------------ SHA-512 and SHA-384

/** Fractional parts of the cube roots of the first 80 primes. */
const K512: StaticArray<u64> = [
  0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
  0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
  0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
  0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
  0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
  0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
  0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
  0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
  0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
  0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
  0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
  0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
  0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
  0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
  0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
  0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
  0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
  0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
  0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
  0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
];

/** SHA-512's initial state: square roots of the first 8 primes. */
const H512: StaticArray<u64> = [
  0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
  0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
];

/** SHA-384's initial state: square roots of the 9th to 16th primes. */
const H384: StaticArray<u64> = [
  0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
  0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4,
];

/** The SHA-512 compression over msg from initial state iv, the first outBytes bytes of the result. */
function sha512Family(msg: Array<u8>, iv: StaticArray<u64>, outBytes: i32): Array<u8> {
  const p = pad(msg, 128, 16, false);
  const h = new StaticArray<u64>(8);
  for (let i = 0; i < 8; i++) h[i] = iv[i];
  const w = new StaticArray<u64>(80);
  for (let off = 0; off < p.length; off += 128) {
    for (let t = 0; t < 16; t++) w[t] = be64(p, off + 8 * t);
    for (let t = 16; t < 80; t++) {
      const x = w[t - 15];
      const y = w[t - 2];
      const s0 = rotr<u64>(x, 1) ^ rotr<u64>(x, 8) ^ (x >> 7);
      const s1 = rotr<u64>(y, 19) ^ rotr<u64>(y, 61) ^ (y >> 6);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (let t = 0; t < 80; t++) {
      const t1 = hh + (rotr<u64>(e, 14) ^ rotr<u64>(e, 18) ^ rotr<u64>(e, 41)) + ((e & f) ^ (~e & g)) + K512[t] + w[t];
      const t2 = (rotr<u64>(a, 28) ^ rotr<u64>(a, 34) ^ rotr<u64>(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
  }
  const out = new Array<u8>(outBytes);
  for (let i = 0; i < outBytes; i++) out[i] = <u8>(h[i >> 3] >> (<u64>(7 - (i & 7)) << 3));
  return out;
}

export function sha512(msg: Array<u8>): Array<u8> {
  return sha512Family(msg, H512, 64);
}

export function sha384(msg: Array<u8>): Array<u8> {
  return sha512Family(msg, H384, 48);
}

// ------------------------------------------------------------ HMAC

/**
 * HMAC of msg under key with digest `hash` of block size `block` (64 bytes
 * for MD5, SHA-1 and SHA-256, 128 for SHA-384 and SHA-512): a key longer
 * than a block is hashed first, then zero-padded to a block.
 */
export function hmac(hash: Digest, block: i32, key: Array<u8>, msg: Array<u8>): Array<u8> {
  const k = key.length > block ? hash(key) : key;
  const inner = new Array<u8>(block);
  const outer = new Array<u8>(block);
  for (let i = 0; i < block; i++) {
    const b: u8 = i < k.length ? k[i] : 0;
    inner[i] = b ^ 0x36;
    outer[i] = b ^ 0x5c;
  }
  return hash(outer.concat(hash(inner.concat(msg))));
}

/**
 * Whether two byte strings are equal, in time that depends only on their
 * lengths (Go's hmac.Equal), so comparing a secret MAC does not leak how
 * much of it matched.
 */
export function constantTimeEqual(x: Array<u8>, y: Array<u8>): bool {
  if (x.length != y.length) return false;
  let diff: u32 = 0;
  for (let i = 0; i < x.length; i++) diff |= <u32>(unchecked(x[i]) ^ unchecked(y[i]));
  return diff == 0;
}

const HEX = "0123456789abcdef";

/** Lower-case hex of bytes, as Go's %x. */
export function hexOf(bytes: Array<u8>): string {
  const units = new Array<i32>(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    units[2 * i] = HEX.charCodeAt(bytes[i] >> 4);
    units[2 * i + 1] = HEX.charCodeAt(bytes[i] & 15);
  }
  return String.fromCharCodes(units);
}
