import { existsSync } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import { basename, extname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../errors.js';
import { isInside } from '../../shared/project-file.js';
import { pluginIdOf } from '../connection.js';
import { projectOf, writableInProject, writeInProject } from '../project.js';
import { MAX_ANSWER_CHARS, result } from '../shape.js';
import { anyObject, defineTool } from '../tool.js';

// Through the same recorder as `plugsmith scenario record`.

/** The folder of a project where the tool writes: an agent's call (perhaps a prompt injection's) never replaces the
 * manifest, package.json, an editor's or an agent's configuration, or anything else of the project. */
const SCENARIOS_FOLDER = 'scenarios';

/** Whether `path` lies below `folder` (not the folder itself). */
function isBelow(folder: string, path: string): boolean {
  return path !== folder && isInside(folder, path);
}

/**
 * `output` as a real path inside the project's scenarios/ folder, or a refusal naming the folder: checked as written
 * (before any folder of it is made) and once links are followed.
 */
async function scenarioOutput(project: string, output: string): Promise<string> {
  const root = await realpath(project);
  const folder = join(root, SCENARIOS_FOLDER);
  const refusal = new UserError(
    `output ${JSON.stringify(output)} is outside the project's ${SCENARIOS_FOLDER}/ folder, where record_scenario writes: name a file there (e.g. ${SCENARIOS_FOLDER}/recorded.json)`,
  );
  if (!isBelow(folder, resolve(root, output))) throw refusal;
  const file = await writableInProject(project, output);
  // The real path must lie under the project's own scenarios/ (not wherever a link of that name leads: `scenarios -> .`).
  if (!isBelow(folder, file)) throw refusal;
  return file;
}

export const recordScenario = defineTool({
  name: 'record_scenario',
  title: 'Record a scenario',
  description:
    "Turns what happened on the emulator (since `plugsmith dev` started it, or since a time) into a scenario, as `plugsmith scenario record` does: the user's actions as steps, the plugin's effects as exact expectations. Returns the scenario; with output, also writes it to that file of the project's scenarios/ folder (an existing file only with overwrite: true).",
  inputSchema: {
    output: z
      .string()
      .regex(/\.json$/, 'a .json file')
      .optional()
      .describe(
        'where to write it, relative to the project and inside its scenarios/ folder (e.g. scenarios/upload.json)',
      ),
    overwrite: z.boolean().default(false).describe('replace output if it exists'),
    since: z
      .string()
      .optional()
      .describe(
        'what happened since this time: ISO 8601, or a duration back from now (90s, 2m, 1h); default: since the emulator started',
      ),
    name: z.string().optional().describe("the scenario's name (default: the file's name)"),
    pluginId: z.string().optional().describe("default: this project's plugin"),
  },
  outputSchema: {
    file: z.string().nullable(),
    steps: z.number(),
    since: z.string().nullable(),
    notes: z.array(z.string()),
    failures: z
      .array(
        z.object({ step: z.number(), deliveryId: z.string(), type: z.string(), what: z.string() }),
      )
      .describe(
        "steps whose delivery failed, was retried or is still pending: recorded as they happened (the scenario's description says so); set their expectations to what the plugin should do",
      ),
    untrusted: anyObject,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(args, connection) {
    const project = projectOf(connection);
    const file = args.output ? await scenarioOutput(project, args.output) : null;
    if (file && (await lstat(file).catch(() => null)) && !args.overwrite)
      throw new UserError(
        `${args.output} exists: pass overwrite: true to replace it, or another output`,
      );
    const [{ liveEmulator }, { loadManifest }] = await Promise.all([
      import('../../dev/local-emulator.js'),
      import('../../manifest/load.js'),
    ]);
    let since: string | undefined;
    if (args.since !== undefined) {
      const { timeArgument } = await import('../../commands/logs/filters.js');
      try {
        since = timeArgument(args.since);
      } catch (error) {
        throw new UserError(`since takes ${(error as Error).message}`);
      }
    } else since = (await liveEmulator(project))?.startedAt;
    const manifestPath = connection.manifestPath;
    // Only the installs are read: a ${PORT} that dev sets and this process lacks must not hide them.
    const manifestEnv = { PORT: '0', ...process.env };
    const manifest = existsSync(manifestPath)
      ? await loadManifest(manifestPath, manifestEnv).catch(() => null)
      : null;
    const manifestInstalls = (manifest?.installs ?? []).map((install) => ({
      name: install.name,
      entityId: String(install.agent ?? install.repository ?? install.app),
    }));
    const pluginId = await pluginIdOf(connection, args.pluginId);
    const { recordScenario: record, failureWarning } = await import('../../scenario/record.js');
    const recording = await record(connection.client, {
      pluginId,
      since,
      name: args.name ?? (file ? basename(file, extname(file)) : 'recorded'),
      schema: null,
      manifestInstalls,
    });
    if (recording.steps === 0)
      throw new UserError(
        `nothing to record: no event reached plugin ${pluginId}${since ? ` since ${since}` : ''}; act first (send_chat_message, trigger_event…), then record`,
      );
    if (file) {
      await writeInProject(project, file, `${JSON.stringify(recording.scenario, null, 2)}\n`);
    }
    const shown = file ? relative(await realpath(project), file) : null;
    const where = shown ? `wrote ${shown}` : 'recorded';
    const failures = recording.failures;
    const warning = failures.length ? ` WARNING: ${failureWarning(failures)}` : '';
    // Too large for an answer, the scenario is left out of it (never the notes and failures, which say what the file lacks or expects wrongly).
    const scenarioChars = JSON.stringify(recording.scenario, null, 2).length;
    const tooLarge = scenarioChars > MAX_ANSWER_CHARS / 2;
    const untrusted = tooLarge
      ? {
          scenario: null,
          leftOut: file
            ? `the scenario (${scenarioChars} characters) is too large for this answer: read ${shown}`
            : `the scenario (${scenarioChars} characters) is too large for this answer: pass output to write it to a file of the project, and read that`,
        }
      : { scenario: recording.scenario };
    return result(
      `${where}: ${recording.steps} step(s); run it with run_scenarios.${tooLarge ? ' The scenario is too large to show here (see untrusted.leftOut).' : ''}${warning}`,
      {
        file: shown,
        steps: recording.steps,
        since: since ?? null,
        notes: recording.notes,
        failures,
        untrusted,
      },
      connection.credentials,
    );
  },
});
