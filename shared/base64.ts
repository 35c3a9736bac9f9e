/** Standard base64 (RFC 4648, with padding) of bytes and back, with what every runtime here has: btoa and atob. */

/** Bytes per String.fromCharCode call: well under any engine's argument limit. */
const CHUNK = 8_192;

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK)
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  return btoa(binary);
}

/** Throws (a DOMException from atob) on text that is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
