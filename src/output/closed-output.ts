// `seq 5000 | smq send q | head -1`: the reader of stdout can go away while a command is
// still changing the store. A command that only shows something has nothing left to do then,
// and smq leaves at once (bin/smq.js). One that changes the store finishes what it was given,
// its output dropped, and leaves with its own exit code: leaving half-way stored part of its
// input and exited 0.

let changing = 0;

/** Runs work that changes the store: a closed stdout does not end the process meanwhile. */
export async function changingStore<T>(work: () => Promise<T>): Promise<T> {
  changing += 1;
  try {
    return await work();
  } finally {
    changing -= 1;
  }
}

/**
 * stdout's reader went away (EPIPE): true when a change is under way, which goes on (what
 * it writes is lost; each write fails with EPIPE again); false when smq can leave now.
 */
export function stdoutGoneWhileChanging(): boolean {
  return changing > 0;
}
