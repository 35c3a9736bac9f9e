/**
 * `npm run dev`: the observatory locally. The API on its local port (--port, shared/net/local-ports.ts), the reference
 * endpoint on its own (--reference-port), a local D1 under .wrangler/state; `GET /__scheduled` fires a tick.
 */
import { parseArgs } from 'node:util';
import { startLocalObservatory } from './local-observatory.ts';
import { intOption, usageError } from './options.ts';
import { LOCAL_PORTS } from '../shared/net/local-ports.ts';

const USAGE = `usage: npm run dev -- [--port ${LOCAL_PORTS.api}] [--reference-port ${LOCAL_PORTS.reference}] (0: any free port) [--persist-to .wrangler/state]`;

const port = (name: string, value: string | undefined, fallback: number) => intOption('dev', USAGE, name, value, fallback, 0, 65535);

let values;
try {
  ({ values } = parseArgs({
    options: { port: { type: 'string' }, 'reference-port': { type: 'string' }, 'persist-to': { type: 'string' } },
  }));
} catch (e) {
  usageError('dev', (e as Error).message, USAGE);
}
let local;
try {
  local = await startLocalObservatory({
    apiPort: port('port', values.port, LOCAL_PORTS.api),
    referencePort: port('reference-port', values['reference-port'], LOCAL_PORTS.reference),
    persistTo: values['persist-to'] ?? '.wrangler/state',
    command: 'npm run dev',
    log: (line) => console.log(`  [wrangler] ${line}`),
    progress: (line) => console.log(`• ${line}`),
  });
} catch (e) {
  console.error(`dev: ${(e as Error).message}`);
  process.exit(1);
}
console.log(`\nobservatory API:   ${local.apiUrl}/api/v1/health`);
console.log(`reference:         ${local.referenceUrl}`);
console.log(`fire a tick:       curl '${local.apiUrl}/__scheduled?cron=*/5+*+*+*+*'`);
console.log(`admin token:       ${local.adminToken}  (POST /api/v1/ticks with "Authorization: Bearer …")`);
console.log(`read token:        ${local.readToken}  (raw samples over more than a day, as the site build reads them)`);
console.log('Ctrl-C stops everything.');
const stop = async () => {
  await local.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
