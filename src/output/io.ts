// The streams a command writes to. main() takes them as a parameter so tests can run the CLI
// in-process; bin/smq.js passes the real process streams.

export interface OutStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
}

export interface InStream extends NodeJS.ReadableStream {
  readonly isTTY?: boolean | undefined;
}

export interface Io {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  readonly stdin: InStream;
  readonly env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}
