/** The closed sets of names the measurement contract uses: wire formats and error classes. */

export const API_IDS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini',
  'ollama',
  'cohere-chat',
  'cohere-chat-v1',
  'tgi-generate',
  'bedrock-converse',
  'workers-ai',
] as const;
export type ApiId = (typeof API_IDS)[number];

/** MEASUREMENT.md, "Errors are samples": every failed sample carries exactly one of these. */
export const ERROR_CLASSES = [
  'http',
  'rate_limited',
  'overloaded',
  'timeout_headers',
  'timeout_first_token',
  'no_answer',
  'stall',
  'truncated',
  'protocol',
  'stream_error',
  'network',
  'internal',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];
