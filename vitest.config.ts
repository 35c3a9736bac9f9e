import { fileURLToPath } from 'node:url';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { TEST_REFERENCE_KEY } from './tests/helpers/workers-reference-setup.ts';
import LongestFirst from './tests/helpers/longest-first.ts';

const migrations = await readD1Migrations(fileURLToPath(new URL('./migrations', import.meta.url)));
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Three test files at a time: the slow ones (npm start, the browser site) mostly wait on probes whose latency is the
 * reference endpoint's model, not on this machine's two cores; the third runs everything else beside them. Every
 * project states it (a project does not inherit the root's test options).
 */
const MAX_WORKERS = 3;

export default defineConfig({
  test: {
    maxWorkers: MAX_WORKERS,
    // The longest files first, across projects, so the short ones run beside them (tests/helpers/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: {
          name: 'shared',
          maxWorkers: MAX_WORKERS,
          include: ['tests/shared/**/*.test.ts', 'tests/cli/**/*.test.ts', 'tests/scripts/**/*.test.ts'],
          exclude: ['**/*.timing.test.ts'],
          environment: 'node',
          // The CLI is also checked against the reference endpoint, as a user would try it.
          globalSetup: ['tests/helpers/reference-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'reference',
          maxWorkers: MAX_WORKERS,
          include: ['tests/reference/**/*.test.ts'],
          exclude: ['**/*.timing.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/reference-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        // The report site's data derivations and chart functions (time zone pinned for the snapshots).
        test: {
          name: 'site',
          maxWorkers: MAX_WORKERS,
          include: ['tests/site/**/*.test.ts'],
          exclude: ['tests/site/browser.test.ts'],
          environment: 'node',
          env: { TZ: 'UTC' },
        },
      },
      {
        // The local scripts as a user runs them: real wrangler dev, real local D1, real HTTP.
        test: {
          name: 'e2e',
          maxWorkers: MAX_WORKERS,
          include: ['tests/e2e/**/*.test.ts', 'tests/site/browser.test.ts'],
          environment: 'node',
          // Bounds for a hung run, not timing claims: a busy 2-core machine takes several minutes to start the
          // whole observatory or to screenshot every page in two colour schemes (seen: over 120 s).
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        // The observatory Worker inside workerd: cron, regional Durable Objects, local D1, read API.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              // A second, empty database for the migration upgrade test.
              d1Databases: { UPGRADE_DB: 'upgrade-test' },
              // The email channel of test-config.ts: miniflare's local send_email, which checks and stores each message.
              email: { send_email: [{ name: 'EMAIL' }] },
              bindings: {
                TEST_MIGRATIONS: migrations,
                REFERENCE_URL: inject('workersReferenceUrl'),
                OTLP_ENDPOINT: `${inject('otlpCollectorUrl')}/v1/metrics`,
                OTLP_TOKEN: 'Bearer test-otlp-token',
                OTLP_COLLECTOR: inject('otlpCollectorUrl'),
                REFERENCE_KEY: TEST_REFERENCE_KEY,
                ADMIN_TOKEN: 'test-admin-token',
                READ_TOKEN: 'test-read-token',
                // Most tests fire crons at chosen times; the heartbeat's own test turns it on for its ticks.
                LATE_TICKS: 'off',
                // The public views are built when a test asks (POST /api/v1/views), so what an anonymous reader gets is
                // the live path until then, whatever the timing of a file's alarms.
                VIEW_BUILDS: 'on-demand',
                // Notification channels of test-config.ts, all at the loopback receiver.
                NOTIFY_URL: inject('notifyReceiverUrl'),
                // The stand-in vendor Statuspages (tests/helpers/statuspage-server.ts), for tests/workers/vendor-status.test.ts.
                STATUSPAGE_URL: inject('statuspageUrl'),
                // Two Standard Webhooks keys, as while rotating: a receiver holding either verifies.
                WEBHOOK_SECRET: 'whsec_dGVzdC13ZWJob29rLXNpZ25pbmcta2V5LW9uZQ== whsec_dGVzdC13ZWJob29rLXNpZ25pbmcta2V5LXR3bw==',
                SLACK_URL: `${inject('notifyReceiverUrl')}/slack/T000/B000/XXXX`,
                DISCORD_URL: `${inject('notifyReceiverUrl')}/discord/api/webhooks/1/abc`,
                TELEGRAM_TOKEN: '123456:test-bot-token',
                NTFY_TOKEN: 'tk_test',
              },
            },
          })),
        ],
        resolve: { alias: [{ find: /^.*\/observatory\.config\.ts$/, replacement: here('./tests/workers/test-config.ts') }] },
        test: {
          name: 'workers',
          maxWorkers: MAX_WORKERS,
          include: ['tests/workers/**/*.test.ts'],
          setupFiles: ['tests/workers/apply-migrations.ts', 'tests/workers/console-errors.ts', 'tests/workers/no-alarms-after-file.ts'],
          globalSetup: ['tests/helpers/workers-reference-setup.ts'],
          // A bound for a hung test, not a timing claim: the status tests drive 20-odd real ticks of probes through
          // workerd (15 s alone), and beside the site-build and e2e files on 2 busy cores they passed 60 s.
          testTimeout: 180_000,
        },
      },
      {
        // Timing claims measured on loopback: after the rest, two files at a time. That is less load than the two
        // busy loops their bounds are checked against (a bound a definition error breaks, not a busy machine).
        test: {
          name: 'timing',
          include: ['tests/**/*.timing.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/reference-setup.ts'],
          maxWorkers: 2,
          testTimeout: 120_000,
        },
      },
    ],
  },
});
