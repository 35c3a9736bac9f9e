/** Deterministic filler output: one short word per token, so token counts are exact. */
const ANSWER_WORDS = ['The', ' keeper', ' climbed', ' the', ' tower', ' and', ' lit', ' a', ' lamp', ' at', ' dusk', '.'];
const REASONING_WORDS = ['Let', ' me', ' think', ' about', ' the', ' story', ' first', '.'];

export function answerTokens(from: number, count: number): string {
  let s = '';
  for (let i = from; i < from + count; i++) s += ANSWER_WORDS[i % ANSWER_WORDS.length];
  return s;
}

export function reasoningTokens(from: number, count: number): string {
  let s = '';
  for (let i = from; i < from + count; i++) s += REASONING_WORDS[i % REASONING_WORDS.length];
  return s;
}
