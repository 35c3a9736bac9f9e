/** For the Workers tests: a reference endpoint that demands the key the Worker holds as a secret. */
import type { TestProject } from 'vitest/node';
import { startWorker } from '../../scripts/worker-runtime.ts';
import { startOtlpCollector } from './otlp-collector.ts';

export const TEST_REFERENCE_KEY = 'sk-test-SECRET-0123456789abcdef';

export default async function setup(project: TestProject) {
  const reference = await startWorker({ config: 'workers/reference/wrangler.toml', bindings: { REFERENCE_TOKEN: TEST_REFERENCE_KEY } });
  const collector = await startOtlpCollector();
  project.provide('workersReferenceUrl', reference.url);
  project.provide('otlpCollectorUrl', collector.url);
  return async () => {
    await collector.close();
    await reference.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    workersReferenceUrl: string;
    otlpCollectorUrl: string;
  }
}
