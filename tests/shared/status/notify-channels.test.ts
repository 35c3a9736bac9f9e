/**
 * What a notification says and who gets it: every message names the target, the prompt variant, the
 * region and the rule with its numbers; a channel gets only the events, targets and regions it is
 * routed; the configuration check names what is wrong with a channel, and the secrets it needs.
 */
import { describe, expect, it } from 'vitest';
import { buildMessage, ruleWords } from '../../../shared/status/messages.ts';
import { channelSecrets, routesTo, type ChannelConfig } from '../../../shared/status/channels.ts';
import { validateConfig, ConfigError } from '../../../shared/config/validate.ts';
import { config as demo } from '../../../observatory.config.ts';
import { DOWN_FIRED, ERRORS_FIRED, TTFT_FIRED, escalated, opened, resolved } from '../../helpers/incident-fixture.ts';

const names = (variantLabel: string) => ({ targetLabel: 'Reference · slow large model', variantLabel });

describe('notification messages', () => {
  it('word each fired rule for a person, with its numbers', () => {
    expect(ruleWords(ERRORS_FIRED)).toBe('error rate 60 % of 15 probes (limit 40 %)');
    expect(ruleWords(TTFT_FIRED)).toBe('p99 TTFT 2.9 s against a baseline of 1.1 s (15 probes)');
    expect(ruleWords(DOWN_FIRED)).toBe('the last 3 probes failed (HTTP 503)');
    expect(ruleWords({ ...TTFT_FIRED, rule: 'itl', value: 180, threshold: 100 })).toBe(
      'ITL p99 above 100 ms in all of 15 probes (the lowest 180 ms)',
    );
    expect(ruleWords({ ...TTFT_FIRED, rule: 'decode', estimate: 41.5, baseline: 80 })).toBe(
      'decode speed p50 41.5 tokens/s against a baseline of 80.0 tokens/s (15 probes)',
    );
  });

  it('name the target, the prompt variant, the region and the rule: two variants of one outage read differently', () => {
    const chat = escalated(opened('slow-large', 'chat', ['apac'], [TTFT_FIRED]));
    const code = escalated(opened('slow-large', 'code', ['apac'], [TTFT_FIRED]));
    const a = buildMessage('escalated', chat.incident, chat.event, names('Chat: 200-token prompt, 64 tokens out'), 'a');
    const b = buildMessage('escalated', code.incident, code.event, names('Code completion: 1,000 tokens of context, 24 out'), 'b');
    expect(a.title).toBe('🟠 Incident escalated: Reference · slow large model, chat prompt — down in apac');
    expect(b.title).toBe('🟠 Incident escalated: Reference · slow large model, code prompt — down in apac');
    expect(a.text.split('\n').slice(0, 3)).toEqual([
      a.title,
      'Reference · slow large model · prompt variant Chat: 200-token prompt, 64 tokens out',
      'apac down: the last 3 probes failed (HTTP 503); error rate 60 % of 15 probes (limit 40 %)',
    ]);
    expect(a.facts).toEqual({
      target: 'Reference · slow large model',
      variant: 'Chat: 200-token prompt, 64 tokens out',
      regions: 'apac',
      rule: 'the last 3 probes failed (HTTP 503); error rate 60 % of 15 probes (limit 40 %)',
      level: 'down',
      since: '2026-01-05 10:00 UTC',
    });
    expect(a.incident).toMatchObject({ prompt_variant: 'chat', prompt_variant_label: 'Chat: 200-token prompt, 64 tokens out' });
    expect(a.link).toBeNull();
  });

  it('say where a slowdown is, which part moved, and link the incident when the site is known', () => {
    const s = opened('slow-large', 'chat', ['apac', 'enam'], [TTFT_FIRED]);
    s.event.regions[0].shift = { network_delta_ms: 3, server_delta_ms: 1_800, moved: 'server' };
    const m = buildMessage('opened', s.incident, s.event, { ...names('Chat'), siteUrl: 'https://status.example.com/' }, 'd');
    expect(m.title).toBe('🔴 Incident opened: Reference · slow large model, chat prompt — degraded in apac, enam');
    expect(m.text).toContain('apac degraded: p99 TTFT 2.9 s against a baseline of 1.1 s (15 probes); the server got slower');
    expect(m.text).toContain('enam degraded: p99 TTFT 2.9 s against a baseline of 1.1 s (15 probes)\n');
    expect(m.facts.rule).toBe(
      'apac: p99 TTFT 2.9 s against a baseline of 1.1 s (15 probes); the server got slower · enam: p99 TTFT 2.9 s against a baseline of 1.1 s (15 probes)',
    );
    expect(m.link).toBe(`https://status.example.com/incidents/#${s.incident.id}`);
    expect(m.text.split('\n').at(-1)).toBe(`Incident ${s.incident.id}: ${m.link}`);
  });

  it('a resolution names what was wrong and for how long', () => {
    const r = resolved(escalated(opened('slow-large', 'code', ['apac'], [ERRORS_FIRED])));
    const m = buildMessage('resolved', r.incident, r.event, names('Code'), 'r');
    expect(m.title).toBe('✅ Incident resolved: Reference · slow large model, code prompt — operational again in apac');
    expect(m.text).toContain('Every region operational again; it was down in apac (error rate, failing probes).');
    expect(m.text).toContain('Open from 2026-01-05 10:00 UTC to 2026-01-05 10:40 UTC.');
    expect(m.facts).toMatchObject({ level: 'operational (was down)', rule: 'none firing now (it fired: error rate, failing probes)' });
  });
});

describe('routing a message to a channel', () => {
  const incident = { target: 'slow-large', regions: ['apac'] };
  const slack = { name: 's', type: 'slack', urlSecret: 'S' } as const;
  const pd = { name: 'pd', type: 'pagerduty', routingKeySecret: 'PD' } as const;
  const cases: Array<[string, ChannelConfig, Parameters<typeof routesTo>[1], boolean]> = [
    ['every event, target and region by default', slack, 'reminder', true],
    ['its target', { ...slack, targets: ['slow-large', 'fast-small'] }, 'opened', true],
    ['not another target', { ...slack, targets: ['fast-small'] }, 'opened', false],
    ['its region', { ...slack, regions: ['weur', 'apac'] }, 'resolved', true],
    ['not another region', { ...slack, regions: ['weur'] }, 'resolved', false],
    ['not an event it does not name', { ...slack, events: ['opened', 'resolved'] }, 'escalated', false],
    ['PagerDuty: opened', pd, 'opened', true],
    ['PagerDuty: no reminder (it re-alerts by itself)', pd, 'reminder', false],
  ];
  for (const [what, channel, kind, expected] of cases) it(what, () => expect(routesTo(channel, kind, incident)).toBe(expected));
});

describe('the new channels in the configuration', () => {
  const problems = (channels: unknown[], extra: object = {}): string[] => {
    try {
      validateConfig({ ...demo, notifications: { channels: channels as ChannelConfig[], ...extra } });
      return [];
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      return e.problems;
    }
  };

  it('accept PagerDuty, Teams and Google Chat, routed to known targets and regions', () => {
    expect(
      problems(
        [
          {
            name: 'pager',
            type: 'pagerduty',
            routingKeySecret: 'PAGERDUTY_ROUTING_KEY',
            targets: ['reference-slow-large'],
            regions: ['apac'],
          },
          { name: 'team', type: 'teams', urlSecret: 'TEAMS_WORKFLOW_URL', events: ['opened', 'resolved'] },
          { name: 'chat', type: 'google-chat', urlSecret: 'GOOGLE_CHAT_URL' },
        ],
        { siteUrl: 'https://status.example.com' },
      ),
    ).toEqual([]);
  });

  it('name unknown targets and regions, with the known ones', () => {
    const targets = demo.targets.map((t) => t.id).join(', ');
    expect(
      problems([{ name: 'hook', type: 'slack', urlSecret: 'S', targets: ['reference-slow-large', 'gpt-5', 'claude'], regions: ['mars'] }]),
    ).toEqual([
      `notifications channel "hook": targets "gpt-5", "claude" are not configured; known: ${targets}`,
      'notifications channel "hook": regions "mars" is not configured; known: weur, enam, apac',
    ]);
    expect(problems([{ name: 'hook', type: 'slack', urlSecret: 'S', targets: [] }])).toEqual([
      'notifications channel "hook": targets must be a non-empty list of target ids (or left out for all)',
    ]);
  });

  it('say what each new channel is missing', () => {
    expect(
      problems(
        [
          { name: 'pager', type: 'pagerduty' },
          { name: 'pager2', type: 'pagerduty', routingKeySecret: 'PD_KEY', url: 'events.pagerduty.com', events: ['opened', 'reminder'] },
          { name: 'team', type: 'teams' },
          { name: 'chat', type: 'google-chat', urlSecret: 'https://chat.googleapis.com/v1/spaces/A/messages?key=k' },
        ],
        { siteUrl: 'status.example.com' },
      ),
    ).toEqual([
      'notifications channel "pager": routingKeySecret is required (the name of a Worker secret)',
      'notifications channel "pager2": url "events.pagerduty.com" is not a URL (or {VAR})',
      'notifications channel "pager2": PagerDuty re-alerts by itself while an alert is open; it takes no "reminder" (events: opened, escalated, resolved)',
      'notifications channel "team": give url (or {VAR}) or urlSecret, exactly one',
      'notifications channel "chat": urlSecret must name a Worker secret in UPPER_SNAKE_CASE, got "https://chat.googleapis.com/v1/spaces/A/messages?key=k"',
      'notifications.siteUrl must be the report site\'s http(s) URL, like https://status.example.com, got "status.example.com"',
    ]);
  });

  it('list the secrets and variables each new channel needs', () => {
    expect(channelSecrets({ name: 'p', type: 'pagerduty', routingKeySecret: 'PD_KEY', url: '{PD_URL}/v2/enqueue' })).toEqual({
      secrets: ['PD_KEY'],
      vars: ['PD_URL'],
    });
    expect(channelSecrets({ name: 't', type: 'teams', urlSecret: 'TEAMS_URL' })).toEqual({ secrets: ['TEAMS_URL'], vars: [] });
    expect(channelSecrets({ name: 'g', type: 'google-chat', urlSecret: 'CHAT_URL' })).toEqual({ secrets: ['CHAT_URL'], vars: [] });
  });
});

describe('the channel registry', () => {
  it('lists every channel file once, under the kind its file is named for', async () => {
    const { readdirSync } = await import('node:fs');
    const { CHANNEL_SPECS } = await import('../../../shared/status/channels/index.ts');
    const dir = new URL('../../../shared/status/channels/', import.meta.url);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'base.ts' && f !== 'index.ts')
      .map((f) => f.slice(0, -3));
    expect(CHANNEL_SPECS.map((s) => s.kind).sort()).toEqual(files.sort());
    for (const file of files) {
      const exported = Object.values(await import(`../../../shared/status/channels/${file}.ts`)) as Array<{ kind?: string }>;
      expect(exported.filter((e) => e?.kind !== undefined).map((e) => e.kind)).toEqual([file]);
    }
  });
});
