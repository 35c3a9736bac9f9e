import type { ChannelBase, ChannelSpec } from './base.ts';

/** Email through Cloudflare's send_email binding (Email Routing: `to` must be a verified address). */
export interface EmailChannel extends ChannelBase {
  type: 'email';
  binding: string;
  from: string;
  to: string;
}

export const email: ChannelSpec<EmailChannel> = {
  kind: 'email',
  secrets: () => [],
  varText: () => '',
  validate(c, check) {
    const p: string[] = [];
    if (!/^[A-Z][A-Z0-9_]*$/.test(c.binding ?? ''))
      p.push(`${check.where}: binding must name the send_email binding in wrangler.toml (like EMAIL)`);
    for (const f of ['from', 'to'] as const)
      if (!/^[^@\s]+@[^@\s]+$/.test(c[f] ?? '')) p.push(`${check.where}: ${f} must be an email address`);
    return p;
  },
};
