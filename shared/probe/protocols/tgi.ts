import { addAnswer, setStreamError, num } from '../stream-state.ts';
import { bearer, describeError, jsonRequest, parseEvent, siblingUrl, type Protocol } from './protocol.ts';

/** Text Generation Inference native `generate_stream`: SSE `data:` tokens, details on the last; no end marker. */
export const tgiGenerate: Protocol = {
  api: 'tgi-generate',
  framing: 'sse',
  endMarkerRequired: false,
  contentTypes: ['text/event-stream'],
  defaultPath: '/generate_stream',
  buildRequest({ target, prompt, maxTokens }) {
    const url = new URL(target.url);
    if (url.pathname === '/' || url.pathname === '') url.pathname = this.defaultPath;
    return jsonRequest(
      url.toString(),
      bearer(target.apiKey),
      {
        inputs: prompt,
        parameters: { max_new_tokens: maxTokens, details: true },
        stream: true,
      },
      target,
    );
  },
  rttUrl: (url) => siblingUrl(url, /\/generate_stream$/, '/health'),
  onEvent(_event, data, s) {
    const e = parseEvent(data, s);
    if (!e || typeof e !== 'object') return;
    if (e.error) {
      setStreamError(s, describeError(e));
      return;
    }
    if (e.token && e.token.special !== true) addAnswer(s, e.token.text);
    const details = e.details;
    if (details && typeof details === 'object') {
      if (typeof details.finish_reason === 'string') s.finishReason = details.finish_reason;
      const generated = num(details.generated_tokens);
      if (generated !== null) s.outputTokens = generated;
    }
  },
};
