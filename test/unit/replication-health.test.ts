// What top's health line says about replication, from pg_stat_replication's row shapes.
import { describe, expect, test } from 'vitest';
import { replicationHealth } from '../../src/backends/pgmq/replication.js';

const standby = {
  name: 'walreceiver',
  addr: '10.0.0.7',
  state: 'streaming',
  sync: 'async',
  write: 0.0012,
  flush: 0.0021,
  replay: 0.0035,
};

describe('replicationHealth', () => {
  test('a primary without standbys says nothing', () => {
    expect(replicationHealth({ in_recovery: false, sync_names: '', standbys: [] })).toEqual({ parts: [], warnings: [] });
  });

  test('each standby: name, address, state, sync state and the three lags', () => {
    const h = replicationHealth({
      in_recovery: false,
      sync_names: '',
      standbys: [standby, { ...standby, name: 'b', addr: null, sync: 'sync', write: null, flush: null, replay: 2.5 }],
    });
    expect(h.parts).toEqual([
      'standby walreceiver 10.0.0.7 streaming async, lag write 1ms flush 2ms replay 4ms',
      'standby b streaming sync, lag write - flush - replay 2.5s',
    ]);
    expect(h.warnings).toEqual([]);
  });

  test('no lag measured (NULL: caught up, no WAL since) reads as caught up, not as a dash', () => {
    const idle = { ...standby, write: null, flush: null, replay: null };
    expect(replicationHealth({ in_recovery: false, sync_names: '', standbys: [idle] }).parts).toEqual([
      'standby walreceiver 10.0.0.7 streaming async, caught up (no WAL to send)',
    ]);
  });

  test('a standby far behind, and commits waiting for a synchronous standby that is not there', () => {
    const h = replicationHealth({ in_recovery: false, sync_names: 'smq_standby', standbys: [{ ...standby, replay: 95 }] });
    expect(h.warnings).toEqual([
      'standby walreceiver is 95.0s behind (replay lag)',
      'synchronous_standby_names is set but no synchronous standby is connected: commits wait for one',
    ]);
  });

  test('details hidden without pg_read_all_stats; a server in recovery says so', () => {
    const hidden = { name: null, addr: null, state: null, sync: null, write: null, flush: null, replay: null, pid: 42 };
    expect(replicationHealth({ in_recovery: false, sync_names: '', standbys: [hidden] }).parts).toEqual([
      'standby pid 42 (details need pg_read_all_stats)',
    ]);
    expect(replicationHealth({ in_recovery: true, sync_names: '', standbys: [] }).parts).toEqual([
      'this server is a standby (in recovery)',
    ]);
  });
});
