/**
 * The values of every secret this deployment holds (target keys, channel URLs and tokens, the OTLP
 * header, the admin and read tokens), so that text the observatory stores, logs or serves can have
 * them removed, also as a prefix (shared/probe/error-detail.ts `redact`).
 */
import { getConfig } from './config.ts';
import { channelSecrets } from '../../shared/status/channels.ts';

/** Secrets the Worker itself reads, beside those the configuration names. */
const OWN_SECRETS = ['ADMIN_TOKEN', 'READ_TOKEN', 'REFERENCE_KEY'];

export function secretValues(env: Record<string, unknown>): string[] {
  const c = getConfig();
  const names = new Set<string>(OWN_SECRETS);
  for (const t of c.targets) if (t.apiKeySecret) names.add(t.apiKeySecret);
  for (const ch of c.notifications?.channels ?? []) for (const name of channelSecrets(ch).secrets) names.add(name);
  if (c.otlp?.secret) names.add(c.otlp.secret);
  return [...names].map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v !== '');
}
