/** For the Workers tests: a reference endpoint that demands the key the Worker holds as a secret. */
import type { TestProject } from 'vitest/node';
import { runScript } from './script-process.ts';
import { startOtlpCollector } from './otlp-collector.ts';
import { startNotifyReceiver } from './notify-receiver.ts';
import { startStatuspageServer } from './statuspage-server.ts';
import { startHostileServer } from './hostile-server.ts';
import { SCHEDULED_FAULTS } from './outages.ts';

export const TEST_REFERENCE_KEY = 'sk-test-SECRET-0123456789abcdef';

export default async function setup(project: TestProject) {
  // In a process of its own: this setup runs in Vite's module runner, where wrangler alone is ~15 s of transform.
  const reference = runScript('tests/helpers/reference-process.ts', [
    JSON.stringify({ REFERENCE_TOKEN: TEST_REFERENCE_KEY, SCHEDULED_FAULTS }),
  ]);
  const [, referenceUrl] = await reference.until(/^reference: (\S+)$/m, 60_000);
  const collector = await startOtlpCollector();
  const receiver = await startNotifyReceiver();
  const statuspages = await startStatuspageServer();
  const hostile = await startHostileServer();
  project.provide('workersReferenceUrl', referenceUrl);
  project.provide('otlpCollectorUrl', collector.url);
  project.provide('notifyReceiverUrl', receiver.url);
  project.provide('statuspageUrl', statuspages.url);
  project.provide('hostileServerUrl', hostile.url);
  return async () => {
    await hostile.close();
    await statuspages.close();
    await receiver.close();
    await collector.close();
    await reference.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    workersReferenceUrl: string;
    otlpCollectorUrl: string;
    notifyReceiverUrl: string;
    statuspageUrl: string;
    /** A vendor, token endpoint and receiver that misbehave (hostile-server.ts); tests read it with inject(). */
    hostileServerUrl: string;
  }
}
