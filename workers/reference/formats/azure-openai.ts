/**
 * Azure OpenAI chat completions streaming: OpenAI's chunks (openai-chat.ts) with Azure's content
 * filter results, from Azure's REST reference:
 *   a first chunk with `choices: []` and `prompt_filter_results` (the prompt, index 0);
 *   the role and finish chunks with `content_filter_results: {}`;
 *   content chunks with the results of the text filtered so far, which Azure's streaming filter
 *   attaches to one chunk of each batch it checks (the others carry `{}`);
 *   after the finish chunk, a chunk with an empty delta and the last batch's results only;
 *   then usage and `data: [DONE]`, as OpenAI.
 * The filter-only chunks have Azure's empty id, object and model and created 0. Errors Azure itself
 * answers (401, 403, 404, 408, 429) are {error: {code: "<status>", message}}; the rest as OpenAI.
 */
import type { StreamContext, StreamFormat } from './format.ts';
import { chatCompletionsFormat } from './openai-chat.ts';

/** One content chunk in this many carries the filter's results (a batch of text checked), the rest `{}`. */
export const FILTER_BATCH_CHUNKS = 4;

const SAFE = { filtered: false, severity: 'safe' };
/** What Azure's default filter reports for harmless text: every category safe. */
export const COMPLETION_FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
/** For the prompt also the jailbreak check (Prompt Shields), not detected. */
export const PROMPT_FILTER_RESULTS = { ...COMPLETION_FILTER_RESULTS, jailbreak: { filtered: false, detected: false } };

const AZURE_ERROR_STATUSES = new Set([401, 403, 404, 408, 429]);

const filterOnly = (choices: object[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ choices, created: 0, id: '', model: '', object: '', ...extra })}\n\n`;

const chat = chatCompletionsFormat({
  leading: () => filterOnly([], { prompt_filter_results: [{ prompt_index: 0, content_filter_results: PROMPT_FILTER_RESULTS }] }),
  choiceFields(c: StreamContext, kind) {
    if (kind !== 'content') return { content_filter_results: {} };
    const n = Number(c.state.contentChunks ?? 0);
    c.state.contentChunks = n + 1;
    return { content_filter_results: n % FILTER_BATCH_CHUNKS === 0 ? COMPLETION_FILTER_RESULTS : {} };
  },
  trailing: () => filterOnly([{ index: 0, delta: {}, finish_reason: null, content_filter_results: COMPLETION_FILTER_RESULTS }]),
});

export const azureOpenaiFormat: StreamFormat = {
  ...chat,
  httpError: (status, message) =>
    AZURE_ERROR_STATUSES.has(status) ? JSON.stringify({ error: { code: String(status), message } }) : chat.httpError(status, message),
  nonStreamed(c, text, usage, elapsedMs) {
    const completion = JSON.parse(chat.nonStreamed(c, text, usage, elapsedMs));
    completion.prompt_filter_results = [{ prompt_index: 0, content_filter_results: PROMPT_FILTER_RESULTS }];
    completion.choices[0].content_filter_results = COMPLETION_FILTER_RESULTS;
    return JSON.stringify(completion);
  },
};
