import type { ChannelBase, ChannelSpec } from './base.ts';

/** Telegram Bot API sendMessage. */
export interface TelegramChannel extends ChannelBase {
  type: 'telegram';
  botTokenSecret: string;
  chatId: string;
  apiBase?: string;
}

export const telegram: ChannelSpec<TelegramChannel> = {
  kind: 'telegram',
  secrets: (c) => [c.botTokenSecret],
  varText: (c) => c.apiBase ?? '',
  validate(c, check) {
    const p = check.secret('botTokenSecret', c.botTokenSecret, true);
    if (typeof c.chatId !== 'string' || c.chatId === '')
      p.push(`${check.where}: chatId is required (a chat id such as "-1001234567890" or "@channel")`);
    if (c.apiBase !== undefined && !/^(https?:\/\/|\{[A-Z][A-Z0-9_]*\})\S*$/.test(c.apiBase))
      p.push(`${check.where}: apiBase must be an http(s) URL (or {VAR})`);
    return p;
  },
};
