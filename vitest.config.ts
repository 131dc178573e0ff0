import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs no database and runs in seconds (`npx vitest run --project unit`);
// `integration` gets one throwaway PostgreSQL from the global setup.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/integration/**/*.test.tsx'],
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
    ],
  },
});
