/** A Slack incoming webhook: the message's text. */
import type { SlackChannel } from '../../../../shared/status/channels/slack.ts';
import { jsonRequest, urlOf, type Sender } from './sender.ts';

export const slack: Sender<SlackChannel> = {
  kind: 'slack',
  request: (c, m, env) => jsonRequest(m, urlOf(c, env), { text: m.text }),
};
