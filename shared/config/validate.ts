/** Checks a configuration at startup and lists every problem at once, in words a user can act on. */
import { API_IDS, MAX_TOKENS_PARAMS } from '../types.ts';
import { capacity } from './capacity.ts';
import { PLAN_LIMITS } from './plan-limits.ts';
import { tickMinutesOf } from './schedule.ts';
import { LOCATION_HINTS, type ObservatoryConfig, type TargetConfig } from './types.ts';
import { maintenanceProblems, notificationProblems, statusProblems } from './validate-status.ts';
import { statusPageProblems } from './validate-vendor-status.ts';
import { priceProblems } from './validate-price.ts';
import { burstCadence, DEFAULT_BURST_LEVELS, MAX_BURST_LEVEL } from './bursts.ts';
import { warmPassId, withWarmPasses } from './work-list.ts';
import { MIN_CACHED_PROMPT_TOKENS } from '../constants.ts';
import { MAX_SERVER_TIMING_NAME_CHARS, validServerTimingEntry } from '../probe/server-timing.ts';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid observatory configuration:\n  - ${problems.join('\n  - ')}`);
    this.problems = problems;
  }
}

/** A region code, target id or prompt variant id: what the configuration accepts, and so what keys and URLs hold. */
export const ID_PATTERN = '[a-z0-9][a-z0-9._-]{0,62}';
const ID = new RegExp(`^${ID_PATTERN}$`);
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
/** The largest prompt a variant may ask for: its request, about 750 KB, fits the reference endpoint's MAX_BODY_BYTES. */
export const MAX_PROMPT_TOKENS = 200_000;
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'proxy-authorization', 'cookie'];

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

function duplicates(values: string[]): string[] {
  return values.filter((v, i) => values.indexOf(v) !== i);
}

export function validateConfig(config: ObservatoryConfig): ObservatoryConfig {
  const p: string[] = [];
  if (tickMinutesOf(config.schedule) === null)
    p.push(`schedule "${config.schedule}" must look like "*/5 * * * *" (every N minutes, N dividing 60) or "0 * * * *"`);
  if (config.plan !== 'free' && config.plan !== 'paid') p.push(`plan must be "free" or "paid", got "${config.plan}"`);

  const regionCodes = (config.regions ?? []).map((r) => r.code);
  if (regionCodes.length === 0) p.push('regions: at least one region is needed');
  for (const r of config.regions ?? []) {
    if (!ID.test(r.code ?? '')) p.push(`region "${r.code}": code must be lower-case letters, digits, ".", "_" or "-"`);
    if (!(LOCATION_HINTS as readonly string[]).includes(r.locationHint))
      p.push(`region "${r.code}": locationHint "${r.locationHint}" is not one of ${LOCATION_HINTS.join(', ')}`);
    if (r.simulatedRttMs !== undefined && !isInt(r.simulatedRttMs, 0, 2_000))
      p.push(`region "${r.code}": simulatedRttMs must be a whole number of ms from 0 to 2000`);
  }
  for (const d of duplicates(regionCodes)) p.push(`region "${d}" is listed twice`);

  const variantIds = (config.promptVariants ?? []).map((v) => v.id);
  if (variantIds.length === 0) p.push('promptVariants: at least one prompt variant is needed');
  for (const v of config.promptVariants ?? []) {
    if (!ID.test(v.id ?? '')) p.push(`prompt variant "${v.id}": id must be lower-case letters, digits, ".", "_" or "-"`);
    if (!isInt(v.promptTokens, 1, MAX_PROMPT_TOKENS))
      p.push(`prompt variant "${v.id}": promptTokens must be a whole number from 1 to ${MAX_PROMPT_TOKENS}`);
    if (!isInt(v.maxTokens, 1, 32_768)) p.push(`prompt variant "${v.id}": maxTokens must be a whole number from 1 to 32768`);
  }
  for (const d of duplicates(variantIds)) p.push(`prompt variant "${d}" is listed twice`);
  p.push(...promptCacheProblems(config));

  const targetIds = (config.targets ?? []).map((t) => t.id);
  if (targetIds.length === 0) p.push('targets: at least one target is needed');
  for (const t of config.targets ?? []) {
    const where = `target "${t.id}"`;
    if (!ID.test(t.id ?? '')) p.push(`${where}: id must be lower-case letters, digits, ".", "_" or "-"`);
    if (!(API_IDS as readonly string[]).includes(t.api)) p.push(`${where}: api "${t.api}" is not one of ${API_IDS.join(', ')}`);
    try {
      const url = new URL((t.url ?? '').replace('{REFERENCE_URL}', 'http://127.0.0.1:1'));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') p.push(`${where}: url must be http or https`);
      if (url.username || url.password || /[?&](key|api_key|token)=/i.test(url.search))
        p.push(`${where}: url must not carry credentials; use apiKeySecret`);
    } catch {
      p.push(`${where}: url "${t.url}" is not a URL`);
    }
    if (!t.model) p.push(`${where}: model is required`);
    if (t.apiKeySecret !== undefined && !SECRET_NAME.test(t.apiKeySecret))
      p.push(`${where}: apiKeySecret must be a secret's NAME in upper case (like OPENAI_API_KEY), not a key`);
    if (t.auth !== undefined) p.push(...authProblems(t, where));
    for (const name of Object.keys(t.headers ?? {})) {
      if (CREDENTIAL_HEADERS.includes(name.toLowerCase()))
        p.push(`${where}: header "${name}" would put a credential in the config; use apiKeySecret`);
    }
    if (t.maxTokensParam !== undefined) {
      if (!(MAX_TOKENS_PARAMS as readonly string[]).includes(t.maxTokensParam))
        p.push(`${where}: maxTokensParam must be one of ${MAX_TOKENS_PARAMS.join(', ')}`);
      else if (t.api !== 'openai-chat') p.push(`${where}: maxTokensParam applies to api openai-chat only`);
    }
    for (const entry of t.serverTimingMetrics ?? [])
      if (typeof entry !== 'string' || !validServerTimingEntry(entry))
        p.push(
          `${where}: serverTimingMetrics entry "${String(entry).slice(0, 80)}" must be metric names of letters, digits, ".", "_" or "-" (at most ${MAX_SERVER_TIMING_NAME_CHARS} characters each), joined by "+"`,
        );
    for (const r of t.regions ?? []) if (!regionCodes.includes(r)) p.push(`${where}: unknown region "${r}"`);
    for (const v of t.promptVariants ?? []) if (!variantIds.includes(v)) p.push(`${where}: unknown prompt variant "${v}"`);
    p.push(...priceProblems(t.price, where));
    if (t.bursts !== undefined && typeof t.bursts !== 'boolean') p.push(`${where}: bursts must be true or false`);
    if (t.bursts && config.bursts === undefined) p.push(`${where}: bursts is on but the configuration has no bursts schedule`);
  }
  for (const d of duplicates(targetIds)) p.push(`target "${d}" is listed twice`);

  const to = config.timeouts ?? ({} as ObservatoryConfig['timeouts']);
  for (const key of ['headersMs', 'firstTokenMs', 'idleMs', 'totalMs'] as const) {
    if (!isInt(to[key], 1, 600_000)) p.push(`timeouts.${key} must be a whole number of ms from 1 to 600000`);
  }
  if (to.headersMs > to.firstTokenMs || to.firstTokenMs > to.totalMs) p.push('timeouts must satisfy headersMs ≤ firstTokenMs ≤ totalMs');
  if (!isInt(config.concurrency, 1, 3)) p.push('concurrency must be 1, 2 or 3 (a Worker keeps at most 6 connections waiting for headers)');
  if (!isInt(config.rttProbes, 0, 5)) p.push('rttProbes must be a whole number from 0 to 5');
  if (!isInt(config.retentionDays, 1, 3650)) p.push('retentionDays must be a whole number from 1 to 3650');
  if (!isInt(config.rollupRetentionDays, 1, 3650)) p.push('rollupRetentionDays must be a whole number from 1 to 3650');
  else if (config.rollupRetentionDays < config.retentionDays)
    p.push('rollupRetentionDays must be at least retentionDays (rollups are what remains of old samples)');
  if (!(config.probeSecondsEstimate > 0 && config.probeSecondsEstimate <= 600))
    p.push('probeSecondsEstimate must be a number of seconds from 0 to 600');
  if (config.otlp !== undefined) {
    const o = config.otlp;
    if (typeof o.endpoint !== 'string' || !(/^\{[A-Z][A-Z0-9_]*\}$/.test(o.endpoint) || /^https?:\/\/[^\s]+$/.test(o.endpoint)))
      p.push(
        'otlp.endpoint must be an http(s) URL like https://otlp.example.com/v1/metrics, or {VAR} naming a Worker variable that holds one',
      );
    if ((o.header === undefined) !== (o.secret === undefined))
      p.push('otlp.header and otlp.secret go together: the header that carries the secret, and the Worker secret holding its value');
    if (o.header !== undefined && !/^[A-Za-z0-9-]{1,64}$/.test(o.header))
      p.push(`otlp.header must be an HTTP header name, got "${o.header}"`);
    if (o.secret !== undefined && !/^[A-Z][A-Z0-9_]{0,63}$/.test(o.secret))
      p.push(`otlp.secret must name a Worker secret in UPPER_SNAKE_CASE, got "${o.secret}"`);
  }
  const readers = config.readers ?? {};
  if (readers.siteRebuildMinutes !== undefined && !isInt(readers.siteRebuildMinutes, 0, 10_080))
    p.push('readers.siteRebuildMinutes must be a whole number of minutes from 0 (no builds) to 10080');
  if (readers.metricsScrapeSeconds !== undefined && !isInt(readers.metricsScrapeSeconds, 0, 86_400))
    p.push('readers.metricsScrapeSeconds must be a whole number of seconds from 0 (no scrapes) to 86400');
  if (readers.apiRequestsPerDay !== undefined && !isInt(readers.apiRequestsPerDay, 0, 10_000_000))
    p.push('readers.apiRequestsPerDay must be a whole number from 0 to 10000000');
  if (readers.liveApiRequestsPerDay !== undefined && !isInt(readers.liveApiRequestsPerDay, 0, 10_000_000))
    p.push('readers.liveApiRequestsPerDay must be a whole number from 0 to 10000000');
  p.push(
    ...statusProblems(config.status),
    ...notificationProblems(config.notifications, { targets: targetIds, regions: regionCodes }),
    ...maintenanceProblems(config.maintenance, { targets: targetIds, regions: regionCodes }),
    ...burstProblems(config, variantIds),
    ...statusPageProblems(config.targets ?? []),
  );

  // Each prompt-cache variant's second pass, a variant of its own from here on (work-list.ts).
  const checked: ObservatoryConfig = p.length === 0 ? { ...config, promptVariants: withWarmPasses(config.promptVariants) } : config;
  if (p.length === 0) {
    const c = capacity(checked);
    const limit = PLAN_LIMITS[config.plan].subrequestsPerInvocation;
    if (c.subrequestsPerProbeInvocation > limit)
      p.push(
        `one probe invocation would make ${c.subrequestsPerProbeInvocation} subrequests, over the ${config.plan} plan's ${limit}; lower concurrency or rttProbes`,
      );
  }
  if (p.length > 0) throw new ConfigError(p);
  return checked;
}

/** The concurrency bursts: a schedule of their own, hourly or daily, off the ticks' minutes; levels ascending, each within what a region can start at once. */
function burstProblems(config: ObservatoryConfig, variantIds: string[]): string[] {
  const b = config.bursts;
  if (b === undefined) return [];
  const p: string[] = [];
  const cadence = typeof b.schedule === 'string' ? burstCadence(b.schedule) : null;
  if (cadence === null) p.push(`bursts.schedule must be hourly ("M * * * *") or daily ("M H * * *"), got "${b.schedule}"`);
  else {
    const minute = Number(b.schedule.trim().split(/\s+/)[0]);
    const tick = tickMinutesOf(config.schedule);
    if (tick !== null && minute % tick === 0)
      p.push(
        `bursts.schedule runs at minute ${minute}, when a tick starts: pick a minute between ticks, so the bursts and the regular probes do not distort each other`,
      );
  }
  const levels = b.levels ?? DEFAULT_BURST_LEVELS;
  if (!Array.isArray(levels) || levels.length === 0 || levels.some((l) => !isInt(l, 1, MAX_BURST_LEVEL)))
    p.push(`bursts.levels must be whole numbers of simultaneous streams from 1 to ${MAX_BURST_LEVEL}`);
  else if (levels.some((l, i) => i > 0 && l <= levels[i - 1]))
    p.push('bursts.levels must ascend (each level is run after the one before, and stops at a rate limit)');
  else if (levels[0] !== 1) p.push('bursts.levels must start at 1: the queueing at each level is measured against one stream alone');
  if (b.variant !== undefined && !variantIds.includes(b.variant)) p.push(`bursts.variant: unknown prompt variant "${b.variant}"`);
  if (!config.targets.some((t) => t.bursts)) p.push('bursts is configured but no target opts in (bursts: true on a target)');
  return p;
}

const HEADER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/i;
const AWS_REGION = /^[a-z]{2}(?:-[a-z]+)+-\d$/;

/** What is wrong with a target's `auth` (config/types.ts AuthConfig). */
function authProblems(t: TargetConfig, where: string): string[] {
  const p: string[] = [];
  const a = t.auth as Record<string, unknown>;
  const secretName = (key: string, optional = false) => {
    const v = a[key];
    if (v === undefined && optional) return;
    if (typeof v !== 'string' || !SECRET_NAME.test(v))
      p.push(`${where}: auth.${key} must be a secret's NAME in upper case (like AWS_SECRET_ACCESS_KEY), not a value`);
  };
  switch (a.type) {
    case 'header':
      if (typeof a.name !== 'string' || !HEADER_NAME.test(a.name)) p.push(`${where}: auth.name must be a header name, like api-key`);
      secretName('secret');
      if (t.apiKeySecret !== undefined) p.push(`${where}: give the key once: auth (type header) or apiKeySecret, not both`);
      break;
    case 'aws-sigv4':
      secretName('accessKeyIdSecret');
      secretName('secretAccessKeySecret');
      secretName('sessionTokenSecret', true);
      if (a.region !== undefined && (typeof a.region !== 'string' || !AWS_REGION.test(a.region)))
        p.push(`${where}: auth.region must be an AWS region, like us-east-1`);
      if (t.api !== 'bedrock-converse') p.push(`${where}: auth type aws-sigv4 signs for Bedrock: it needs api bedrock-converse`);
      if (t.apiKeySecret !== undefined) p.push(`${where}: SigV4 or a Bedrock API key (apiKeySecret), not both`);
      break;
    case 'google-service-account':
      secretName('secret');
      if (a.mode !== undefined && a.mode !== 'token-exchange' && a.mode !== 'self-signed')
        p.push(`${where}: auth.mode must be token-exchange or self-signed`);
      if (t.apiKeySecret !== undefined) p.push(`${where}: a service account or an API key (apiKeySecret), not both`);
      break;
    default:
      p.push(`${where}: auth.type must be header, aws-sigv4 or google-service-account`);
  }
  return p;
}

/** Prompt-cache variants are long enough to be cached, and run only by the targets that opt in (MEASUREMENT.md, "Prompt cache"). */
function promptCacheProblems(config: ObservatoryConfig): string[] {
  const p: string[] = [];
  const cacheIds: string[] = [];
  for (const v of config.promptVariants ?? []) {
    const where = `prompt variant "${v.id}"`;
    // A checked configuration, checked again, has its second passes already: each names its own prompt-cache variant.
    const own = (config.promptVariants ?? []).find((x) => x.id === v.warmPassOf);
    if (v.warmPassOf !== undefined && !(own?.promptCache && warmPassId(own.id) === v.id))
      p.push(`${where}: warmPassOf is set by the configuration check, not by hand`);
    if (v.promptCache === undefined) continue;
    if (typeof v.promptCache !== 'boolean') p.push(`${where}: promptCache must be true or false`);
    if (!v.promptCache) continue;
    cacheIds.push(v.id);
    if (config.promptVariants.some((x) => x.id === warmPassId(v.id) && x.warmPassOf !== v.id))
      p.push(`${where}: its second passes are stored as "${warmPassId(v.id)}", which another prompt variant already is`);
    if (isInt(v.promptTokens, 1, MAX_PROMPT_TOKENS) && v.promptTokens < MIN_CACHED_PROMPT_TOKENS)
      p.push(
        `${where}: a prompt-cache variant needs promptTokens of at least ${MIN_CACHED_PROMPT_TOKENS} (providers cache no shorter prefix)`,
      );
  }
  if (config.bursts?.variant !== undefined && cacheIds.includes(config.bursts.variant))
    p.push(`bursts.variant "${config.bursts.variant}" is a prompt-cache variant; concurrency probes take an ordinary one`);
  for (const t of config.targets ?? []) {
    const where = `target "${t.id}"`;
    if (t.promptCache !== undefined && typeof t.promptCache !== 'boolean') p.push(`${where}: promptCache must be true or false`);
    if (t.promptCache === true && cacheIds.length === 0)
      p.push(`${where}: promptCache is on but no prompt variant has promptCache: true (add preset('prompt-cache'))`);
    for (const v of t.promptVariants ?? [])
      if (cacheIds.includes(v) && t.promptCache !== true)
        p.push(`${where}: lists the prompt-cache variant "${v}"; opt in with promptCache: true instead (it costs tokens)`);
  }
  return p;
}
