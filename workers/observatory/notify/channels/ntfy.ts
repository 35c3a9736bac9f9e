/** An ntfy topic: the title as a header (RFC 2047 when not ASCII), priority and tags by severity, the text as the body. */
import { bytesToBase64 } from '../../../../shared/base64.ts';
import type { NtfyChannel } from '../../../../shared/status/channels/ntfy.ts';
import { DELIVERY_HEADER } from '../delivery-error.ts';
import { secret, urlOf, type Sender } from './sender.ts';

export const ntfy: Sender<NtfyChannel> = {
  kind: 'ntfy',
  request(c, m, env) {
    const headers: Record<string, string> = {
      title:
        encodeURIComponent(m.title).length === m.title.length ? m.title : `=?UTF-8?B?${bytesToBase64(new TextEncoder().encode(m.title))}?=`,
      priority: m.sent_for === 'resolved' ? '3' : m.event.severity === 'down' ? '5' : '4',
      tags: m.sent_for === 'resolved' ? 'white_check_mark' : 'rotating_light',
      [DELIVERY_HEADER]: m.delivery_id,
    };
    if (c.tokenSecret) headers.authorization = `Bearer ${secret(env, c.tokenSecret)}`;
    return new Request(urlOf(c, env), { method: 'POST', headers, body: m.text.split('\n').slice(1).join('\n') });
  },
};
