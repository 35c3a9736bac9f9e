import { addAnswer, addReasoning, addToolArguments, setServerTtft, setStreamError, num } from '../stream-state.ts';
import { ANSWER, REASONING, addSlice, stringAfter, stringEnd, RBRACE, wholeObject } from './fast-path.ts';
import { describeError, jsonRequest, parseEvent, resolveEndpoint, safeJson, siblingUrl, type Protocol } from './protocol.ts';

const NS_PER_MS = 1e6;

/** Ollama `/api/chat` (and `/api/generate`): NDJSON lines, the last with `done: true` and durations in ns. */
export const ollama: Protocol = {
  api: 'ollama',
  framing: 'ndjson',
  endMarkerRequired: true,
  contentTypes: ['application/x-ndjson', 'application/json'],
  defaultPath: '/api/chat',
  buildRequest({ target, prompt, maxTokens }) {
    const auth: Record<string, string> = target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
    return jsonRequest(
      resolveEndpoint(target.url, this.defaultPath, target.model),
      auth,
      {
        model: target.model,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
        options: { num_predict: maxTokens },
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/api\/(chat|generate)$/, '/api/version'),
  volatiles: [{ key: '"created_at":', kind: 'plain' }],
  fastEvent(_event, data, s) {
    if (!data.endsWith(',"done":false}') || !wholeObject(data)) return false;
    const open = stringAfter(data, '"message":{"role":"assistant","content":"');
    const close = open === -1 ? -1 : stringEnd(data, open);
    if (close === -1) return false;
    if (data.charCodeAt(close + 1) === RBRACE) {
      addSlice(s, data, open, close, ANSWER);
      return true;
    }
    if (close !== open + 1) return false;
    const thinkOpen = close + 1 + ',"thinking":"'.length - 1;
    if (!data.startsWith(',"thinking":"', close + 1)) return false;
    const thinkClose = stringEnd(data, thinkOpen);
    if (thinkClose === -1 || data.charCodeAt(thinkClose + 1) !== RBRACE) return false;
    addSlice(s, data, thinkOpen, thinkClose, REASONING);
    return true;
  },
  onEvent(_event, data, s) {
    const line = parseEvent(data, s);
    if (!line || typeof line !== 'object') return;
    if (line.error) {
      setStreamError(s, describeError(line.error));
      return;
    }
    const message = line.message;
    if (message && typeof message === 'object') {
      addReasoning(s, message.thinking);
      addAnswer(s, message.content);
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) addToolArguments(s, safeJson(call?.function?.arguments ?? {}));
      }
    } else {
      addReasoning(s, line.thinking);
      addAnswer(s, line.response);
    }
    if (line.done === true) {
      s.endMarker = true;
      s.finishReason = line.done_reason ?? 'stop';
      s.outputTokens = num(line.eval_count);
      s.inputTokens = num(line.prompt_eval_count);
      const prompt = num(line.prompt_eval_duration);
      if (prompt !== null) setServerTtft(s, (prompt + (num(line.load_duration) ?? 0)) / NS_PER_MS, 'ollama');
    }
  },
};
