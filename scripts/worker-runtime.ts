/**
 * Runs one Worker of this repository in workerd through Miniflare directly: bundled with esbuild,
 * bindings ([vars]) read from its wrangler.toml, served on a chosen loopback port. `wrangler dev`
 * runs the same Worker too, but puts a reloading proxy in front that adds ~5 ms per request on
 * loopback; a calibration target should not carry that.
 */
import { build } from 'esbuild';
import { Miniflare, convertV4MiniflareOptions } from 'miniflare';
import { unstable_readConfig } from 'wrangler';
import { dirname, resolve } from 'node:path';

export interface RunningWorker {
  url: string;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  config: string;
  host?: string;
  port?: number;
  /** Extra or overriding string bindings (e.g. secrets for a local run). */
  bindings?: Record<string, string>;
}

/** A Worker's entry module bundled as workerd loads it (one ES module; cloudflare: and node: imports left to the runtime). */
export async function bundleWorker(entry: string): Promise<string> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2023',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*', 'node:*'],
    write: false,
    logLevel: 'error',
  });
  return bundle.outputFiles[0].text;
}

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const configPath = resolve(options.config);
  const config = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  if (!config.main) throw new Error(`${options.config} names no main module`);
  const bundle = await bundleWorker(resolve(dirname(configPath), config.main));
  const vars = Object.fromEntries(Object.entries(config.vars ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      name: config.name,
      modules: [{ type: 'ESModule', path: 'worker.mjs', contents: bundle }],
      compatibilityDate: config.compatibility_date,
      compatibilityFlags: config.compatibility_flags,
      bindings: { ...vars, ...options.bindings },
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
    }),
  );
  const url = await mf.ready;
  return { url: url.origin, stop: () => mf.dispose() };
}
