// The --fault plan carried out (fault-runner.ts): terminate through the action it is given,
// exec through the shell with its output and exit code kept, repeats, faults that never fire,
// and a command still running at the end, ended.
import { describe, expect, test } from 'vitest';
import { parseFaultSpec } from '../../src/tester/fault-spec.js';
import { FaultRunner, OUTPUT_KEPT } from '../../src/tester/fault-runner.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runner(specs: string[], terminate: () => Promise<number> = async () => 3) {
  const start = performance.now();
  return new FaultRunner(specs.map(parseFaultSpec), { terminate, nowMs: () => performance.now() - start });
}

describe('FaultRunner', () => {
  test('terminate fires at its time and again every period while the run sends; one that never fires is named', async () => {
    let calls = 0;
    const r = runner(['terminate@50ms,every=200ms', 'terminate@10s'], async () => ++calls);
    r.start();
    await sleep(350); // fires at 50 and 250 ms, not at 450
    const warnings = r.stopScheduling();
    await r.finish(1000);
    expect(calls).toBe(2);
    expect(r.records.map((x) => [x.fault, x.outcome, x.detail])).toEqual([
      ['terminate@50ms,every=200ms', 'ok', 'ended 1 connection(s)'],
      ['terminate@50ms,every=200ms', 'ok', 'ended 2 connection(s)'],
    ]);
    expect(r.records[0]!.atMs).toBeGreaterThanOrEqual(50);
    expect(r.records[1]!.atMs).toBeGreaterThanOrEqual(250);
    expect(warnings).toEqual([expect.stringMatching(/^--fault terminate@10s never fired: the run stopped sending at 0\.\d s$/)]);
  });

  test('a failed terminate says why', async () => {
    const r = runner(['terminate@0s'], () => Promise.reject(new Error('permission denied to terminate process')));
    r.start();
    await sleep(50);
    await r.finish(1000);
    expect(r.records[0]).toMatchObject({ outcome: 'failed', detail: 'permission denied to terminate process' });
  });

  test("exec keeps the command's exit code and the end of its output", async () => {
    const r = runner([`exec:head -c ${OUTPUT_KEPT + 100} /dev/zero | tr '\\0' a; echo; echo last line >&2; exit 7@0s`]);
    r.start();
    await sleep(50);
    await r.finish(5000);
    const [x] = r.records;
    expect(x).toMatchObject({ kind: 'exec', outcome: 'failed', exitCode: 7 });
    expect(x!.detail).toMatch(/^exit code 7 after \d\.\d s$/);
    expect(x!.output).toHaveLength(OUTPUT_KEPT);
    expect(x!.output!.endsWith('a\nlast line\n')).toBe(true);
  });

  test('a command still running when the run ends is given its grace, then ended', async () => {
    const r = runner(['exec:echo started; sleep 30@0s']);
    r.start();
    await sleep(100);
    const t = performance.now();
    await r.finish(200);
    expect(performance.now() - t).toBeLessThan(3000);
    expect(r.records[0]).toMatchObject({ outcome: 'killed', output: 'started\n' });
    expect(r.records[0]!.detail).toMatch(/^ended: still running when the run ended \(after \d\.\d s\)$/);
  });
});
