// smq send <queue> [body]: one message from the argument, or one per line of stdin.
import type { CommandModule } from 'yargs';
import type { MessageId, SendInput } from '../backends/types.js';
import { invalidInput, usageError } from '../errors.js';
import type { InStream } from '../output/io.js';
import { optionalNonNegativeInt, parseHeaders } from './args.js';
import { ioOf, printerOf, withBackend, type GlobalArgs } from './context.js';

interface SendArgs extends GlobalArgs {
  readonly queue: string;
  readonly body?: string | undefined;
  readonly delay?: number | undefined;
  readonly header?: string | string[] | undefined;
}

/** Messages per sendBatch call when reading stdin: one round trip each, bounded size. */
const BATCH_SIZE = 500;

/** Every non-blank line of the stream (CRLF tolerated). */
export async function readLines(stream: InStream): Promise<string[]> {
  stream.setEncoding('utf8');
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text
    .split('\n')
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .filter((l) => l.trim() !== '');
}

function checkJson(bodies: readonly string[], fromStdin: boolean): void {
  bodies.forEach((body, i) => {
    try {
      JSON.parse(body);
    } catch (e) {
      const where = fromStdin ? `line ${i + 1} of stdin` : 'the message body';
      const why = e instanceof Error ? e.message : String(e);
      throw invalidInput(`${where} is not valid JSON (${why})`, `pgmq stores bodies as jsonb: quote text, e.g. '"hello"'`);
    }
  });
}

export const sendCommand: CommandModule<GlobalArgs, SendArgs> = {
  command: 'send <queue> [body]',
  describe: 'send a message (or one per stdin line); prints the new ids',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', demandOption: true, describe: 'queue name' })
      .positional('body', { type: 'string', describe: 'message body (JSON on pgmq); read from stdin when absent' })
      .option('delay', { type: 'number', requiresArg: true, describe: 'seconds before the message becomes visible' })
      .option('header', {
        type: 'string',
        requiresArg: true,
        describe: 'k=v, repeatable: pgmq headers / SmoothMQ attributes',
      })
      .example(`$0 send orders '{"id": 1}' --url postgres://localhost/app`, '')
      .example('seq 100 | $0 send numbers --sqlite ./smoothmq.db', 'one message per line'),
  handler: async (argv) => {
    const queue = String(argv.queue);
    const delaySec = optionalNonNegativeInt('delay', argv.delay, '10');
    const headers = parseHeaders(argv.header);
    const printer = printerOf(argv);
    const io = ioOf(argv);
    const fromStdin = argv.body === undefined;
    const ctx = { writes: 'smq send', queues: [queue] };

    // Read stdin before connecting, so no connection idles while a producer is slow.
    let bodies: string[];
    if (fromStdin) {
      if (io.stdin.isTTY) printer.note('reading messages from stdin, one per line; end with Ctrl-D');
      bodies = await readLines(io.stdin);
      if (bodies.length === 0) throw usageError('no message to send', 'give a body argument or pipe lines to stdin');
    } else {
      bodies = [String(argv.body)];
    }

    await withBackend(
      argv,
      async (backend) => {
        const caps = backend.capabilities;
        if (headers && !caps.headers && !caps.attributes) {
          throw usageError('this pgmq has no headers column (pgmq < 1.5)', 'drop --header, or upgrade pgmq');
        }
        if (caps.jsonBodies) checkJson(bodies, fromStdin);
        const inputs: SendInput[] = bodies.map((body) => ({
          body,
          ...(headers ? { headers } : {}),
          ...(delaySec === undefined ? {} : { delaySec }),
        }));
        const ids: MessageId[] = [];
        if (inputs.length === 1 && inputs[0]) {
          ids.push(await backend.send(queue, inputs[0]));
        } else {
          for (let i = 0; i < inputs.length; i += BATCH_SIZE) {
            ids.push(...(await backend.sendBatch(queue, inputs.slice(i, i + BATCH_SIZE))));
          }
        }
        printer.list(
          ids,
          { columns: [{ header: 'ID', align: 'right' }], row: (id) => [id.toString()] },
          (id) => ({ id: id.toString() }),
        );
      },
      ctx,
    );
  },
};
