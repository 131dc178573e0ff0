// Mounts the tester's live view on a terminal stream (stderr: stdout is for the report).
import { render } from 'ink';
import type { ProgressSnapshot } from '../../tester/index.js';
import { TesterLiveView, TesterProgress } from './LiveView.js';
import type { ProgressSource } from './useTesterProgress.js';

export interface LiveViewHandle {
  /** Draws the run's last snapshot, leaves that frame on screen and releases the terminal. */
  stop(): Promise<void>;
}

export function startLiveView(source: ProgressSource, stream: NodeJS.WriteStream, title: string): LiveViewHandle {
  // The last snapshot, whether or not React has drawn it yet: the final frame shows it.
  let last: ProgressSnapshot | undefined;
  const keep = (s: ProgressSnapshot) => void (last = s);
  source.on('progress', keep);
  const instance = render(<TesterLiveView source={source} title={title} />, {
    stdout: stream,
    // Ctrl-C stays a signal: the command turns it into "stop senders, drain briefly, report".
    exitOnCtrlC: false,
    patchConsole: false,
  });
  return {
    async stop() {
      source.off('progress', keep);
      // A short run ends between two frames (renders are throttled and React schedules its
      // updates): draw the last snapshot now, synchronously, so unmount leaves it on screen.
      if (last) instance.rerender(<TesterProgress snapshot={last} title={title} />);
      instance.unmount();
      await instance.waitUntilExit().catch(() => undefined);
    },
  };
}
