import { describe, expect, it } from 'vitest';
import { CpuWindow } from '../../src/tester/cpu-window.js';

describe('CpuWindow: the tester CPU per message in its steady state', () => {
  it('counts only from the end of the warm-up to the end of sending', () => {
    let cpu = { user: 0, system: 0 };
    const w = new CpuWindow(2_000_000, () => cpu);
    cpu = { user: 900_000, system: 100_000 }; // the warm-up's CPU: not counted
    w.observe(1_000_000, 100, true);
    w.observe(2_000_000, 400, true); // opens: 400 messages, 1 s of CPU so far
    cpu = { user: 1_700_000, system: 300_000 }; // +1 s of CPU
    w.observe(6_000_000, 4_400, true);
    w.observe(10_000_000, 8_400, false); // sending over: closes
    cpu = { user: 9_000_000, system: 0 }; // the drain: not counted
    w.observe(11_000_000, 9_000, false);
    expect(w.result()).toEqual({ cpuUsPerMessage: 125, messages: 8_000, seconds: 8 });
  });

  it('is null when the window never opened or saw no message', () => {
    const never = new CpuWindow(5_000_000, () => ({ user: 0, system: 0 }));
    never.observe(1_000_000, 10, true);
    never.observe(2_000_000, 20, false); // sending ended inside the warm-up
    never.observe(6_000_000, 30, false);
    expect(never.result()).toBeNull();
    const idle = new CpuWindow(0, () => ({ user: 0, system: 0 }));
    idle.observe(0, 5, true);
    idle.observe(1, 5, false);
    expect(idle.result()).toBeNull();
  });
});
