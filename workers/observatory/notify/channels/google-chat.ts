/** A Google Chat space webhook: an incident's messages reply in one thread (its id as the threadKey). */
import type { GoogleChatChannel } from '../../../../shared/status/channels/google-chat.ts';
import { jsonRequest, urlOf, type Sender } from './sender.ts';

const GOOGLE_CHAT_MAX = 4_096;

export const googleChat: Sender<GoogleChatChannel> = {
  kind: 'google-chat',
  request(c, m, env) {
    // The webhook URL carries its key and token; the thread is named in the body (Google Chat's threadKey).
    const url = urlOf(c, env);
    return jsonRequest(m, `${url}${url.includes('?') ? '&' : '?'}messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD`, {
      text: m.text.slice(0, GOOGLE_CHAT_MAX),
      thread: { threadKey: m.incident.id },
    });
  },
};
