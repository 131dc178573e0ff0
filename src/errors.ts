// One error type carries the exit code; bin/smq maps it to a single line on stderr.
export const ExitCode = {
  ok: 0,
  failure: 1, // runtime failure: connection, database, worker
  usage: 2, // bad usage or invalid input
  notFound: 3, // queue or message not found
  violations: 4, // smq tester: the checker found violations (lost, double-dequeued …)
  thresholdMissed: 5, // smq tester: --max-p99 missed, the verdict otherwise clean
  notJudged: 6, // smq tester: no violation found, but some classes not judged (a drain of an earlier run)
  hangup: 129, // SIGHUP: the terminal closed
  interrupted: 130,
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type SmqErrorKind =
  | 'usage'
  | 'invalid-input'
  | 'invalid-queue-name'
  | 'queue-not-found'
  | 'message-not-found'
  | 'queue-exists'
  /** A drop asked only for an empty queue found messages in it: nothing was dropped (QueueNotEmptyError). */
  | 'queue-not-empty'
  | 'connection'
  /** A call got no answer within its deadline (--timeout): see backends/deadline.ts. */
  | 'timeout'
  | 'auth'
  | 'read-only'
  | 'database';

const exitCodeByKind: Record<SmqErrorKind, ExitCode> = {
  usage: ExitCode.usage,
  'invalid-input': ExitCode.usage,
  'invalid-queue-name': ExitCode.usage,
  'queue-not-found': ExitCode.notFound,
  'message-not-found': ExitCode.notFound,
  'queue-exists': ExitCode.failure,
  'queue-not-empty': ExitCode.failure,
  connection: ExitCode.failure,
  timeout: ExitCode.failure,
  auth: ExitCode.failure,
  'read-only': ExitCode.failure,
  database: ExitCode.failure,
};

export class SmqError extends Error {
  readonly kind: SmqErrorKind;
  readonly exitCode: ExitCode;
  /** What the user can do about it; printed after the message. */
  readonly hint: string | undefined;

  constructor(kind: SmqErrorKind, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SmqError';
    this.kind = kind;
    this.exitCode = exitCodeByKind[kind];
    this.hint = options.hint;
  }

  /** The single line shown to the user. */
  line(): string {
    return this.hint ? `${this.message}: ${this.hint}` : this.message;
  }
}

/**
 * Backend.dropQueue(queue, { atMost }) found `messages` messages in the queue at the moment of
 * the drop, more than `atMost` (checked in the drop's own transaction): the queue and its
 * messages are still there.
 */
export class QueueNotEmptyError extends SmqError {
  constructor(
    readonly queue: string,
    readonly messages: number,
    readonly atMost = 0,
  ) {
    super(
      'queue-not-empty',
      `queue ${JSON.stringify(queue)} ${atMost === 0 ? 'is not empty' : `holds more than ${atMost.toLocaleString('en-US')} message${atMost === 1 ? '' : 's'}`} (${messages.toLocaleString('en-US')} message${messages === 1 ? '' : 's'})`,
      {
        hint: 'nothing was dropped',
      },
    );
    this.name = 'QueueNotEmptyError';
  }
}

export const usageError = (message: string, hint?: string) => new SmqError('usage', message, { hint });
export const invalidInput = (message: string, hint?: string) => new SmqError('invalid-input', message, { hint });
export const queueNotFound = (queue: string) =>
  new SmqError('queue-not-found', `queue ${JSON.stringify(queue)} does not exist`, {
    hint: "run 'smq queues' to list queues, or 'smq create' to make it",
  });
export const messageNotFound = (queue: string, ids: readonly bigint[]) =>
  new SmqError('message-not-found', `no message ${ids.join(', ')} in queue ${JSON.stringify(queue)}`, {
    hint: "run 'smq peek' to see the queue's messages",
  });

export function isSmqError(e: unknown): e is SmqError {
  return e instanceof SmqError;
}

const READ_FAILURES: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is a file, not a directory',
  ELOOP: 'too many symbolic links on its path',
  ENAMETOOLONG: 'its name is too long',
  EIO: 'an input/output error',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
  ENOTFILE: 'it is not a regular file (a FIFO, a device or a socket)',
  ETOOBIG: 'it is larger than such a file can be',
};

/**
 * Why a file could not be read, in words, with Node's code at the end for scripts ("no such
 * file (ENOENT)"); never Node's text, which repeats the path.
 */
export function readFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) return 'it could not be read';
  // smq's own codes (read-text-file.ts) are no system's: only their words are said.
  if (code === 'ENOTFILE' || code === 'ETOOBIG') return READ_FAILURES[code]!;
  return `${READ_FAILURES[code] ?? 'it could not be read'} (${code})`;
}
