/**
 * `node tests/helpers/reference-process.ts '<bindings JSON>'`: the reference endpoint in workerd with the given string
 * bindings, on a free loopback port; prints `reference: <url>` and stops on SIGTERM. For a global setup that runs
 * inside Vite's module runner (the workers project inlines every dependency): loading wrangler and miniflare there
 * costs ~15 s of transform per run, in a plain Node process none.
 */
import { startWorker } from '../../scripts/worker-runtime.ts';

const bindings = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const worker = await startWorker({ config: 'workers/reference/wrangler.toml', bindings });
console.log(`reference: ${worker.url}`);
const stop = async () => {
  await worker.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
