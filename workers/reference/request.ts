import type { StreamFormat, Wire } from './formats/format.ts';
import { readReasoningControl } from './reasoning-controls.ts';
import type { ReasoningControl } from './reasoning-tokens.ts';
import { RequestError } from './request-error.ts';

export { RequestError };

/** What the endpoint needs from any of its request shapes. */
export interface ParsedRequest {
  model: string;
  promptText: string;
  maxTokens: number | null;
  stream: boolean;
  includeUsage: boolean;
  /** The request's reasoning effort or thinking budget, if it set one. */
  reasoning: ReasoningControl;
  /** The text its prompt cache may hold (prefix-cache.ts): all of it, or up to the breakpoint the format marks ('' for none). */
  cacheable: string;
}

/** Rough tokenizer: about four characters a token, the usual rule of thumb for English text. */
export const CHARS_PER_TOKEN = 4;
export const DEFAULT_MAX_TOKENS = 256;

export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / CHARS_PER_TOKEN));
}

/** Reads at most `limit` bytes; a larger body is a 413 whatever its content-length says. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new RequestError(413, `request body larger than ${limit} bytes`);
  if (!request.body) throw new RequestError(400, 'request body is required');
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new RequestError(413, `request body larger than ${limit} bytes`);
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const p of parts) {
    bytes.set(p, offset);
    offset += p.byteLength;
  }
  return bytes;
}

/** The body as a JSON object, or a 400. */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  try {
    const body = JSON.parse(new TextDecoder().decode(bytes));
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    return body as Record<string, unknown>;
  } catch {
    throw new RequestError(400, 'request body must be a JSON object');
  }
}

/** All text of a messages array, whatever shape each content takes. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    return textOf(v.content ?? v.text ?? v.parts ?? '');
  }
  return '';
}

/**
 * The text of the content blocks up to the last marked breakpoint, in order (system first): Anthropic's
 * blocks with `cache_control` (the block itself cached), Bedrock's `cachePoint` blocks (what precedes them).
 */
function textBeforeBreakpoint(parts: unknown[], marks: (block: Record<string, unknown>) => 'after' | 'before' | null): string {
  const blocks: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (Array.isArray(o.content)) walk(o.content);
      else blocks.push(o);
    }
  };
  parts.forEach(walk);
  let end = -1;
  blocks.forEach((b, i) => {
    const mark = marks(b);
    if (mark === 'after') end = i + 1;
    else if (mark === 'before') end = i;
  });
  return end < 0
    ? ''
    : blocks
        .slice(0, end)
        .map((b) => (typeof b.text === 'string' ? b.text : ''))
        .join('');
}

function optionalInt(body: Record<string, unknown>, ...names: string[]): number | null {
  for (const name of names) {
    const v = body[name];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new RequestError(400, `${name} must be a positive integer`);
    return v;
  }
  return null;
}

function requireModel(body: Record<string, unknown>): string {
  if (typeof body.model !== 'string' || body.model === '') throw new RequestError(400, 'model is required');
  return body.model;
}

function requireMessages(body: Record<string, unknown>): unknown[] {
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new RequestError(400, 'messages must be a non-empty array');
  return body.messages;
}

export const parseRequest = {
  openaiChat(body: Record<string, unknown>): ParsedRequest {
    const options = body.stream_options as { include_usage?: unknown } | undefined;
    return {
      model: requireModel(body),
      promptText: textOf(requireMessages(body)),
      maxTokens: optionalInt(body, 'max_completion_tokens', 'max_tokens'),
      stream: body.stream === true,
      includeUsage: options?.include_usage === true,
      reasoning: readReasoningControl.openaiChat(body),
      cacheable: textOf(body.messages),
    };
  },
  openaiResponses(body: Record<string, unknown>): ParsedRequest {
    if (body.input === undefined) throw new RequestError(400, 'input is required');
    return {
      model: requireModel(body),
      promptText: textOf(body.input),
      maxTokens: optionalInt(body, 'max_output_tokens'),
      stream: body.stream === true,
      includeUsage: true,
      reasoning: readReasoningControl.openaiResponses(body),
      cacheable: textOf(body.input),
    };
  },
  anthropic(body: Record<string, unknown>): ParsedRequest {
    const maxTokens = optionalInt(body, 'max_tokens');
    if (maxTokens === null) throw new RequestError(400, 'max_tokens is required');
    return {
      model: requireModel(body),
      promptText: textOf(body.system ?? '') + textOf(requireMessages(body)),
      maxTokens,
      stream: body.stream === true,
      includeUsage: true,
      reasoning: readReasoningControl.anthropic(body, maxTokens),
      cacheable: textBeforeBreakpoint([body.system ?? [], body.messages], (b) => (b.cache_control ? 'after' : null)),
    };
  },
  /**
   * Bedrock Converse(Stream): the model is in the path; `messages[].content[].text`, `system[].text`,
   * `inferenceConfig.maxTokens`, and a thinking budget in `additionalModelRequestFields`.
   */
  bedrockConverse(body: Record<string, unknown>, modelId: string): ParsedRequest {
    const config = body.inferenceConfig ?? {};
    if (typeof config !== 'object' || config === null || Array.isArray(config))
      throw new RequestError(400, 'inferenceConfig must be an object');
    const maxTokens = optionalInt(config as Record<string, unknown>, 'maxTokens');
    return {
      model: modelId,
      promptText: textOf(body.system ?? '') + textOf(requireMessages(body)),
      maxTokens,
      stream: true,
      includeUsage: true,
      reasoning: readReasoningControl.bedrock(body.additionalModelRequestFields, maxTokens ?? DEFAULT_MAX_TOKENS),
      cacheable: textBeforeBreakpoint([body.system ?? [], body.messages], (b) => (b.cachePoint ? 'before' : null)),
    };
  },
  gemini(body: Record<string, unknown>, model: string, stream: boolean): ParsedRequest {
    if (!Array.isArray(body.contents) || body.contents.length === 0) throw new RequestError(400, 'contents must be a non-empty array');
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    return {
      model,
      promptText: textOf(body.contents),
      maxTokens: optionalInt(config, 'maxOutputTokens'),
      stream,
      includeUsage: true,
      reasoning: readReasoningControl.gemini(config),
      cacheable: textOf(body.contents),
    };
  },
};

/** A 4xx/5xx in the format's own error shape, with the format's error headers (`headers` override them). */
export function errorResponse(
  format: Pick<StreamFormat<Wire>, 'httpError' | 'httpErrorHeaders'>,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(format.httpError(status, message), {
    status,
    headers: { 'content-type': 'application/json', ...format.httpErrorHeaders?.(status), ...headers },
  });
}
