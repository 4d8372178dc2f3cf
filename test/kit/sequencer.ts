import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { processTestFiles } from './tiers.js';

// The order in which vitest starts the test files (vitest.config.ts, sequence.sequencer). Each
// worker takes the next file when it is done with one, so a slow file started late ends the run
// alone while the other worker idles. The files that start processes, npm or a browser (./tiers.ts)
// are the slow ones (a fresh clone has no durations of an earlier run to go by): they start first.
// Within each tier, vitest's own order: longest first by an earlier run's durations, else largest.

/** vitest's sequencer, with the process tier's files first. */
export default class ProcessTierFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const slow = new Set(processTestFiles(root));
    const isSlow = (file: TestSpecification) => slow.has(relative(root, file.moduleId));
    return [...sorted.filter(isSlow), ...sorted.filter((file) => !isSlow(file))];
  }
}
