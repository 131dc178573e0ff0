// `p`: the message in $PAGER (../pager.ts), with Ink's terminal handed over and taken back.
import { useStdin, useStdout } from 'ink';
import type { Capabilities, Message } from '../../backends/types.js';
import { pagerText } from '../model/pager-text.js';
import type { QueueRef } from '../model/queue-ref.js';
import { runPager } from '../pager.js';
import type { Say } from './useQueueActions.js';

export function usePager(caps: Capabilities, say: Say): (queue: QueueRef, message: Message | undefined) => void {
  const { stdin } = useStdin();
  const { stdout, write } = useStdout();
  return (queue, message) => {
    if (!message) return say('no message selected');
    const text = pagerText(message, caps, queue.label, Date.now());
    // write('') makes Ink clear what it drew and draw it again, from the top of the cleared screen.
    const r = runPager(text, { stdin, stdout, env: process.env, redraw: () => write('') });
    if (!r.ok) say(r.problem, 'error');
  };
}
