/**
 * Progress while probing, on stderr (stdout stays the report, so
 * `--json > file` is clean). On a terminal: one bar redrawn in place. Not on
 * a terminal (CI logs): one line per phase, no control characters.
 *
 *   const p = stderrProgress();
 *   p.phase("probing routes", 42); p.tick(); ...; p.done();
 */
export interface Progress {
  phase(name: string, total: number): void;
  tick(): void;
  done(): void;
}

export const silentProgress: Progress = { phase: () => undefined, tick: () => undefined, done: () => undefined };

export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = stream.isTTY === true;
  let name = "";
  let total = 0;
  let n = 0;
  const width = 30;
  const draw = () => {
    const frac = total > 0 ? Math.min(1, n / total) : 1;
    const filled = Math.round(frac * width);
    stream.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(frac * 100)).padStart(3)}% ${name} (${n}/${total})\x1b[K`);
  };
  return {
    phase(next, count) {
      if (tty && name) stream.write("\n");
      name = next;
      total = count;
      n = 0;
      if (tty) draw();
      else stream.write(`inventory: ${next} (${count})\n`);
    },
    tick() {
      n++;
      // Redraw at most ~50 times per phase: a bar, not a flood.
      if (tty && (n === total || n % Math.max(1, Math.floor(total / 50)) === 0)) draw();
    },
    done() {
      if (tty && name) stream.write("\n");
      name = "";
    },
  };
}
