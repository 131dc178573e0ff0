// Report files that fail while they are written (a full disk, an I/O error): the --hdr-log
// keeps the run going and says why afterwards; the failure is worded with the flag and the file.
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { HdrLog } from '../../src/tester/hdr-log.js';
import { newWorkerHistogram, recordUs } from '../../src/tester/histograms.js';
import { unwrittenReportLine } from '../../src/commands/tester-outputs.js';

describe('report files that fail while written', () => {
  test.skipIf(!existsSync('/dev/full'))('--hdr-log on a full device: no throw, the first failure kept', () => {
    const log = HdrLog.open('/dev/full');
    const h = newWorkerHistogram();
    recordUs(h, 1500);
    expect(() => {
      log.start(Date.now());
      log.interval(h, 0);
      log.interval(h, 1);
      log.close();
    }).not.toThrow();
    expect(log.failure?.message).toMatch(/^ENOSPC/);
  });

  test('the line names what, where, the flag and the reason, without errno codes', () => {
    const e = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(unwrittenReportLine({ flag: 'html', path: '/x/y' }, e)).toBe(
      'smq tester: could not write the HTML report to /x/y (--html): no space left on device\n',
    );
    const gone = Object.assign(new Error("ENOENT: no such file or directory, open '/x/\u001b[2Jy'"), { code: 'ENOENT' });
    expect(unwrittenReportLine({ flag: 'hdr-log', path: '/x/\u001b[2Jy' }, gone)).toBe(
      'smq tester: could not write the HdrHistogram log to /x/\\e[2Jy (--hdr-log): no such file or directory\n',
    );
    expect(unwrittenReportLine({ flag: 'html', path: 'r.html' }, new Error('odd'))).toBe(
      'smq tester: could not write the HTML report to r.html (--html): odd\n',
    );
  });
});
