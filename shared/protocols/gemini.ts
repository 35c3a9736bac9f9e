import { addAnswer, addReasoning, addToolArguments, setStreamError, num, type StreamState } from '../stream-state.ts';
import { describeError, jsonRequest, parseEvent, resolveEndpoint, siblingUrl, type Protocol } from './protocol.ts';

/**
 * Gemini `streamGenerateContent?alt=sse`: each event is a whole GenerateContentResponse; there is no
 * end marker, so a finish reason marks a complete stream.
 */
export const gemini: Protocol = {
  api: 'gemini',
  framing: 'sse',
  endMarkerRequired: false,
  contentTypes: ['text/event-stream'],
  defaultPath: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
  buildRequest({ target, prompt, maxTokens }) {
    const auth: Record<string, string> = target.apiKey ? { 'x-goog-api-key': target.apiKey } : {};
    return jsonRequest(resolveEndpoint(target.url, this.defaultPath, target.model), auth, {
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { maxOutputTokens: maxTokens },
    }, target);
  },
  rttUrl: (url) => siblingUrl(url, /:streamGenerateContent$/, ''),
  onEvent(_event, data, s) {
    const r = parseEvent(data, s);
    if (!r || typeof r !== 'object') return;
    if (r.error) {
      setStreamError(s, describeError(r.error));
      return;
    }
    const candidates = r.candidates;
    if (Array.isArray(candidates) && candidates.length > 0) readCandidate(candidates[0], s);
    else if (r.promptFeedback?.blockReason) setStreamError(s, `blocked: ${r.promptFeedback.blockReason}`);
    const usage = r.usageMetadata;
    if (usage && typeof usage === 'object') {
      const out = num(usage.candidatesTokenCount);
      const thoughts = num(usage.thoughtsTokenCount);
      if (out !== null || thoughts !== null) s.outputTokens = (out ?? 0) + (thoughts ?? 0);
      const input = num(usage.promptTokenCount);
      if (input !== null) s.inputTokens = input;
    }
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function readCandidate(candidate: any, s: StreamState): void {
  const parts = candidate?.content?.parts;
  if (Array.isArray(parts)) {
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!part || typeof part !== 'object') continue;
      if (part.thought === true) addReasoning(s, part.text);
      else if (typeof part.text === 'string') addAnswer(s, part.text);
      else if (part.functionCall) addToolArguments(s, JSON.stringify(part.functionCall.args ?? {}));
    }
  }
  if (typeof candidate?.finishReason === 'string') s.finishReason = candidate.finishReason;
}
