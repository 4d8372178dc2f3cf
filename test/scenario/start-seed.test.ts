import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runCli } from '../kit/cli-process.js';
import { scenarioProject } from '../kit/project.js';

// Issue 44: `scenario run --start --seed FILE` starts its emulator from a known store, as `emulator exec --seed` does, so a
// CI journey can rely on what the seed holds. Here the manifest installs the plugin on an agent only the seed has.

const SEED = {
  users: [{ id: 'user_ci', name: 'CI' }],
  orgs: [{ id: 'org_ci', name: 'CI Org', members: [{ userId: 'user_ci', role: 'OWNER' }] }],
  tokens: [{ userId: 'user_ci', token: 'tok_ci_0123456789', orgId: null, name: 'ci' }],
  agents: [{ id: 'agent_ci', orgId: 'org_ci', name: 'CI agent' }],
  characters: [
    {
      id: 'char_ci',
      orgId: 'org_ci',
      agentId: 'agent_ci',
      name: 'Cici',
      script: [],
      fallbackReply: 'ok',
    },
  ],
  apiKeys: [{ key: 'key_ci_0123456789', orgId: 'org_ci' }],
};

test('the seed is the store --start runs in: an install on its agent works, and fails fast without it', async () => {
  const { dir, env } = await scenarioProject('python', { prefix: 'plugsmith-start-seed-' });
  const manifestPath = join(dir, 'plugsmith.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  manifest.installs = [{ name: 'ci agent', agent: 'agent_ci' }];
  await writeFile(manifestPath, JSON.stringify(manifest, null, 2));
  await writeFile(join(dir, 'seed.json'), JSON.stringify(SEED));

  const seeded = await runCli(['scenario', 'run', '--start', '--seed', 'seed.json', '--json'], {
    cwd: dir,
    env,
  });
  expect(seeded.code, seeded.stdout + seeded.stderr).toBe(0);
  const report = JSON.parse(seeded.stdout);
  expect(report.scenarios).toHaveLength(2);
  // The conversation steps talk to the seed's character, on the seed's agent.
  const conversations = report.scenarios.flatMap((s: { steps: { result?: object }[] }) =>
    s.steps.flatMap((step) => (step.result && 'characterId' in step.result ? [step.result] : [])),
  );
  expect(conversations.length).toBeGreaterThan(0);
  for (const conversation of conversations)
    expect(conversation).toMatchObject({ characterId: 'char_ci', agentId: 'agent_ci' });

  // The default workspace has no such agent: the installs fail, and the run says so at once.
  const unseeded = await runCli(['scenario', 'run', '--start'], { cwd: dir, env });
  expect(unseeded.code, unseeded.stdout + unseeded.stderr).toBe(8);
  expect(unseeded.stderr).toContain("the manifest's installs failed: agent agent_ci not found");
});

test('--seed: a missing file is not found (4), an invalid one is refused (5), and without --start it is a usage error (2)', async () => {
  const { dir, env } = await scenarioProject('python', { prefix: 'plugsmith-start-seed-' });
  await writeFile(join(dir, 'bad.json'), JSON.stringify({ ...SEED, orgs: undefined }));
  const noKey = join(dir, 'no-key.json');
  await writeFile(noKey, JSON.stringify({ ...SEED, apiKeys: [] }));
  const [missing, invalid, withoutKey, withoutStart] = await Promise.all([
    runCli(['scenario', 'run', '--start', '--seed', 'nope.json'], { cwd: dir, env }),
    runCli(['scenario', 'run', '--start', '--seed', 'bad.json'], { cwd: dir, env }),
    runCli(['scenario', 'run', '--start', '--seed', noKey], { cwd: dir, env }),
    runCli(['scenario', 'run', '--seed', 'bad.json'], { cwd: dir, env }),
  ]);
  expect(missing.code, missing.stderr).toBe(4);
  expect(missing.stderr).toContain('nope.json: no such file');
  expect(invalid.code, invalid.stderr).toBe(5);
  expect(invalid.stderr).toContain('invalid seed: ');
  expect(invalid.stderr).toContain('orgs: is required');
  expect(withoutKey.code, withoutKey.stderr).toBe(5);
  expect(withoutKey.stderr).toContain('an API key');
  expect(withoutStart.code, withoutStart.stderr).toBe(2);
  expect(withoutStart.stderr).toContain('--seed seeds the emulator that --start starts');
});
