// Which argument, as its bytes were given, is not UTF-8 (pure: the bytes are made here).
import { expect, test } from 'vitest';
import { firstNonUtf8Argument } from '../../src/text/argv-bytes.js';

const cmdline = (...args: (string | number[])[]) =>
  Buffer.concat(args.map((a) => Buffer.concat([typeof a === 'string' ? Buffer.from(a) : Buffer.from(a), Buffer.from([0])])));

test('the first of the last `count` entries that is not UTF-8, counted from the first argument', () => {
  const raw = cmdline('node', '--no-warnings', 'bin/smq.js', 'send', 'q', [0xff, 0xfe, 0x61], 'x');
  expect(firstNonUtf8Argument(raw, 4)).toBe(2);
  // Node's own options and the script before the arguments are not looked at.
  expect(firstNonUtf8Argument(cmdline([0xff], 'bin/smq.js', 'queues'), 1)).toBeUndefined();
});

test('UTF-8 beyond ASCII, empty arguments and an unknown command line pass', () => {
  expect(firstNonUtf8Argument(cmdline('node', 'smq', 'é', '', '日本'), 3)).toBeUndefined();
  expect(firstNonUtf8Argument(cmdline('node', 'smq', '', [0xc3]), 2)).toBe(1);
  expect(firstNonUtf8Argument(undefined, 2)).toBeUndefined();
  expect(firstNonUtf8Argument(cmdline('node'), 3)).toBeUndefined();
  expect(firstNonUtf8Argument(cmdline('node', 'smq'), 0)).toBeUndefined();
});
