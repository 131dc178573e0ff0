// The `/` filters of top: a case-insensitive regex, or the reason it is not one.

export type CompiledRegex =
  | { readonly ok: true; /** undefined: the empty pattern, which keeps everything. */ readonly regex: RegExp | undefined }
  | { readonly ok: false; readonly error: string };

/** Never throws; V8's "Invalid regular expression: /(/iu: Unterminated group" becomes the reason alone. */
export function compileRegex(pattern: string): CompiledRegex {
  if (pattern === '') return { ok: true, regex: undefined };
  try {
    return { ok: true, regex: new RegExp(pattern, 'iu') };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { ok: false, error: message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') };
  }
}
