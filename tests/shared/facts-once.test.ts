/**
 * Facts that are defined once, held by a scan of the code: a second definition fails here, not on a page.
 * - Time units: shared/time.ts alone names SECOND_MS, MINUTE_MS, HOUR_MS and DAY_MS; nobody re-exports them, and no
 *   code spells a minute, an hour or a day as a bare number of milliseconds.
 * - Local ports: shared/net/local-ports.ts alone holds 8787, 8788 and 4321 (wrangler.toml, which cannot import it,
 *   is held to it below).
 * - The longest view (90 days): shared/views/windows.ts alone; other code says LONGEST_VIEW_DAYS.
 * - The status states' colours and their count columns: shared/status/levels.ts alone (STATE_COLORS, stateColumn).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { localUrl, LOCAL_PORTS } from '../../shared/net/local-ports.ts';
import { LONGEST_VIEW_DAYS } from '../../shared/views/windows.ts';
import { STATE_COLORS } from '../../shared/status/levels.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CODE_DIRS = ['shared', 'workers', 'site/src', 'scripts', 'cli', 'bench'];
const CODE = /\.(ts|mjs|astro)$/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sources(path);
    return CODE.test(e.name) && !e.name.endsWith('worker-configuration.d.ts') ? [path] : [];
  });
}

const files = [...CODE_DIRS.flatMap((d) => sources(join(ROOT, d))), join(ROOT, 'site/astro.config.mjs')];
const text = new Map(files.map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')]));

/** Lines of code (not comments) that match, as "file:line: text", outside the files allowed. */
function offenders(pattern: RegExp, allowed: readonly string[] = []): string[] {
  const found: string[] = [];
  for (const [file, body] of text) {
    if (allowed.includes(file)) continue;
    body.split('\n').forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*(\*|\/\*\*)/.test(code)) return;
      if (pattern.test(code)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe('facts defined once', () => {
  it('scans the code it claims to', () => {
    expect(text.size).toBeGreaterThan(300);
    expect(text.has('shared/time.ts')).toBe(true);
  });

  it('time units: named in shared/time.ts only, never re-exported, never spelled as bare milliseconds', () => {
    expect(offenders(/\b(const|let)\s+(MS_PER_S|SECOND_MS|MINUTE_MS|MINUTE|HOUR_MS|DAY_MS|UNIT_MS)\s*=/, ['shared/time.ts'])).toEqual([]);
    expect(offenders(/export\s*\{[^}]*\b(SECOND_MS|MINUTE_MS|HOUR_MS|DAY_MS)\b[^}]*\}\s*from/)).toEqual([]);
    expect(offenders(/\b(3_600_000|86_400_000|3600000|86400000)\b|[*/]\s*60_000\b|\b60\s*\*\s*60\s*\*\s*1000\b/)).toEqual([]);
  });

  it('local ports: in shared/net/local-ports.ts only, and wrangler.toml points at the same reference endpoint', () => {
    const ports = Object.values(LOCAL_PORTS).join('|');
    expect(offenders(new RegExp(`\\b(${ports})\\b`), ['shared/net/local-ports.ts'])).toEqual([]);
    const local = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').split(/^\[env\./m)[0];
    expect(/^REFERENCE_URL\s*=\s*"([^"]+)"/m.exec(local)?.[1]).toBe(localUrl('reference'));
  });

  it('the longest view: its days in shared/views/windows.ts only', () => {
    expect(LONGEST_VIEW_DAYS).toBe(90);
    expect(offenders(/\b90\s*\*\s*(24|DAY_MS)\b|'90d'|\* 90\b/, ['shared/views/windows.ts'])).toEqual([]);
  });

  it('the status states: their colours and count columns in shared/status/levels.ts only', () => {
    const hexes = Object.values(STATE_COLORS).flatMap((c) => [c.light, c.dark]);
    expect(offenders(new RegExp(hexes.join('|'), 'i'), ['shared/status/levels.ts'])).toEqual([]);
    expect(offenders(/'no_data'|"no_data"/, ['shared/status/levels.ts'])).toEqual([]);
  });
});
