// The layering the code is built on, checked on the source itself: no import circle anywhere
// in src/ (type-only imports included), and commands, the UI and the tester reach a store only
// through src/backends/index.ts and types.ts (eslint.config.js says the same for editors).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';

const SRC = path.resolve(__dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g;

function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1]!);
}

function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx', '/index.ts']) if (fs.existsSync(base + ext)) return base + ext;
  return undefined;
}

const files = sourceFiles(SRC);
const graph = new Map(
  files.map((f) => [
    f,
    imports(f)
      .map((s) => resolveLocal(f, s))
      .filter((x): x is string => !!x),
  ]),
);
const rel = (f: string) => path.relative(SRC, f);

describe('architecture', () => {
  test('src/ has no import circle', () => {
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (f: string, trail: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        circles.push([...trail.slice(trail.indexOf(f)), f].map(rel).join(' → '));
        return;
      }
      state.set(f, 'open');
      for (const g of graph.get(f) ?? []) visit(g, [...trail, f]);
      state.set(f, 'done');
    };
    for (const f of files) visit(f, []);
    expect(circles).toEqual([]);
  });

  test("commands, the UI and the tester import no driver and no backend's own files", () => {
    const outside = files.filter((f) => !rel(f).startsWith('backends'));
    const found: string[] = [];
    for (const f of outside) {
      for (const spec of imports(f)) {
        const target = resolveLocal(f, spec);
        const internal = target && /^backends\/(pgmq|sqlite)\//.test(rel(target));
        if (['pg', 'pg-protocol', 'better-sqlite3'].includes(spec) || internal) found.push(`${rel(f)} imports ${spec}`);
      }
    }
    expect(found).toEqual([]);
  });

  test('the checks see the files they judge', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get(path.join(SRC, 'tester/engine.ts'))!.length).toBeGreaterThan(5);
  });
});
