// The differential test's machinery: one call, made the same way on two databases (real
// pgmq and smq's compat schema), reduced to what must be equal: the SQLSTATE if it failed,
// the result's column names and type names, and the rows, with times made relative to the
// moment of the call (and compared within a tolerance) so that two runs a few milliseconds
// apart compare equal.
import pg from 'pg';
import { expect } from 'vitest';

/** A time in a result, as seconds from the moment the call was made. */
export interface RelTime {
  readonly t: number;
}

export interface Outcome {
  /** SQLSTATE of the error; null when the call succeeded. */
  readonly error: string | null;
  readonly columns: readonly (readonly [string, string])[];
  readonly rows: readonly unknown[];
}

export interface CallOptions {
  /** Compare the rows in the order returned (default: as a set, sorted). */
  readonly ordered?: boolean;
}

/** How far apart the same time may be on the two sides, in seconds. */
const TIME_TOLERANCE_SEC = 1.5;

export class Side {
  private readonly typeNames = new Map<number, string>();
  constructor(
    readonly name: string,
    readonly url: string,
    readonly client: pg.Client,
  ) {}

  private async typeName(oid: number): Promise<string> {
    let n = this.typeNames.get(oid);
    if (n === undefined) {
      const r = await this.client.query<{ t: string }>('SELECT format_type($1::oid, NULL) AS t', [oid]);
      n = r.rows[0]!.t;
      this.typeNames.set(oid, n);
    }
    return n;
  }

  async call(sql: string, params: unknown[] = [], options: CallOptions = {}): Promise<Outcome> {
    const at = Date.now();
    let r: pg.QueryResult;
    try {
      r = await this.client.query({ text: sql, values: params, rowMode: 'array' });
    } catch (e) {
      if (e instanceof pg.DatabaseError) return { error: e.code ?? 'unknown', columns: [], rows: [] };
      throw e;
    }
    const columns: [string, string][] = [];
    for (const f of r.fields) columns.push([f.name, await this.typeName(f.dataTypeID)]);
    const rows = (r.rows as unknown[][]).map((row) => relative(row, at));
    if (!options.ordered) rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    return { error: null, columns, rows };
  }
}

/** Dates become {t: seconds from `at`}; other values stay; arrays and objects are walked. */
function relative(v: unknown, at: number): unknown {
  if (v instanceof Date) return { t: Math.round((v.getTime() - at) / 100) / 10 } satisfies RelTime;
  if (Array.isArray(v)) return v.map((x) => relative(x, at));
  return v;
}

/** b with every time that is within the tolerance of a's time at the same place replaced by a's. */
function align(a: unknown, b: unknown): unknown {
  if (isRelTime(a) && isRelTime(b)) return Math.abs(a.t - b.t) <= TIME_TOLERANCE_SEC ? a : b;
  if (Array.isArray(a) && Array.isArray(b)) return b.map((x, i) => align(a[i], x));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(b)) out[k] = align((a as Record<string, unknown>)[k], v);
    return out;
  }
  return b;
}

const isRelTime = (v: unknown): v is RelTime => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).join() === 't';

/**
 * Runs the call on both sides (the real one first) and expects the same outcome; returns it.
 * `label` says which call failed in the report.
 */
export async function same(real: Side, compat: Side, sql: string, params: unknown[] = [], options: CallOptions = {}): Promise<Outcome> {
  const want = await real.call(sql, params, options);
  const got = await compat.call(sql, params, options);
  expect(align(want, got), `${sql} ${JSON.stringify(params, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`).toEqual(
    want,
  );
  return want;
}

/** Both sides' rows of a catalog query, expected equal. */
export async function sameCatalog(real: Side, compat: Side, sql: string, params: unknown[] = []): Promise<unknown[]> {
  const [a, b] = [await real.call(sql, params), await compat.call(sql, params)];
  expect(a.error, `${sql} on ${real.name}`).toBeNull();
  expect(b.error, `${sql} on ${compat.name}`).toBeNull();
  expect(b.rows, sql).toEqual(a.rows);
  return [...a.rows];
}
