/** Every Worker bundles and validates for deployment (`wrangler deploy --dry-run`), without an account. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWrangler } from '../../scripts/processes.ts';

const WORKERS: Array<[string, string[]]> = [
  ['observatory (production environment)', ['--env', 'production']],
  ['reference endpoint', ['-c', 'workers/reference/wrangler.toml']],
];

describe('wrangler deploy --dry-run', () => {
  for (const [name, args] of WORKERS) {
    it(name, async () => {
      const out = mkdtempSync(join(tmpdir(), 'dry-run-'));
      try {
        const log = await runWrangler(['deploy', '--dry-run', '--outdir', out, ...args]);
        expect(log).toContain('--dry-run: exiting now.');
        expect(statSync(join(out, 'index.js')).size).toBeGreaterThan(10_000);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
