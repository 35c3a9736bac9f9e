/**
 * Text that holds a secret is redacted before it is cut, everywhere it is kept or shown. A secret a
 * receiver echoes back is placed so that a cut made first would leave its first characters: too few to
 * be recognised as the secret once cut off (shared/probe/error-detail.ts redacts a secret's start from 8
 * characters on), and a long secret before it shrinks to `[redacted]`, so they land inside what is shown.
 * The echoing receiver is tests/helpers/hostile-server.ts, on loopback. Also: a job whose own code fails is
 * stored with every configured secret removed from its detail.
 */
import { describe, expect, inject, it } from 'vitest';
import { runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { getConfig, type Job } from '../../workers/observatory/config.ts';
import type { RegionProber } from '../../workers/observatory/prober/region-prober.ts';
import { deliver, DeliveryError } from '../../workers/observatory/notify/deliver.ts';
import { secretValues } from '../../workers/observatory/secret-values.ts';
import { redact } from '../../shared/probe/error-detail.ts';
import type { NotificationMessage } from '../../shared/status/messages.ts';
import type { TargetConfig } from '../../shared/config/types.ts';
import { alarmsUntil, drain } from './drain.ts';
import { expectConsoleErrors } from './console-errors.ts';

/** How many of a secret's first characters a cut made before redaction would leave (fewer than the 8 redaction needs). */
const SHOWN = 5;
/** A secret no text holds by chance. */
const secretOf = (length: number): string => `Zq7${crypto.randomUUID().replace(/-/g, '')}`.padEnd(length, 'w');

describe('redaction before every cut', () => {
  it('the OTLP error published on /api/v1/health', async () => {
    const region = 'enam';
    const token = secretOf(100);
    // The collector echoes the header it was sent, then 95 dots, then the header again: a cut at 200 first
    // would keep the whole first copy (redacted to 10 characters) and the second's first 5 characters.
    const override: Record<string, string> = { OTLP_TOKEN: token, OTLP_ENDPOINT: `${inject('hostileServerUrl')}/reject/95/authorization` };
    expectConsoleErrors(/OTLP push of hour .* failed, kept for retry/);
    const stub = env.REGION_PROBER.getByName(region);
    await runInDurableObject(stub, async (instance: RegionProber) => {
      const prober = instance as unknown as { env: Env };
      prober.env = new Proxy(prober.env, {
        get: (target, key) => (typeof key === 'string' && key in override ? override[key] : Reflect.get(target, key, target)),
      });
      await instance.enqueue(region, [{ tickId: Date.UTC(2026, 3, 11, 3), target: 'ref-chat', variant: 'tiny', backfill: false }]);
    });
    await drain([region]);
    await alarmsUntil(region, async () => (await stub.status()).lastOtlpError !== null);
    const health = (await (await SELF.fetch('https://observatory.test/api/v1/health')).json()) as {
      duties: Array<{ region: string; errors: { otlp: string | null } }>;
    };
    const shown = health.duties.find((d) => d.region === region)!.errors.otlp!;
    expect(shown).toMatch(/^OTLP collector 127\.0\.0\.1:\d+ answered 401: \[redacted\]\.+/);
    expect(shown).not.toContain(token.slice(0, SHOWN));
    // The collector takes the push again once it is configured as the test's runtime has it.
    for (const key of Object.keys(override)) delete override[key];
    await alarmsUntil(region, async () => (await stub.status()).pendingOtlp === 0);
  });

  it('a delivery error message, as the log shows it', async () => {
    const base = `${inject('hostileServerUrl')}/reject/`;
    // The receiver echoes the URL it was sent to (the Slack channel's secret), dots, and the URL again, so that the
    // reply cut at 120 first ends 5 characters into the second copy.
    const tail = `/url/services/${secretOf(40)}`;
    const pad = 120 - SHOWN - (base.length + 2 + tail.length);
    const url = `${base}${pad}${tail}`;
    expect(String(pad)).toHaveLength(2);
    const secrets = { ...(env as unknown as Record<string, unknown>), SLACK_URL: url };
    const message = { delivery_id: 'd-redact', title: 'Down', text: 'ref-chat is down' } as unknown as NotificationMessage;
    const e = await deliver({ name: 'slack', type: 'slack', urlSecret: 'SLACK_URL' }, message, secrets, Date.now()).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(DeliveryError);
    expect((e as DeliveryError).kind).toBe('http');
    // What the outbox logs of it (outbox.ts): redacted again, then cut to 300.
    const logged = redact((e as DeliveryError).message, secretValues(secrets)).slice(0, 300);
    expect(logged).toMatch(/^HTTP 401: \[redacted\]\.+/);
    expect(logged).not.toContain(url.slice(0, SHOWN));
  });

  it('the detail of a job whose own code failed, stored with every configured secret removed', async () => {
    const region = 'weur';
    const tickId = Date.UTC(2026, 3, 11, 4);
    const logged = expectConsoleErrors(/probe of broken-config failed unexpectedly/);
    const config = getConfig();
    // A stand-in for a bug in the code around the probe: reading the target throws, naming a secret it holds.
    const broken = {
      id: 'broken-config',
      label: 'Broken',
      provider: 'Reference',
      api: 'openai-chat',
      url: '{REFERENCE_URL}/v1/chat/completions',
      model: 'ref-fast-small',
      regions: [region],
      get headers(): Record<string, string> {
        throw new Error(`header template failed near ${env.ADMIN_TOKEN}`);
      },
    } as TargetConfig;
    config.targets.push(broken);
    try {
      await runInDurableObject(env.REGION_PROBER.getByName(region), (instance: RegionProber) =>
        instance.enqueue(region, [{ tickId, target: broken.id, variant: 'tiny', backfill: false } satisfies Job]),
      );
      await drain([region]);
    } finally {
      config.targets.splice(config.targets.indexOf(broken), 1);
    }
    const row = await env.DB.prepare('SELECT error, error_detail FROM samples WHERE target = ? AND tick_id = ?')
      .bind(broken.id, tickId)
      .first<{ error: string; error_detail: string }>();
    expect(row?.error).toBe('internal');
    expect(row?.error_detail).toBe('probe failed: Error: header template failed near [redacted]');
    // The log line says the same, redacted: not the raw exception.
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) {
      expect(line).toContain('header template failed near [redacted]');
      expect(line).not.toContain(env.ADMIN_TOKEN.slice(0, 6));
    }
  });
});
