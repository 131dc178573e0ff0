// For the failover tests: `smq tester` as a child process (as a user runs it) whose progress
// the test watches, and a queue's rows of one run read straight from a server's tables.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, REPO, cleanEnv } from './run-cli.js';
import { queryOnce } from './replica.js';

export interface TesterChild {
  readonly child: ChildProcess;
  /** Resolves once the progress shows messages sent and received. */
  readonly flowing: Promise<void>;
  readonly done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGSTOP / SIGCONT: the tester issues no call while stopped. */
  pause(): void;
  resume(): void;
}

export function startTester(args: readonly string[], deadlineMs: number): TesterChild {
  const child = spawn(process.execPath, [BIN, 'tester', ...args], { cwd: REPO, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let flowed: () => void = () => undefined;
  const flowing = new Promise<void>((resolve) => (flowed = resolve));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (/sent [1-9][\d,]*.* received [1-9]/.test(stderr)) flowed();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      clearTimeout(killer);
      flowed();
      resolve({ code, stdout, stderr });
    });
  });
  return { child, flowing, done, pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT') };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunRows {
  /** "sender:seq" of the live rows, with their read counts. */
  readonly live: Map<string, number>;
  /** "sender:seq" of the archived rows, with when they were archived (text). */
  readonly archived: Map<string, string>;
  /** Keys found more than once across both tables. */
  readonly twice: number;
}

/** The run's rows in pgmq.q_<queue> and pgmq.a_<queue> on one server. */
export async function runRows(url: string, queue: string, runId: string): Promise<RunRows> {
  const key = `(message->>'s') || ':' || (message->>'q')`;
  const live = await queryOnce<{ k: string; read_ct: number }>(
    url,
    `SELECT ${key} AS k, read_ct FROM pgmq.q_${queue} WHERE message->>'r' = $1`,
    [runId],
  );
  const archived = await queryOnce<{ k: string; at: string }>(
    url,
    `SELECT ${key} AS k, archived_at::text AS at FROM pgmq.a_${queue} WHERE message->>'r' = $1`,
    [runId],
  );
  const all = [...live.map((r) => r.k), ...archived.map((r) => r.k)];
  return {
    live: new Map(live.map((r) => [r.k, r.read_ct])),
    archived: new Map(archived.map((r) => [r.k, r.at])),
    twice: all.length - new Set(all).size,
  };
}
