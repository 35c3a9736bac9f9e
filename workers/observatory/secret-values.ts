/**
 * The values of every secret this deployment holds (target keys and their authorisation, channel URLs
 * and tokens, the OTLP header, the admin and read tokens), so that text the observatory stores, logs
 * or serves can have them removed, also as a prefix (shared/probe/error-detail.ts `redact`).
 */
import { getConfig } from './config.ts';
import { channelSecrets } from '../../shared/status/channels.ts';
import type { AuthConfig } from '../../shared/config/types.ts';

/** Secrets the Worker itself reads, beside those the configuration names. */
const OWN_SECRETS = ['ADMIN_TOKEN', 'READ_TOKEN', 'REFERENCE_KEY'];

/** The secrets a target's `auth` names; a service account's is its key file, whose secret part is the private key. */
function authSecretNames(auth: AuthConfig): { plain: string[]; keyFiles: string[] } {
  switch (auth.type) {
    case 'header':
      return { plain: [auth.secret], keyFiles: [] };
    case 'aws-sigv4':
      return {
        plain: [auth.accessKeyIdSecret, auth.secretAccessKeySecret, ...(auth.sessionTokenSecret ? [auth.sessionTokenSecret] : [])],
        keyFiles: [],
      };
    case 'google-service-account':
      return { plain: [], keyFiles: [auth.secret] };
  }
}

/**
 * A key file's private key: the file as a whole is not redacted, since its first characters (`{"type":`)
 * are no secret and, taken as a secret's start, would remove any JSON from a message.
 */
function privateKeyOf(json: unknown): string | null {
  if (typeof json !== 'string') return null;
  try {
    const key = (JSON.parse(json) as { private_key?: unknown }).private_key;
    return typeof key === 'string' && key !== '' ? key : null;
  } catch {
    return null;
  }
}

export function secretValues(env: Record<string, unknown>): string[] {
  const c = getConfig();
  const names = new Set<string>(OWN_SECRETS);
  const keyFiles = new Set<string>();
  for (const t of c.targets) {
    if (t.apiKeySecret) names.add(t.apiKeySecret);
    if (!t.auth) continue;
    const { plain, keyFiles: files } = authSecretNames(t.auth);
    for (const name of plain) names.add(name);
    for (const name of files) keyFiles.add(name);
  }
  for (const ch of c.notifications?.channels ?? []) for (const name of channelSecrets(ch).secrets) names.add(name);
  if (c.otlp?.secret) names.add(c.otlp.secret);
  const values = [...names].map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v !== '');
  for (const name of keyFiles) {
    const key = privateKeyOf(env[name]);
    if (key) values.push(key);
  }
  return values;
}
