/** Unsigned LEB128 varints (as protobuf writes them), for the compact canonical encodings of histograms and rollups. */

export function writeVarint(out: number[], n: number): void {
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}
