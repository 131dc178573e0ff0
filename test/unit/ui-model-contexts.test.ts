// The contexts of smq top as a pure model: which one is current, which are connected,
// connecting or failed (one line each), and the picker's table.
import { describe, expect, test } from 'vitest';
import { contextsModel, contextTable, contextEvent, type ContextEntry } from '../../src/ui/model/contexts.js';
import { cellWidth } from '../../src/text/width.js';

const ENTRIES: ContextEntry[] = [
  { name: 'prod', kind: 'pgmq', location: 'postgres://ops:***@db1:5432/app', readOnly: true },
  { name: 'staging', kind: 'pgmq', location: 'postgres://ops@db2:5432/app', readOnly: false },
  { name: 'local', kind: 'sqlite', location: 'sqlite:/var/lib/smoothmq.db', readOnly: false },
];

describe('contexts model', () => {
  test('starts on the current one, open; the failures top met on the way are failed', () => {
    const m = contextsModel('staging', [{ name: 'prod', error: 'connection refused' }]);
    expect(m.current).toBe('staging');
    expect(m.states.get('staging')).toEqual({ status: 'open' });
    expect(m.states.get('prod')).toEqual({ status: 'failed', error: 'connection refused' });
    expect(m.states.get('local')).toBeUndefined();
  });

  test('connecting, then switched (the old one stays open) or failed (current unchanged)', () => {
    let m = contextsModel('prod', []);
    m = contextEvent(m, { type: 'connecting', name: 'local' });
    expect(m.states.get('local')).toEqual({ status: 'connecting' });
    m = contextEvent(m, { type: 'switched', name: 'local' });
    expect(m.current).toBe('local');
    expect(m.states.get('prod')).toEqual({ status: 'open' });
    m = contextEvent(m, { type: 'connecting', name: 'staging' });
    m = contextEvent(m, { type: 'failed', name: 'staging', error: 'timeout' });
    expect(m.current).toBe('local');
    expect(m.states.get('staging')).toEqual({ status: 'failed', error: 'timeout' });
  });
});

describe('contextTable', () => {
  test('one row per context, the current marked, read-only and failures said', () => {
    const m = contextEvent(contextsModel('prod', []), { type: 'failed', name: 'staging', error: 'connect ECONNREFUSED 10.0.0.2:5432' });
    const t = contextTable(ENTRIES, m, 130);
    expect(t.header).toMatch(/^ {2}NAME +STORE +MODE +CONNECTION +STATE$/);
    expect(t.rows[0]).toMatch(/^prod +pgmq +read-only +postgres:\/\/ops:\*\*\*@db1:5432\/app +current$/);
    expect(t.rows[1]).toMatch(
      /^staging +pgmq +read-write +postgres:\/\/ops@db2:5432\/app +cannot connect: connect ECONNREFUSED 10\.0\.0\.2:5432$/,
    );
    expect(t.rows[2]).toMatch(/^local +sqlite +read-write +sqlite:\/var\/lib\/smoothmq\.db +-$/);
  });

  test('rows fit the width (2 cells of gutter), control characters escaped', () => {
    const entries = [{ ...ENTRIES[0]!, name: 'evil\u001b[31mred' }, ENTRIES[1]!];
    const m = contextEvent(contextsModel('staging', []), { type: 'failed', name: entries[0]!.name, error: 'x'.repeat(300) });
    const t = contextTable(entries, m, 70);
    for (const line of [t.header, ...t.rows.map((r) => `  ${r}`)]) expect(cellWidth(line)).toBeLessThanOrEqual(70);
    expect(t.rows[0]).toContain('evil\\e[31mred');
    expect(t.rows[0]).not.toContain('\u001b');
  });
});
