// The database goes away under a running `smq top` and comes back: the screen must say so,
// keep the last data, keep retrying, and recover by itself. A TCP proxy between top and
// the suite's Postgres plays the network: closing it drops every connection and refuses
// new ones, as a server restart or a network cut would.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { openBackend } from '../../src/backends/index.js';
import type { Backend } from '../../src/backends/types.js';
import { TmuxSession, tmuxAvailable } from '../helpers/tmux.js';
import { uniqueQueue } from '../helpers/backends.js';
import { freePort } from '../helpers/pg-server.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'smq.js');

describe.skipIf(!tmuxAvailable())('smq top when the database goes away', () => {
  const url = new URL(inject('pgUrl'));
  const queue = uniqueQueue('topout');
  let proxy: TcpProxy;
  let backend: Backend;
  let session: TmuxSession | undefined;

  beforeAll(async () => {
    proxy = new TcpProxy(await freePort(), { host: url.hostname, port: Number(url.port || 5432) });
    await proxy.up();
    backend = await openBackend({ kind: 'pgmq', url: url.toString() });
    await backend.createQueue(queue);
    await backend.send(queue, { body: '{"n":1}' });
  });
  afterAll(async () => {
    session?.kill();
    await proxy?.down();
    await backend?.dropQueue(queue).catch(() => undefined);
    await backend?.close();
  });

  test('shows the outage, keeps retrying, recovers by itself', async () => {
    const viaProxy = new URL(url.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    session = TmuxSession.start({
      command: [process.execPath, BIN, 'top', '--url', viaProxy.toString(), '--interval', '0.5'],
    });
    const t = session;
    t.keys('/');
    await t.waitFor('filter (regex): /');
    t.type(`^${queue}$`);
    t.keys('Enter');
    await t.waitFor(new RegExp(`› ${queue}\\s+1\\s+0\\s+0\\s+1\\s`));

    await proxy.down();
    let screen = await t.waitFor('DATABASE UNREACHABLE');
    // The last data stays on screen while the outage lasts.
    expect(screen).toMatch(new RegExp(`${queue}\\s+1\\s+0\\s+0\\s+1\\s`));
    // It keeps trying: the count of failed attempts grows.
    screen = await t.waitFor(/DATABASE UNREACHABLE since \S+ · ([2-9]|\d\d+) failed attempts, retrying/);
    expect(t.exitStatus()).toBeUndefined();

    // Meanwhile the queue changes; when the database is back, top shows it unprompted.
    await backend.send(queue, { body: '{"n":2}' });
    await proxy.up();
    screen = await t.waitFor((s) => !s.includes('UNREACHABLE') && new RegExp(`› ${queue}\\s+2\\s+0\\s+0\\s+2\\s`).test(s), 20_000);
    expect(screen).toContain('health: ');

    t.keys('q');
    expect(await t.waitForExit()).toBe(0);
  });
});
