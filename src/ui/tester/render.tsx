// Mounts the tester's live view on a terminal stream (stderr: stdout is for the report).
import { render } from 'ink';
import { TesterLiveView } from './LiveView.js';
import type { ProgressSource } from './useTesterProgress.js';

export interface LiveViewHandle {
  /** Leaves the last frame on screen and releases the terminal. */
  stop(): Promise<void>;
}

export function startLiveView(source: ProgressSource, stream: NodeJS.WriteStream, title: string): LiveViewHandle {
  const instance = render(<TesterLiveView source={source} title={title} />, {
    stdout: stream,
    // Ctrl-C stays a signal: the command turns it into "stop senders, drain briefly, report".
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return {
    async stop() {
      instance.unmount();
      await instance.waitUntilExit().catch(() => undefined);
    },
  };
}
