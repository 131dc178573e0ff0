// Issue 15, test 5: a multi-host target whose first host is down, or is a standby. Commands,
// `top --once` and top in a terminal connect to the primary, as libpq's target_session_attrs
// says; scripting output stays what one host gives; a target where no server suits fails in one
// line naming each host. After a failover, a backend's new connections find the new primary.
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { uniqueQueue } from '../helpers/backends.js';
import { freePort, TEST_PG_PASSWORD } from '../helpers/pg-server.js';
import { queryOnce, startReplicaPair, STANDBY_NAME, type ReplicaPair } from '../helpers/replica.js';
import { ensureBuilt, ndjson, runCli, BIN, type CliResult } from '../helpers/run-cli.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';

const out = (r: CliResult) => r.stdout + r.stderr;
const pw = encodeURIComponent(TEST_PG_PASSWORD);

describe('a multi-host target', () => {
  let pair: ReplicaPair;
  let down: number;
  let user: string;
  const at = (...ports: number[]) => ports.map((p) => `127.0.0.1:${p}`).join(',');
  const urlOf = (ports: number[], attrs?: string) =>
    `postgres://${user}:${pw}@${at(...ports)}/smq_test${attrs ? `?target_session_attrs=${attrs}` : ''}`;
  const queue = uniqueQueue('mh');

  beforeAll(async () => {
    ensureBuilt();
    pair = await startReplicaPair();
    user = pair.primary.user;
    down = await freePort();
  }, 120_000);
  afterAll(() => pair?.stop());

  test('the first host down: create, send, queues, peek reach the second, with the output of one host', async () => {
    const url = urlOf([down, pair.primary.port]);
    const single = pair.primary.url;
    expect((await runCli(['create', queue, '--url', url])).code).toBe(0);
    const sent = await runCli(['send', queue, '{"n":1}', '--url', url]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toBe('');
    expect(ndjson(sent.stdout)).toEqual([{ id: expect.anything() }]);
    const [viaList, viaOne] = await Promise.all([runCli(['queues', '--url', url]), runCli(['queues', '--url', single])]);
    expect(viaList.code, viaList.stderr).toBe(0);
    // The same records as through the one server (ages aside), and nothing on stderr.
    const strip = (r: CliResult) => ndjson(r.stdout).map(({ name, ready, total }) => ({ name, ready, total }));
    expect(strip(viaList)).toEqual(strip(viaOne));
    expect(strip(viaList)).toContainEqual({ name: queue, ready: 1, total: 1 });
    expect(viaList.stderr).toBe('');
    const peek = await runCli(['peek', queue, '--url', url]);
    expect(ndjson(peek.stdout).map((m) => JSON.parse(String(m['body'])) as unknown)).toEqual([{ n: 1 }]);
    expect(out(peek)).not.toContain(TEST_PG_PASSWORD);
  });

  test('the first host a standby: read-write and primary pass it by; any stays on it and a write is refused', async () => {
    await pair.waitCaughtUp();
    for (const attrs of ['read-write', 'primary']) {
      const r = await runCli(['send', queue, `{"attrs":"${attrs}"}`, '--url', urlOf([pair.standby.port, pair.primary.port], attrs)]);
      expect(r.code, r.stderr).toBe(0);
    }
    const rows = await queryOnce(pair.primary.url, `SELECT count(*)::int AS n FROM pgmq.q_${queue}`);
    expect(rows).toEqual([{ n: 3 }]);
    // libpq's any: the first server that answers, here the standby.
    const any = await runCli(['send', queue, '{"attrs":"any"}', '--url', urlOf([pair.standby.port, pair.primary.port])]);
    expect(any.code).toBe(1);
    expect(any.stderr).toMatch(/read-only/);
  });

  test('PGHOST and PGPORT lists, PGTARGETSESSIONATTRS', async () => {
    const env = {
      PGHOST: '127.0.0.1,127.0.0.1,127.0.0.1',
      PGPORT: `${down},${pair.standby.port},${pair.primary.port}`,
      PGUSER: user,
      PGPASSWORD: TEST_PG_PASSWORD,
      PGDATABASE: 'smq_test',
      PGTARGETSESSIONATTRS: 'read-write',
    };
    const r = await runCli(['send', queue, '{"env":1}'], { env });
    expect(r.code, r.stderr).toBe(0);
    const bad = await runCli(['queues'], { env: { ...env, PGPORT: '1,2' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trimEnd()).toBe(
      'smq: could not match 2 port numbers to 3 hosts: give one port for every host, or one per host (--url, PGPORT or the service)',
    );
  });

  test('no server suits: one line naming each host, exit 1, no password', async () => {
    const r = await runCli(['queues', '--url', urlOf([down, pair.standby.port], 'read-write')]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`127.0.0.1:${down}: connection refused (ECONNREFUSED)`);
    expect(lines[0]).toContain(`127.0.0.1:${pair.standby.port}: session is read-only`);
    expect(lines[0]).toContain(`${user}:***@`);
    expect(out(r)).not.toContain(TEST_PG_PASSWORD);
  });

  test('prefer-standby reads from the standby, and takes the primary when no standby answers', async () => {
    const onStandby = await runCli(['top', '--once', '--json', '--url', urlOf([pair.primary.port, pair.standby.port], 'prefer-standby')]);
    expect(onStandby.code, onStandby.stderr).toBe(0);
    expect(JSON.parse(onStandby.stdout).host).toBe(`127.0.0.1:${pair.standby.port}`);
    const second = await runCli(['top', '--once', '--json', '--url', urlOf([down, pair.primary.port], 'prefer-standby')]);
    expect(JSON.parse(second.stdout).host).toBe(`127.0.0.1:${pair.primary.port}`);
  });

  test('init goes to the primary too; a backend on the standby says so in its health line', async () => {
    const init = await runCli(['init', '--json', '--url', urlOf([pair.standby.port, pair.primary.port], 'primary')]);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ mode: 'compat-existing' });
    const b = await openBackend({ kind: 'pgmq', url: urlOf([pair.primary.port, pair.standby.port], 'standby') });
    try {
      expect((await b.info()).host).toBe(`127.0.0.1:${pair.standby.port}`);
      const health = await b.health!();
      expect(health.summary).toMatch(new RegExp(`^on 127\\.0\\.0\\.1:${pair.standby.port} · `));
      expect(health.replication).toBe('this server is a standby (in recovery)');
    } finally {
      await b.close();
    }
  });

  test('top --once names the server it read', async () => {
    const url = urlOf([down, pair.standby.port, pair.primary.port], 'read-write');
    const r = await runCli(['top', '--once', '--json', '--url', url]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.host).toBe(`127.0.0.1:${pair.primary.port}`);
    expect(doc.location).toBe(
      `postgres://${user}:***@${at(down, pair.standby.port, pair.primary.port)}/smq_test?target_session_attrs=read-write`,
    );
    expect(doc.queues.map((q: { name: string }) => q.name)).toContain(queue);
  });

  test.skipIf(!tmuxAvailable())(
    'top in an 80-column terminal: on the primary, with its standby and lag on a line of their own',
    async () => {
      const url = urlOf([pair.standby.port, pair.primary.port], 'read-write');
      const t = TmuxSession.start({ command: [process.execPath, BIN, 'top', '--url', url, '--interval', '0.5'], width: 80 });
      try {
        // The health line is long: the standby must not be cut off its end.
        const screen = await t.waitFor(
          new RegExp(
            `^standby ${STANDBY_NAME} 127\\.0\\.0\\.1 streaming async, (lag write \\S+ flush \\S+ replay \\S+|caught up \\(no WAL to send\\))\\s*$`,
            'm',
          ),
          20_000,
        );
        expect(screen).toMatch(new RegExp(`^health: on 127\\.0\\.0\\.1:${pair.primary.port} `, 'm'));
        expect(screen).toContain(`${user}:***@${at(pair.standby.port, pair.primary.port)}`);
        expect(screen).not.toContain(TEST_PG_PASSWORD);
        t.keys('q');
        expect(await t.waitForExit()).toBe(0);
      } finally {
        t.kill();
      }
    },
  );
  test('connect_timeout is per host: a host that accepts and never answers is left after it', async () => {
    const silent = createServer((socket) => sockets.push(socket));
    const sockets: Socket[] = [];
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      const r = await runCli(['queues', '--url', `${urlOf([port, pair.primary.port])}?connect_timeout=1`]);
      expect(r.code, r.stderr).toBe(0);
      // One second on the silent host, not the 5 s default for the whole attempt.
      expect(r.ms).toBeLessThan(4_500);
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test('a connection whose write is refused as read-only is dropped, and the next one is chosen again', async () => {
    const name = `smq-ro-${randomBytes(4).toString('hex')}`;
    const admin = pair.primary.adminUrl;
    const readOnly = async (on: boolean) => {
      await queryOnce(
        admin,
        on ? 'ALTER SYSTEM SET default_transaction_read_only = on' : 'ALTER SYSTEM RESET default_transaction_read_only',
      );
      await queryOnce(admin, 'SELECT pg_reload_conf()');
    };
    const pids = async () =>
      (await queryOnce<{ pid: number }>(admin, 'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [name])).map((r) => r.pid);
    const url = urlOf([down, pair.primary.port], 'read-write');
    const b = await openBackend({ kind: 'pgmq', url }, { dedicated: true, applicationName: name, callTimeoutMs: 10_000 });
    try {
      await b.send(queue, { body: '{"ro":0}' });
      const [before] = await pids();
      await readOnly(true);
      // The reload reaches the session soon after: its writes are refused from then on.
      await expect
        .poll(() =>
          b.send(queue, { body: '{"ro":1}' }).then(
            () => 'stored',
            (e: { kind?: string }) => e.kind,
          ),
        )
        .toBe('read-only');
      await expect.poll(pids).toEqual([]);
      // The next connection is chosen again: no server takes writes now.
      await expect(b.send(queue, { body: '{"ro":2}' })).rejects.toMatchObject({ kind: 'connection' });
      await readOnly(false);
      await b.send(queue, { body: '{"ro":3}' });
      const after = await pids();
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before);
    } finally {
      await readOnly(false);
      await b.close();
    }
  });
});

describe('after a failover', () => {
  let pair: ReplicaPair;
  const backends: Backend[] = [];
  const queue = uniqueQueue('fo');

  beforeAll(async () => {
    pair = await startReplicaPair();
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled(backends.map((b) => b.close()));
    await pair?.stop();
  });

  test("a backend's new connections (pool and dedicated) find the promoted standby", async () => {
    const url = pair.multiHostUrl('read-write');
    const pooled = await openBackend({ kind: 'pgmq', url }, { callTimeoutMs: 10_000 });
    const dedicated = await openBackend({ kind: 'pgmq', url }, { dedicated: true, callTimeoutMs: 10_000 });
    backends.push(pooled, dedicated);
    await pooled.createQueue(queue);
    await dedicated.send(queue, { body: '{"before":1}' });
    expect((await pooled.info()).host).toBe(`127.0.0.1:${pair.primary.port}`);
    await pair.waitCaughtUp();

    await pair.killPrimary();
    // While no server takes writes, a call fails as a connection error (the tester retries those).
    await expect(dedicated.send(queue, { body: '{"between":1}' })).rejects.toMatchObject({ kind: 'connection' });
    await pair.promoteStandby();
    await dedicated.send(queue, { body: '{"after":1}' });
    await pooled.send(queue, { body: '{"after":2}' });
    const rows = await queryOnce<{ message: unknown }>(pair.standby.url, `SELECT message FROM pgmq.q_${queue} ORDER BY msg_id`);
    expect(rows.map((r) => r.message)).toEqual([{ before: 1 }, { after: 1 }, { after: 2 }]);
    expect((await pooled.health!()).summary).toMatch(new RegExp(`^on 127\\.0\\.0\\.1:${pair.standby.port} `));
  }, 60_000);
});
