// A test file whose process dies (a crash, a signal, an exit nobody caught) is only a
// count in vitest's summary ("167 passed (168)") and "Worker exited unexpectedly", with no
// name. This reporter names it at the end of the run, with the tests that had started in
// it and never ended, so that a failure seen once in CI can be found again.
import type { Reporter, TestCase, TestModule } from 'vitest/node';

export default class UnfinishedReporter implements Reporter {
  private readonly started = new Map<string, Set<string>>();
  private readonly ended = new Set<string>();

  onTestModuleStart(m: TestModule): void {
    this.started.set(m.moduleId, new Set());
  }

  onTestCaseReady(t: TestCase): void {
    this.started.get(t.module.moduleId)?.add(t.fullName);
  }

  onTestCaseResult(t: TestCase): void {
    this.started.get(t.module.moduleId)?.delete(t.fullName);
  }

  onTestModuleEnd(m: TestModule): void {
    this.ended.add(m.moduleId);
  }

  onTestRunEnd(): void {
    const unfinished = [...this.started.keys()].filter((id) => !this.ended.has(id));
    if (unfinished.length === 0) return;
    const lines = ['', 'Test files that started and never finished (their process ended under them?):'];
    for (const id of unfinished) {
      lines.push(`  ${id}`);
      for (const name of this.started.get(id) ?? []) lines.push(`    still running: ${name}`);
    }
    process.stderr.write(lines.join('\n') + '\n');
  }
}
