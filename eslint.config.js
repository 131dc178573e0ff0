// Lint for npm test: typescript-eslint's recommended rules, React's hook rules for the UI, and
// the layering the code is built on: commands, the UI and the tester reach a store only through
// the Backend contract (src/backends/index.ts and types.ts), never through pg, better-sqlite3 or
// a backend's own files.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const storeInternals = {
  paths: [
    { name: 'pg', message: 'Reach PostgreSQL through the Backend contract (src/backends/index.ts).' },
    { name: 'pg-protocol', message: 'Only src/backends/pgmq speaks the protocol.' },
    { name: 'better-sqlite3', message: 'Reach SQLite through the Backend contract (src/backends/index.ts).' },
  ],
  patterns: [
    {
      group: ['**/backends/pgmq/*', '**/backends/sqlite/*'],
      message: "A backend's files are its own: import from src/backends/index.ts or types.ts.",
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        SharedArrayBuffer: 'readonly',
        Atomics: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A terminal tool matches control characters on purpose (escaping, key parsing, width).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read a screen again after each key; the last read is often kept for a failure message.
    files: ['test/**'],
    rules: { 'no-useless-assignment': 'off' },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    // The two classic hook rules; v7's React Compiler rules judge code written for the compiler.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    files: ['src/commands/**', 'src/ui/**', 'src/tester/**', 'src/cli.ts', 'src/output/**', 'src/text/**'],
    rules: { 'no-restricted-imports': ['error', storeInternals] },
  },
);
