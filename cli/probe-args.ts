import { parseArgs } from 'node:util';
import {
  API_IDS,
  MAX_TOKENS_PARAMS,
  type ApiId,
  type MaxTokensParam,
  type ProbeTarget,
  type PromptVariant,
  type Timeouts,
} from '../shared/types.ts';
import { parseServiceAccount, type ResolvedAuth } from '../shared/probe/auth.ts';
import { DEFAULT_MAX_TOKENS, DEFAULT_PROMPT_TOKENS, DEFAULT_TIMEOUTS, MAX_PROBES_PER_RUN, MAX_TIMEOUT_MS } from '../shared/constants.ts';

export const USAGE = `usage: npm run probe -- <url> --api <api> --model <model> [options]

  <url>                     endpoint URL (or just the origin: the api's default path is added)
  --api <id>                ${API_IDS.join(' | ')}
  --model <name>            model name sent in the request
  --n <N>                   number of probes, one after another (default 1)
  --max-tokens <K>          output tokens asked for (default ${DEFAULT_MAX_TOKENS})
  --prompt-tokens <P>       approximate prompt size in tokens (default ${DEFAULT_PROMPT_TOKENS})
  --header 'k: v'           extra request header (repeatable)
  --api-key-env <NAME>      read the API key from this environment variable
  --api-key-header <name>   send that key in this header instead (Azure OpenAI: api-key)
  --aws-sigv4               sign with SigV4 (bedrock-converse): AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
                            AWS_SESSION_TOKEN (optional) from the environment; the region from the host or --aws-region
  --aws-region <region>     the region to sign for, when the host does not name it
  --service-account-env <NAME>  a Google service-account key file's JSON in this environment variable (Vertex AI)
  --server-timing <names>   comma-separated Server-Timing metrics that may count, a+b for parts that add up
                            (default: the largest single metric; nested metrics are never summed)
  --body '<json>'           JSON object merged into the request body, e.g. '{"reasoning_effort":"low"}'
  --max-tokens-param <name> openai-chat only: max_tokens (default) or max_completion_tokens (OpenAI reasoning models)
  --headers-timeout-ms <T>  default ${DEFAULT_TIMEOUTS.headersMs}
  --first-token-timeout-ms <T>  default ${DEFAULT_TIMEOUTS.firstTokenMs}
  --idle-timeout-ms <T>     default ${DEFAULT_TIMEOUTS.idleMs}
  --timeout-ms <T>          total bound per probe (default ${DEFAULT_TIMEOUTS.totalMs})
  --no-rtt                  skip the round-trip probe (and its connection warm-up)
  --json                    one JSON sample per line (MEASUREMENT.md field names)
  --help                    this text`;

export class UsageError extends Error {}

export interface CliConfig {
  target: ProbeTarget;
  prompt: PromptVariant;
  n: number;
  timeouts: Timeouts;
  rtt: boolean;
  json: boolean;
  help: boolean;
}

function positiveInt(name: string, value: string | undefined, fallback: number, max = 1_000_000): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
  return Number(value);
}

export function parseCliArgs(argv: string[], env: Record<string, string | undefined>): CliConfig {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        api: { type: 'string' },
        model: { type: 'string' },
        n: { type: 'string' },
        'max-tokens': { type: 'string' },
        'prompt-tokens': { type: 'string' },
        header: { type: 'string', multiple: true },
        'api-key-env': { type: 'string' },
        'api-key-header': { type: 'string' },
        'aws-sigv4': { type: 'boolean' },
        'aws-region': { type: 'string' },
        'service-account-env': { type: 'string' },
        'server-timing': { type: 'string' },
        body: { type: 'string' },
        'max-tokens-param': { type: 'string' },
        'headers-timeout-ms': { type: 'string' },
        'first-token-timeout-ms': { type: 'string' },
        'idle-timeout-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'no-rtt': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const empty = { n: 1, rtt: false, json: false, timeouts: DEFAULT_TIMEOUTS } as const;
  if (v.help)
    return {
      ...empty,
      help: true,
      target: { id: '', api: 'openai-chat', url: '', model: '' },
      prompt: { id: '', promptTokens: 0, maxTokens: 0 },
    };

  if (parsed.positionals.length !== 1)
    throw new UsageError(parsed.positionals.length === 0 ? 'missing <url>' : `expected one <url>, got ${parsed.positionals.length}`);
  const url = parsed.positionals[0];
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    throw new UsageError(`not a URL: "${url}"`);
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') throw new UsageError(`URL must be http or https: "${url}"`);
  if (!v.api) throw new UsageError('missing --api');
  if (!(API_IDS as readonly string[]).includes(v.api))
    throw new UsageError(`unknown --api "${v.api}"; expected one of: ${API_IDS.join(', ')}`);
  if (!v.model) throw new UsageError('missing --model');

  const headers: Record<string, string> = {};
  for (const h of v.header ?? []) {
    const colon = h.indexOf(':');
    const name = colon > 0 ? h.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) throw new UsageError(`--header must look like 'name: value', got "${h}"`);
    headers[name.toLowerCase()] = h.slice(colon + 1).trim();
  }
  let apiKey: string | undefined;
  if (v['api-key-env'] !== undefined) {
    apiKey = env[v['api-key-env']];
    if (!apiKey) throw new UsageError(`environment variable ${v['api-key-env']} (from --api-key-env) is not set`);
  }
  const auth = authFrom(v, apiKey, env);
  if (auth?.type === 'header') apiKey = undefined;
  const serverTimingMetrics = v['server-timing']
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let extraBody: Record<string, unknown> | undefined;
  if (v.body !== undefined) {
    try {
      extraBody = JSON.parse(v.body);
    } catch {
      throw new UsageError(`--body must be a JSON object, got "${v.body}"`);
    }
    if (typeof extraBody !== 'object' || extraBody === null || Array.isArray(extraBody))
      throw new UsageError(`--body must be a JSON object, got "${v.body}"`);
  }
  const maxTokensParam = v['max-tokens-param'];
  if (maxTokensParam !== undefined && !(MAX_TOKENS_PARAMS as readonly string[]).includes(maxTokensParam))
    throw new UsageError(`--max-tokens-param must be one of ${MAX_TOKENS_PARAMS.join(', ')}, got "${maxTokensParam}"`);
  if (maxTokensParam !== undefined && v.api !== 'openai-chat') throw new UsageError('--max-tokens-param applies to --api openai-chat only');
  const promptTokens = positiveInt('prompt-tokens', v['prompt-tokens'], DEFAULT_PROMPT_TOKENS);
  const maxTokens = positiveInt('max-tokens', v['max-tokens'], DEFAULT_MAX_TOKENS);
  return {
    help: false,
    target: {
      id: `${v.api}:${v.model}@${parsedUrl.host}`,
      api: v.api as ApiId,
      url,
      model: v.model,
      apiKey,
      auth,
      headers,
      serverTimingMetrics,
      extraBody,
      maxTokensParam: maxTokensParam as MaxTokensParam | undefined,
    },
    prompt: { id: `p${promptTokens}-o${maxTokens}`, promptTokens, maxTokens },
    n: positiveInt('n', v.n, 1, MAX_PROBES_PER_RUN),
    timeouts: {
      headersMs: positiveInt('headers-timeout-ms', v['headers-timeout-ms'], DEFAULT_TIMEOUTS.headersMs, MAX_TIMEOUT_MS),
      firstTokenMs: positiveInt('first-token-timeout-ms', v['first-token-timeout-ms'], DEFAULT_TIMEOUTS.firstTokenMs, MAX_TIMEOUT_MS),
      idleMs: positiveInt('idle-timeout-ms', v['idle-timeout-ms'], DEFAULT_TIMEOUTS.idleMs, MAX_TIMEOUT_MS),
      totalMs: positiveInt('timeout-ms', v['timeout-ms'], DEFAULT_TIMEOUTS.totalMs, MAX_TIMEOUT_MS),
    },
    rtt: !v['no-rtt'],
    json: v.json ?? false,
  };
}

/** --api-key-header, --aws-sigv4 or --service-account-env: one way to authorise, its secrets from the environment. */
function authFrom(
  v: { 'api-key-header'?: string; 'aws-sigv4'?: boolean; 'aws-region'?: string; 'service-account-env'?: string; api?: string },
  apiKey: string | undefined,
  env: Record<string, string | undefined>,
): ResolvedAuth | undefined {
  const ways = [v['api-key-header'] !== undefined, v['aws-sigv4'] === true, v['service-account-env'] !== undefined].filter(Boolean);
  if (ways.length > 1) throw new UsageError('give one of --api-key-header, --aws-sigv4 and --service-account-env');
  if (v['api-key-header'] !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(v['api-key-header']))
      throw new UsageError(`--api-key-header must be a header name, got "${v['api-key-header']}"`);
    if (!apiKey) throw new UsageError('--api-key-header needs the key: give --api-key-env NAME');
    return { type: 'header', name: v['api-key-header'].toLowerCase(), value: apiKey };
  }
  if (v['aws-sigv4']) {
    if (v.api !== 'bedrock-converse') throw new UsageError('--aws-sigv4 signs for Bedrock: it needs --api bedrock-converse');
    if (apiKey) throw new UsageError('--aws-sigv4 or a Bedrock API key (--api-key-env), not both');
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey)
      throw new UsageError('--aws-sigv4 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment');
    const region = v['aws-region'];
    if (region !== undefined && !/^[a-z]{2}(?:-[a-z]+)+-\d$/.test(region))
      throw new UsageError(`--aws-region must be an AWS region like us-east-1, got "${region}"`);
    return { type: 'aws-sigv4', region: region ?? null, accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN || undefined };
  }
  if (v['aws-region'] !== undefined) throw new UsageError('--aws-region goes with --aws-sigv4');
  const name = v['service-account-env'];
  if (name !== undefined) {
    const json = env[name];
    if (!json) throw new UsageError(`environment variable ${name} (from --service-account-env) is not set`);
    try {
      return { type: 'google-service-account', key: parseServiceAccount(json), mode: 'token-exchange' };
    } catch (e) {
      throw new UsageError(`${name}: ${(e as Error).message}`);
    }
  }
  return undefined;
}
