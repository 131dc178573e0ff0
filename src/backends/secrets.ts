// The one place that knows what a secret looks like in text smq might print: which
// keywords hold one, the forms a password takes (raw, percent-encoded, decoded, with '+'),
// the pieces of a URL that could be a password when the URL cannot be parsed, which
// connection texts an invocation names, and how to scrub them. A leaf: the connection parser
// (pgmq/connection.ts) and target.ts (secretsFor) build on it; nothing here connects.

/** Connection keywords whose values are secret. */
export const SECRET_KEYWORDS = ['password', 'sslpassword'] as const;

const SCHEME = /^postgres(?:ql)?:\/\//i;

/** The forms a secret can take in text smq might print. */
export function secretForms(secret: string): string[] {
  const out = [secret, encodeURIComponent(secret), encodeURI(secret), secret.replace(/ /g, '+')];
  try {
    out.push(decodeURIComponent(secret));
  } catch {
    // not percent-encoded text
  }
  return out;
}

/** Distinct, at least `min` characters, longest first (so a longer form is scrubbed whole). */
export const longestFirst = (secrets: Iterable<string>, min: number): string[] =>
  [...new Set(secrets)].filter((s) => s.length >= min).sort((a, b) => b.length - a.length);

/**
 * Pieces of a connection string that could be a password however it is read: the user part
 * up to the first and to the last '@', and password= values. For scrubbing text when the
 * URL cannot be parsed (it was refused, so little is printed anyway).
 */
export function passwordCandidates(url: string): string[] {
  const rest = url.replace(SCHEME, '');
  const out: string[] = [];
  for (const at of [rest.indexOf('@'), rest.lastIndexOf('@')]) {
    if (at < 0) continue;
    const userPart = rest.slice(0, at);
    const colon = userPart.indexOf(':');
    if (colon >= 0) out.push(userPart.slice(colon + 1));
  }
  for (const m of rest.matchAll(/[?&](?:ssl)?password=([^&]*)/gi)) out.push(m[1]!, m[1]!.split('#')[0]!);
  return longestFirst(out.flatMap(secretForms), 4);
}

/**
 * Every connection text an invocation could use: each --url given (however often), SMQ_URL,
 * DATABASE_URL, and undefined for the connection PG* variables and the service file make.
 */
export function connectionTextsOf(argv: readonly string[], env: NodeJS.ProcessEnv): (string | undefined)[] {
  const urls: (string | undefined)[] = [undefined];
  argv.forEach((arg, i) => {
    if (arg === '--url') {
      const next = argv[i + 1];
      if (next !== undefined) urls.push(next);
    } else if (arg.startsWith('--url=')) {
      urls.push(arg.slice('--url='.length));
    }
  });
  for (const key of ['SMQ_URL', 'DATABASE_URL']) {
    const v = env[key];
    if (v) urls.push(v);
  }
  return urls;
}

/**
 * A secret shorter than this is not scrubbed from free text: starring every "e" or "1" of a
 * message mangles it and tells the reader which letters the password is made of. (Where a
 * text names the password itself, in a URL or a password= value, it goes whatever its length.)
 */
export const MIN_FREE_TEXT_SECRET = 6;

/** A URL's user:password@ part: the password goes, up to the last @ before the host (a password may hold @). */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:)[^\s/]*@/gi;
/** A password=value (or sslpassword=value) in libpq's keyword form or a URL's query, quoted or not. */
const KEYWORD_PASSWORD = /(\b(?:ssl)?password=)('[^']*'|"[^"]*"|[^\s&'"]*)/gi;

/**
 * Scrubs secrets from a text smq is about to print (error messages from drivers): the
 * password field of every connection text in it, then the literal text of each secret of
 * MIN_FREE_TEXT_SECRET characters or more.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  // A known password where a URL's password goes, whatever its length and characters (a
  // space, /, @ that the pattern below stops at).
  for (const s of secrets) if (s) out = out.split(`:${s}@`).join(':***@');
  out = out.replace(URL_PASSWORD, '$1***@').replace(KEYWORD_PASSWORD, '$1***');
  for (const s of secrets) {
    if (s && s.length >= MIN_FREE_TEXT_SECRET) out = out.split(s).join('***');
  }
  return out;
}
