// smq send <queue> [body]: one message from the argument, or one per line of stdin.
import { isUtf8 } from 'node:buffer';
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

/** One line of stdin that carries a message, with its line number (1-based, blank lines counted). */
export interface InputLine {
  readonly line: number;
  readonly text: string;
}

/**
 * Where the first byte that is not valid UTF-8 sits in buf (-1 when all of it is valid):
 * overlong forms, surrogates and code points above U+10FFFF count as invalid, as in
 * TextDecoder's fatal mode.
 */
export function firstInvalidUtf8(buf: Uint8Array): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * Every non-blank line of the stream (CRLF tolerated), as UTF-8 text. Bytes that are not
 * UTF-8 are refused with the line they are on (nothing is sent): decoding them would
 * silently turn them into U+FFFD and send something else than what was given.
 */
export async function readLines(stream: InStream): Promise<InputLine[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array));
  let bytes = Buffer.concat(chunks);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3); // a UTF-8 byte order mark
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const before = bytes.subarray(0, at);
    let line = 1;
    for (const b of before) if (b === 0x0a) line += 1;
    const column = at - (before.lastIndexOf(0x0a) + 1) + 1;
    const hex = (bytes[at] ?? 0).toString(16).padStart(2, '0');
    throw invalidInput(
      `line ${line} of stdin is not valid UTF-8 (byte 0x${hex} at byte ${column} of the line)`,
      'smq sends text: convert the input to UTF-8 first, e.g. with iconv -t UTF-8',
    );
  }
  return bytes
    .toString('utf8')
    .split('\n')
    .map((l, i) => ({ line: i + 1, text: l.endsWith('\r') ? l.slice(0, -1) : l }))
    .filter((l) => l.text.trim() !== '');
}

function checkJson(bodies: readonly InputLine[], fromStdin: boolean): void {
  for (const { line, text } of bodies) {
    try {
      JSON.parse(text);
    } catch (e) {
      const where = fromStdin ? `line ${line} of stdin` : 'the message body';
      const why = e instanceof Error ? e.message : String(e);
      throw invalidInput(`${where} is not valid JSON (${why})`, `pgmq stores bodies as jsonb: quote text, e.g. '"hello"'`);
    }
  }
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
    let bodies: InputLine[];
    if (fromStdin) {
      if (io.stdin.isTTY) printer.note('reading messages from stdin, one per line; end with Ctrl-D');
      bodies = await readLines(io.stdin);
      if (bodies.length === 0) throw usageError('no message to send', 'give a body argument or pipe lines to stdin');
    } else {
      bodies = [{ line: 1, text: String(argv.body) }];
    }

    await withBackend(
      argv,
      async (backend) => {
        const caps = backend.capabilities;
        if (headers && !caps.headers && !caps.attributes) {
          throw usageError('this pgmq has no headers column (pgmq < 1.5)', 'drop --header, or upgrade pgmq');
        }
        if (caps.jsonBodies) checkJson(bodies, fromStdin);
        const inputs: SendInput[] = bodies.map(({ text: body }) => ({
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
