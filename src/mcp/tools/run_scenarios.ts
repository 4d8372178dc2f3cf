import { relative } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../errors.js';
import type { ScenarioResult } from '../../scenario/run.js';
import { pluginIdOf } from '../connection.js';
import { insideProject, projectOf, scenarioShape } from '../project.js';
import { result } from '../shape.js';
import { anyObject, defineTool } from '../tool.js';

// Through the same runner as `plugsmith scenario run`.

export const runScenarios = defineTool({
  name: 'run_scenarios',
  title: 'Run scenarios',
  description:
    "Runs the project's scenario files (as `plugsmith scenario run` does) against its emulator and plugin: each step is done through the platform (messages, files, installs…), each expectation is checked against what the plugin did. Returns each scenario and step, passed or failed, with what was expected and observed and the delivery to look at (get_delivery). Optionally under a fault profile.",
  inputSchema: {
    paths: z
      .array(z.string().min(1))
      .default(['scenarios'])
      .describe('scenario files or folders, relative to the project (default: scenarios/)'),
    pluginId: z.string().optional().describe("default: the scenario's plugin, else this project's"),
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
  async run(args, connection) {
    const project = projectOf(connection);
    const { loadScenarioFile, scenarioFiles } = await import('../../scenario/load.js');
    const { runScenario } = await import('../../scenario/run.js');
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
  },
});
