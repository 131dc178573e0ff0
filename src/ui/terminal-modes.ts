// The terminal modes top sets while it runs, and takes back when it leaves (or hands the
// terminal to a pager): the alternate screen, the cursor, and bracketed paste (xterm's mode
// 2004: pasted text arrives between markers, so that a pasted line break is not Enter and its
// letters are not commands; hooks/useKeys reads the markers).
export const ENTER_ALT_SCREEN = '\u001b[?1049h';
export const LEAVE_ALT_SCREEN = '\u001b[?1049l';
export const SHOW_CURSOR = '\u001b[?25h';
export const HIDE_CURSOR = '\u001b[?25l';
export const CLEAR_HOME = '\u001b[2J\u001b[H';
export const PASTE_MODE_ON = '\u001b[?2004h';
export const PASTE_MODE_OFF = '\u001b[?2004l';
