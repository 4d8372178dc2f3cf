import { symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { freshMachine, tempDir, until } from '../kit/index.js';
import { typescriptProject } from '../kit/project.js';

// A second `plugsmith dev` in a project whose dev runs (another terminal, an editor's task) deployed the plugin's
// webhook to its own plugin's port: every delivery went to the second, and the first said nothing. Now the first holds
// the project's plugin on its emulator (src/dev/port-claims.ts's claimProjectPlugin) and the second is refused, naming
// it. The claim is dev's own (the plugin's language plays no part): one TypeScript project, real processes, one HOME.

test('a second dev in the same project is refused with the first one named, the first keeps its deliveries, and once it stops dev starts again', {
  timeout: 180_000,
}, async () => {
  const env = await freshMachine();
  const cwd = join(await tempDir('plugsmith-second-dev-'), 'project');
  await typescriptProject(cwd, 'EVENT_HANDLER', env);
  const args = ['dev', '--emulator-port', '0', '--messaging-port', '0'];

  const first = spawnCli(args, { cwd, env });
  await until('the first dev to be ready', () => /ready: /.test(first.stderr()), {
    timeoutMs: 90_000,
    explain: () => first.stderr(),
  });

  const second = await runCli(args, { cwd, env });
  expect(second.code, second.stderr).toBe(6);
  expect(second.stderr).toContain(
    `another \`plugsmith dev\` (pid ${first.child.pid}) runs this project's plugin on the emulator at`,
  );
  expect(second.stderr).toContain('Stop that one first');
  // The claim's file, for a person who knows no such dev runs.
  expect(second.stderr).toMatch(/If no such dev runs, delete its claim: \S+dev-sessions\S+\.json/);
  // Nothing of the port it would have moved to: it never got that far.
  expect(second.stderr).not.toContain('is claimed by another');
  // The same project through a link to its folder is the same project (its deploy state is the folder's).
  const linked = join(dirname(cwd), 'linked');
  await symlink(cwd, linked, 'dir');
  const throughLink = await runCli(args, { cwd: linked, env });
  expect(throughLink.code, throughLink.stderr).toBe(6);
  expect(throughLink.stderr).toContain(`(pid ${first.child.pid}) runs this project's plugin`);

  // The webhook is still the first dev's plugin's: a trigger is answered by it, and the first dev shows the delivery.
  const triggered = await runCli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], { cwd, env });
  expect(triggered.code, triggered.stderr).toBe(0);
  expect(JSON.parse(triggered.stdout).reply).toMatchObject({ sender: 'CHARACTER' });
  await until('the first dev to show the delivery', () =>
    /AGENT_MESSAGE_RECEIVED/.test(first.stderr()),
  );

  expect(await first.stop('SIGINT')).toEqual({ code: 0, signal: null });
  const again = spawnCli(args, { cwd, env });
  await until('dev to be ready again', () => /ready: /.test(again.stderr()), {
    timeoutMs: 90_000,
    explain: () => again.stderr(),
  });
  expect(again.stderr()).not.toContain('another `plugsmith dev`');
  expect(await again.stop('SIGINT')).toEqual({ code: 0, signal: null });
});
