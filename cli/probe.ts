#!/usr/bin/env node
import { runProbeCli } from './probe-cli.ts';
import { arrivalOf, nodeFetch } from './node-fetch.ts';

const code = await runProbeCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  fetch: nodeFetch,
  arrivalOf,
  interactive: process.stderr.isTTY === true,
});
process.exitCode = code;
