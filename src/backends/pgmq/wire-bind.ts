// The Bind + Execute + Sync of a named statement, written by hand: the one message every call
// of a tester run sends (wire.ts). pg-protocol's serializer writes the same bytes (the unit
// test wire-bind.test.ts compares them) through a shared writer, a copy and a concatenation.
import { serialize } from 'pg-protocol';

export const EXECUTE_SYNC = Buffer.concat([serialize.execute({}), serialize.sync()]);

/**
 * Bind (unnamed portal, all parameters text, all results text) + Execute + Sync for a named
 * statement, written into one buffer: the call every message of a tester run makes. The same
 * bytes as serialize.bind + EXECUTE_SYNC (pgmq-wire.test.ts compares them), without the
 * shared writer's copy and the concatenation. Values are what prepareValue returns; a Buffer
 * value is sent in binary by pg-protocol, so those calls take its serializer instead.
 */
export function bindExecuteSync(statement: string, values: readonly (string | null)[]): Buffer {
  const nameBytes = Buffer.byteLength(statement);
  let size = 1 + 4 + 1 + nameBytes + 1 + 2 + 2 * values.length + 2 + 4;
  const lengths = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const n = v === null || v === undefined ? -1 : Buffer.byteLength(v);
    lengths[i] = n;
    size += 4 + Math.max(n, 0);
  }
  const out = Buffer.allocUnsafe(size + EXECUTE_SYNC.length);
  out[0] = 0x42; // 'B'
  out.writeInt32BE(size - 1, 1);
  let o = 5;
  out[o++] = 0; // portal ''
  o += out.write(statement, o);
  out[o++] = 0;
  // One format code per parameter, each 0 (text), as pg-protocol writes them.
  out.writeInt16BE(values.length, o);
  o += 2;
  // (A loop: Buffer#fill validates its arguments at a cost larger than these few bytes.)
  for (let end = o + 2 * values.length; o < end; o++) out[o] = 0;
  out.writeInt16BE(values.length, o);
  o += 2;
  for (let i = 0; i < values.length; i++) {
    const n = lengths[i]!;
    out.writeInt32BE(n, o);
    o += 4;
    if (n > 0) o += out.write(values[i]!, o);
  }
  out.writeInt16BE(1, o); // one result format code for all columns: 0, text
  out.writeInt16BE(0, o + 2);
  o += 4;
  EXECUTE_SYNC.copy(out, o);
  return out;
}
