// Colour and cues in smq top (issue 18): NO_COLOR, colour by state, a stalled head, the row
// position, the sparkline's floor. The built `smq top` in tmux, its escapes captured.
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import pg from 'pg';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { tmuxAvailable } from '../helpers/tmux.js';
import { uniqueQueue } from '../helpers/backends.js';
import { killTop, requireBuild, topOn } from '../helpers/top-screen.js';

afterEach(killTop);
beforeAll(requireBuild);

/** The SGR parameters on screen that set a colour (30-39, 40-49, 90-97, 100-107; 38/48 extended). */
function colourCodes(screen: string): string[] {
  const found: string[] = [];
  for (const m of screen.matchAll(/\u001b\[([0-9;]*)m/g)) {
    for (const p of m[1]!.split(';')) {
      const n = Number(p);
      if (p !== '' && n !== 39 && n !== 49 && ((n >= 30 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107))) found.push(p);
    }
  }
  return found;
}

/** The line of the screen (escapes kept) that shows this message id as its first cell. */
const rowOf = (screen: string, id: bigint) =>
  screen.split('\n').find((l) => new RegExp(`^(\\u001b\\[[0-9;]*m)*[› ] +${id} `).test(l)) ?? '';

describe.skipIf(!tmuxAvailable())(
  'colour and cues: NO_COLOR, states, stalled heads, position, sparklines (real terminal, real Postgres)',
  () => {
    const url = inject('pgUrl');
    const prefix = uniqueQueue('cues');
    const busy = `${prefix}_busy`;
    const calm = `${prefix}_calm`;
    let backend: Backend;
    let client: pg.Client;
    let ready: bigint, inFlight: bigint, delayed: bigint;

    beforeAll(async () => {
      backend = await openBackend({ kind: 'pgmq', url });
      client = new pg.Client({ connectionString: url });
      await client.connect();
      await backend.createQueue(busy);
      await backend.createQueue(calm);
      const sent = await backend.sendBatch(busy, [{ body: '{"n":1}' }, { body: '{"n":2}' }]);
      inFlight = sent[0]!;
      ready = sent[1]!;
      delayed = await backend.send(busy, { body: '{"n":3}', delaySec: 600 });
      await backend.receive(busy, { qty: 1, vtSec: 600 });
      // The head of `busy` has waited 5 minutes (nothing receives from it during the test).
      await client.query(`UPDATE pgmq.q_${busy} SET enqueued_at = now() - interval '5 minutes'`);
      await backend.send(calm, { body: '{"n":1}' });
    });
    afterAll(async () => {
      for (const q of [busy, calm]) await backend?.dropQueue(q).catch(() => undefined);
      await backend?.close();
      await client?.end();
    });

    test('NO_COLOR: no colour code anywhere on the list, the queue view or the help', async () => {
      const t = await topOn(url, prefix, { width: 120, height: 24, env: { NO_COLOR: '1' } });
      await t.waitFor('stalled');
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
      t.keys('Enter');
      await t.waitFor(`${busy} · oldest first`);
      await t.waitFor((s) => s.includes(` ${delayed} delayed`));
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
      t.keys('?');
      await t.waitFor('Keys (queue view)');
      expect(colourCodes(t.captureWithEscapes())).toEqual([]);
    });

    test('colour by state (in flight yellow, delayed blue), a stalled head in red and in words, the row position', async () => {
      const t = await topOn(url, prefix, { width: 120, height: 24 });
      // Two refreshes: the out rate is known (0), so the 5-minute head of `busy` is stalled.
      let screen = await t.waitFor('1 stalled (head waiting 60s+, nothing leaving)');
      expect(screen).toMatch(/ · 1\/2 · /);
      const list = t.captureWithEscapes();
      const busyLine = list.split('\n').find((l) => l.includes(busy))!;
      expect(busyLine).toMatch(/\u001b\[33m +1(\u001b\[39m)?/); // IN FLIGHT 1, yellow
      expect(busyLine).toMatch(/\u001b\[31m +5m\d\ds/); // OLDEST, red
      const calmLine = list.split('\n').find((l) => l.includes(calm))!;
      expect(colourCodes(calmLine)).toEqual([]);
      t.keys('Down');
      screen = await t.waitFor(/ · 2\/2 · /);
      t.keys('Up', 'Enter');
      await t.waitFor((s) => s.includes(` ${delayed} delayed`));
      const view = t.captureWithEscapes();
      expect(rowOf(view, inFlight)).toContain('\u001b[33m');
      expect(rowOf(view, delayed)).toContain('\u001b[34m');
      expect(colourCodes(rowOf(view, ready))).toEqual([]);
    });

    test('a queue moving between 0 and 1 message stays at the bottom of its sparkline', async () => {
      const t = await topOn(url, `${calm}$`, { width: 120, height: 24 });
      const spark = (s: string) => /DEPTH 1m[\s\S]*?› \S+ .* ([▁▂▃▄▅▆▇█ ]+)$/m.exec(s)?.[1]?.trim() ?? '';
      await t.waitFor((s) => spark(s).length >= 2);
      const [m] = await backend.receive(calm, { qty: 1, vtSec: 0 });
      await backend.delete(calm, [m!.id]);
      await t.waitFor((s) => /› \S+ +0 /.test(s) && spark(s).length >= 3);
      await backend.send(calm, { body: '{"n":2}' });
      const screen = await t.waitFor((s) => /› \S+ +1 /.test(s) && spark(s).length >= 4);
      expect(spark(screen)).toMatch(/^[▁▂ ]+$/);
    });
  },
);
