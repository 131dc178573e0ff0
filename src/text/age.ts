// The one way smq writes an age or a wait, in `smq queues` and in `smq top` alike.

/** Seconds as the largest one or two units: "45s", "12m05s", "3h05m", "2d04h"; null -> "-". */
export function formatAge(sec: number | null | undefined): string {
  if (sec === null || sec === undefined || !Number.isFinite(sec)) return '-';
  const s = Math.max(0, Math.floor(sec));
  if (s < 60) return `${s}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d${pad(Math.floor((s % 86_400) / 3600))}h`;
}
