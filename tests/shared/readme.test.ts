/**
 * The README is the contract with a new user: at most 200 lines, its first screen the purpose and the three
 * commands (install, start, test), CI running the very test command it names, and every local link it gives
 * pointing at a file and heading that exist.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const README = readFileSync('README.md', 'utf8');
const lines = README.split('\n');
/** A terminal's first screen. */
const FIRST_SCREEN_LINES = 24;

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .trim()
    .replace(/ /g, '-');
const anchorsIn = (text: string) => new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1])));

describe('the README', () => {
  it('is at most 200 lines', () => {
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('shows the install, start and test commands on its first screen, and CI runs the same test command', () => {
    const first = lines.slice(0, FIRST_SCREEN_LINES).join('\n');
    for (const command of ['npm install', 'npm start', 'npm test']) expect(first).toMatch(new RegExp(`^${command}\\b`, 'm'));
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/^npm test\b/m);
  });

  it('links only to files and headings that exist', () => {
    const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) {
      const [path, anchor] = link.split('#');
      const file = path === '' ? 'README.md' : join(dirname('README.md'), path);
      expect(existsSync(file), link).toBe(true);
      if (anchor) expect(anchorsIn(readFileSync(file, 'utf8')), link).toContain(anchor);
    }
  });
});
