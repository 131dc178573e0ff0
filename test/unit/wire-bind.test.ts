// The lean path's own Bind encoder (wire-bind.ts bindExecuteSync) must write exactly the bytes
// pg-protocol's serializer writes for the same call, or the server would read garbage.
import fc from 'fast-check';
import { serialize } from 'pg-protocol';
import { expect, test } from 'vitest';
import { bindExecuteSync } from '../../src/backends/pgmq/wire-bind.js';

const reference = (statement: string, values: (string | null)[]) =>
  Buffer.concat([serialize.bind({ statement, values }), serialize.execute({}), serialize.sync()]);

test.each([
  ['smq_send', ['queue', '{"k":1}', '0']],
  ['smq_read_x', []],
  ['smq_delete', ['q', null, '']],
  ['smq_ünïcode', ['名前', '{"emoji":"🙂"}', '\u0000x']],
])('bind for %s matches pg-protocol', (name, values) => {
  expect(bindExecuteSync(name, values)).toEqual(reference(name, values));
});

test('bind matches pg-protocol for any statement name and text values', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
      fc.array(fc.option(fc.string({ unit: 'grapheme', maxLength: 300 }), { nil: null }), { maxLength: 8 }),
      (name, values) => {
        expect(bindExecuteSync(name, values)).toEqual(reference(name, values));
      },
    ),
    { numRuns: 500 },
  );
});
