/**
 * CRC-32 as IEEE 802.3, zlib and AWS's event stream compute it (reflected polynomial 0xEDB88320,
 * initial value and final XOR 0xFFFFFFFF): `crc32(bytes('123456789')) === 0xCBF43926`.
 *
 * Table-driven, four bytes per step (slicing-by-4: four 256-entry tables, 4 KiB), about twice as fast as a
 * byte at a time (measured under Node 22: some 1.5 ns a byte; eight bytes a step gained nothing more).
 * Incremental: passing the CRC of what came before as `previous` continues it, so
 * `crc32(b, 8, n, crc32(b, 0, 8)) === crc32(b, 0, n)`.
 */

const POLYNOMIAL = 0xedb88320;
const TABLE_SIZE = 256;

/** T[k * 256 + b]: the CRC of byte b followed by k zero bytes. */
const T = new Int32Array(4 * TABLE_SIZE);
for (let b = 0; b < TABLE_SIZE; b++) {
  let c = b;
  for (let k = 0; k < 8; k++) c = c & 1 ? POLYNOMIAL ^ (c >>> 1) : c >>> 1;
  T[b] = c;
}
for (let b = 0; b < TABLE_SIZE; b++) {
  for (let k = 1; k < 4; k++) {
    const prev = T[(k - 1) * TABLE_SIZE + b];
    T[k * TABLE_SIZE + b] = T[prev & 0xff] ^ (prev >>> 8);
  }
}

/** The CRC-32 of bytes[start..end), continuing `previous` (the CRC of the bytes before them; 0 to start afresh). */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, previous = 0): number {
  let c = ~previous;
  let i = start;
  for (const last = end - 3; i < last; i += 4) {
    c ^= bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    c = T[768 + (c & 0xff)] ^ T[512 + ((c >>> 8) & 0xff)] ^ T[256 + ((c >>> 16) & 0xff)] ^ T[c >>> 24];
  }
  for (; i < end; i++) c = T[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
