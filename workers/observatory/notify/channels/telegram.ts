/** Telegram's Bot API sendMessage; delivered only once Telegram's answer says `"ok": true`. */
import type { TelegramChannel } from '../../../../shared/status/channels/telegram.ts';
import { DeliveryError } from '../delivery-error.ts';
import { expand, jsonRequest, secret, type Sender } from './sender.ts';

const TELEGRAM_API = 'https://api.telegram.org';

export const telegram: Sender<TelegramChannel> = {
  kind: 'telegram',
  request: (c, m, env) =>
    jsonRequest(m, `${expand(c.apiBase ?? TELEGRAM_API, env).replace(/\/$/, '')}/bot${secret(env, c.botTokenSecret)}/sendMessage`, {
      chat_id: c.chatId,
      text: m.text,
      disable_web_page_preview: true,
    }),
  check(status, text, reply) {
    if (status >= 200 && status < 300 && !/"ok"\s*:\s*true/.test(text))
      throw new DeliveryError('not_confirmed', `Telegram did not confirm: ${reply(120)}`, status);
  },
};
