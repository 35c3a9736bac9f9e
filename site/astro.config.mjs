// The report site: static pages built from the read API (or a JSON export) at build time.
import { defineConfig } from 'astro/config';
import { LOCAL_HOST, LOCAL_PORTS, localUrl } from '../shared/net/local-ports.ts';

export default defineConfig({
  root: '.',
  outDir: process.env.SITE_OUT_DIR ?? './dist',
  site: process.env.SITE_URL ?? localUrl('site'),
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'always' },
  server: { host: LOCAL_HOST, port: LOCAL_PORTS.site },
  preview: { host: LOCAL_HOST, port: LOCAL_PORTS.site },
  devToolbar: { enabled: false },
  telemetry: false,
});
