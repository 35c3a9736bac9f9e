/**
 * A real key in .dev.vars reaches its target, as README "Adding a real target and key" says: `npm run dev` in a copy
 * of this checkout whose config adds vendor targets on loopback (a vendor that answers 401 without its exact key)
 * and a channel whose URL is a .dev.vars variable. Per target: the right key in .dev.vars (holding `$`, `'` and
 * `#`, which .dev.vars keeps literally) → successful samples in D1 and no missing secret; a wrong one → the vendor's
 * 401 stored; none → skipped and named by /api/v1/health. The .dev.vars also sets two variables npm run dev
 * generates (ADMIN_TOKEN, REFERENCE_URL): the generated ones win, so the printed token works and the reference
 * endpoint is probed where it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript, type ScriptProcess } from '../helpers/script-process.ts';
import { copyProject, type ProjectCopy } from '../helpers/project-copy.ts';
import { startKeyedVendor, type KeyedVendor } from '../helpers/keyed-vendor.ts';
import { runWrangler } from '../../scripts/processes.ts';
import { config as project } from '../../observatory.config.ts';

// biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…} that a .dev.vars file holds, on purpose
const KEY = `sk-loop-$HOME-${'${PATH}'}-'#-0123456789abcdef`;
const REGIONS = project.regions.map((r) => r.code);
/** The .dev.vars values of variables npm run dev sets itself: neither may reach the Worker. */
const STALE_ADMIN_TOKEN = 'admin-token-kept-in-dev-vars';
const STALE_REFERENCE_URL = 'http://127.0.0.1:9';
/** Where the channel's URL points: its delivery is not what is tested, only that its variable arrives. */
const HOOK_URL = 'http://127.0.0.1:9/hook';

let vendor: KeyedVendor;
let copy: ProjectCopy;
let dev: ScriptProcess;
let api: string;
let output = '';
const state = mkdtempSync(join(tmpdir(), 'observatory-dev-vars-'));

interface Sample {
  target: string;
  region: string;
  error: string | null;
  error_detail: string | null;
  status: number | null;
}
let samples: Sample[] = [];
type Health = {
  duties: Array<{ region: string; missing_secrets: string[] }>;
  notifications: { channels: Array<{ name: string; active: boolean; inactive_because?: string }> };
};
let health: Health;

const vendorTarget = (id: string, secret: string) => `{ id: '${id}', label: '${id}', provider: 'Loopback vendor', api: 'openai-chat',
    url: '${vendor.url}/v1/chat/completions', model: 'gpt-4', apiKeySecret: '${secret}', promptVariants: ['chat'] }`;

beforeAll(async () => {
  vendor = await startKeyedVendor(KEY);
  copy = copyProject('observatory-dev-vars-copy-');
  // The project's own config, and on top of it what a user adds: one reference target kept, the vendor's.
  copy.write('observatory.project.ts', readFileSync(join(copy.dir, 'observatory.config.ts'), 'utf8'));
  copy.write(
    'observatory.config.ts',
    `import { config as project } from './observatory.project.ts';
import type { ObservatoryConfig } from './shared/config/types.ts';
const reference = project.targets.find((t) => t.id === 'reference-fast-small')!;
export const config: ObservatoryConfig = {
  ...project,
  targets: [
    { ...reference, promptVariants: ['chat'] },
    ${vendorTarget('loop-vendor', 'MY_KEY')},
    ${vendorTarget('loop-vendor-wrong-key', 'WRONG_KEY')},
    ${vendorTarget('loop-vendor-no-key', 'NO_SUCH_KEY')},
  ],
  notifications: {
    ...project.notifications,
    channels: [...project.notifications!.channels, { name: 'dev-vars-hook', type: 'webhook', url: '{HOOK_URL}' }],
  },
};
`,
  );
  copy.write(
    '.dev.vars',
    [
      '# as a user writes it',
      `MY_KEY="${KEY}"`,
      'WRONG_KEY=sk-loop-not-the-key',
      `HOOK_URL=${HOOK_URL}`,
      `ADMIN_TOKEN=${STALE_ADMIN_TOKEN}`,
      `REFERENCE_URL=${STALE_REFERENCE_URL}`,
      '',
    ].join('\n'),
  );
  dev = runScript('scripts/dev.ts', ['--port', '0', '--reference-port', '0', '--persist-to', state], copy.dir);
  api = (await dev.until(/observatory API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\/health/, 180_000))[1];
  await dev.until(/Ctrl-C stops everything/, 10_000);
  output = dev.output();
  // The tick, with the admin token npm run dev printed (not the one in .dev.vars).
  const token = /admin token:\s+([0-9a-f]{32})/.exec(output)![1];
  const tick = await fetch(`${api}/api/v1/ticks`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
  expect(tick.status, await tick.clone().text()).toBe(202);
  // Three targets store a sample in each region; the one without its key none.
  const expected = 3 * REGIONS.length;
  for (let i = 0; i < 240 && samples.length < expected; i++) {
    await new Promise((r) => setTimeout(r, 500));
    samples = ((await (await fetch(`${api}/api/v1/samples?limit=1000`)).json()) as { samples: Sample[] }).samples;
  }
  health = (await (await fetch(`${api}/api/v1/health`)).json()) as Health;
}, 600_000);

afterAll(async () => {
  await dev?.stop();
  await vendor?.close();
  copy?.remove();
  rmSync(state, { recursive: true, force: true });
});

describe('npm run dev with a .dev.vars', () => {
  it('says which local secrets it read and which generated variables replaced, never a value', () => {
    expect(output).toMatch(/local secrets from \.dev\.vars: MY_KEY, WRONG_KEY, HOOK_URL, ADMIN_TOKEN, REFERENCE_URL\n/);
    expect(output).toMatch(/\.dev\.vars also sets REFERENCE_URL, ADMIN_TOKEN: npm run dev sets these itself/);
    expect(output).not.toContain('sk-loop');
    expect(output).not.toContain(STALE_ADMIN_TOKEN);
  });

  it('probes the vendor with the key from .dev.vars, unchanged: successful samples in D1 from every region', async () => {
    const ok = (t: string) => samples.filter((s) => s.target === t).map((s) => [s.region, s.error, s.error_detail]);
    expect(ok('loop-vendor').sort()).toEqual(REGIONS.map((r) => [r, null, null]).sort());
    // In D1 itself, as the API read it.
    const rows = JSON.parse(
      await runWrangler([
        'd1',
        'execute',
        'DB',
        '--local',
        '--persist-to',
        state,
        '--json',
        '--command',
        "SELECT region, error FROM samples WHERE target = 'loop-vendor' ORDER BY region",
      ]),
    ) as Array<{ results: Array<{ region: string; error: string | null }> }>;
    expect(rows[0].results).toEqual([...REGIONS].sort().map((region) => ({ region, error: null })));
    // Each region's streams came with the exact key.
    expect(vendor.requests.filter((r) => r.method === 'POST' && r.authorized)).toHaveLength(REGIONS.length);
  });

  it('stores the vendor refusing a wrong key as an http 401', () => {
    const refused = samples.filter((s) => s.target === 'loop-vendor-wrong-key');
    expect(refused.map((s) => [s.region, s.error, s.status]).sort()).toEqual(REGIONS.map((r) => [r, 'http', 401]).sort());
    expect(vendor.requests.some((r) => !r.authorized)).toBe(true);
  });

  it('names in /api/v1/health only the secret .dev.vars lacks, in every region', () => {
    expect(samples.filter((s) => s.target === 'loop-vendor-no-key')).toEqual([]);
    expect(health.duties.map((d) => [d.region, d.missing_secrets])).toEqual(REGIONS.map((r) => [r, ['NO_SUCH_KEY']]));
  });

  it('activates a channel whose URL variable is set only in .dev.vars', () => {
    const channels = Object.fromEntries(health.notifications.channels.map((c) => [c.name, c]));
    expect(channels['dev-vars-hook']).toMatchObject({ active: true });
    // The demo's sink, whose variable neither .dev.vars nor npm run dev sets, stays inactive: health does check.
    expect(channels['demo-sink']).toMatchObject({ active: false, inactive_because: 'variable DEMO_WEBHOOK_URL is not set' });
  });

  it('keeps its own generated variables: the token in .dev.vars is refused, the reference endpoint probed where it runs', async () => {
    const denied = await fetch(`${api}/api/v1/ticks`, { method: 'POST', headers: { authorization: `Bearer ${STALE_ADMIN_TOKEN}` } });
    expect(denied.status).toBe(401);
    const reference = samples.filter((s) => s.target === 'reference-fast-small');
    expect(reference).toHaveLength(REGIONS.length);
    expect(reference.filter((s) => s.error === null).length, JSON.stringify(reference)).toBeGreaterThan(0);
  });
});
