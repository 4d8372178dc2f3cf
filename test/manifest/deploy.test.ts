import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { api as kitApi, cli as kitCli, emulator, tempDir, type Cli } from '../kit/index.js';

// The CLI runs in this process (the kit's cli()): what is under test is what deploy and pull do.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

async function project(manifest: unknown, files: Record<string, unknown> = {}): Promise<string> {
  const dir = await tempDir('plugsmith-deploy-');
  await writeFile(
    join(dir, 'plugsmith.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2),
  );
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), JSON.stringify(content));
  }
  return dir;
}

/** The CLI with a config dir of its own, pointed at the emulator as its OWNER. */
const tempConfigDir = () =>
  kitCli({ PLUGSMITH_BASE_URL: emu.url, PLUGSMITH_TOKEN: emu.token!, PLUGSMITH_PROFILE: '' });
const cli = (dir: string, args: string[], config: Cli) => config.run(args, { cwd: dir });
const api = (method: string, path: string, body?: unknown) =>
  kitApi(emu).call(method, path, body === undefined ? {} : { body });

const manifest = {
  $schema: './node_modules/plugsmith/plugsmith.schema.json',
  plugin: {
    name: 'Deploy test',
    type: 'DATA_PROVIDER',
    events: ['REPOSITORY_FILE_ADDED'],
    scopes: ['REPOSITORY_FILES_READ'],
    webhookUrl: 'http://127.0.0.1:3999/webhook',
    inputsSchema: { $ref: './schemas/inputs.json' },
  },
  actions: [
    {
      name: 'summarize',
      title: 'Summarize',
      argsSchema: { type: 'object', properties: { text: { type: 'string' } } },
    },
    { name: 'translate', title: 'Translate' },
  ],
  externalEvents: [
    {
      name: 'ticket.created',
      title: 'Ticket created',
      payloadSchema: { $ref: './schemas/ticket.json' },
    },
  ],
};
const files = {
  'schemas/inputs.json': { type: 'object', properties: { folder: { type: 'string' } } },
  'schemas/ticket.json': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { id: { type: 'string' } },
  },
};

describe('plugsmith deploy', () => {
  test('plans, applies, records the plugin id per profile, and is idempotent', async () => {
    const config = await tempConfigDir();
    const dir = await project(manifest, files);
    try {
      const dry = await cli(dir, ['deploy', '--dry-run', '--org', 'org_dev'], config);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stderr).toContain('+ create    plugin Deploy test');
      expect(dry.stderr).toContain('+ create    action summarize');
      expect(dry.stderr).toContain('+ create    external event ticket.created');
      expect(dry.stdout).toContain('Dry run');

      const first = await cli(dir, ['deploy', '--org', 'org_dev', '--json'], config);
      expect(first.code, first.stderr).toBe(0);
      const result = JSON.parse(first.stdout);
      expect(result.changed).toBe(true);
      const pluginId = result.pluginId as string;
      const state = JSON.parse(await readFile(join(dir, '.plugsmith/state.json'), 'utf8'));
      expect(Object.values(state.targets as Record<string, { pluginId: string }>)[0].pluginId).toBe(
        pluginId,
      );

      const plugin = await api('GET', `/api/plugins/${pluginId}`);
      expect(plugin.body.data).toMatchObject({
        name: 'Deploy test',
        type: 'DATA_PROVIDER',
        inputsSchema: files['schemas/inputs.json'],
      });
      const actions = await api('GET', `/api/plugins/${pluginId}/actions`);
      expect(actions.body.data.map((a: { name: string }) => a.name).sort()).toEqual([
        'summarize',
        'translate',
      ]);
      const event = await api('GET', `/api/plugins/${pluginId}/external-events/ticket.created`);
      expect(event.body.data.payloadSchema).toEqual(files['schemas/ticket.json']);

      const second = await cli(dir, ['deploy', '--org', 'org_dev'], config);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('No changes');
      const secondJson = JSON.parse(
        (await cli(dir, ['deploy', '--org', 'org_dev', '--json'], config)).stdout,
      );
      expect(secondJson).toMatchObject({ changed: false, pluginId });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('updates changed fields, deletes only with --allow-deletes, and --strict refuses drift', async () => {
    const config = await tempConfigDir();
    const dir = await project(manifest, files);
    try {
      const first = JSON.parse(
        (await cli(dir, ['deploy', '--org', 'org_dev', '--json'], config)).stdout,
      );
      const pluginId = first.pluginId as string;

      // The manifest drops an action and changes the plugin's description, an action's title and an event's title.
      const next = {
        ...manifest,
        plugin: { ...manifest.plugin, description: 'now described' },
        actions: [{ ...manifest.actions[0], title: 'Summarise' }],
        externalEvents: [{ ...manifest.externalEvents[0], title: 'Ticket opened' }],
      };
      await writeFile(join(dir, 'plugsmith.json'), JSON.stringify(next));
      const plan = await cli(dir, ['deploy', '--org', 'org_dev'], config);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stderr).toContain('~ update    plugin Deploy test');
      expect(plan.stderr).toContain('description: "" -> "now described"');
      expect(plan.stderr).toContain(
        '- delete    action translate  (skipped: pass --allow-deletes to delete it)',
      );
      expect((await api('GET', `/api/plugins/${pluginId}/actions/translate`)).status).toBe(200);

      const deleting = await cli(dir, ['deploy', '--org', 'org_dev', '--allow-deletes'], config);
      expect(deleting.code, deleting.stderr).toBe(0);
      expect((await api('GET', `/api/plugins/${pluginId}/actions/translate`)).status).toBe(404);
      // Only the changed field is sent: the action keeps its argsSchema, the event its payloadSchema.
      const action = (await api('GET', `/api/plugins/${pluginId}/actions/summarize`)).body.data;
      expect(action.title).toBe('Summarise');
      expect(action.argsSchema).toEqual(manifest.actions[0].argsSchema);
      const event = (await api('GET', `/api/plugins/${pluginId}/external-events/ticket.created`))
        .body.data;
      expect(event.title).toBe('Ticket opened');
      expect(event.payloadSchema).toEqual(files['schemas/ticket.json']);

      // Someone changes the plugin and adds an action outside the manifest.
      expect(
        (await api('PUT', `/api/plugins/${pluginId}`, { tags: ['edited-by-hand'] })).status,
      ).toBe(200);
      expect(
        (await api('POST', `/api/plugins/${pluginId}/actions`, { name: 'manual' })).status,
      ).toBe(201);
      const strict = await cli(dir, ['deploy', '--org', 'org_dev', '--strict'], config);
      expect(strict.code).toBe(6);
      expect(strict.stderr).toContain('Changed outside the manifest');
      expect(strict.stderr).toContain('tags');
      expect(strict.stderr).toContain('added    action manual');
      expect((await api('GET', `/api/plugins/${pluginId}`)).body.data.tags).toEqual([
        'edited-by-hand',
      ]);

      // Without --strict the manifest wins.
      const fix = await cli(dir, ['deploy', '--org', 'org_dev'], config);
      expect(fix.code).toBe(0);
      expect((await api('GET', `/api/plugins/${pluginId}`)).body.data.tags).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('pull writes the remote state as a manifest that deploys to no changes', async () => {
    const config = await tempConfigDir();
    const dir = await project(manifest, files);
    try {
      expect((await cli(dir, ['deploy', '--org', 'org_dev'], config)).code).toBe(0);
      const pulled = await cli(dir, ['pull', '--force'], config);
      expect(pulled.code, pulled.stderr).toBe(0);
      const written = JSON.parse(await readFile(join(dir, 'plugsmith.json'), 'utf8'));
      expect(written.plugin.inputsSchema).toEqual(files['schemas/inputs.json']);
      expect(written.actions).toHaveLength(2);
      const again = await cli(dir, ['deploy', '--org', 'org_dev'], config);
      expect(again.stdout).toContain('No changes');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("pull --out elsewhere pulls the project's plugin (found by --manifest), with the project's $schema", async () => {
    const config = await tempConfigDir();
    const dir = await project(manifest, files);
    const elsewhere = await tempDir('plugsmith-pull-out-');
    try {
      expect((await cli(dir, ['deploy', '--org', 'org_dev'], config)).code).toBe(0);
      const manifestPath = join(dir, 'plugsmith.json');
      const own = JSON.parse(await readFile(manifestPath, 'utf8'));
      own.$schema = './schemas/plugsmith.schema.json';
      const ownText = `${JSON.stringify(own, null, 2)}\n`;
      await writeFile(manifestPath, ownText);
      const out = join(elsewhere, 'remote.json');
      const pulled = await cli(dir, ['pull', '--out', out], config);
      expect(pulled.code, pulled.stderr).toBe(0);
      const written = JSON.parse(await readFile(out, 'utf8'));
      expect(written.$schema).toBe('./schemas/plugsmith.schema.json');
      expect(written.actions).toHaveLength(2);
      // The project's own manifest is left as it was.
      expect(await readFile(manifestPath, 'utf8')).toBe(ownText);
      // Again without --force: the file is there, and the message says both ways out.
      const again = await cli(dir, ['pull', '--out', out], config);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('exists: pass --force to overwrite it, or --out another file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("pull never writes through a link at the manifest's name: a dangling one counts as a file, and --force replaces it", async () => {
    const config = await tempConfigDir();
    const dir = await project(manifest, files);
    const outside = await tempDir('plugsmith-pull-outside-');
    try {
      expect((await cli(dir, ['deploy', '--org', 'org_dev'], config)).code).toBe(0);
      await rm(join(dir, 'plugsmith.json'));
      await symlink(join(outside, 'planted.sh'), join(dir, 'plugsmith.json'));
      const refused = await cli(dir, ['pull'], config);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('plugsmith.json exists: pass --force to overwrite it');
      const forced = await cli(dir, ['pull', '--force'], config);
      expect(forced.code, forced.stderr).toBe(0);
      expect(await readdir(outside)).toEqual([]);
      expect((await lstat(join(dir, 'plugsmith.json'))).isFile()).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  const bad: Array<[string, unknown, Record<string, unknown>, string]> = [
    ['a missing plugin type', { plugin: { name: 'x' } }, {}, 'plugin.type: is required'],
    [
      'an unknown type',
      { plugin: { name: 'x', type: 'WIDGET' } },
      {},
      'plugin.type: must be one of EVENT_HANDLER, APP, DATA_PROVIDER',
    ],
    [
      'a typo in a field',
      { plugin: { name: 'x', type: 'APP', webhookURL: 'http://a' } },
      {},
      'plugin.webhookURL: is not a manifest field',
    ],
    [
      'an unknown event',
      { plugin: { name: 'x', type: 'APP', events: ['NOPE'] } },
      {},
      'plugin.events[0]: must be one of',
    ],
    [
      'a duplicate action',
      { plugin: { name: 'x', type: 'APP' }, actions: [{ name: 'a' }, { name: 'a' }] },
      {},
      'actions[1].name: duplicate name',
    ],
    [
      'a bad action name',
      { plugin: { name: 'x', type: 'APP' }, actions: [{ name: 'a b' }] },
      {},
      'actions[0].name: may hold only',
    ],
    [
      'a missing $ref file',
      {
        plugin: { name: 'x', type: 'APP' },
        actions: [{ name: 'a', argsSchema: { $ref: './nope.json' } }],
      },
      {},
      'actions[0].argsSchema.$ref: cannot read',
    ],
    [
      'an unset variable',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      { plugin: { name: 'x', type: 'APP', webhookUrl: '${PLUGSMITH_PUBLIC_URL}/hook' } },
      {},
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      'plugin.webhookUrl: uses ${PLUGSMITH_PUBLIC_URL}, which is not set',
    ],
    [
      'an install without a target',
      { plugin: { name: 'x', type: 'APP' }, installs: [{ name: 'i' }] },
      {},
      'installs[0]: needs exactly one of',
    ],
    [
      'a dev section without its command',
      { plugin: { name: 'x', type: 'APP' }, dev: { watch: ['*.py'] } },
      {},
      'dev.command: is required',
    ],
    [
      'a dev.watch that is not a kind of file',
      {
        plugin: { name: 'x', type: 'APP' },
        dev: { command: 'python3 -m plugin', watch: ['src/'] },
      },
      {},
      'dev.watch[0]:',
    ],
    ['invalid JSON', '{ "plugin": ', {}, 'plugsmith.json: is not valid JSON'],
  ];
  test.each(bad)(
    'a manifest with %s is refused naming its path (exit 5)',
    async (_name, content, extra, message) => {
      const config = await tempConfigDir();
      const dir = await project(content, extra);
      try {
        const result = await cli(dir, ['deploy', '--org', 'org_dev'], config);
        expect(result.code).toBe(5);
        expect(result.stderr).toContain('plugsmith.json');
        expect(result.stderr).toContain(message);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  test('a manifest whose schema the platform refuses fails with the API details (exit 5)', async () => {
    const config = await tempConfigDir();
    const dir = await project({ plugin: { name: 'x', type: 'APP', inputsSchema: { type: 12 } } });
    try {
      const result = await cli(dir, ['deploy', '--org', 'org_dev'], config);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('inputsSchema');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
