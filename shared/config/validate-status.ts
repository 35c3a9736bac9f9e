/** Checks of the status rules and notification channels, in words a user can act on. */
import {
  CHANNEL_TYPES,
  DIGEST_CHANNEL_TYPES,
  NOTIFY_EVENTS,
  specOf,
  type ChannelConfig,
  type NotificationsConfig,
} from '../status/channels.ts';
import { channelChecks } from '../status/channels/base.ts';
import { DEFAULT_STATUS_RULES, type StatusRulesConfig } from '../status/rules.ts';
import { windowProblems } from '../status/maintenance.ts';

const inRange = (v: unknown, min: number, max: number, int = true) =>
  typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max && (!int || Number.isInteger(v));

export function statusProblems(s: StatusRulesConfig | undefined): string[] {
  const p: string[] = [];
  if (s === undefined) return p;
  // [rule path, value, min, max, whole number?]
  const bounds: Array<[string, unknown, number, number, boolean]> = [
    ['ttft.ratio', s.ttft?.ratio, 1.01, 100, false],
    ['ttft.windowMinutes', s.ttft?.windowMinutes, 1, 1_440, true],
    ['ttft.minSamples', s.ttft?.minSamples, 3, 10_000, true],
    ['itl.thresholdMs', s.itl?.thresholdMs, 1, 60_000, false],
    ['itl.sustainMinutes', s.itl?.sustainMinutes, 1, 1_440, true],
    ['itl.minSamples', s.itl?.minSamples, 1, 10_000, true],
    ['decode.dropRatio', s.decode?.dropRatio, 0.01, 0.99, false],
    ['decode.windowMinutes', s.decode?.windowMinutes, 1, 1_440, true],
    ['decode.minSamples', s.decode?.minSamples, 6, 10_000, true],
    ['errors.rate', s.errors?.rate, 0, 0.99, false],
    ['errors.windowMinutes', s.errors?.windowMinutes, 1, 1_440, true],
    ['errors.minSamples', s.errors?.minSamples, 1, 10_000, true],
    ['downAfterFailures', s.downAfterFailures, 1, 100, true],
    ['recoverAfter', s.recoverAfter, 1, 100, true],
    ['baselineMinSamples', s.baselineMinSamples, 1, 100_000, true],
  ];
  for (const [path, v, min, max, int] of bounds) {
    if (v !== undefined && !inRange(v, min, max, int))
      p.push(`status.${path} must be ${int ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  for (const key of Object.keys(s))
    if (!(key in DEFAULT_STATUS_RULES)) p.push(`status.${key} is not a rule; known: ${Object.keys(DEFAULT_STATUS_RULES).join(', ')}`);
  return p;
}

/** What a channel may be routed to: the configuration's target ids and region codes. */
export interface RoutingScope {
  targets: string[];
  regions: string[];
}

function routingProblems(where: string, field: 'targets' | 'regions', v: unknown, known: string[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string'))
    return [`${where}: ${field} must be a non-empty list of ${field === 'targets' ? 'target ids' : 'region codes'} (or left out for all)`];
  const unknown = v.filter((x) => !known.includes(x));
  return unknown.length === 0
    ? []
    : [
        `${where}: ${field} ${unknown.map((x) => `"${x}"`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not configured; known: ${known.join(', ')}`,
      ];
}

function channelProblems(c: ChannelConfig, scope: RoutingScope): string[] {
  const where = `notifications channel "${c.name}"`;
  const p: string[] = [];
  if (!/^[a-z0-9][a-z0-9._-]{0,62}$/.test(c.name ?? '')) p.push(`${where}: name must be lower-case letters, digits, ".", "_" or "-"`);
  const spec = specOf(c.type);
  if (!spec) return [...p, `${where}: type "${(c as { type: string }).type}" is not one of ${CHANNEL_TYPES.join(', ')}`];
  for (const e of c.events ?? [])
    if (!(NOTIFY_EVENTS as readonly string[]).includes(e)) p.push(`${where}: event "${e}" is not one of ${NOTIFY_EVENTS.join(', ')}`);
  p.push(...routingProblems(where, 'targets', c.targets, scope.targets), ...routingProblems(where, 'regions', c.regions, scope.regions));
  if (c.digest !== undefined && typeof c.digest !== 'boolean') p.push(`${where}: digest must be true or false`);
  if (c.digest === true && !(DIGEST_CHANNEL_TYPES as readonly string[]).includes(c.type))
    p.push(`${where}: digest is for ${DIGEST_CHANNEL_TYPES.join(', ')} channels, not ${c.type}`);
  p.push(...spec.validate(c, channelChecks(where)));
  return p;
}

export function notificationProblems(n: NotificationsConfig | undefined, scope: RoutingScope): string[] {
  if (n === undefined) return [];
  const p: string[] = [];
  if (!Array.isArray(n.channels)) return ['notifications.channels must be a list of channels'];
  for (const c of n.channels) p.push(...channelProblems(c, scope));
  if (n.siteUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(n.siteUrl))
    p.push(`notifications.siteUrl must be the report site's http(s) URL, like https://status.example.com, got "${n.siteUrl}"`);
  const names = n.channels.map((c) => c.name);
  for (const d of names.filter((v, i) => names.indexOf(v) !== i)) p.push(`notifications channel "${d}" is listed twice`);
  if (n.reminderMinutes !== undefined && !inRange(n.reminderMinutes, 0, 10_080))
    p.push('notifications.reminderMinutes must be a whole number of minutes from 0 (no reminders) to 10080');
  return p;
}

/** The configuration's maintenance windows (shared/status/maintenance.ts), each checked as the admin API checks one. */
export function maintenanceProblems(list: unknown, scope: RoutingScope): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) return ['maintenance must be a list of windows: { target?, region?, start, end, note }'];
  return list.flatMap((w, i) =>
    w && typeof w === 'object'
      ? windowProblems(w, scope, `maintenance[${i}]`)
      : [`maintenance[${i}] must be { target?, region?, start, end, note }`],
  );
}
