/** Email through Cloudflare's send_email binding: the message as a plain-text RFC 5322 email. */
import { bytesToBase64 } from '../../../../shared/base64.ts';
import type { EmailChannel } from '../../../../shared/status/channels/email.ts';
import type { NotificationMessage } from '../../../../shared/status/messages.ts';
import { DeliveryError } from '../delivery-error.ts';
import type { Sender } from './sender.ts';

/** The raw RFC 5322 message for the send_email binding. */
export function emailSource(from: string, to: string, m: NotificationMessage, now: number): string {
  const subject = `=?UTF-8?B?${bytesToBase64(new TextEncoder().encode(m.title))}?=`;
  return [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${subject}`,
    `Date: ${new Date(now).toUTCString()}`,
    `Message-ID: <${m.delivery_id.replace(/[^A-Za-z0-9.-]/g, '.')}@llm-observatory>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    m.text,
    '',
  ].join('\r\n');
}

interface EmailBinding {
  send(message: unknown): Promise<void>;
}

export const email: Sender<EmailChannel> = {
  kind: 'email',
  async send(c, m, env, now) {
    const binding = env[c.binding] as EmailBinding | undefined;
    if (!binding || typeof binding.send !== 'function')
      throw new DeliveryError('not_configured', `send_email binding ${c.binding} is not configured in wrangler.toml`);
    const { EmailMessage } = await import('cloudflare:email');
    try {
      await binding.send(new EmailMessage(c.from, c.to, emailSource(c.from, c.to, m, now)));
    } catch (e) {
      throw new DeliveryError('send_email', `send_email: ${e instanceof Error ? e.message : String(e)}`);
    }
    return 0;
  },
};
