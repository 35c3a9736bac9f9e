/**
 * Error messages the Workers tests provoke on purpose (a missing secret, D1 taken away) are expected
 * output, not noise: they are swallowed while they match what the running test declared, and anything
 * else still reaches the terminal. A test that provokes errors says which with `expectConsoleErrors`.
 */
import { afterEach } from 'vitest';

/** test-config.ts has a target whose secret is deliberately missing; every tick reports it. */
const ALWAYS_EXPECTED = [/secret ABSENT_KEY for target ref-no-key is not set/];
let expected: RegExp[] = [];
const seen: string[] = [];
const original = console.error.bind(console);

console.error = (...args: unknown[]) => {
  const text = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
  if ([...ALWAYS_EXPECTED, ...expected].some((re) => re.test(text))) seen.push(text);
  else original(...args);
};

/** Declares the error messages this test provokes; returns what was swallowed so far, to assert on. */
export function expectConsoleErrors(...patterns: RegExp[]): string[] {
  expected.push(...patterns);
  return seen;
}

afterEach(() => {
  expected = [];
  seen.length = 0;
});
