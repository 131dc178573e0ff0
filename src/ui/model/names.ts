// Queue names as people should read them. SmoothMQ's pgmq driver stores each tenant's
// queue as one pgmq queue named tnt_<tenant id in hex>_<queue name in base64url>;
// top shows those decoded into a tenant and the original name.

export interface DecodedName {
  /** Tenant id in decimal (SmoothMQ tenant ids are int64, so kept as text). */
  readonly tenant: string;
  readonly name: string;
}

const DRIVER_NAME = /^tnt_([0-9a-fA-F]{1,16})_([A-Za-z0-9_-]+)$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a SmoothMQ pgmq-driver queue name; undefined when the name is not one. */
export function decodeDriverName(raw: string): DecodedName | undefined {
  const m = DRIVER_NAME.exec(raw);
  if (!m) return undefined;
  const hex = m[1]!;
  const encoded = m[2]!;
  const bytes = Buffer.from(encoded, 'base64url');
  // Only canonical encodings count: otherwise an ordinary name such as tnt_1_abc
  // could be "decoded" into bytes nobody wrote.
  if (bytes.length === 0 || bytes.toString('base64url') !== encoded) return undefined;
  let name: string;
  try {
    name = strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
  return { tenant: BigInt(`0x${hex}`).toString(10), name };
}

/** Encodes a name the way the driver does (used by tests and fixtures). */
export function encodeDriverName(tenant: bigint | number, name: string): string {
  return `tnt_${BigInt(tenant).toString(16)}_${Buffer.from(name, 'utf8').toString('base64url')}`;
}
