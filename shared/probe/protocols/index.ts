import type { ApiId } from '../../types.ts';
import type { Protocol } from './protocol.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import { anthropicMessages } from './anthropic-messages.ts';
import { gemini } from './gemini.ts';
import { ollama } from './ollama.ts';
import { cohereChat, cohereChatV1 } from './cohere.ts';
import { tgiGenerate } from './tgi.ts';
import { bedrockConverse } from './bedrock-converse.ts';
import { workersAi } from './workers-ai.ts';

const PROTOCOLS: Record<ApiId, Protocol> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  'anthropic-messages': anthropicMessages,
  gemini,
  ollama,
  'cohere-chat': cohereChat,
  'cohere-chat-v1': cohereChatV1,
  'tgi-generate': tgiGenerate,
  'bedrock-converse': bedrockConverse,
  'workers-ai': workersAi,
};

export function protocolFor(api: ApiId): Protocol {
  const protocol = PROTOCOLS[api];
  if (!protocol) throw new Error(`unknown api "${api}"; expected one of: ${Object.keys(PROTOCOLS).join(', ')}`);
  return protocol;
}

export type { Protocol } from './protocol.ts';
