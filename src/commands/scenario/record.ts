import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { writeFileReplacingLink } from '../../shared/project-file.js';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import type { RunCommand } from '../types.js';
import { settingsFor, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { note, printResult } from '../../ui/output.js';
import { escapeControls } from '../../ui/terminal-text.js';
import { pluginOfProject } from '../../dev/project-plugin.js';
import { liveEmulator } from '../../dev/local-emulator.js';
import { loadManifest } from '../../manifest/load.js';
import type { ScenarioRecordFlags } from './options.js';

/** `$schema` for a file written at `file`: the installed package's scenario.schema.json, when there is one. */
function schemaFor(file: string, project: string): string | null {
  const schema = resolve(project, 'node_modules/plugsmith/scenario.schema.json');
  if (!existsSync(schema)) return null;
  return relative(dirname(file), schema).split('\\').join('/');
}

/** `plugsmith scenario record -o FILE [--since TIME]` */
const record: RunCommand<ScenarioRecordFlags> = async (input) => {
  const o = input.options;
  if (!o.output)
    throw new UserError(
      'where to? pass -o scenarios/NAME.json (the scenario file to write)',
      EXIT.USAGE,
    );
  const file = resolve(o.output);
  if (existsSync(file) && !o.force)
    throw new UserError(
      `${o.output} exists: pass --force to overwrite it, or another -o`,
      EXIT.USAGE,
    );
  const manifestPath = resolve(o.manifest);
  const project = dirname(manifestPath);
  const settings = await settingsFor(input);
  if (settings.noEmulator && !settings.baseUrl)
    throw new UserError(settings.noEmulator, EXIT.NOT_FOUND);
  // Since `plugsmith dev` started the project's emulator, unless told.
  const since = o.since ?? (await liveEmulator(project))?.startedAt;
  const manifest = existsSync(manifestPath)
    ? await loadManifest(manifestPath, process.env).catch(() => null)
    : null;
  const manifestInstalls = (manifest?.installs ?? []).map((i) => ({
    name: i.name,
    entityId: String(i.agent ?? i.repository ?? i.app),
  }));
  await withClient(input, { token: true }, async (client) => {
    const pluginId = await pluginOfProject(o.plugin, o.manifest, settings);
    const { recordScenario, failureWarning } = await import('../../scenario/record.js');
    const recording = await recordScenario(client, {
      pluginId,
      since,
      name: o.name ?? basename(file, extname(file)),
      schema: schemaFor(file, project),
      manifestInstalls,
    });
    for (const line of recording.notes) note(input.io, input.global, line);
    if (recording.steps === 0)
      throw new UserError(
        `nothing to record: no event reached plugin ${pluginId}${since ? ` since ${since}` : ''} (chat with \`plugsmith chat\`, add a file, install… while \`plugsmith dev\` runs, then record)`,
        EXIT.NOT_FOUND,
      );
    await mkdir(dirname(file), { recursive: true });
    // A link planted at the name is replaced, never followed.
    await writeFileReplacingLink(file, `${JSON.stringify(recording.scenario, null, 2)}\n`);
    const failures = recording.failures;
    // A recorded failure becomes the expected behaviour unless someone changes it: said even under --quiet.
    if (failures.length > 0)
      input.io.stderr.write(`warning: ${escapeControls(failureWarning(failures))}\n`);
    printResult(
      input.io,
      input.global,
      { file, steps: recording.steps, since: since ?? null, notes: recording.notes, failures },
      () =>
        `wrote ${o.output}: ${recording.steps} step${recording.steps === 1 ? '' : 's'}${since ? ` (since ${since})` : ''}${failures.length ? `, ${failures.length} of them recorded failing (its description says which)` : ''}; replay it with \`plugsmith scenario run ${o.output}\`\n`,
    );
  });
};

export default record;
