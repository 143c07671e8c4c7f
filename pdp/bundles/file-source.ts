/**
 * A bundle file on disk, reloaded when it changes.
 *
 *   new FileBundleSource({ file: "var/bundle.tar.gz", pollIntervalMs: 2000 })
 *
 * fs.watch on the file triggers a check after a short debounce; a periodic
 * stat is the fallback where fs.watch is unreliable (network filesystems,
 * containers). A check reads the file only when its inode, size or mtime
 * changed.
 *
 * The watch is on the file itself, not on its directory: the bundle usually
 * shares a directory with SQLite files (var/ holds the decision log and the
 * application database), and a directory watch woke the request thread's
 * event loop for every one of their writes. A writer that replaces the file
 * by rename (as `rego build` does) leaves a watch on the old inode, so every
 * event re-arms the watch on whatever the path names now. While the file
 * does not exist the directory is watched instead, to see it appear.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { messageOf, PdpError } from "../errors";
import type { BundleSink, BundleSource } from "./source";

export interface FileSourceOptions {
  /** The bundle file (tar.gz). */
  file: string;
  /** Use fs.watch besides polling (default true; false where it is known not to work). */
  watch?: boolean;
  /** Stat fallback interval (default 2000 ms). */
  pollIntervalMs?: number;
  /** Wait after a watch event, so a file still being written is read once it is complete (default 100 ms). */
  debounceMs?: number;
}

export class FileBundleSource implements BundleSource {
  readonly description: string;
  private sink: BundleSink | null = null;
  private watcher: fs.FSWatcher | null = null;
  private poller: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  /** Checks run one after another, never two reads at once. */
  private chain: Promise<void> = Promise.resolve();
  private seen: string | null = null;
  /** The last problem reported, so a file missing for an hour is reported once, not every poll. */
  private problem: string | null = null;
  private stopped = false;

  constructor(private readonly options: FileSourceOptions) {
    this.description = options.file;
  }

  start(sink: BundleSink): void {
    this.sink = sink;
    this.arm();
    this.poller = setInterval(() => void this.check(), this.options.pollIntervalMs ?? 2000);
    this.poller.unref();
  }

  check(): Promise<void> {
    // checkOnce reports its own errors; the catch keeps the chain usable whatever happens.
    this.chain = this.chain.then(() => this.checkOnce()).catch(() => undefined);
    return this.chain;
  }

  stop(): void {
    this.stopped = true;
    this.closeWatcher();
    if (this.poller) clearInterval(this.poller);
    if (this.debounce) clearTimeout(this.debounce);
    this.poller = this.debounce = null;
  }

  /**
   * (Re)starts the watch: on the file when it exists, else on its directory
   * until the file appears. Whatever fails, polling carries on.
   */
  private arm(): void {
    this.closeWatcher();
    if (this.stopped || this.options.watch === false) return;
    const file = path.resolve(this.options.file);
    const base = path.basename(file);
    try {
      this.watcher = fs.watch(file, { persistent: false }, () => {
        // The path may name another inode now (rename over it), or nothing: watch what is there.
        this.arm();
        this.schedule();
      });
    } catch {
      try {
        this.watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
          if (name !== null && name.toString() !== base) return;
          this.arm();
          this.schedule();
        });
      } catch {
        return; // e.g. the directory does not exist yet: polling only (checkOnce re-arms)
      }
    }
    this.watcher.on("error", () => this.closeWatcher());
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.check();
    }, this.options.debounceMs ?? 100);
    this.debounce.unref();
  }

  private async checkOnce(): Promise<void> {
    const sink = this.sink;
    if (this.stopped || !sink) return;
    try {
      const stat = await fs.promises.stat(this.options.file);
      const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (key === this.seen) return;
      const bytes = await fs.promises.readFile(this.options.file);
      // A new file (or one found by polling): make sure the watch is on it, not on an old inode.
      this.arm();
      this.seen = key;
      this.problem = null;
      await sink.deliver(bytes);
    } catch (err) {
      const message = `${this.options.file}: ${messageOf(err)}`;
      if (message === this.problem) return;
      this.problem = message;
      this.seen = null; // read it again once it is back, even with the same stat
      this.arm(); // gone: watch the directory for it to come back
      sink.failed(new PdpError("bundle_unavailable", message));
    }
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
