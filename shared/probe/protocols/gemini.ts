import { addAnswer, addReasoning, addToolArguments, setReasoningTokens, setStreamError, num, type StreamState } from '../stream-state.ts';
import { ANSWER, addSlice, stringEnd, RBRACE, RBRACKET, wholeObject } from './fast-path.ts';
import { describeError, jsonRequest, parseEvent, resolveEndpoint, safeJson, siblingUrl, type Protocol } from './protocol.ts';

/** Anything but a plain text part needs the full parse. */
const NEEDS_FULL_PARSE =
  /"(?:finishReason|thought|functionCall|error|promptFeedback|executableCode|codeExecutionResult|inlineData|fileData)"/;
const SINGLE_TEXT_PART = /"parts":\s*\[\{"text":\s*"/;

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
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      auth,
      {
        contents: [{ role: 'user', parts: [{ text: prompt }] }],
        generationConfig: { maxOutputTokens: maxTokens },
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /:streamGenerateContent$/, ''),
  // Running usage counts, deferred to the stream's end by the fast path.
  volatiles: ['candidatesTokenCount', 'totalTokenCount', 'thoughtsTokenCount'].map((k) => ({ key: `"${k}":`, kind: 'digits' as const })),
  fastEvent(_event, data, s) {
    if (!wholeObject(data) || NEEDS_FULL_PARSE.test(data)) return false;
    const match = SINGLE_TEXT_PART.exec(data);
    if (match === null) return false;
    const open = match.index + match[0].length - 1;
    const close = stringEnd(data, open);
    if (close === -1 || data.charCodeAt(close + 1) !== RBRACE || data.charCodeAt(close + 2) !== RBRACKET) return false;
    addSlice(s, data, open, close, ANSWER);
    // Every Gemini event repeats the running usage; only the latest counts, so keep a reference
    // and parse it once in settle() unless a fully parsed event supersedes it.
    if (data.indexOf('"usageMetadata"', close) !== -1) s.deferredUsage = data;
    return true;
  },
  settle(s) {
    if (s.deferredUsage === null) return;
    const r = parseEvent(s.deferredUsage, s);
    s.deferredUsage = null;
    if (r && typeof r === 'object') readUsage(r.usageMetadata, s);
  },
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
    if (r.usageMetadata) {
      s.deferredUsage = null;
      readUsage(r.usageMetadata, s);
    }
  },
};

function readUsage(usage: any, s: StreamState): void {
  if (!usage || typeof usage !== 'object') return;
  const out = num(usage.candidatesTokenCount);
  const thoughts = num(usage.thoughtsTokenCount);
  if (out !== null || thoughts !== null) s.outputTokens = (out ?? 0) + (thoughts ?? 0);
  setReasoningTokens(s, thoughts);
  const input = num(usage.promptTokenCount);
  if (input !== null) {
    s.inputTokens = input;
    // Gemini leaves cachedContentTokenCount out when nothing came from its cache: zero, as reported.
    s.cachedTokens = num(usage.cachedContentTokenCount) ?? 0;
  }
}

function readCandidate(candidate: any, s: StreamState): void {
  const parts = candidate?.content?.parts;
  if (Array.isArray(parts)) {
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!part || typeof part !== 'object') continue;
      if (part.thought === true) addReasoning(s, part.text);
      else if (typeof part.text === 'string') addAnswer(s, part.text);
      else if (part.functionCall) addToolArguments(s, safeJson(part.functionCall.args ?? {}));
    }
  }
  if (typeof candidate?.finishReason === 'string') s.finishReason = candidate.finishReason;
}
