/**
 * What else the machine did while a benchmark measured (Linux /proc/stat).
 *
 *   const before = machineCpu();
 *   ... measure ...
 *   console.log(describeCompetition(before, machineCpu(), ownCpuSeconds, wallSeconds));
 *
 * On these 2-vCPU machines a busy second vCPU slows the first: measured
 * here, a plain spinning process on the other vCPU made a tight loop of
 * policy evaluations ~1.5x slower. A forgotten process therefore shifts
 * every figure, and tail latencies most, so each run says how much CPU time
 * went to processes other than the benchmark's own, and how much the host
 * took away (steal), next to the figures it may have skewed.
 */
import * as fs from "node:fs";

/** Clock ticks per second of /proc's counters (USER_HZ: 100 on Linux builds). */
export const USER_HZ = 100;

export interface MachineCpu {
  /** Seconds of CPU every process spent running (user, nice, system, irq, softirq), summed over CPUs. */
  busy: number;
  /** Seconds the host ran something else while our vCPUs wanted to run. */
  steal: number;
}

/** The machine's CPU counters, or null where /proc/stat is not there. */
export function machineCpu(): MachineCpu | null {
  try {
    const line = fs.readFileSync("/proc/stat", "utf8").split("\n")[0];
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (user + nice + system + irq + softirq) / USER_HZ, steal: (steal ?? 0) / USER_HZ };
  } catch {
    return null;
  }
}

/**
 * One line: CPU used by other processes and stolen by the host during the
 * measurement, as a share of one CPU, and a warning when the others took
 * enough to skew the figures. `ownSeconds` is the CPU time of the
 * benchmark's own processes (all threads) over the same interval.
 */
export function describeCompetition(before: MachineCpu | null, after: MachineCpu | null, ownSeconds: number, wallSeconds: number): string {
  if (!before || !after || wallSeconds <= 0) return "other processes: unknown (no /proc/stat)";
  // /proc counts in 10 ms ticks: a share below ~2% of one CPU is within its resolution.
  const others = Math.max(0, after.busy - before.busy - ownSeconds) / wallSeconds;
  const steal = (after.steal - before.steal) / wallSeconds;
  const line = `other processes used ${(others * 100).toFixed(0)}% of one CPU during the measurement; the host stole ${(steal * 100).toFixed(0)}%`;
  return others > 0.1 ? `${line}. WARNING: something else was running; these figures are skewed (tails most)` : line;
}
