/** `npm run reference -- --port <P>`: the reference LLM endpoint alone, in workerd on 127.0.0.1. */
import { parseArgs } from 'node:util';
import { startWorker } from './worker-runtime.ts';
import { intOption, usageError } from './options.ts';
import { LOCAL_PORTS } from '../shared/net/local-ports.ts';

const REFERENCE_CONFIG = 'workers/reference/wrangler.toml';
const DEFAULT_PORT = LOCAL_PORTS.reference;

const USAGE = `usage: npm run reference -- [--port ${DEFAULT_PORT}] [--host 127.0.0.1]`;
let values;
try {
  ({ values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } } }));
} catch (e) {
  usageError('reference', (e as Error).message, USAGE);
}
const port = intOption('reference', USAGE, 'port', values.port, DEFAULT_PORT, 0, 65535);
// Open to anyone who can reach it, asked for explicitly: a deployment without REFERENCE_TOKEN refuses every request.
const worker = await startWorker({
  config: REFERENCE_CONFIG,
  port,
  host: values.host ?? '127.0.0.1',
  bindings: { REFERENCE_OPEN: 'true' },
});
console.log(`reference LLM endpoint: ${worker.url}`);
console.log(`  try: npm run probe -- ${worker.url}/v1/chat/completions --api openai-chat --model ref-fast-small --n 5`);
const stop = async () => {
  await worker.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
