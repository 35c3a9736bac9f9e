import { NONCE_HEX_CHARS } from '../constants.ts';

/** Short common words: about one token each in the usual tokenizers. */
const FILLER = 'the cat sat on a mat and saw one red bird fly over it as we ran to see'.split(' ');
const SENTENCE = FILLER.join(' ');
const INSTRUCTION =
  'Ignore the line of filler words above. Write a long, plain story about a lighthouse keeper. ' +
  'Keep writing until you are stopped; do not end early.';
/** Tokens the nonce line and the instruction take, so the filler makes up the rest. */
const FIXED_PROMPT_TOKENS = 40;

export function randomNonce(): string {
  const bytes = new Uint8Array(NONCE_HEX_CHARS / 2);
  crypto.getRandomValues(bytes);
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/**
 * A prompt of a fixed size (about `promptTokens` tokens) whose first line is a fresh nonce, so that
 * no provider can answer it from a prompt or response cache.
 */
export function buildPrompt(promptTokens: number, nonce: string): string {
  const fillerCount = Math.max(0, promptTokens - FIXED_PROMPT_TOKENS);
  // Whole sentences by repeat() and one partial: a handful of allocations whatever the size (a 32k-token prompt included).
  const whole = Math.floor(fillerCount / FILLER.length);
  const rest = FILLER.slice(0, fillerCount % FILLER.length).join(' ');
  const words = `${SENTENCE} `.repeat(whole) + rest;
  return `Request ${nonce}.\n${words.trimEnd()}\n${INSTRUCTION}`;
}

/** A prompt-cache probe's prompt: the text, and where its cacheable prefix ends (a character offset into it). */
export interface CachePrompt {
  text: string;
  cacheBreak: number;
}

/**
 * The prompt of a prompt-cache probe's pass (MEASUREMENT.md, "Prompt cache"): the prefix (the nonce line and
 * the filler, all but the last few tokens of `promptTokens`) is the same in both passes of a tick, its nonce
 * fresh each tick so the first pass finds nothing cached; only the short tail names the pass, so the second
 * pass is answered from a prompt cache at most, never from a response cache.
 */
export function buildCachePrompt(promptTokens: number, nonce: string, pass: 1 | 2): CachePrompt {
  const whole = buildPrompt(promptTokens, nonce);
  const cacheBreak = whole.length - INSTRUCTION.length;
  return { text: `${whole}\nThis is pass ${pass}.`, cacheBreak };
}
