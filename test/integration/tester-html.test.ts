// `smq tester --html FILE`: a real run's report opened in headless Chromium (Debian's
// chromium package; skipped with the reason where it is missing). The page's own script
// writes what it drew into #smq-status; a screenshot is kept in .tmp/artifacts/.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO, ensureBuilt, runCli } from '../helpers/run-cli.js';

const chromium = ['chromium', 'chromium-browser'].find((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0);
const dir = mkdtempSync(join(tmpdir(), 'smq-html-'));
const html = join(dir, 'report.html');
let report: { series: unknown[]; spectrum: Record<string, unknown> };

beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(
    ['tester', '--senders', '2', '--receivers', '2', '--duration', '4s', '--warmup', '1s', '--rate', '300', '--json', '--html', html],
    { timeoutMs: 60_000 },
  );
  expect(r.code, r.stderr.slice(-1500)).toBe(0);
  expect(r.stderr).toContain(`the HTML report is in ${html}`);
  report = JSON.parse(r.stdout);
}, 90_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A test that starts Chromium (and, for --baseline, a run before it) is given the sum of its
// parts' own limits: with vitest's 30 s, the --baseline test timed out once in CI.
const BROWSER_TEST_MS = 150_000;

const browse = (...args: string[]) =>
  execFileSync(chromium!, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--virtual-time-budget=5000', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });

describe('smq tester --html', () => {
  test('one self-contained file: no script, style or image fetched from anywhere', () => {
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|@import/i);
    expect(page).toContain('<script type="application/json" id="smq-report">');
    expect(page).toMatch(/uPlot/);
  });

  test('the classes carry the words of the text report (double-dequeue, not the JSON key)', () => {
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/<tr><td>double-dequeue<\/td><td class="n">0<\/td><td>delivered to two receivers at once<\/td>/);
    expect(page).not.toContain('<td>doubleDequeued</td>');
  });

  test.skipIf(!chromium)(
    'Chromium draws every chart with the run’s data, without a script error (needs Debian chromium)',
    () => {
      const dom = browse('--dump-dom', `file://${html}`);
      const m = /<pre id="smq-status"[^>]*>([^<]*)<\/pre>/.exec(dom);
      expect(m, 'the page wrote its status').not.toBeNull();
      const status = JSON.parse(m![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as {
        charts: { id: string; points: number; series: number; xLabel: string; yLabel: string; canvas: boolean }[];
        errors: string[];
      };
      expect(status.errors).toEqual([]);
      const byId = Object.fromEntries(status.charts.map((c) => [c.id, c]));
      expect(Object.keys(byId).sort()).toEqual(['c-backlog', 'c-calls', 'c-latency', 'c-spectrum', 'c-throughput']);
      for (const id of ['c-throughput', 'c-latency', 'c-calls', 'c-backlog']) {
        expect(byId[id]!.points).toBe(report.series.length); // one point per second of the run
        expect(byId[id]!.xLabel).toBe('seconds since the start');
      }
      expect(byId['c-throughput']).toMatchObject({ series: 3, yLabel: 'messages/s', canvas: true });
      expect(byId['c-latency']).toMatchObject({ series: 3, yLabel: 'ms', canvas: true });
      expect(byId['c-calls']).toMatchObject({ series: 6, yLabel: 'ms', canvas: true });
      expect(byId['c-spectrum']).toMatchObject({ series: Object.keys(report.spectrum).length, xLabel: 'percentile', canvas: true });
      expect(byId['c-spectrum']!.points).toBeGreaterThan(10);
    },
    BROWSER_TEST_MS,
  );

  test.skipIf(!chromium)(
    'a screenshot of the page is kept as a test artifact (needs Debian chromium)',
    () => {
      const artifacts = join(REPO, '.tmp', 'artifacts');
      mkdirSync(artifacts, { recursive: true });
      const png = join(artifacts, 'tester-report.png');
      writeFileSync(png, '');
      browse('--window-size=1200,2400', `--screenshot=${png}`, `file://${html}`);
      expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    },
    BROWSER_TEST_MS,
  );

  test.skipIf(!chromium)(
    '--baseline draws an earlier run dashed on the same axes (needs Debian chromium)',
    async () => {
      const saved = join(dir, 'base.json');
      writeFileSync(saved, JSON.stringify(report));
      const withBase = join(dir, 'with-base.html');
      const r = await runCli(['tester', '--messages', '300', '--rate', '200', '--json', '--html', withBase, '--baseline', saved], {
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(0);
      const dom = browse('--dump-dom', `file://${withBase}`);
      const status = JSON.parse(
        /<pre id="smq-status"[^>]*>([^<]*)<\/pre>/
          .exec(dom)![1]!
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&'),
      );
      expect(status.errors).toEqual([]);
      const byId = Object.fromEntries(status.charts.map((c: { id: string }) => [c.id, c]));
      expect(byId['c-throughput'].series).toBe(4); // sent, received, acknowledged + the baseline's received
      expect(byId['c-latency'].series).toBe(4);
      expect(byId['c-backlog'].series).toBe(2);
      // The longer run sets the axis: one point per second of it.
      const seconds = (doc: { series: { second: number }[] }) => Math.max(...doc.series.map((p) => p.second)) + 1;
      expect(byId['c-throughput'].points).toBe(Math.max(seconds(report as never), seconds(JSON.parse(r.stdout))));
    },
    BROWSER_TEST_MS,
  );

  test('--baseline without --html, or a baseline that is not a report: one line, exit 2, before the run', async () => {
    const a = await runCli(['tester', '--messages', '10', '--baseline', html]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^smq: --baseline draws on the HTML report: add --html FILE/m);
    const b = await runCli(['tester', '--messages', '10', '--html', join(dir, 'x.html'), '--baseline', html]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/report\.html is not JSON/);
  });

  test('a path that cannot be written is refused before the run: one line, exit 2', async () => {
    const r = await runCli(['tester', '--messages', '10', '--html', '/nonexistent-dir/r.html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^smq: --html \/nonexistent-dir\/r\.html: cannot write in \/nonexistent-dir: give a path/m);
    expect(r.stdout).toBe('');
  });
});

describe('smq tester --html: every class of the text report', () => {
  // Rows of the text report's counts table (label, count pairs) and of the HTML's class table.
  const textCounts = (text: string) => {
    const out = new Map<string, string>();
    const table = text.split('\n\n').find((b) => /^sent +\d/.test(b))!;
    for (const line of table.split('\n')) {
      for (const m of line.matchAll(/([a-z][a-z -]*?) {2,}(\d[\d,]*|not judged)(?= {2}|$)/g)) out.set(m[1]!.trim(), m[2]!);
    }
    return out;
  };
  const htmlCounts = (page: string) =>
    new Map([...page.matchAll(/<tr><td>([^<]+)<\/td><td class="n">([^<]+)<\/td>/g)].map((m) => [m[1]!, m[2]!]));
  const NOT_CLASSES = ['sent', 'received', 'acknowledged', 'send failed', 'ack not found', 'ack failed'];

  test('a send-only run: the 5 messages not drained are in the HTML table, as in the text, with every class the text has', async () => {
    const db = join(dir, 'nd.db');
    const page = join(dir, 'nd.html');
    expect((await runCli(['init', '--sqlite', db])).code).toBe(0);
    const r = await runCli(['tester', '--sqlite', db, '--senders', '1', '--receivers', '0', '--messages', '5', '--html', page], {
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const text = textCounts(r.stdout);
    const html = htmlCounts(readFileSync(page, 'utf8'));
    expect(text.get('not drained')).toBe('5');
    expect(html.get('not drained')).toBe('5');
    for (const [label, n] of text) if (!NOT_CLASSES.includes(label)) expect([label, html.get(label)]).toEqual([label, n]);
    expect(html.get('foreign')).toBe('0');
  });
});
