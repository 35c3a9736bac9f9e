/**
 * The reference endpoint's prompt cache, modelled on the vendors' prefix caches: a prompt's cacheable text
 * is cached in blocks of 128 tokens once it reaches 1,024 (OpenAI's and Anthropic's smallest), for five
 * minutes since its last use; a later request whose text starts with cached blocks reads them. Only what
 * a format lets be cached counts (request.ts `cacheable`: all of an OpenAI or Gemini prompt, an Anthropic or
 * Bedrock prompt up to its marked breakpoint). Caches are per model and region (a vendor's cache lives on
 * its replicas), held by the isolate and bounded: the oldest entries go first.
 */
import { CHARS_PER_TOKEN } from './request.ts';
import type { CacheUse } from './formats/format.ts';
import { MINUTE_MS } from '../../shared/time.ts';

export const CACHE_BLOCK_TOKENS = 128;
export const MIN_CACHED_TOKENS = 1_024;
export const CACHE_TTL_MS = 5 * MINUTE_MS;
const BLOCK_CHARS = CACHE_BLOCK_TOKENS * CHARS_PER_TOKEN;
/** Most block prefixes held (a 32k-token prompt leaves 250): the oldest are dropped beyond. */
const MAX_ENTRIES = 20_000;

export type { CacheUse };

/** Block-prefix key → when it expires. Insertion order is age order (a use moves it to the end). */
const entries = new Map<string, number>();

/** Two 32-bit FNV-1a-style hashes of each whole block's prefix of `text` (64 bits: collisions are out of the question here). */
function blockPrefixKeys(scope: string, text: string): string[] {
  const keys: string[] = [];
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  const blocks = Math.floor(text.length / BLOCK_CHARS);
  for (let i = 0; i < blocks * BLOCK_CHARS; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    if ((i + 1) % BLOCK_CHARS === 0) keys.push(`${scope}|${(i + 1) / BLOCK_CHARS}|${(h1 >>> 0).toString(36)}${(h2 >>> 0).toString(36)}`);
  }
  return keys;
}

/** What a request with `cacheable` text reads from the cache and writes to it, at `now` (ms); the cache updated. */
export function usePrefixCache(scope: string, cacheable: string, now: number): CacheUse {
  const keys = blockPrefixKeys(scope, cacheable);
  const minBlocks = MIN_CACHED_TOKENS / CACHE_BLOCK_TOKENS;
  if (keys.length < minBlocks) return { read: 0, written: 0 };
  let hit = 0;
  for (let k = keys.length; k >= minBlocks; k--) {
    const expires = entries.get(keys[k - 1]);
    if (expires !== undefined && expires > now) {
      hit = k;
      break;
    }
  }
  for (let k = minBlocks; k <= keys.length; k++) {
    entries.delete(keys[k - 1]);
    entries.set(keys[k - 1], now + CACHE_TTL_MS);
  }
  for (const key of entries.keys()) {
    if (entries.size <= MAX_ENTRIES) break;
    entries.delete(key);
  }
  return { read: hit * CACHE_BLOCK_TOKENS, written: (keys.length - hit) * CACHE_BLOCK_TOKENS };
}
