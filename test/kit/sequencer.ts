import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { processTestFiles } from './tiers.js';

// The order in which vitest starts the test files (vitest.config.ts, sequence.sequencer). Each
// worker takes the next file when it is done with one, so a slow file started late ends the run
// alone while the other worker idles. The files that start processes, npm or a browser (./tiers.ts)
// are the slow ones (a fresh clone has no durations of an earlier run to go by): they start first.
// Of those, the files that run npm or Python or make a generated project (init, a compile, an npm
// install) are the slowest, up to minutes each: they start before the rest of the tier, so none of
// them starts late and ends the run alone.
// Within each group, vitest's own order: longest first by an earlier run's durations, else largest.

/** What a test file runs when it starts npm, Python or a generated project (in its own text). */
const RUNS_PROJECTS = /['"]npm['"]|python3|typescriptProject\(|pythonProject\(|npmInstall\(/;

/** vitest's sequencer, with the process tier's files first. */
export default class ProcessTierFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const slow = new Set(processTestFiles(root));
    const isSlow = (file: TestSpecification) => slow.has(relative(root, file.moduleId));
    const runsProjects = (file: TestSpecification) =>
      RUNS_PROJECTS.test(readFileSync(file.moduleId, 'utf8'));
    const processTier = sorted.filter(isSlow);
    return [
      ...processTier.filter(runsProjects),
      ...processTier.filter((file) => !runsProjects(file)),
      ...sorted.filter((file) => !isSlow(file)),
    ];
  }
}
