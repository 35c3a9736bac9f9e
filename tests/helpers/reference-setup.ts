/** Starts the reference endpoint in workerd once for the test run and hands its URL to the tests. */
import type { TestProject } from 'vitest/node';
import { startWorker } from '../../scripts/worker-runtime.ts';

export default async function setup(project: TestProject) {
  const open = await startWorker({ config: 'workers/reference/wrangler.toml', bindings: { REFERENCE_OPEN: 'true' } });
  const locked = await startWorker({ config: 'workers/reference/wrangler.toml', bindings: { REFERENCE_TOKEN: 'ref-test-token-123' } });
  project.provide('referenceUrl', open.url);
  project.provide('lockedReferenceUrl', locked.url);
  return async () => {
    await open.stop();
    await locked.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    referenceUrl: string;
    lockedReferenceUrl: string;
  }
}
