import { relative } from 'node:path';
import type { RunCommand } from '../types.js';
import { UserError, ExitWith, EXIT } from '../../errors.js';
import { loadScenarioFile, scenarioFiles } from '../../scenario/load.js';
import { MAX_PROBLEMS_SHOWN, problemText } from '../../scenario/validate.js';

/**
 * `plugsmith scenario validate [paths...]`: every problem of every file, nothing run and no emulator
 * needed. A `${env.NAME}` must be declared by its file, but need not be set here (CI sets it).
 */
const validate: RunCommand = async (input) => {
  const cwd = process.cwd();
  const files = await givenScenarioFiles(input.args, cwd);
  const loaded = await Promise.all(files.map((file) => loadScenarioFile(file)));
  const bad = loaded.filter((l) => !l.scenario);
  const name = (file: string) => relative(cwd, file) || file;
  if (input.global.json) {
    input.io.stdout.write(
      `${JSON.stringify(
        {
          ok: bad.length === 0,
          files: loaded.map((l) => ({
            file: name(l.file),
            ok: l.scenario !== null,
            ...(l.scenario ? { name: l.scenario.name, steps: l.scenario.steps.length } : {}),
            ...problemsJson(l.problems),
          })),
        },
        null,
        2,
      )}\n`,
    );
    if (bad.length) throw new ExitWith(badFilesExit(bad));
    return;
  }
  if (bad.length === 0) {
    for (const l of loaded)
      input.io.stdout.write(
        `✓ ${name(l.file)}: "${l.scenario!.name}", ${l.scenario!.steps.length} step${l.scenario!.steps.length === 1 ? '' : 's'}\n`,
      );
    input.io.stdout.write(
      `${loaded.length} scenario file${loaded.length === 1 ? '' : 's'}: no problems\n`,
    );
    return;
  }
  throw new UserError(badFilesText(bad, cwd, ''), badFilesExit(bad));
};

/** Not found (4) when every bad file named is missing, as for any file named on the command line; else usage (2). */
export function badFilesExit(bad: Array<{ missing?: true }>): number {
  return bad.every((b) => b.missing) ? EXIT.NOT_FOUND : EXIT.USAGE;
}

/** The scenario files of the paths a command was given (default: scenarios/), or a usage error when there are none. */
export async function givenScenarioFiles(args: unknown[], cwd: string): Promise<string[]> {
  const given = args.flat().map(String);
  const paths = given.length ? given : ['scenarios'];
  const files = await scenarioFiles(paths, cwd);
  if (files.length === 0)
    throw new UserError(
      `no scenario files in ${paths.join(', ')}: write one (docs/scenarios.md), or record one with \`plugsmith scenario record -o scenarios/first.json\``,
      EXIT.USAGE,
    );
  return files;
}

/** A file's problems in --json: at most {@link MAX_PROBLEMS_SHOWN}, with their count. */
export function problemsJson(problems: Parameters<typeof problemText>[0]) {
  if (problems.length === 0) return {};
  return {
    problemCount: problems.length,
    problems: problems.slice(0, MAX_PROBLEMS_SHOWN),
  };
}

/** Every bad file with its problems, as `scenario run` and `scenario validate` tell them. */
export function badFilesText(
  bad: Array<{ file: string; problems: Parameters<typeof problemText>[0] }>,
  cwd: string,
  after = '; nothing was run',
): string {
  const count = bad.reduce((n, b) => n + b.problems.length, 0);
  const text = bad
    .map((b) => `${relative(cwd, b.file) || b.file}:\n${problemText(b.problems)}`)
    .join('\n');
  return `${count} problem${count === 1 ? '' : 's'} in ${bad.length} scenario file${bad.length === 1 ? '' : 's'}${after}:\n${text}`;
}

export default validate;
