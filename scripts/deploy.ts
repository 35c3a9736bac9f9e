/**
 * `npm run deploy`: the whole deploy, step by step; `npm run deploy -- --step <name>` runs one step,
 * `npm run deploy -- --dry-run` checks every step that needs no account (each Worker bundled with
 * `wrangler deploy --dry-run`, the site built against --api).
 *
 *   1 preflight   the configuration is valid, and wrangler is logged in
 *   2 d1          create the D1 database (once) and write its id into wrangler.toml
 *   3 migrations  apply D1 migrations to the remote database
 *   4 secrets     ADMIN_TOKEN and every target's apiKeySecret are set (prompts for missing ones)
 *   5 reference   deploy the reference endpoint with a token of its own (created and set as its
 *                 REFERENCE_TOKEN and the observatory's REFERENCE_KEY when not yet set); write its URL into
 *                 wrangler.toml
 *   6 observatory deploy the scheduler, regional objects and API (env production)
 *   7 site        build the site against the deployed API and publish it as static assets
 *   8 rebuilds    how the site is rebuilt on a schedule (.github/workflows/site-rebuild.yml)
 */
import { parseArgs } from 'node:util';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { config } from '../observatory.config.ts';
import { ConfigError, validateConfig } from '../shared/config/validate.ts';
import { runWrangler, WRANGLER_ENV, wranglerArgs } from './processes.ts';
import { buildSite } from './site-build.ts';
import { channelSecrets } from '../shared/status/channels.ts';
import { emptySiteData } from '../site/src/data/empty.ts';
import { localUrl } from '../shared/net/local-ports.ts';

const STEPS = ['preflight', 'd1', 'migrations', 'secrets', 'reference', 'observatory', 'site', 'rebuilds'] as const;
type Step = (typeof STEPS)[number];
const PLACEHOLDER_ID = '00000000-0000-0000-0000-000000000000';
const READ_TOKEN_FILE = '.wrangler/read-token';
const WRANGLER_TOML = 'wrangler.toml';

let values;
try {
  ({ values } = parseArgs({
    options: { step: { type: 'string' }, 'dry-run': { type: 'boolean' }, api: { type: 'string' }, 'data-file': { type: 'string' } },
  }));
} catch (e) {
  console.error(
    `deploy: ${(e as Error).message}\nusage: npm run deploy -- [--step ${STEPS.join('|')}] [--dry-run] [--api URL | --data-file site-data.json]`,
  );
  process.exit(2);
}
const dryRun = values['dry-run'] === true;
if (values.step !== undefined && !(STEPS as readonly string[]).includes(values.step)) {
  console.error(`deploy: unknown step "${values.step}"; steps: ${STEPS.join(', ')}`);
  process.exit(2);
}
const steps: readonly Step[] = values.step ? [values.step as Step] : STEPS;
const say = (line: string) => console.log(line);

/** `wrangler secret put NAME` with the value on stdin: never on a command line. */
async function putSecret(name: string, value: string, args: string[]): Promise<void> {
  const [cmd, argv] = wranglerArgs(['secret', 'put', name, ...args]);
  const result = spawnSync(cmd, argv, { input: value, stdio: ['pipe', 'inherit', 'inherit'], env: WRANGLER_ENV });
  if (result.status !== 0) throw new Error(`wrangler secret put ${name} failed`);
}

/** Replaces `key = "…"` inside one [section] of wrangler.toml. */
function patchToml(section: string, key: string, value: string): void {
  const text = readFileSync(WRANGLER_TOML, 'utf8');
  const start = text.indexOf(section);
  if (start === -1) throw new Error(`${WRANGLER_TOML} has no ${section}`);
  const end = text.indexOf('\n[', start + section.length);
  const block = text.slice(start, end === -1 ? undefined : end);
  const patched = block.replace(new RegExp(`^${key} = ".*"$`, 'm'), `${key} = "${value}"`);
  writeFileSync(WRANGLER_TOML, text.slice(0, start) + patched + (end === -1 ? '' : text.slice(end)));
}

function tomlValue(section: string, key: string): string | null {
  const text = readFileSync(WRANGLER_TOML, 'utf8');
  const start = text.indexOf(section);
  if (start === -1) return null;
  const end = text.indexOf('\n[', start + section.length);
  return new RegExp(`^${key} = "(.*)"$`, 'm').exec(text.slice(start, end === -1 ? undefined : end))?.[1] ?? null;
}

function workersDevUrl(log: string): string | null {
  return /https:\/\/[a-z0-9.-]+\.workers\.dev/.exec(log)?.[0] ?? null;
}

/** `bundle`: the Worker has code, so the dry run must leave its bundle (the site's static-assets Worker has none). */
async function dryRunDeploy(args: string[], bundle = true): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'deploy-dry-run-'));
  try {
    const log = await runWrangler(['deploy', '--dry-run', '--outdir', out, ...args]);
    // A dry run that exits early or bundles nothing fails here, not at the real deploy.
    const file = join(out, 'index.js');
    if (!log.includes('--dry-run: exiting now.') || (bundle && (!existsSync(file) || statSync(file).size < 10_000)))
      throw new Error(`wrangler deploy --dry-run ${args.join(' ')} produced no Worker bundle:\n${log.slice(-2000)}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const run: Record<Step, () => Promise<void>> = {
  async preflight() {
    validateConfig(config);
    say(`  configuration valid: ${config.regions.length} regions, ${config.targets.length} targets`);
    if (dryRun) return say('  (dry run: not checking the Cloudflare login)');
    say(`  ${(await runWrangler(['whoami'])).split('\n').find((l) => /logged in|account/i.test(l)) ?? 'logged in'}`);
  },
  async d1() {
    const id = tomlValue('[[env.production.d1_databases]]', 'database_id');
    if (id && id !== PLACEHOLDER_ID) return say(`  D1 database already set: ${id}`);
    if (dryRun)
      return say('  (dry run) would run: wrangler d1 create llm-observatory, then write its id into [[env.production.d1_databases]]');
    const log = await runWrangler(['d1', 'create', 'llm-observatory']);
    const created = /"?database_id"?\s*[=:]\s*"([0-9a-f-]{36})"/.exec(log)?.[1];
    if (!created) throw new Error(`could not read the new database id from wrangler's output:\n${log}`);
    patchToml('[[env.production.d1_databases]]', 'database_id', created);
    say(`  created D1 database ${created} and wrote its id into ${WRANGLER_TOML}`);
  },
  async migrations() {
    if (dryRun) return say('  (dry run) would run: wrangler d1 migrations apply DB --remote --env production');
    say(await runWrangler(['d1', 'migrations', 'apply', 'DB', '--remote', '--env', 'production']));
  },
  async secrets() {
    // Notification channels' secrets; a channel whose URL is a {VAR} (the demo's sink) needs them only once VAR is set.
    const channels = (config.notifications?.channels ?? []).map((c) => ({ name: c.name, ...channelSecrets(c) }));
    const needed = [
      ...new Set([
        'ADMIN_TOKEN',
        ...config.targets.flatMap((t) => (t.apiKeySecret ? [t.apiKeySecret] : [])),
        ...channels.filter((c) => c.vars.length === 0).flatMap((c) => c.secrets),
      ]),
    ];
    for (const c of channels.filter((x) => x.vars.length > 0 && x.secrets.length > 0))
      say(`  channel ${c.name} is inactive until ${c.vars.join(', ')} is set; it then needs ${c.secrets.join(', ')}`);
    if (dryRun) return say(`  (dry run) would check these secrets exist: ${needed.join(', ')}`);
    const listed = JSON.parse(await runWrangler(['secret', 'list', '--env', 'production', '--format', 'json'])) as Array<{ name: string }>;
    // The read token the site build sends (its reads are then outside the anonymous budget and cache): made here, once.
    if (!listed.some((s) => s.name === 'READ_TOKEN')) {
      const token = randomBytes(24).toString('hex');
      await putSecret('READ_TOKEN', token, ['--env', 'production']);
      writeFileSync(READ_TOKEN_FILE, token, { mode: 0o600 });
      say(
        `  created READ_TOKEN (kept in ${READ_TOKEN_FILE} for the site step); set it as the repository secret OBSERVATORY_READ_TOKEN for the rebuild workflow`,
      );
    }
    const missing = needed.filter((n) => !listed.some((s) => s.name === n));
    if (missing.length === 0) return say(`  secrets set: ${needed.join(', ')}`);
    if (!process.stdin.isTTY)
      throw new Error(`missing secrets ${missing.join(', ')}: run npx wrangler secret put NAME --env production for each`);
    for (const name of missing) {
      say(`  ${name} is not set; wrangler will ask for its value (it is stored encrypted by Cloudflare, never in this repository)`);
      const [cmd, argv] = wranglerArgs(['secret', 'put', name, '--env', 'production']);
      const result = spawnSync(cmd, argv, { stdio: 'inherit', env: { ...WRANGLER_ENV, CI: '' } });
      if (result.status !== 0) throw new Error(`wrangler secret put ${name} failed`);
    }
  },
  async reference() {
    if (dryRun) {
      await dryRunDeploy(['-c', 'workers/reference/wrangler.toml']);
      return say(
        "  (dry run) reference endpoint bundles and validates; would create a REFERENCE_TOKEN and set it on it and as the observatory's REFERENCE_KEY, unless set",
      );
    }
    const url = workersDevUrl(await runWrangler(['deploy', '-c', 'workers/reference/wrangler.toml']));
    // A deployed reference endpoint without a token refuses everyone (REFERENCE_OPEN = "true" would open it):
    // one is made here, once, and given to the observatory too.
    const referenceSecrets = JSON.parse(
      await runWrangler(['secret', 'list', '-c', 'workers/reference/wrangler.toml', '--format', 'json']),
    ) as Array<{ name: string }>;
    if (!referenceSecrets.some((s) => s.name === 'REFERENCE_TOKEN')) {
      const token = `ref_${randomBytes(24).toString('hex')}`;
      await putSecret('REFERENCE_TOKEN', token, ['-c', 'workers/reference/wrangler.toml']);
      await putSecret('REFERENCE_KEY', token, ['--env', 'production']);
      say("  created a REFERENCE_TOKEN for the reference endpoint and set it as the observatory's REFERENCE_KEY");
    } else {
      say('  REFERENCE_TOKEN already set on the reference endpoint (the observatory sends its REFERENCE_KEY)');
    }
    if (!url) return say('  deployed; set REFERENCE_URL in [env.production.vars] to its URL (no workers.dev URL in the output)');
    patchToml('[env.production.vars]', 'REFERENCE_URL', url);
    say(`  deployed at ${url}; wrote it into [env.production.vars] REFERENCE_URL`);
  },
  async observatory() {
    if (dryRun) {
      await dryRunDeploy(['--env', 'production']);
      return say('  (dry run) observatory Worker bundles and validates');
    }
    const url = workersDevUrl(await runWrangler(['deploy', '--env', 'production']));
    say(`  deployed${url ? ` at ${url}; its API: ${url}/api/v1/health` : ''}`);
    if (url) writeFileSync('.wrangler/deployed-api-url', url);
  },
  async site() {
    await buildSite(new URL('../site/dist', import.meta.url).pathname, await siteSource(values['data-file'], values.api));
    if (dryRun) {
      await dryRunDeploy(['-c', 'site/wrangler.toml'], false);
      return say('  (dry run) site built and its static-assets Worker validates');
    }
    const url = workersDevUrl(await runWrangler(['deploy', '-c', 'site/wrangler.toml']));
    say(`  published${url ? ` at ${url}` : ''}`);
  },
  async rebuilds() {
    say('  .github/workflows/site-rebuild.yml rebuilds and republishes the site every hour. In the repository settings set');
    say('  the secrets CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID and the variable SITE_API_URL (the observatory URL above).');
  },
};

/**
 * Where the site is built from: --data-file (an export), else the API (--api, the deployed one, or in a
 * dry run the local one). A dry run whose API does not answer builds an empty state instead, and says so.
 */
async function siteSource(
  dataFile: string | undefined,
  apiOption: string | undefined,
): Promise<{ apiUrl?: string; readToken?: string; dataFile?: string }> {
  if (dataFile) {
    say(`  building the site from the export ${dataFile}`);
    return { dataFile };
  }
  const api = apiOption ?? (dryRun ? localUrl('api') : readFileSync('.wrangler/deployed-api-url', 'utf8').trim());
  if (dryRun && !(await answers(`${api.replace(/\/$/, '')}/api/v1/health`))) {
    const file = join(mkdtempSync(join(tmpdir(), 'deploy-empty-')), 'site-data.json');
    writeFileSync(file, JSON.stringify(emptySiteData(config)));
    say(
      `  (dry run) no read API answers at ${api}: building the site from an empty state (every configured region and target, no data); pass --api URL or --data-file FILE to build it with data`,
    );
    return { dataFile: file };
  }
  say(`  building the site against ${api}`);
  const readToken = process.env.SITE_READ_TOKEN ?? (existsSync(READ_TOKEN_FILE) ? readFileSync(READ_TOKEN_FILE, 'utf8').trim() : undefined);
  return { apiUrl: api, readToken };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

for (const [i, step] of steps.entries()) {
  say(`${values.step ? STEPS.indexOf(step) + 1 : i + 1}. ${step}`);
  try {
    await run[step]();
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `deploy: step ${step} failed: ${(e as Error).message}`);
    process.exit(1);
  }
}
say(dryRun ? 'dry run complete: nothing was deployed' : 'deployed');
