/**
 * Where the local runs listen (`npm start`, `npm run dev`, `npm run reference`, the site's own server), on
 * loopback only. wrangler.toml's REFERENCE_URL cannot import this, so a test holds it to `localUrl('reference')`.
 */
export const LOCAL_HOST = '127.0.0.1';

export const LOCAL_PORTS = {
  /** The observatory's read API (and its cron trigger). */
  api: 8787,
  /** The bundled reference LLM endpoint. */
  reference: 8788,
  /** The report site. */
  site: 4321,
} as const;

export type LocalService = keyof typeof LOCAL_PORTS;

/** The local origin of a service, such as "http://127.0.0.1:8787". */
export const localUrl = (service: LocalService): string => `http://${LOCAL_HOST}:${LOCAL_PORTS[service]}`;
