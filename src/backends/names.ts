// Queue names come from strangers. Validate them before they reach any SQL;
// the SQL itself still quotes identifiers and binds values.
//
// pgmq: smq accepts exactly what pgmq accepts, so that every queue pgmq (or another client)
// made can be used, and refuses only what pgmq refuses: $ ; -- ' (pgmq's format_table_name)
// and more than 47 characters (pgmq's validate_queue_name). Any script, combining marks,
// spaces and other punctuation are fine: table names are quoted by the server. Creating is
// stricter in two ways: smq makes no queue of more than 47 bytes (UTF-8, also lower-cased),
// because PostgreSQL cuts identifiers at 63 bytes and pgmq's table and index names add up to
// 16 bytes of prefix: a longer name could be cut into another queue's tables; and none with
// control characters (on SmoothMQ too, which uses any name another client made but NUL). The empty
// name is refused too (smq's compat schema refuses it; pgmq would make tables named "q_").
// A queue is found by its lower-cased name, as pgmq names its tables (see pgmq/sql.ts).
import { SmqError } from '../errors.js';
import type { BackendKind } from './types.js';

export const PGMQ_MAX_NAME_LENGTH = 47;
const SQLITE_MAX_NAME_LENGTH = 255;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** 'use': a queue that may already exist (any name pgmq accepts); 'create': a name smq makes. */
export type NameUse = 'use' | 'create';

/** A name longer than this is shown by its first SHOWN_PREFIX characters and its length. */
const SHOWN_WHOLE = 64;
const SHOWN_PREFIX = 40;

/**
 * The name as an error line shows it: whole, or (a stranger's 5,000 characters) its beginning,
 * and its length unless the reason says it.
 */
function shownName(name: string, why: string): string {
  const chars = [...name];
  if (chars.length <= SHOWN_WHOLE) return JSON.stringify(name);
  const length = why.includes(`${chars.length} characters`) ? '' : ` (${chars.length} characters)`;
  return `${JSON.stringify(chars.slice(0, SHOWN_PREFIX).join(''))}…${length}`;
}

export function validateQueueName(kind: BackendKind, name: string, use: NameUse = 'use'): string {
  const bad = (why: string, hint: string) =>
    new SmqError('invalid-queue-name', `invalid queue name ${shownName(name, why)}: ${why}`, { hint });
  if (name.length === 0) throw bad('it is empty', 'give a non-empty name');
  if (kind === 'pgmq') {
    // PostgreSQL text cannot hold NUL: no queue can have it.
    if (name.includes('\u0000')) throw bad('it contains a NUL character', 'PostgreSQL names cannot hold it');
    for (const forbidden of ['$', ';', '--', "'"]) {
      if (name.includes(forbidden)) throw bad(`it contains ${JSON.stringify(forbidden)}`, "pgmq rejects names with $ ; -- or '");
    }
    const chars = [...name].length;
    if (chars > PGMQ_MAX_NAME_LENGTH) {
      throw bad(`it is ${chars} characters long`, `pgmq allows at most ${PGMQ_MAX_NAME_LENGTH}`);
    }
    if (use === 'create') {
      // pgmq takes them, but a queue named with an escape sequence would ambush every other
      // tool that prints names raw (psql, logs). smq uses such queues; it does not make them.
      if (CONTROL.test(name)) throw bad('it contains control characters', 'use printable characters only');
      const bytes = Math.max(Buffer.byteLength(name, 'utf8'), Buffer.byteLength(name.toLowerCase(), 'utf8'));
      if (bytes > PGMQ_MAX_NAME_LENGTH) {
        throw bad(
          `it is ${bytes} bytes long`,
          `smq creates pgmq names of at most ${PGMQ_MAX_NAME_LENGTH} bytes (UTF-8), so that PostgreSQL never cuts its table names`,
        );
      }
    }
  } else {
    if (name.includes('\u0000')) throw bad('it contains a NUL character', 'use printable characters only');
    // SmoothMQ's server takes any name: such a queue is used (names are bound), never made.
    if (use === 'create' && CONTROL.test(name)) throw bad('it contains control characters', 'use printable characters only');
    // Characters as a reader counts them (an emoji is one), as for pgmq above.
    const chars = [...name].length;
    if (chars > SQLITE_MAX_NAME_LENGTH) throw bad(`it is ${chars} characters long`, `use at most ${SQLITE_MAX_NAME_LENGTH}`);
  }
  return name;
}
