/**
 * Every configured vitest project runs: `npm test` (and so `.ci/run`) names each project of
 * vitest.config.ts, so no configured suite checks nothing.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

describe('the test command', () => {
  it('runs every project configured in vitest.config.ts', () => {
    const config = readFileSync(new URL('vitest.config.ts', root), 'utf8');
    // A project's name comes right before its include list (other `name:` keys, such as a binding's, do not).
    const configured = [...config.matchAll(/\bname:\s*'([^']+)',\s*\n(?:\s*maxWorkers:[^\n]*\n)?\s*include:/g)].map((m) => m[1]);
    expect(configured.length).toBeGreaterThanOrEqual(6);
    const test: string = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')).scripts.test;
    const run = [...test.matchAll(/--project\s+(\S+)/g)].map((m) => m[1]);
    expect([...new Set(run)].sort()).toEqual([...new Set(configured)].sort());
    expect(readFileSync(new URL('.ci/run', root), 'utf8')).toContain('npm test');
  });
});
