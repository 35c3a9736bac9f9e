/**
 * A response body read to at most a cap, then let go: a hostile or broken server's answer costs at
 * most the cap in memory, however long it is or whether it ever ends (the caller bounds the time).
 */

export interface BoundedBody {
  /** The body's first `limitBytes` bytes at most, decoded as UTF-8. */
  text: string;
  /** The cap was reached: the body may go on past it (what is past it is never read). */
  atCap: boolean;
}

/**
 * Reads chunks until the body ends or `limitBytes` are in: the last chunk is cut at the cap, nothing
 * past it is read, and the stream is cancelled. A body that breaks mid-read yields what arrived.
 */
export async function readBounded(response: Response, limitBytes: number): Promise<BoundedBody> {
  if (!response.body) return { text: '', atCap: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < limitBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.byteLength, limitBytes - bytes);
      bytes += take;
      text += decoder.decode(take < value.byteLength ? value.subarray(0, take) : value, { stream: true });
    }
  } catch {
    // a body that fails mid-read still yields what arrived
  } finally {
    reader.cancel().catch(() => {});
  }
  return { text: text + decoder.decode(), atCap: bytes >= limitBytes };
}
