// Sending many messages to pgmq, and asking the server which bodies it would refuse.
import type { MessageId, RefusedBody, SendInput } from '../types.js';
import { screenBody } from './jsonb-screen.js';
import * as sql from './sql.js';
import type { WireQuery } from './wire.js';

/** Rows per send_batch statement: one round trip each, a bounded parameter size. */
export const ROWS_PER_STATEMENT = 500;
/** Bodies per parse check: few round trips, and at most this many bytes in one parameter. */
const CHECK_ROWS = 2_000;
const CHECK_BYTES = 8 * 1024 * 1024;

interface QueryClient {
  query<R extends object>(q: string | WireQuery, values?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * The send_batch statements for messages, in order: runs of one delay, at most
 * ROWS_PER_STATEMENT each (send_batch takes one delay for all its rows).
 */
export function sendStatements(queue: string, messages: readonly SendInput[], cols: sql.Columns): sql.Query[] {
  const out: sql.Query[] = [];
  let start = 0;
  while (start < messages.length) {
    const delay = messages[start]!.delaySec ?? 0;
    let end = start + 1;
    while (end < messages.length && end - start < ROWS_PER_STATEMENT && (messages[end]!.delaySec ?? 0) === delay) end++;
    const run = messages.slice(start, end);
    const withHeaders = run.some((m) => m.headers !== undefined);
    out.push(
      sql.sendBatchQuery(
        queue,
        run.map((m) => m.body),
        withHeaders ? run.map((m) => m.headers) : null,
        delay,
        cols,
      ),
    );
    start = end;
  }
  return out;
}

/** Runs the statements one after the other on one client (the caller holds the transaction). */
export async function runSendStatements(client: QueryClient, statements: readonly sql.Query[]): Promise<MessageId[]> {
  const ids: MessageId[] = [];
  for (const q of statements) {
    const r = await client.query<{ id: string }>(q);
    for (const row of r.rows) ids.push(BigInt(row.id));
  }
  return ids;
}

/** Whether the database's encoding is UTF8 (then every character a body has fits). */
export async function serverIsUtf8(client: QueryClient): Promise<boolean> {
  const r = await client.query<{ server_encoding: string }>(sql.SERVER_ENCODING);
  return r.rows[0]?.server_encoding === 'UTF8';
}

/** SQLSTATE classes the jsonb input raises for a body: data exceptions (22) and limits (54, e.g. stack depth). */
const isBodyError = (e: unknown): e is { code: string; message: string; detail?: string } => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|54)/.test(code);
};

/**
 * Which body the server's jsonb input refuses first. Bodies the screen vouches for are not
 * sent (on a UTF8 database, or when they are ASCII); the others are parsed by the server in
 * chunks, one statement each that stores nothing, and a refused chunk is halved until the
 * one body is found (log2 of the chunk in extra round trips). Other errors (connection
 * lost, ...) are thrown as they come.
 */
export async function firstRefusedBody(
  client: QueryClient,
  bodies: readonly string[],
  isUtf8: () => Promise<boolean>,
): Promise<RefusedBody | undefined> {
  const screens = bodies.map(screenBody);
  const utf8 = screens.some((s) => s.sure && !s.ascii) && (await isUtf8());
  const doubtful: number[] = [];
  screens.forEach((s, i) => {
    if (!s.sure || (!s.ascii && !utf8)) doubtful.push(i);
  });
  const parse = async (from: number, to: number): Promise<RefusedBody | undefined> => {
    try {
      await client.query(sql.parseBodiesQuery(doubtful.slice(from, to).map((i) => bodies[i]!)));
      return undefined;
    } catch (e) {
      if (!isBodyError(e)) throw e;
      if (to - from === 1) return { index: doubtful[from]!, reason: e.detail ? `${e.message} (${e.detail})` : e.message };
      const mid = from + Math.ceil((to - from) / 2);
      // Each body is parsed on its own, so one of the halves holds the refused one.
      return (await parse(from, mid)) ?? (await parse(mid, to)) ?? { index: doubtful[from]!, reason: e.message };
    }
  };
  let from = 0;
  while (from < doubtful.length) {
    let to = from;
    let bytes = 0;
    while (to < doubtful.length && to - from < CHECK_ROWS && (to === from || bytes + bodies[doubtful[to]!]!.length <= CHECK_BYTES)) {
      bytes += bodies[doubtful[to++]!]!.length;
    }
    const refused = await parse(from, to);
    if (refused) return refused;
    from = to;
  }
  return undefined;
}
