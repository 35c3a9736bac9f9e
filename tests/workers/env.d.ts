/// <reference types="@cloudflare/vitest-plugin/types" />
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    UPGRADE_DB: D1Database;
    ADMIN_TOKEN: string;
    READ_TOKEN: string;
    REFERENCE_KEY: string;
    OTLP_COLLECTOR: string;
    NOTIFY_URL: string;
    STATUSPAGE_URL: string;
    WEBHOOK_SECRET: string;
  }
}

/** The Prometheus text parser the /metrics test reads the output with (it ships no types). */
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
