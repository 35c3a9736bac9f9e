/**
 * The observatory Worker's variables in a local run (`npm run dev`, `npm start`): the user's local
 * secrets (.dev.vars) and the variables these scripts generate, in one file for `wrangler dev --env-file`.
 *
 * Why one file: given `--env-file`, wrangler dev reads only the files named there and skips .dev.vars
 * (wrangler 4.156's getVarsForDev; Cloudflare's "Environment variables and secrets" page). So the user's
 * secrets are read here, by wrangler's own function as `wrangler dev` alone would read them: .dev.vars
 * next to wrangler.toml, or, when there is none, .env and .env.local (the later winning), unless
 * CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV=false. `.dev.vars.<env>` is read only for an environment picked
 * with `--env`; a local run is wrangler.toml's top level, so never (LOCAL_WRANGLER_ENV).
 *
 * On a clash the generated variable wins: it says what this run started (the reference endpoint's
 * address and its proxies, the sink, fresh tokens printed for the user), so a value kept in .dev.vars
 * would point the Worker at nothing or make the printed tokens fail. These scripts generate no key of
 * a vendor or a channel, so every such secret in .dev.vars reaches the Worker unchanged.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { unstable_getVarsForDev } from 'wrangler';

/** The observatory Worker's configuration, beside which wrangler looks for .dev.vars. */
export const WRANGLER_CONFIG = 'wrangler.toml';

/**
 * Environment of every wrangler a local run starts, whatever the shell holds: the top level of
 * wrangler.toml (not the environment CLOUDFLARE_ENV would select: production's variables reach the
 * internet), the generated file always read, and nothing of the shell's environment made a secret.
 * wrangler also loads an --env-file into its own environment (the shell's variables winning there), so the file
 * cannot change these three; a wrangler setting kept in .dev.vars (WRANGLER_LOG, say) does apply to wrangler itself.
 */
export const LOCAL_WRANGLER_ENV = {
  CLOUDFLARE_ENV: '',
  CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: 'true',
  CLOUDFLARE_INCLUDE_PROCESS_ENV: 'false',
};

export interface LocalSecrets {
  /** What `wrangler dev` would read for the Worker: name → value. */
  values: Record<string, string>;
  /** The files they came from, relative to the project (none: no local secrets). */
  files: string[];
}

/** The user's local secrets, exactly as `wrangler dev` without `--env-file` reads them. */
export function readLocalSecrets(config = WRANGLER_CONFIG): LocalSecrets {
  const dir = dirname(resolve(config));
  const read = unstable_getVarsForDev(resolve(config), undefined, {}, undefined, true);
  const values = Object.fromEntries(Object.entries(read).map(([k, b]) => [k, String(b.value)]));
  const devVars = existsSync(join(dir, '.dev.vars'));
  const files = devVars ? ['.dev.vars'] : ['.env', '.env.local'].filter((f) => existsSync(join(dir, f)));
  return { values, files };
}

/**
 * Writes the user's secrets and the generated variables (winning on a clash) to a dotenv file only this
 * user can read, then reads it back as `wrangler dev --env-file` will; throws, naming the variables,
 * when one would not arrive unchanged. Returns the names of the user's variables the generated ones replaced.
 */
export function writeLocalVars(path: string, user: Record<string, string>, generated: Record<string, string>): string[] {
  const vars = { ...user, ...generated };
  const bad = Object.keys(vars).filter((k) => !/^[A-Za-z_][\w.-]*$/.test(k));
  if (bad.length > 0) throw new Error(`variable names ${bad.join(', ')} are not dotenv names; rename them in .dev.vars`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    Object.entries(vars)
      .map(([k, v]) => dotenvLine(k, v))
      .join(''),
    { mode: 0o600 },
  );
  chmodSync(path, 0o600); // also when an earlier run left the file behind
  const back = readAsEnvFile(path);
  const changed = Object.keys(vars).filter((k) => back[k] !== vars[k]);
  const extra = Object.keys(back).filter((k) => !(k in vars));
  if (changed.length > 0 || extra.length > 0)
    throw new Error(
      `variables ${[...changed, ...extra].join(', ')} cannot be passed to wrangler dev unchanged ` +
        '(a carriage return, or every quote mark and a line break, which no dotenv quoting keeps); change them in .dev.vars',
    );
  return Object.keys(generated).filter((k) => k in user);
}

/**
 * One `NAME=value` line. wrangler passes an --env-file through dotenv-expand, which would replace `$NAME`
 * and `${NAME}` (unlike .dev.vars, read literally): each `$` is written `\$`, which it turns back into `$`.
 * The value is quoted with a mark it does not hold (dotenv keeps quoted text as it is, `#` and spaces included).
 */
function dotenvLine(name: string, value: string): string {
  const escaped = value.replaceAll('$', '\\$');
  const quote = ["'", '`', '"'].find((q) => !escaped.includes(q)) ?? "'";
  return `${name}=${quote}${escaped}${quote}\n`;
}

/** The file as `wrangler dev --env-file <path>` reads it, under LOCAL_WRANGLER_ENV's settings (read by wrangler from process.env). */
function readAsEnvFile(path: string): Record<string, string> {
  const saved = Object.keys(LOCAL_WRANGLER_ENV).map((k) => [k, process.env[k]] as const);
  Object.assign(process.env, LOCAL_WRANGLER_ENV);
  try {
    const read = unstable_getVarsForDev(undefined, [resolve(path)], {}, undefined, true);
    return Object.fromEntries(Object.entries(read).map(([k, b]) => [k, String(b.value)]));
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
