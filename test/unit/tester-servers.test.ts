// Which server served each phase of a run (servers.ts): the phases, a split brain (an older
// timeline after a newer one, or another cluster), and the words the report says about the
// messages a failover lost or brought back.
import { describe, expect, test } from 'vitest';
import type { ServerIdentity } from '../../src/backends/types.js';
import { FailoverAttribution, serverPhases, type ServerSeen } from '../../src/tester/servers.js';

const A: ServerIdentity = { server: '127.0.0.1:5432', systemIdentifier: '7400', timeline: 1, inRecovery: false };
const B: ServerIdentity = { server: '127.0.0.1:5433', systemIdentifier: '7400', timeline: 2, inRecovery: false };
const OTHER: ServerIdentity = { server: '127.0.0.1:5434', systemIdentifier: '9999', timeline: 1, inRecovery: false };

const seen = (by: ServerSeen['by'], index: number, seq: number, atS: number, identity: ServerIdentity): ServerSeen => ({
  by,
  index,
  seq,
  atUs: 1e9 + atS * 1e6,
  identity,
});

describe('serverPhases', () => {
  test('one phase per server, in the order they were first seen; a failover is no split brain', () => {
    const r = serverPhases(
      [seen('sender', 0, 0, 0, A), seen('receiver', 0, -1, 0.1, A), seen('sender', 0, 50, 12, B), seen('receiver', 0, -1, 12.5, B)],
      1e9,
    );
    expect(r.phases.map((p) => [p.server, p.timeline, p.firstSeenMs, p.lastSeenMs, p.connections])).toEqual([
      ['127.0.0.1:5432', 1, 0, 100, 2],
      ['127.0.0.1:5433', 2, 12_000, 12_500, 2],
    ]);
    expect(r.failover).toBe(true);
    expect(r.splitBrain).toEqual([]);
  });

  test('an older timeline after a newer one, or another cluster, is a split brain named with both servers', () => {
    const r = serverPhases(
      [seen('sender', 0, 0, 0, A), seen('sender', 0, 10, 5, B), seen('sender', 1, 20, 8, A), seen('sender', 1, 30, 9, OTHER)],
      1e9,
    );
    expect(r.splitBrain.map((s) => s.text)).toEqual([
      "127.0.0.1:5432 on timeline 1 took the run's connections as a primary at 8.0 s, after 127.0.0.1:5433 had been promoted to timeline 2: two primaries (split brain)",
      "127.0.0.1:5434 (system identifier 9999) took the run's connections as a primary at 9.0 s, but the run began on system identifier 7400 (127.0.0.1:5432): two primaries (split brain)",
    ]);
  });

  test('a standby on an older timeline is no split brain: it takes no writes', () => {
    const r = serverPhases([seen('sender', 0, 0, 0, B), seen('main', -1, -1, 1, { ...A, inRecovery: true })], 1e9);
    expect(r.splitBrain).toEqual([]);
  });
});

describe('FailoverAttribution', () => {
  test('lost messages are put under the server that acknowledged their send, resurrected under the old primary', () => {
    const list = [seen('sender', 0, 0, 0, A), seen('sender', 1, 0, 0, A), seen('sender', 0, 40, 12, B), seen('sender', 1, 35, 12, B)];
    const a = new FailoverAttribution(list);
    for (const seq of [30, 31, 39]) a.add('lost', 0, seq);
    a.add('lost', 1, 34);
    a.add('lost', 1, 36); // acknowledged by B itself: not the failover's
    a.add('resurrected', 0, 5);
    a.add('resurrected', 1, 6);
    expect(a.words(B)).toEqual([
      '4 lost: acknowledged by 127.0.0.1:5432 on timeline 1, absent after the failover to 127.0.0.1:5433 on timeline 2',
      '2 resurrected: their delete was acknowledged by 127.0.0.1:5432 on timeline 1, back after the failover to 127.0.0.1:5433 on timeline 2',
    ]);
  });

  test('without a failover there is nothing to say', () => {
    const a = new FailoverAttribution([seen('sender', 0, 0, 0, A)]);
    a.add('lost', 0, 3);
    expect(a.words(A)).toEqual([]);
  });
});
