// The report site: static pages built from the read API (or a JSON export) at build time.
import { defineConfig } from 'astro/config';

export default defineConfig({
  root: '.',
  outDir: process.env.SITE_OUT_DIR ?? './dist',
  site: process.env.SITE_URL ?? 'http://127.0.0.1:4321',
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory', inlineStylesheets: 'always' },
  server: { host: '127.0.0.1', port: 4321 },
  preview: { host: '127.0.0.1', port: 4321 },
  devToolbar: { enabled: false },
  telemetry: false,
});
