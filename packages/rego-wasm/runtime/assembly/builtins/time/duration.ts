/**
 * Go's `time.ParseDuration`: "300ms", "-1.5h", "2h45m", units ns, us (µs,
 * μs), ms, s, m, h, summed into i64 nanoseconds. The arithmetic is Go's,
 * step for step (u64 accumulator, a float64 for the fraction of each unit),
 * so results agree to the nanosecond, including how fractions round.
 */

/** Result of `parseDuration`: `ok` false on bad syntax, an unknown unit or overflow. */
export class Duration {
  constructor(public ok: bool, public ns: i64) {}
}

const LIMIT: u64 = <u64>1 << 63;

function unitNs(u: string): u64 {
  if (u == "ns") return 1;
  if (u == "us" || u == "\u00b5s" || u == "\u03bcs") return 1_000; // micro sign and Greek mu
  if (u == "ms") return 1_000_000;
  if (u == "s") return 1_000_000_000;
  if (u == "m") return 60_000_000_000;
  if (u == "h") return 3_600_000_000_000;
  return 0;
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

export function parseDuration(s: string): Duration {
  const bad = new Duration(false, 0);
  let i = 0;
  const n = s.length;
  let neg = false;
  if (n > 0 && (s.charCodeAt(0) == 0x2d || s.charCodeAt(0) == 0x2b)) {
    neg = s.charCodeAt(0) == 0x2d;
    i = 1;
  }
  if (s.substring(i) == "0") return new Duration(true, 0); // a bare zero needs no unit
  if (i == n) return bad;
  let d: u64 = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (!(c == 0x2e || isDigit(c))) return bad;
    // integer part, as Go's leadingInt (fails beyond 2^63)
    let v: u64 = 0;
    const intStart = i;
    for (; i < n && isDigit(s.charCodeAt(i)); i++) {
      if (v > LIMIT / 10) return bad;
      v = v * 10 + <u64>(s.charCodeAt(i) - 0x30);
      if (v > LIMIT) return bad;
    }
    const pre = i != intStart;
    // fraction, as Go's leadingFraction: stops gaining precision on overflow
    let f: u64 = 0;
    let scale: f64 = 1;
    let post = false;
    if (i < n && s.charCodeAt(i) == 0x2e) {
      i++;
      const fracStart = i;
      let overflow = false;
      for (; i < n && isDigit(s.charCodeAt(i)); i++) {
        if (overflow) continue;
        if (f > (LIMIT - 1) / 10) {
          overflow = true;
          continue;
        }
        const y = f * 10 + <u64>(s.charCodeAt(i) - 0x30);
        if (y > LIMIT) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
      post = i != fracStart;
    }
    if (!pre && !post) return bad; // no digits, e.g. ".s"
    // unit: everything up to the next digit or dot
    const unitStart = i;
    while (i < n && !(s.charCodeAt(i) == 0x2e || isDigit(s.charCodeAt(i)))) i++;
    if (i == unitStart) return bad; // missing unit
    const unit = unitNs(s.substring(unitStart, i));
    if (unit == 0) return bad;
    if (v > LIMIT / unit) return bad;
    v *= unit;
    if (f > 0) {
      // float64 keeps fractions of hours nanosecond-accurate (f*unit/scale <= 3.6e12)
      v += <u64>(<f64>f * (<f64>unit / scale));
      if (v > LIMIT) return bad;
    }
    d += v;
    if (d > LIMIT) return bad;
  }
  if (neg) return new Duration(true, -(<i64>d)); // -2^63 is representable
  if (d > LIMIT - 1) return bad;
  return new Duration(true, <i64>d);
}
