/** Command-line options of the local scripts: a bad value prints what was expected and exits 2. */
export function usageError(command: string, message: string, usage: string): never {
  console.error(`${command}: ${message}\n${usage}`);
  process.exit(2);
}

/** A whole-number option in [min, max], or the fallback when absent (ports: 1–65535, or 0 for any free port). */
export function intOption(
  command: string,
  usage: string,
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    usageError(command, `--${name} must be a whole number from ${min} to ${max}, got "${value}"`, usage);
  return n;
}
