/** For the Workers tests: a reference endpoint that demands the key the Worker holds as a secret. */
import type { TestProject } from 'vitest/node';
import { startWorker } from '../../scripts/worker-runtime.ts';

export const TEST_REFERENCE_KEY = 'sk-test-SECRET-0123456789abcdef';

export default async function setup(project: TestProject) {
  const reference = await startWorker({ config: 'workers/reference/wrangler.toml', bindings: { REFERENCE_TOKEN: TEST_REFERENCE_KEY } });
  project.provide('workersReferenceUrl', reference.url);
  return () => reference.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    workersReferenceUrl: string;
  }
}
