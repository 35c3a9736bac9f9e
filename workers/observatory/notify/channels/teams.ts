/** A Microsoft Teams Workflows webhook: one Adaptive Card with the title, the facts and a link to the incident. */
import type { TeamsChannel } from '../../../../shared/status/channels/teams.ts';
import { FACT_TITLES, type MessageFacts, type NotificationMessage } from '../../../../shared/status/messages.ts';
import { jsonRequest, urlOf, type Sender } from './sender.ts';

function teamsCard(m: NotificationMessage): unknown {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: m.title, weight: 'Bolder', size: 'Medium', wrap: true },
            {
              type: 'FactSet',
              facts: Object.entries(m.facts).map(([k, value]) => ({ title: FACT_TITLES[k as keyof MessageFacts], value })),
            },
            { type: 'TextBlock', text: `Incident ${m.incident.id}`, isSubtle: true, size: 'Small', wrap: true },
          ],
          ...(m.link ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the incident', url: m.link }] } : {}),
        },
      },
    ],
  };
}

export const teams: Sender<TeamsChannel> = {
  kind: 'teams',
  request: (c, m, env) => jsonRequest(m, urlOf(c, env), teamsCard(m)),
};
