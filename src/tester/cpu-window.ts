// The tester's own CPU per message in its steady state: from the end of --warmup to the end
// of sending. The whole run's CPU (report.tester.cpuPercentOfCores) also holds the first
// seconds, in which V8 compiles the hot paths of every thread (one 4 + 4 cycle on the 2-core
// host, with other work beside it: about 1,130 µs of CPU per message in its seconds 2 to 4,
// 266 µs in its seconds 8 to 12), and the drain; a run of minutes pays neither per message.

export interface SteadyCpu {
  /** User + system CPU of the whole process (every thread), per message, in µs. */
  readonly cpuUsPerMessage: number;
  /** Messages in the window: received when the run receives, else sent. */
  readonly messages: number;
  readonly seconds: number;
}

interface Mark {
  readonly cpu: NodeJS.CpuUsage;
  readonly messages: number;
  readonly us: number;
}

export class CpuWindow {
  private from: Mark | undefined;
  private to: Mark | undefined;

  constructor(
    private readonly warmupEndUs: number,
    private readonly cpuUsage: () => NodeJS.CpuUsage = () => process.cpuUsage(),
  ) {}

  /** Called on every supervision tick: opens the window once the warm-up is over, closes it when sending ends. */
  observe(nowUs: number, messages: number, sending: boolean): void {
    if (this.to !== undefined) return;
    if (this.from === undefined) {
      if (sending && nowUs >= this.warmupEndUs) this.from = { cpu: this.cpuUsage(), messages, us: nowUs };
      return;
    }
    if (!sending) this.to = { cpu: this.cpuUsage(), messages, us: nowUs };
  }

  /** null when the window never opened (no sending after the warm-up) or held no message. */
  result(): SteadyCpu | null {
    const { from, to } = this;
    if (from === undefined || to === undefined) return null;
    const messages = to.messages - from.messages;
    if (messages <= 0) return null;
    const cpuUs = to.cpu.user - from.cpu.user + (to.cpu.system - from.cpu.system);
    return {
      cpuUsPerMessage: Math.round((cpuUs / messages) * 10) / 10,
      messages,
      seconds: Math.round((to.us - from.us) / 1e4) / 100,
    };
  }
}
