// A module hook (registered by ./ink-caches.ts) that bounds two caches inside Ink 6.
//
// Ink's measure-text.js and wrap-text.js keep every distinct string a <Text> ever held, in
// module-level caches that are never emptied (Ink issue #986, fixed in Ink 8, which needs
// Node 22). smq top renders new text at every refresh (ages, clocks, counts), so the heap
// grew for as long as top ran. This hook rewrites the one line that creates each cache
// into a cache that starts afresh once it holds too many entries or characters; the next
// frames fill it again with what is on screen. Drop it when smq moves to Ink 8.
//
// It runs on Node's module-hooks thread, so it is plain code with no imports of smq.

/** Entries before a cache starts afresh: twenty full screens of lines. */
const MAX_ENTRIES = 1000;
/** Characters (keys and cached strings) before a cache starts afresh. */
const MAX_CHARS = 1_000_000;

// The bookkeeping shared by both replacements, as source text inserted into Ink's module.
const boundedStore = `(() => {
  let map = new Map();
  let chars = 0;
  const size = (v) => (typeof v === 'string' ? v.length : 0);
  return {
    get: (key) => map.get(key),
    has: (key) => map.has(key),
    set(key, value) {
      if (!map.has(key)) {
        if (map.size >= ${MAX_ENTRIES} || chars >= ${MAX_CHARS}) {
          map = new Map();
          chars = 0;
        }
        chars += size(key) + size(value);
      }
      map.set(key, value);
    },
  };
})()`;

interface Rewrite {
  /** How the cache is created in Ink 6.8's build (checked exactly; anything else is left alone). */
  readonly find: string;
  readonly replace: string;
}

const REWRITES: Record<string, Rewrite> = {
  // Used as a Map: get / set.
  '/ink/build/measure-text.js': {
    find: 'const cache = new Map();',
    replace: `const cache = ${boundedStore};`,
  },
  // Used as a plain object: cache[key] and cache[key] = value.
  '/ink/build/wrap-text.js': {
    find: 'const cache = {};',
    replace: `const cache = (() => {
  const store = ${boundedStore};
  return new Proxy(Object.create(null), {
    get: (_target, key) => (typeof key === 'string' ? store.get(key) : undefined),
    set: (_target, key, value) => {
      if (typeof key === 'string') store.set(key, value);
      return true;
    },
  });
})();`,
  },
};

interface LoadResult {
  readonly format?: string | null | undefined;
  readonly source?: string | ArrayBuffer | ArrayBufferView | null | undefined;
  readonly shortCircuit?: boolean | undefined;
}
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>;

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  const result = await nextLoad(url, context);
  const path = url.replace(/\\/g, '/');
  const rewrite = Object.entries(REWRITES).find(([suffix]) => path.endsWith(suffix))?.[1];
  if (!rewrite || result.source == null) return result;
  const source =
    typeof result.source === 'string'
      ? result.source
      : Buffer.from(result.source instanceof ArrayBuffer ? new Uint8Array(result.source) : (result.source as Uint8Array)).toString('utf8');
  // Exactly one creation of the cache, as in the version this was written for.
  if (source.split(rewrite.find).length !== 2) return result;
  return { ...result, source: source.replace(rewrite.find, rewrite.replace) };
}
