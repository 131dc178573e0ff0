// --fault specs (fault-spec.ts): what a user writes on the command line, and the one usage line
// each mistake gets.
import { describe, expect, test } from 'vitest';
import { isSmqError } from '../../src/errors.js';
import { faultTimesMs, parseFaultSpec } from '../../src/tester/fault-spec.js';

const usageLine = (text: string): string => {
  try {
    parseFaultSpec(text);
  } catch (e) {
    if (isSmqError(e) && e.exitCode === 2) return e.line();
    throw e;
  }
  throw new Error(`accepted: ${text}`);
};

describe('parseFaultSpec', () => {
  test('terminate at a time, once or repeated', () => {
    expect(parseFaultSpec('terminate@10s')).toEqual({ kind: 'terminate', atMs: 10_000, everyMs: undefined, text: 'terminate@10s' });
    expect(parseFaultSpec('terminate@1.5s,every=30s')).toMatchObject({ kind: 'terminate', atMs: 1500, everyMs: 30_000 });
    expect(parseFaultSpec('terminate@2')).toMatchObject({ atMs: 2000 });
  });

  test('exec takes everything up to the last @ as the command, @ and commas included', () => {
    expect(parseFaultSpec('exec:patronictl switchover --force@30s')).toMatchObject({
      kind: 'exec',
      command: 'patronictl switchover --force',
      atMs: 30_000,
    });
    expect(parseFaultSpec('exec:ssh admin@db1 "echo a,b"@1m,every=2m')).toMatchObject({
      command: 'ssh admin@db1 "echo a,b"',
      atMs: 60_000,
      everyMs: 120_000,
    });
  });

  test('mistakes are one usage line that says what to write', () => {
    expect(usageLine('terminate')).toMatch(/^invalid --fault "terminate": .*terminate@10s/);
    expect(usageLine('kill@10s')).toMatch(/^invalid --fault "kill@10s": .*terminate or exec:COMMAND/);
    expect(usageLine('exec:@10s')).toMatch(/no command/);
    expect(usageLine('terminate@soon')).toMatch(/^invalid --fault "terminate@soon": .*10s/);
    expect(usageLine('terminate@10s,every=0s')).toMatch(/every/);
    expect(usageLine('terminate@10s,often=1s')).toMatch(/often/);
    for (const bad of ['terminate', 'kill@10s', 'exec:@10s', 'terminate@soon', 'terminate@10s,every=0s']) {
      expect(usageLine(bad)).not.toMatch(/\n/);
    }
  });
});

describe('faultTimesMs', () => {
  test('once, or every period from the first time, while the run sends', () => {
    expect(faultTimesMs(parseFaultSpec('terminate@10s'), 60_000)).toEqual([10_000]);
    expect(faultTimesMs(parseFaultSpec('terminate@10s,every=20s'), 60_000)).toEqual([10_000, 30_000, 50_000]);
    expect(faultTimesMs(parseFaultSpec('terminate@10s'), 5_000)).toEqual([]);
  });
});
