/**
 * The order test files start in: the longest first, whatever their project, so the files that start the whole
 * observatory (npm start, the browser site, the kill-and-restart runs) begin at once and the short files fill the
 * other workers beside them and after. Vitest's own order runs one project's files before the next's (e2e first,
 * alphabetically), so every short file waited about 300 s for the e2e files to free a worker.
 *
 * How long a file takes is what vitest's cache says of its last run; a fresh clone has no cache, so the slow files'
 * figures as measured (one npm test, 2 busy cores, seconds) stand in until it has. Any other file: by size, larger
 * first (vitest's own fallback). Only the order changes: every file still runs, each in its project's pool.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each slow file took in a full npm test on a busy 2-core machine (tests/e2e and tests/site/browser.test.ts). */
export const MEASURED_SECONDS: Readonly<Record<string, number>> = {
  'e2e:tests/site/browser.test.ts': 231,
  'e2e:tests/e2e/start.test.ts': 230,
  'e2e:tests/e2e/tick-durability.test.ts': 142,
  'e2e:tests/e2e/dev.test.ts': 70,
  'e2e:tests/e2e/dev-vars.test.ts': 60,
  'workers:tests/workers/status.test.ts': 60,
  'shared:tests/cli/cli.test.ts': 25,
  'workers:tests/workers/keeper-order.test.ts': 25,
  'workers:tests/workers/prompt-cache.test.ts': 21,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
    const ms = (f: TestSpecification) => cache.getFileTestResults(key(f))?.duration ?? (MEASURED_SECONDS[key(f)] ?? 0) * 1000;
    const size = (f: TestSpecification) => cache.getFileStats(key(f))?.size ?? 0;
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || ms(b) - ms(a) || size(b) - size(a),
    );
  }
}
