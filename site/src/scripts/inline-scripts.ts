/**
 * The site's one inline script (the compare page's custom answer length), written readable in custom-length.js and
 * minified once per build by esbuild (the bundler the local Worker runtime already uses): the page carries no file of
 * script and stays light (tests/site/browser.test.ts holds it under 1.5 KiB).
 */
import { transformSync } from 'esbuild';
import source from './custom-length.js?raw';

export const customLengthScript = transformSync(source, { minify: true, format: 'iife', target: 'es2020' }).code.trim();
