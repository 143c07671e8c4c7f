/**
 * Why a timed call was slow, from the measuring thread's own counters
 * (Linux; bench/pdp.bench.ts --classify):
 *
 *   const probe = SlowCallProbe.open(calls);  // null where /proc/thread-self is not there
 *   probe.before(i); fn(); probe.after(i);    // around the timed window, not in it
 *   probe.classOf(i);                          // "gc" | "fault" | "switch" | "none"
 *
 * - gc: a garbage collection of this isolate (a PerformanceObserver entry)
 *   overlapped the call;
 * - fault: the thread took a page fault (minflt + majflt of
 *   /proc/thread-self/stat moved): ~14 µs each on the PVM guests this runs on;
 * - switch: the kernel switched the thread out (/proc/thread-self/schedstat's
 *   timeslice count moved): another thread or process had the CPU;
 * - none: none of these, so the time went where the guest cannot see it (the
 *   host took the vCPU) or to an interrupt handler. To tell those two apart,
 *   correlate with the CPU's interrupts:
 *   `perf record -k CLOCK_MONOTONIC -C 0 -e irq_vectors:local_timer_entry -e irq:irq_handler_entry -e irq:softirq_entry -e sched:sched_switch`
 *   around a loop pinned to CPU 0 (taskset) that notes its slow iterations'
 *   process.hrtime() (the same clock).
 * Reading the counters costs a few µs per call and cools the caches a
 * little, so the classified run's own figures are not the bench's figures.
 */
import * as fs from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";

export type SlowClass = "gc" | "fault" | "switch" | "none";

export class SlowCallProbe {
  private readonly faults: Float64Array;
  private readonly switches: Float64Array;
  /** Each call's window in performance.now() ms: [start, end] at 2i, 2i + 1. */
  private readonly windows: Float64Array;
  private gcs: Array<[number, number]> = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.gcs.push([e.startTime, e.startTime + e.duration]);
  });
  private readonly text = Buffer.alloc(1024);

  private constructor(
    private readonly statFd: number,
    private readonly schedstatFd: number,
    calls: number,
  ) {
    this.faults = new Float64Array(calls);
    this.switches = new Float64Array(calls);
    this.windows = new Float64Array(2 * calls);
    this.observer.observe({ entryTypes: ["gc"] });
  }

  /** A probe for rounds of `calls` calls, or null where the thread's counters cannot be read. */
  static open(calls: number): SlowCallProbe | null {
    try {
      // Opened from the measuring thread: /proc/thread-self resolves to it once, here.
      return new SlowCallProbe(fs.openSync("/proc/thread-self/stat", "r"), fs.openSync("/proc/thread-self/schedstat", "r"), calls);
    } catch {
      return null;
    }
  }

  before(i: number): void {
    this.faults[i] = this.faultCount();
    this.switches[i] = this.switchCount();
    this.windows[2 * i] = performance.now();
  }

  after(i: number): void {
    this.windows[2 * i + 1] = performance.now();
    this.faults[i] = this.faultCount() - this.faults[i];
    this.switches[i] = this.switchCount() - this.switches[i];
  }

  /** Why call `i` of the round was slow (call after the round, once its GC entries are delivered: a turn of the event loop). */
  classOf(i: number): SlowClass {
    const [start, end] = [this.windows[2 * i], this.windows[2 * i + 1]];
    if (this.gcs.some(([from, to]) => to >= start && from <= end)) return "gc";
    if (this.faults[i] > 0) return "fault";
    if (this.switches[i] > 0) return "switch";
    return "none";
  }

  /** Forgets the GC entries of the rounds classified so far. */
  nextRound(): void {
    this.gcs = [];
  }

  close(): void {
    this.observer.disconnect();
    fs.closeSync(this.statFd);
    fs.closeSync(this.schedstatFd);
  }

  /** Read from the same descriptor at offset 0: procfs renders the file afresh. */
  private read(fd: number): string {
    return this.text.toString("latin1", 0, fs.readSync(fd, this.text, 0, this.text.length, 0));
  }

  /** minflt + majflt (fields 10 and 12 of proc(5)'s stat; counted after the command name, which may hold spaces). */
  private faultCount(): number {
    const stat = this.read(this.statFd);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[7]) + Number(fields[9]);
  }

  /** Timeslices run on a CPU: one more each time the thread is switched back in. */
  private switchCount(): number {
    return Number(this.read(this.schedstatFd).split(" ")[2]);
  }
}
