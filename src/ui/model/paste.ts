// Bracketed paste (xterm's mode 2004, which top turns on: ui/terminal-modes.ts): the terminal
// wraps what is pasted in these markers, so that its line breaks are not Enter and its
// letters not commands. hooks/useKeys reads them; pure.

export const PASTE_START = '\u001b[200~';
export const PASTE_END = '\u001b[201~';
/** A paste whose end marker does not come within this long of its last read is taken as it is. */
export const PASTE_WAIT_MS = 1000;

/** How many characters at the end of `text` could be the start of `marker` (cut between reads). */
export function markerTail(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (marker.startsWith(text.slice(-n))) return n;
  return 0;
}

/** A paste as one line of prompt text: its line breaks and tabs are spaces, not Enter. */
export const pastedText = (text: string) => text.replace(/\r\n|[\r\n\t]/g, ' ');
