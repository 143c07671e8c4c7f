/**
 * The structured console log: one JSON line per event, shaped like OPA's
 * console decision logger (level, msg, time, type, then the event's fields),
 * so log shippers that already parse OPA's output parse ours. Lines are
 * collected and written together on the next tick, so a decision never waits
 * for a slow terminal or pipe.
 */
import type { Writable } from "node:stream";
import type { LogEvent } from "../core/mask";
import type { SinkStats } from "../core/types";
import type { Sink } from "./sink";

export const CONSOLE_LOG_TYPE = "openpolicyagent.org/decision_logs";

export class ConsoleSink implements Sink {
  readonly name = "console";
  private lines: string[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  private written = 0;
  private dropped = 0;
  private closed = false;

  constructor(private readonly out: Writable = process.stdout) {}

  write(event: LogEvent): void {
    if (this.closed) {
      this.dropped++;
      return;
    }
    const line = { level: "info", msg: "Decision Log", time: event.timestamp, type: CONSOLE_LOG_TYPE, ...event };
    this.lines.push(JSON.stringify(line));
    this.scheduled ??= setImmediate(() => this.writeOut());
  }

  async flush(): Promise<void> {
    this.writeOut();
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  stats(): SinkStats {
    return { written: this.written, pending: this.lines.length, dropped: this.dropped, failures: 0 };
  }

  private writeOut(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.lines.length === 0) return;
    const lines = this.lines;
    this.lines = [];
    this.out.write(lines.join("\n") + "\n");
    this.written += lines.length;
  }
}
