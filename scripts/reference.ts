/** `npm run reference -- --port <P>`: the reference LLM endpoint alone, in workerd on 127.0.0.1. */
import { parseArgs } from 'node:util';
import { startWorker } from './worker-runtime.ts';

const REFERENCE_CONFIG = 'workers/reference/wrangler.toml';
const DEFAULT_PORT = 8788;

let values;
try {
  ({ values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } }));
} catch (e) {
  console.error(`reference: ${(e as Error).message}\nusage: npm run reference -- [--port ${DEFAULT_PORT}] [--host 127.0.0.1]`);
  process.exit(2);
}
const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`reference: --port must be a port number, got "${values.port}"`);
  process.exit(2);
}
const worker = await startWorker({ config: REFERENCE_CONFIG, port, host: values.host ?? '127.0.0.1' });
console.log(`reference LLM endpoint: ${worker.url}`);
console.log(`  try: npm run probe -- ${worker.url}/v1/chat/completions --api openai-chat --model ref-fast-small --n 5`);
const stop = async () => {
  await worker.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
