/**
 * `npm run deploy -- --dry-run` as a user without an account runs it: every step that needs no account passes
 * (each Worker bundled and validated by `wrangler deploy --dry-run`, the site built and its static-assets Worker
 * validated). Against a read API that does not answer, the site is built from an empty state, and says so. It
 * needs no running demo, so it runs beside `npm start`'s test rather than after it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/processes.ts';

describe('npm run deploy -- --dry-run', () => {
  it('passes every step that needs no account, and builds the site from an empty state when no read API answers', async () => {
    const nothing = await freePort();
    const dry = spawn(process.execPath, ['scripts/deploy.ts', '--dry-run', '--api', `http://127.0.0.1:${nothing}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    dry.stdout.on('data', (d) => (log += d));
    dry.stderr.on('data', (d) => (log += d));
    const code = await new Promise((r) => dry.on('close', r));
    expect(code, log).toBe(0);
    for (const step of ['preflight', 'd1', 'migrations', 'secrets', 'reference', 'observatory', 'site', 'rebuilds'])
      expect(log).toContain(step);
    expect(log).toContain('reference endpoint bundles and validates');
    expect(log).toContain('observatory Worker bundles and validates');
    expect(log).toContain(`no read API answers at http://127.0.0.1:${nothing}: building the site from an empty state`);
    expect(log).toContain('site built and its static-assets Worker validates');
    expect(log).toContain('dry run complete: nothing was deployed');
  }, 600_000);
});
