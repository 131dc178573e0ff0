// smq send <queue> [body]: one message from the argument, or one per line of stdin.
import { isUtf8 } from 'node:buffer';
import type { CommandModule } from 'yargs';
import { invalidInput, usageError } from '../errors.js';
import type { InStream } from '../output/io.js';
import { parseDuration } from '../text/duration.js';
import { optionalNonNegativeInt, parseHeaders } from './args.js';
import { callTimeoutOf, ioOf, printerOf, withBackend, type GlobalArgs } from './context.js';
import { BATCH_SIZE, sendInBatches } from './send-batches.js';
import { needTopics, sendToTopic } from './send-topic.js';
import { idWriter } from './send-output.js';
import { changingStore } from '../output/closed-output.js';

interface SendArgs extends GlobalArgs {
  readonly queue?: string | undefined;
  readonly body?: string | undefined;
  readonly topic?: string | undefined;
  readonly delay?: string | undefined;
  readonly header?: string | string[] | undefined;
  readonly atomic?: boolean | undefined;
  readonly skip?: number | undefined;
}

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
      const why = e instanceof Error ? e.message : String(e);
      throw invalidInput(`${where(line, fromStdin)} is not valid JSON (${why})`, `pgmq stores bodies as jsonb: quote text, e.g. '"hello"'`);
    }
  }
}

/** Bodies per checkBodies call. */
const CHECK_SLICE = 2_000;

const where = (line: number, fromStdin: boolean) => (fromStdin ? `line ${line} of stdin` : 'the message body');

/** The lines after --skip N (line numbers of stdin, blank lines counted); at least one must be left. */
export function afterSkip(lines: readonly InputLine[], skip: number): InputLine[] {
  const left = lines.filter((l) => l.line > skip);
  if (left.length === 0 && lines.length > 0) {
    throw usageError(
      `nothing to send after line ${skip} of stdin (its last message is on line ${lines[lines.length - 1]!.line})`,
      'give a smaller --skip',
    );
  }
  return left;
}

export const sendCommand: CommandModule<GlobalArgs, SendArgs> = {
  command: 'send [queue] [body]',
  describe: 'send a message (or one per stdin line); prints the new ids as they are stored',
  builder: (y) =>
    y
      .positional('queue', { type: 'string', describe: 'queue name (with --topic: none, the routing key picks the queues)' })
      .positional('body', { type: 'string', describe: "message body (JSON on pgmq); read from stdin when absent or '-'" })
      .option('delay', {
        type: 'string',
        requiresArg: true,
        describe: 'hidden for this long after sending, e.g. 30s or 5m; a bare number is seconds',
      })
      .option('header', {
        type: 'string',
        requiresArg: true,
        describe: 'k=v, repeatable: pgmq headers / SmoothMQ attributes',
      })
      .option('topic', {
        type: 'string',
        requiresArg: true,
        describe: 'send to every queue bound to a pattern this routing key matches (pgmq 1.11+); all in one transaction',
      })
      .option('atomic', { type: 'boolean', describe: 'stdin: one transaction for all lines (all are stored or none), not one per 500' })
      .option('skip', { type: 'number', requiresArg: true, describe: 'stdin: skip the first N lines (resume after a failed send)' })
      .example(`$0 send orders '{"id": 1}' --url postgres://localhost/app`, '')
      .example('seq 100 | $0 send numbers --sqlite ./smoothmq.db', 'one message per line')
      .example('$0 send orders --skip 22000 < orders.ndjson', 'go on after the 22,000 lines a failed send stored')
      .example(`$0 send --topic orders.eu.new '{"id": 1}'`, 'to every queue bound to a matching pattern (smq bind)'),
  handler: async (argv) => {
    const topic = argv.topic === undefined ? undefined : String(argv.topic);
    // With --topic there is no queue: the one positional given is the body.
    if (topic !== undefined && argv.body !== undefined) {
      throw usageError('with --topic the routing key picks the queues', `give only the body: smq send --topic ${topic} BODY`);
    }
    if (topic === undefined && argv.queue === undefined) throw usageError('no queue given', 'smq send <queue> [body]');
    const queue = topic === undefined ? String(argv.queue) : '';
    const bodyArg = topic === undefined ? argv.body : argv.queue;
    const delaySec = argv.delay === undefined ? undefined : parseDuration('delay', argv.delay, { unit: 's' });
    const skip = optionalNonNegativeInt('skip', argv.skip, '1000');
    const headers = parseHeaders(argv.header);
    const printer = printerOf(argv);
    const io = ioOf(argv);
    // '-' is stdin, as in cat (it is no JSON, and a SmoothMQ body of one dash is `echo - | smq send q`).
    const fromStdin = bodyArg === undefined || bodyArg === '-';
    const atomic = argv.atomic === true;
    const ctx = { writes: 'smq send', queues: topic === undefined ? [queue] : [] };
    if (!fromStdin && skip !== undefined)
      throw usageError('--skip is for lines read from stdin', 'drop --skip when the body is an argument');

    // Read all of stdin before connecting: no connection idles while a producer is slow, and
    // every line is checked before the first one is sent (100,000 lines: a few MB in memory).
    let bodies: InputLine[];
    if (fromStdin) {
      if (io.stdin.isTTY) printer.note('reading messages from stdin, one per line; end with Ctrl-D');
      bodies = afterSkip(await readLines(io.stdin), skip ?? 0);
      if (bodies.length === 0) throw usageError('no message to send', 'give a body argument or pipe lines to stdin');
    } else {
      bodies = [{ line: 1, text: String(bodyArg) }];
    }

    await withBackend(
      argv,
      async (backend) => {
        const caps = backend.capabilities;
        if (topic !== undefined) needTopics(backend);
        if (headers && !caps.headers && !caps.attributes) {
          throw usageError('this pgmq has no headers column (pgmq < 1.5)', 'drop --header, or upgrade pgmq');
        }
        if (caps.jsonBodies) checkJson(bodies, fromStdin);
        // The store's own check (pgmq: the server's jsonb input), so a bad line stops the send
        // before the first batch; in slices, each one call within --timeout.
        let refused: { line: number; reason: string } | undefined;
        for (let i = 0; i < bodies.length && !refused; i += CHECK_SLICE) {
          const slice = bodies.slice(i, i + CHECK_SLICE);
          const r = await backend.checkBodies(slice.map((b) => b.text));
          if (r) refused = { line: slice[r.index]!.line, reason: r.reason };
        }
        if (refused) {
          throw invalidInput(
            `invalid message body${fromStdin ? ` on line ${refused.line} of stdin` : ''}: the ${caps.jsonBodies ? 'server refuses it as jsonb' : 'store refuses it'}: ${refused.reason}; nothing was sent`,
            "jsonb cannot hold \\u0000, unpaired surrogates, numbers beyond numeric's range or nesting deeper than the server's max_stack_depth allows",
          );
        }
        const messages = bodies.map(({ line, text: body }) => ({
          line,
          message: { body, ...(headers ? { headers } : {}), ...(delaySec === undefined ? {} : { delaySec }) },
        }));
        if (topic !== undefined) {
          await sendToTopic(
            backend,
            topic,
            messages.map((m) => m.message),
            printer,
          );
          return;
        }
        const ids = idWriter(io.stdout, printer.format);
        try {
          // A reader of stdout that goes away does not stop the send half-way (closed-output.ts).
          await changingStore(async () => {
            if (!fromStdin) ids.write([await backend.send(queue, messages[0]!.message)]);
            else await sendInBatches(backend, queue, messages, { atomic, skipped: skip ?? 0, onStored: (batch) => ids.write(batch) });
          });
        } finally {
          ids.end();
        }
      },
      {
        ...ctx,
        // --atomic is one call for all batches: --timeout applies to each batch of BATCH_SIZE.
        ...(atomic || topic !== undefined
          ? { open: { callTimeoutMs: callTimeoutOf(argv) * Math.max(1, Math.ceil(bodies.length / BATCH_SIZE)) } }
          : {}),
      },
    );
  },
};
