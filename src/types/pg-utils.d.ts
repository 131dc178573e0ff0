// node-postgres's value encoding (exported as pg/lib/utils.js, untyped): what pg.Client does
// to each query parameter. The lean path (backends/pgmq/wire.ts) uses it so that parameters
// are encoded exactly as through a pg.Pool.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): string | Buffer | null };
  export default utils;
}
