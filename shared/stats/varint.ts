/** Unsigned LEB128 varints (as protobuf writes them), for the compact canonical encodings of histograms and rollups. */

export function writeVarint(out: number[], n: number): void {
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** Reads bytes in order; a read past the end throws the error `onEnd` makes. */
export class ByteReader {
  private p = 0;
  private readonly bytes: Uint8Array;
  private readonly onEnd: () => Error;

  constructor(bytes: Uint8Array, onEnd: () => Error) {
    this.bytes = bytes;
    this.onEnd = onEnd;
  }

  byte(): number {
    if (this.p >= this.bytes.length) throw this.onEnd();
    return this.bytes[this.p++];
  }

  varint(): number {
    let n = 0;
    let mult = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mult;
      if (b < 0x80) return n;
      mult *= 0x80;
    }
  }

  take(n: number): Uint8Array {
    if (this.p + n > this.bytes.length) throw this.onEnd();
    const slice = this.bytes.subarray(this.p, this.p + n);
    this.p += n;
    return slice;
  }

  get atEnd(): boolean {
    return this.p === this.bytes.length;
  }
}
