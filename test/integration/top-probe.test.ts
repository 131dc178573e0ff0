import { test } from 'vitest';
import { TmuxSession } from '../helpers/tmux.js';
test('t', async () => {
  const s = TmuxSession.start({ command: [process.execPath, '/work/main/bin/smq.js', 'top', '--sqlite', '/tmp/smqtry/a.db'], cwd: '/tmp/smqtry' });
  try {
    await s.waitFor('orders');
    s.keys('j');
    console.log(await s.waitFor('› orders', 5000).catch((e) => String(e)));
    s.keys('Enter');
    console.log(await s.waitFor('ID STATE', 5000).catch((e) => String(e)));
    console.log(s.pid(), s.exitStatus());
  } finally {
    s.kill();
  }
}, 60000);
