import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { runCli } from '../kit/cli-process.js';
import { own, tempDir } from '../kit/index.js';
import { standIn, type StandIn } from '../kit/stand-in.js';
import { cliTerminal } from '../kit/terminal.js';

// A cloned project brings its `.plugsmith/state.json`, and a hostile one names a plugin of the person who runs
// `deploy` in it (a public plugin's id is no secret). Against the remote platform (the stand-in: an emulator behind a
// proxy that serves no /_emulator, so the CLI keys it by URL as it does the real platform), only an entry this machine
// recorded for this folder is acted on without asking. The CLI runs as a process, with a config dir per machine.

let platform: StandIn;
let work: string;

beforeAll(async () => {
  platform = await standIn();
  work = await tempDir('plugsmith-deploy-clone-');
}, 60_000);

/** The environment of a machine whose config dir is `machine`, logged in to the stand-in. */
function machineEnv(machine: string): Record<string, string> {
  return {
    PLUGSMITH_CONFIG_DIR: join(work, machine),
    PLUGSMITH_BASE_URL: platform.url,
    PLUGSMITH_MESSAGING_URL: platform.messagingUrl,
    PLUGSMITH_TOKEN: platform.token,
    PLUGSMITH_API_KEY: platform.apiKey,
    PLUGSMITH_ORG_ID: platform.orgId,
    PLUGSMITH_ADMIN_TOKEN: '',
    PLUGSMITH_EMULATOR: '',
    PLUGSMITH_PROFILE: '',
  };
}

/** A project folder with a manifest whose plugin's webhook is `webhookUrl`. */
async function project(name: string, webhookUrl: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeManifest(dir, webhookUrl);
  return dir;
}

async function writeManifest(dir: string, webhookUrl: string): Promise<void> {
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'invoices',
        description: 'sends invoices',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        webhookUrl,
      },
    }),
  );
}

/** The plugin as the platform has it now. */
async function webhookOf(pluginId: string): Promise<string | undefined> {
  const client = createClient({ baseUrl: platform.url, token: platform.token });
  own(() => client.close());
  return (await client.plugins.get(pluginId)).webhookUrl ?? undefined;
}

/** A maintainer's project deployed from `machine`, and a hostile clone of it (its folder with `.plugsmith/`) whose manifest points the webhook at an attacker. */
async function deployedThenCloned(
  name: string,
  machine: string,
): Promise<{ pluginId: string; original: string; clone: string }> {
  const original = await project(name, 'https://invoices.example.com/webhook');
  const deployed = await runCli(['deploy', '--json'], {
    cwd: original,
    env: machineEnv(machine),
  });
  expect(deployed.code, deployed.stderr).toBe(0);
  const pluginId = JSON.parse(deployed.stdout).pluginId as string;
  const clone = join(work, `${name}-clone`);
  await cp(original, clone, { recursive: true });
  await writeManifest(clone, 'https://attacker.example.net/webhook');
  return { pluginId, original, clone };
}

describe('deploy and the state file a cloned project brings, on the remote platform', () => {
  test('the folder it was deployed from deploys again without a question; a clone of it is refused, naming both ways out, and nothing changes', async () => {
    const { pluginId, original, clone } = await deployedThenCloned('first', 'laptop');
    const env = machineEnv('laptop');
    // The maintainer's own folder: recorded on this machine, no question.
    const again = await runCli(['deploy', '--json'], { cwd: original, env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ pluginId, changed: false });

    const refused = await runCli(['deploy', '--json'], { cwd: clone, env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `.plugsmith/state.json names plugin "invoices" (${pluginId}) on ${platform.url}, which no deploy from this folder on this machine recorded (the file may have come with a cloned project): nothing was changed.`,
    );
    expect(refused.stderr).toContain('run again with --adopt-state');
    expect(refused.stderr).toContain('rm .plugsmith/state.json');
    expect(await webhookOf(pluginId)).toBe('https://invoices.example.com/webhook');

    // A dry run shows the plan and says a deploy would ask; its JSON names the entry.
    const dry = await runCli(['deploy', '--dry-run'], { cwd: clone, env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('a deploy asks before updating it (`--adopt-state` confirms)');
    expect(dry.stderr).toContain('https://attacker.example.net/webhook');
    const dryJson = await runCli(['deploy', '--dry-run', '--json'], { cwd: clone, env });
    expect(JSON.parse(dryJson.stdout)).toMatchObject({ dryRun: true, unconfirmedState: pluginId });
    const ownDry = await runCli(['deploy', '--dry-run', '--json'], { cwd: original, env });
    expect(JSON.parse(ownDry.stdout)).toMatchObject({ dryRun: true, unconfirmedState: null });

    // Commands that act on "this project's plugin" refuse it too, naming --plugin.
    const trigger = await runCli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--json'], {
      cwd: clone,
      env,
    });
    expect(trigger.code, trigger.stderr).toBe(2);
    expect(trigger.stderr).toContain(`pass --plugin ${pluginId} if it is yours`);
    const check = await runCli(['check', '--json'], { cwd: clone, env });
    expect(check.code, check.stderr).toBe(2);
    expect(check.stderr).toContain(`pass --plugin ${pluginId} if it is yours`);
    expect(await webhookOf(pluginId)).toBe('https://invoices.example.com/webhook');
  });

  test('--adopt-state updates the plugin and records it: the next deploy from that folder asks nothing', async () => {
    const { pluginId, clone } = await deployedThenCloned('adopted', 'laptop');
    const env = machineEnv('laptop');
    const adopted = await runCli(['deploy', '--adopt-state', '--json'], { cwd: clone, env });
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(JSON.parse(adopted.stdout)).toMatchObject({ pluginId, changed: true });
    expect(await webhookOf(pluginId)).toBe('https://attacker.example.net/webhook');
    const next = await runCli(['deploy', '--json'], { cwd: clone, env });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ pluginId, changed: false });
  });

  test('the same folder on another machine (or a state file older than the record) is asked about once', async () => {
    const { pluginId, original } = await deployedThenCloned('moved', 'laptop');
    // CI's machine: the repository committed its state file, this config dir never deployed it.
    const ci = machineEnv('ci-runner');
    const refused = await runCli(['deploy', '--json'], { cwd: original, env: ci });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`(${pluginId})`);
    const adopted = await runCli(['deploy', '--json', '--adopt-state'], { cwd: original, env: ci });
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(JSON.parse(adopted.stdout)).toMatchObject({ pluginId, changed: false });
    const next = await runCli(['deploy', '--json'], { cwd: original, env: ci });
    expect(next.code, next.stderr).toBe(0);
    // The record is the config dir's own: a file per folder and target, owner-only, naming neither in its file name.
    const records = await readdir(join(work, 'ci-runner', 'deploys'));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatch(/^[0-9a-f]{32}\.json$/);
  });

  test('a hostile state file put where the project was, at the same path, is asked about too', async () => {
    const { pluginId, original } = await deployedThenCloned('same-path', 'laptop');
    const env = machineEnv('laptop');
    const state = JSON.parse(await readFile(join(original, '.plugsmith/state.json'), 'utf8'));
    // The folder deleted and cloned again from a hostile repository: the same path, a state file that names the
    // plugin (its id is public), and a record id of its own making.
    await rm(original, { recursive: true });
    await mkdir(join(original, '.plugsmith'), { recursive: true });
    await writeManifest(original, 'https://attacker.example.net/webhook');
    for (const entry of Object.values(state.targets) as Array<{ recordId?: string }>)
      entry.recordId = '0123456789abcdef0123456789abcdef';
    await writeFile(join(original, '.plugsmith/state.json'), JSON.stringify(state));
    const refused = await runCli(['deploy', '--json'], { cwd: original, env });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`(${pluginId})`);
    expect(await webhookOf(pluginId)).toBe('https://invoices.example.com/webhook');
  });

  test('a config dir it cannot write to costs a warning and a question next time, never the deploy', async () => {
    const dir = await project('read-only-config', 'https://invoices.example.com/webhook');
    const env = machineEnv('read-only-config-machine');
    // `deploys` is a file where the folder of records would be.
    await mkdir(env.PLUGSMITH_CONFIG_DIR, { recursive: true });
    await writeFile(join(env.PLUGSMITH_CONFIG_DIR, 'deploys'), 'not a folder');
    const deployed = await runCli(['deploy', '--json'], { cwd: dir, env });
    expect(deployed.code, deployed.stderr).toBe(0);
    const { pluginId } = JSON.parse(deployed.stdout);
    expect(deployed.stderr).toContain(
      `could not record this deploy in ${join(env.PLUGSMITH_CONFIG_DIR, 'deploys')}`,
    );
    expect(deployed.stderr).toContain(
      `the next deploy from this folder asks about plugin ${pluginId} again`,
    );
    const next = await runCli(['deploy', '--json'], { cwd: dir, env });
    expect(next.code, next.stderr).toBe(2);
  });

  test('at a terminal deploy shows the plan and asks: no leaves the plugin as it was, yes updates it', async () => {
    const { pluginId, clone } = await deployedThenCloned('asked', 'laptop');
    const env = machineEnv('laptop');
    const declined = cliTerminal(['deploy'], { cwd: clone, env });
    await declined.waitFor(/Update that plugin\?/, { what: 'the question' });
    expect(declined.screen()).toMatch(/~ update +plugin invoices/);
    declined.type('n');
    declined.press('Enter');
    expect(await declined.waitForExit()).toBe(2);
    expect(declined.screen()).toContain('nothing was changed');
    expect(await webhookOf(pluginId)).toBe('https://invoices.example.com/webhook');

    const accepted = cliTerminal(['deploy'], { cwd: clone, env });
    await accepted.waitFor(/Update that plugin\?/, { what: 'the question' });
    accepted.type('y');
    accepted.press('Enter');
    expect(await accepted.waitForExit()).toBe(0);
    expect(await webhookOf(pluginId)).toBe('https://attacker.example.net/webhook');
  });
});
