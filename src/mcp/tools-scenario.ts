import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve, sep } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { UserError } from '../errors.js';
import type { ScenarioResult } from '../scenario/run.js';
import { type Connect, type Connection, pluginIdOf, withConnection } from './connection.js';
import { result } from './shape.js';

// Scenarios through the same runner and recorder as `plugsmith scenario run` and `record`.

const anyObject = z.record(z.unknown());

/** The project folder of a connection, where scenario paths are resolved; outside a project, an error naming the fix. */
function projectOf(connection: Connection): string {
  if (!connection.project)
    throw new UserError(
      'scenarios belong to a project: run the server in the folder holding plugsmith.json (or pass --emulator <folder>)',
    );
  return connection.project;
}

/** A path given by the agent, resolved in the project; one that leaves the project is refused. */
function insideProject(project: string, path: string): string {
  const full = resolve(project, path);
  if (full !== project && !full.startsWith(project + sep))
    throw new UserError(
      `${path} is outside the project ${project}: give a path inside it (e.g. scenarios/first.json)`,
    );
  return full;
}

/** A scenario's result for an agent: the step labels, failures and errors quote messages and answers, so they are untrusted. */
function scenarioShape(scenario: ScenarioResult, project: string) {
  return {
    name: scenario.name,
    file: scenario.file ? relative(project, scenario.file) : null,
    ok: scenario.ok,
    durationMs: scenario.durationMs,
    pluginId: scenario.pluginId,
    faults: scenario.faults,
    steps: scenario.steps.map((step) => ({
      index: step.index,
      id: step.id ?? null,
      kind: step.kind,
      ok: step.ok,
      skipped: step.skipped,
      durationMs: step.durationMs,
      deliveries: step.deliveries,
      untrusted: { label: step.label, error: step.error ?? null, failures: step.failures },
    })),
  };
}

/** Registers run_scenarios and record_scenario (left out with `--read-only`). */
export function registerScenarioTools(server: McpServer, connect: Connect): void {
  server.registerTool(
    'run_scenarios',
    {
      title: 'Run scenarios',
      description:
        "Runs the project's scenario files (as `plugsmith scenario run` does) against its emulator and plugin: each step is done through the platform (messages, files, installs…), each expectation is checked against what the plugin did. Returns each scenario and step, passed or failed, with what was expected and observed and the delivery to look at (get_delivery). Optionally under a fault profile.",
      inputSchema: {
        paths: z
          .array(z.string().min(1))
          .default(['scenarios'])
          .describe('scenario files or folders, relative to the project (default: scenarios/)'),
        pluginId: z
          .string()
          .optional()
          .describe("default: the scenario's plugin, else this project's"),
        faults: z
          .object({ profile: z.string(), seed: z.string().optional() })
          .optional()
          .describe('run under this fault profile (restored afterwards)'),
      },
      outputSchema: { ok: z.boolean(), scenarios: z.array(anyObject) },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const project = projectOf(connection);
        const { loadScenarioFile, scenarioFiles } = await import('../scenario/load.js');
        const { runScenario } = await import('../scenario/run.js');
        const paths = args.paths.map((path) => insideProject(project, path));
        const files = await scenarioFiles(paths, project);
        if (files.length === 0)
          throw new UserError(
            `no scenario files in ${args.paths.join(', ')}: write one (docs/scenarios.md) or record one with record_scenario`,
          );
        const loaded = await Promise.all(files.map((file) => loadScenarioFile(file, process.env)));
        const bad = loaded.filter((file) => !file.scenario);
        if (bad.length > 0) {
          const problems = bad.flatMap((file) =>
            file.problems.map(
              (p) => `${relative(project, file.file)} ${p.path}: ${p.message} (fix: ${p.fix})`,
            ),
          );
          throw new UserError(
            `nothing was run; the scenario files have problems:\n${problems.join('\n')}`,
          );
        }
        const results: ScenarioResult[] = [];
        for (const file of loaded) {
          const scenario = file.scenario!;
          const pluginId =
            args.pluginId ?? scenario.plugin ?? (await pluginIdOf(connection, undefined));
          results.push(
            await runScenario(scenario, {
              client: connection.client,
              pluginId,
              ...(args.faults ? { faults: args.faults } : {}),
            }),
          );
        }
        const failed = results.filter((r) => !r.ok).map((r) => r.name);
        const summary =
          failed.length === 0
            ? `${results.length} scenario(s) passed.`
            : `${failed.length} of ${results.length} scenario(s) failed: ${failed.join(', ')}; each failed step says what was expected and observed.`;
        return result(
          summary,
          { ok: failed.length === 0, scenarios: results.map((r) => scenarioShape(r, project)) },
          connection.credentials,
        );
      }),
  );

  server.registerTool(
    'record_scenario',
    {
      title: 'Record a scenario',
      description:
        "Turns what happened on the emulator (since `plugsmith dev` started it, or since a time) into a scenario, as `plugsmith scenario record` does: the user's actions as steps, the plugin's effects as exact expectations. Returns the scenario; with output, also writes it to that file of the project (an existing file only with overwrite: true).",
      inputSchema: {
        output: z
          .string()
          .regex(/\.json$/, 'a .json file')
          .optional()
          .describe('where to write it, relative to the project (e.g. scenarios/upload.json)'),
        overwrite: z.boolean().default(false).describe('replace output if it exists'),
        since: z
          .string()
          .datetime({ offset: true })
          .optional()
          .describe('what happened since this ISO time (default: since the emulator started)'),
        name: z.string().optional().describe("the scenario's name (default: the file's name)"),
        pluginId: z.string().optional().describe("default: this project's plugin"),
      },
      outputSchema: {
        file: z.string().nullable(),
        steps: z.number(),
        since: z.string().nullable(),
        notes: z.array(z.string()),
        untrusted: anyObject,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      withConnection(connect, async (connection) => {
        const project = projectOf(connection);
        const file = args.output ? insideProject(project, args.output) : null;
        if (file && existsSync(file) && !args.overwrite)
          throw new UserError(
            `${args.output} exists: pass overwrite: true to replace it, or another output`,
          );
        const [{ liveEmulator }, { loadManifest }] = await Promise.all([
          import('../dev/local-emulator.js'),
          import('../manifest/load.js'),
        ]);
        const since = args.since ?? (await liveEmulator(project))?.startedAt;
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
        const { recordScenario } = await import('../scenario/record.js');
        const recording = await recordScenario(connection.client, {
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
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, `${JSON.stringify(recording.scenario, null, 2)}\n`);
        }
        const where = file ? `wrote ${relative(project, file)}` : 'recorded';
        return result(
          `${where}: ${recording.steps} step(s); run it with run_scenarios.`,
          {
            file: file ? relative(project, file) : null,
            steps: recording.steps,
            since: since ?? null,
            notes: recording.notes,
            untrusted: { scenario: recording.scenario },
          },
          connection.credentials,
        );
      }),
  );
}
