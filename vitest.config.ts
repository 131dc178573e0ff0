import { defineConfig } from 'vitest/config';

// Three projects:
// - `unit` needs no database and runs in seconds (`npx vitest run --project unit`);
// - `integration` gets one throwaway PostgreSQL from the global setup, and runs one file at
//   a time: most files start smq processes or tester threads that keep a core busy, and
//   timing checks (rates, deadlines, a frozen server) need the cores they were written for;
// - `tui` is `smq top` driven in tmux (test/integration/top-*): those files mostly wait for
//   a screen to change, so two run at once (measured 2026-12-07 on the 2-core host: the 24
//   files in 219 s against 415 s one at a time, the CPU busy about half the time). They run
//   before the others (groupOrder), never beside a CPU-bound file, on the same PostgreSQL.
const TUI = ['test/integration/top-*.test.ts', 'test/integration/top-*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The default reporter, and one that names a test file whose process died under it.
    reporters: ['default', './test/helpers/unfinished-reporter.ts'],
    // Tests marked concurrent (each one smq process) run at most this many at a time: the
    // 2-core hosts the suite runs on start about three processes' worth of Node at once.
    maxConcurrency: 3,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/integration/**/*.test.tsx'],
          exclude: TUI,
          globalSetup: ['test/helpers/global-setup.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'tui',
          include: TUI,
          globalSetup: ['test/helpers/global-setup.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
