import type { StreamContext, StreamFormat, Usage } from './format.ts';

/**
 * Gemini streamGenerateContent?alt=sse: one whole GenerateContentResponse per event, CRLF framing,
 * no end marker. Every reference stream runs to maxOutputTokens (finishReason MAX_TOKENS); when
 * thinking took all of them, the last event has no parts, as Google sends it.
 */
export const geminiFormat: StreamFormat = {
  contentType: 'text/event-stream',
  open: () => '',
  keepAlive: () => '',
  reasoning: (c, text) => event(c, [{ text, thought: true }], null, null),
  answer: (c, text) => event(c, [{ text }], null, null),
  close: (c, usage) => event(c, answerTokensOf(usage) > 0 ? [{ text: '' }] : [], 'MAX_TOKENS', usage),
  errorEvent: (_c, message) => `data: ${JSON.stringify({ error: { code: 500, message, status: 'INTERNAL' } })}\r\n\r\n`,
  malformed: () => 'data: {"candidates": [{"content": {"parts": [{"text": "x\r\n\r\n',
  padded: (c, text, padding) =>
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }], modelVersion: c.model, padding })}\r\n\r\n`,
  httpError: (status, message) => JSON.stringify({ error: { code: status, message, status: googleStatus(status) } }, null, 2),
  nonStreamed: (c, text, usage) =>
    JSON.stringify({
      candidates: [{ content: { ...(text === '' ? {} : { parts: [{ text }] }), role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }],
      usageMetadata: usageMetadata(c, usage),
      modelVersion: c.model,
    }),
};

function event(c: StreamContext, parts: object[], finishReason: string | null, usage: Usage | null): string {
  const candidate = {
    content: { ...(parts.length > 0 ? { parts } : {}), role: 'model' },
    ...(finishReason ? { finishReason } : {}),
    index: 0,
  };
  const body = {
    candidates: [candidate],
    usageMetadata: usage ? usageMetadata(c, usage) : { promptTokenCount: c.promptTokens, totalTokenCount: c.promptTokens },
    modelVersion: c.model,
    responseId: c.id,
  };
  return `data: ${JSON.stringify(body)}\r\n\r\n`;
}

const answerTokensOf = (usage: Usage) => usage.outputTokens - usage.reasoningTokens;

/** candidatesTokenCount is the answer only, thoughtsTokenCount the thinking; zero counts are left out, as Google does. */
function usageMetadata(c: StreamContext, usage: Usage) {
  return {
    promptTokenCount: c.promptTokens,
    // Counted inside promptTokenCount, and left out when nothing came from the cache (as Gemini does).
    ...(usage.cache.read > 0 ? { cachedContentTokenCount: usage.cache.read } : {}),
    ...(answerTokensOf(usage) ? { candidatesTokenCount: answerTokensOf(usage) } : {}),
    ...(usage.reasoningTokens ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
    totalTokenCount: c.promptTokens + usage.outputTokens,
  };
}

function googleStatus(status: number): string {
  if (status === 429) return 'RESOURCE_EXHAUSTED';
  if (status === 503 || status === 529) return 'UNAVAILABLE';
  if (status >= 500) return 'INTERNAL';
  return 'INVALID_ARGUMENT';
}
