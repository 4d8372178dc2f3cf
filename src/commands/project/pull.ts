import { lstat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { RunCommand, TargetFlags } from '../types.js';
import { withClient } from '../context.js';
import { fetchRemote } from '../../manifest/apply.js';
import { MANAGED_FIELDS } from '../../manifest/plan.js';
import { pluginOfProject } from '../../dev/project-plugin.js';
import { refusedPath, UserError, EXIT } from '../../errors.js';
import { note, printResult } from '../../ui/output.js';
import { readProjectFile, writeFileReplacingLink } from '../../shared/project-file.js';

interface PullOptions {
  plugin?: string;
  manifest: string;
  out?: string;
  force?: boolean;
}

/** The `$schema` the project's manifest names (a Python project's is `./schemas/…`), else the npm package's. */
async function schemaOf(manifestPath: string): Promise<string> {
  const fallback = './node_modules/plugsmith/plugsmith.schema.json';
  // Read by the project-file rule (a link out of the project, a FIFO, a huge file: the fallback).
  const bytes = await readProjectFile(dirname(manifestPath), basename(manifestPath), {
    maxBytes: 1_000_000,
  }).catch(() => null);
  if (bytes === null) return fallback;
  try {
    const named = (JSON.parse(bytes.toString('utf8')) as { $schema?: unknown }).$schema;
    return typeof named === 'string' ? named : fallback;
  } catch {
    return fallback;
  }
}

function pick(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    keys.filter((k) => record[k] !== undefined && record[k] !== null).map((k) => [k, record[k]]),
  );
}

/** Writes the platform's state of a plugin as a manifest. */
const pull: RunCommand<PullOptions & TargetFlags> = async (input) => {
  const o = input.options;
  const manifestPath = resolve(o.manifest);
  const outName = o.out ?? o.manifest;
  const out = resolve(outName);
  await withClient(input, { token: true }, async (client, settings) => {
    // The project's plugin on this target (by the emulator's store id, or the base URL): the project of --manifest,
    // wherever --out writes.
    const pluginId = await pluginOfProject(o.plugin, manifestPath, settings);
    const remote = await fetchRemote(client, pluginId);
    if (!remote.plugin)
      throw new UserError(
        `plugin ${pluginId} not found: list yours with \`plugsmith plugins list\``,
        EXIT.NOT_FOUND,
      );
    // Whatever stands at the name counts, a link (dangling or not) too: it is replaced by the file, never followed.
    if (!o.force && (await lstat(out).catch(() => null)))
      throw new UserError(
        `${outName} exists: pass --force to overwrite it, or --out another file`,
        EXIT.USAGE,
      );
    const manifest = {
      $schema: await schemaOf(manifestPath),
      plugin: pick(remote.plugin, MANAGED_FIELDS.plugin),
      actions: remote.actions.map((a) => pick(a, MANAGED_FIELDS.actions)),
      externalEvents: remote.externalEvents.map((e) => pick(e, MANAGED_FIELDS.externalEvents)),
    };
    await writeFileReplacingLink(out, JSON.stringify(manifest, null, 2) + '\n').catch(refusedPath);
    printResult(
      input.io,
      input.global,
      manifest,
      () => `Wrote ${outName} from plugin ${pluginId}.\n`,
    );
    note(
      input.io,
      input.global,
      'Secrets are not pulled; the webhook secret stays on the platform (`plugsmith plugins secret`).',
    );
  });
};

export default pull;
