// A second Ctrl-C during smq tester: what it says about the queues it leaves behind.
import { describe, expect, test } from 'vitest';
import { leftBehindLines } from '../../src/commands/tester-quit.js';

describe('leftBehindLines', () => {
  const pg = { kind: 'pgmq', url: 'postgres://app:secret@db/app' } as const;
  test('pgmq: the drop command and "the same --url", never the connection text', () => {
    const lines = leftBehindLines([{ name: 'smq_tester_ab12', maybe: false }], pg, { url: true });
    expect(lines).toEqual([
      "smq tester: left queue smq_tester_ab12 behind: remove it with 'smq drop smq_tester_ab12 --yes' and the same --url",
    ]);
    expect(leftBehindLines([{ name: 'q', maybe: false }], { kind: 'pgmq', url: undefined }, { url: false })[0]).toMatch(
      /and the same connection \(DATABASE_URL, SMQ_URL or PG\* variables\)$/,
    );
  });
  test('a drop that was under way is "may have left"; a SQLite file is named, with its tenant', () => {
    expect(leftBehindLines([{ name: 'q', maybe: true }], pg, { url: true })[0]).toMatch(
      /^smq tester: may have left queue q behind \(its drop was under way\): if so, remove it with 'smq drop q --yes'/,
    );
    expect(leftBehindLines([{ name: 'q', maybe: false }], { kind: 'sqlite', path: '/tmp/s.db' }, { url: false, tenant: 2 })).toEqual([
      "smq tester: left queue q behind: remove it with 'smq drop q --sqlite /tmp/s.db --tenant 2 --yes'",
    ]);
  });
});
