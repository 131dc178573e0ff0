// Node reads the command line as UTF-8 and puts U+FFFD where bytes are not: a body, a queue
// name or a file name given in another encoding would be stored or used changed, without a
// word (stdin's invalid UTF-8 is refused). On Linux the bytes as given are in
// /proc/self/cmdline (read before process.title rewrites that memory): an argument among
// them that is not UTF-8 is refused instead.

const strict = new TextDecoder('utf-8', { fatal: true });

/**
 * The index, among the last `count` entries of a raw command line (NUL-terminated entries, as
 * /proc/self/cmdline has them), of the first one that is not valid UTF-8; undefined when all
 * are, or when the bytes are unknown or do not have that many entries.
 */
export function firstNonUtf8Argument(raw: Uint8Array | undefined, count: number): number | undefined {
  if (raw === undefined || count === 0) return undefined;
  const entries: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0) continue;
    entries.push(raw.subarray(start, i));
    start = i + 1;
  }
  if (start < raw.length) entries.push(raw.subarray(start));
  if (entries.length < count) return undefined;
  const args = entries.slice(entries.length - count);
  const bad = args.findIndex((bytes) => {
    try {
      strict.decode(bytes);
      return false;
    } catch {
      return true;
    }
  });
  return bad < 0 ? undefined : bad;
}
