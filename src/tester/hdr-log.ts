// --hdr-log: the run's end-to-end latency as an HdrHistogram interval log, one interval per
// second after the warm-up (EndToEndIntervals writes each second as it is released), readable
// by HdrHistogram's own tools (HistogramLogProcessor, plotters).
import { closeSync, openSync, writeSync } from 'node:fs';
import { SmqError } from '../errors.js';
import { HistogramLogWriter, type Histogram } from './histograms.js';

export class HdrLog {
  /** The first write that failed (a full disk, an I/O error): the run goes on, the log stops there. */
  failure: Error | undefined;
  private readonly writer: HistogramLogWriter;
  private closed = false;

  private constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {
    this.writer = new HistogramLogWriter((text) => this.write(text));
  }

  /** Creates (or truncates) the file; a path that cannot be opened is the user's to fix. */
  static open(path: string): HdrLog {
    let fd: number;
    try {
      fd = openSync(path, 'w');
    } catch (e) {
      throw new SmqError(
        'invalid-input',
        `cannot write --hdr-log ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
        {
          hint: 'give a file in a folder you can write to',
        },
      );
    }
    const log = new HdrLog(fd, path);
    log.writer.outputLogFormatVersion();
    log.writer.outputComment(`smq tester end-to-end latency in microseconds (max column in ms), one interval per second after the warm-up`);
    return log;
  }

  private write(text: string): void {
    if (this.failure) return;
    try {
      // A write may take only part of the bytes (a file-size limit, a full disk): the rest is
      // written again, and the disk's refusal of it is the failure.
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done);
    } catch (e) {
      this.failure = e instanceof Error ? e : new Error(String(e));
    }
  }

  /** The run's second 0, as wall-clock time. */
  start(epochMs: number): void {
    this.writer.outputStartTime(epochMs);
    this.writer.outputLegend();
  }

  /** One second of the run (second s to s + 1). */
  interval(h: Histogram, second: number): void {
    this.writer.outputIntervalHistogram(h, second, second + 1, 1000);
  }

  /** Closes the file (once: the engine closes it before its report, and again on the way out). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch (e) {
      // NFS and the like report a failed write at the close.
      this.failure ??= e instanceof Error ? e : new Error(String(e));
    }
  }

  /** Closes the file; its path when every byte went in (the report names it), else undefined. */
  closeWhole(): string | undefined {
    this.close();
    return this.failure ? undefined : this.path;
  }
}
