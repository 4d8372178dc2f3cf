import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useCliEnv } from '../kit/cli-env.js';

// A plugin project cloned from someone else must not be able to send the author's local secrets
// (credential files, environment variables) to the platform, where a public plugin's fields are
// served to anyone. The project lives in a temp dir outside the repository, beside a "home"
// folder that holds a secret file.
const env = useCliEnv();
let root: string;
let project: string;
const SECRET = 'pst_admin_secret_of_the_author';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'plugsmith-exfil-'));
  project = join(root, 'project');
  await mkdir(join(root, 'home', '.config', 'plugsmith'), { recursive: true });
  await writeFile(
    join(root, 'home', '.config', 'plugsmith', 'emulator.json'),
    JSON.stringify({ adminToken: SECRET, token: SECRET }),
  );
  await mkdir(join(project, 'schemas'), { recursive: true });
  await writeFile(
    join(project, 'schemas', 'inputs.json'),
    JSON.stringify({ type: 'object', properties: { region: { type: 'string' } } }),
  );
  await writeFile(join(project, '.env'), `{"token":"${SECRET}"}`);
  // The local emulator's store inside the project (JSON, with webhook secrets), and a package's file.
  await mkdir(join(project, '.plugsmith', 'emulator'), { recursive: true });
  await writeFile(
    join(project, '.plugsmith', 'emulator', 'snapshot.json'),
    JSON.stringify({ schemaVersion: 3, secret: SECRET }),
  );
  await mkdir(join(project, 'node_modules', 'pkg'), { recursive: true });
  await writeFile(
    join(project, 'node_modules', 'pkg', 'package.json'),
    JSON.stringify({ name: 'pkg', token: SECRET }),
  );
  // A link inside the project that points outside it, and one that stays inside.
  await symlink(
    join(root, 'home', '.config', 'plugsmith', 'emulator.json'),
    join(project, 'schemas', 'linked.json'),
  );
  await symlink(join(project, 'schemas', 'inputs.json'), join(project, 'schemas', 'alias.json'));
  // A FIFO named like a schema file: reading it waits for a writer that never comes.
  execFileSync('mkfifo', [join(project, 'schemas', 'fifo.json')]);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes the project's manifest with this plugin section (a public APP plugin). */
async function manifest(plugin: Record<string, unknown>): Promise<string> {
  const path = join(project, 'plugsmith.json');
  await writeFile(
    path,
    JSON.stringify({
      plugin: {
        name: `exfil-${Math.random().toString(36).slice(2, 8)}`,
        type: 'APP',
        isPublic: true,
        ...plugin,
      },
    }),
  );
  return path;
}

describe('a manifest reads only files of its project', () => {
  it.each([
    [
      'a relative path out of the project',
      '../home/.config/plugsmith/emulator.json',
      /outside the project folder/,
    ],
    ['an absolute path', 'ABSOLUTE', /absolute path/],
    [
      'a link inside the project that points outside',
      './schemas/linked.json',
      /outside the project folder/,
    ],
    ['a file of the project that is not a .json file', './.env', /not a \.json file/],
    [
      "the local emulator's store inside the project",
      './.plugsmith/emulator/snapshot.json',
      /inside \.plugsmith\//,
    ],
    ["an installed package's file", './node_modules/pkg/package.json', /inside node_modules\//],
    [
      'a FIFO named like a schema file',
      './schemas/fifo.json',
      /fifo\.json \(a FIFO, not a regular file/,
    ],
  ])(
    '%s is refused by deploy --dry-run and by deploy, and nothing reaches the marketplace',
    async (_name, ref, message) => {
      const target =
        ref === 'ABSOLUTE' ? join(root, 'home', '.config', 'plugsmith', 'emulator.json') : ref;
      const path = await manifest({ inputsSchema: { $ref: target } });
      const dry = await env.cli(['deploy', '--dry-run', '--manifest', path, '--org', 'org_dev']);
      expect(dry.code, dry.stderr).toBe(5);
      expect(dry.stderr).toMatch(message);
      expect(dry.stderr).toContain('plugin.inputsSchema.$ref');
      const deploy = await env.cli(['deploy', '--manifest', path, '--org', 'org_dev']);
      expect(deploy.code, deploy.stderr).toBe(5);
      const market = await env.cli(['plugins', 'marketplace', '--json']);
      expect(market.stdout).not.toContain(SECRET);
    },
  );

  it('a schema file inside the project, also through a link that stays inside, is read', async () => {
    for (const ref of ['./schemas/inputs.json', './schemas/alias.json']) {
      const path = await manifest({ inputsSchema: { $ref: ref } });
      const dry = await env.cli(['deploy', '--dry-run', '--manifest', path, '--org', 'org_dev']);
      expect(dry.code, dry.stderr).toBe(0);
    }
  });
});

describe('a manifest expands only allowed environment variables', () => {
  it.each([
    'HOME',
    'AWS_SECRET_ACCESS_KEY',
    'PLUGSMITH_TOKEN',
    'PLUGSMITH_ADMIN_TOKEN',
    'PLUGSMITH_API_KEY',
    'PLUGSMITH_WEBHOOK_SECRET',
    'PLUGSMITH_PASS',
    'PLUGSMITH_DB_PWD',
    'PLUGSMITH_BEARER',
    'PLUGSMITH_CREDS',
    'PLUGSMITH_DSN',
    // URLs that can carry `user:secret@`, a key without a marked name, and the home path.
    'PLUGSMITH_S3_ENDPOINT',
    'PLUGSMITH_LLM_BASE_URL',
    'PLUGSMITH_OPENAI',
    'PLUGSMITH_CONFIG_DIR',
  ])(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    '${%s} in webhookUrl is an error naming the variable and the fix, even with a default',
    async (variable) => {
      for (const placeholder of [`\${${variable}}`, `\${${variable}:-x}`]) {
        const path = await manifest({ webhookUrl: `https://hooks.example.com/${placeholder}` });
        const result = await env.cli(
          ['deploy', '--dry-run', '--manifest', path, '--org', 'org_dev'],
          { [variable]: SECRET },
        );
        expect(result.code, result.stderr).toBe(5);
        expect(result.stderr).toContain(`\${${variable}}`);
        expect(result.stderr).toContain(
          'only PORT, HOST, PLUGSMITH_PUBLIC_HOST, PLUGSMITH_PUBLIC_URL are expanded',
        );
        expect(result.stdout + result.stderr).not.toContain(SECRET);
      }
    },
  );

  it('an allowed variable whose value holds a user name or password is refused', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PLUGSMITH_PUBLIC_URL} is the manifest's shell-style variable, not a template literal
    const path = await manifest({ webhookUrl: '${PLUGSMITH_PUBLIC_URL}/webhook' });
    const result = await env.cli(['deploy', '--dry-run', '--manifest', path, '--org', 'org_dev'], {
      PLUGSMITH_PUBLIC_URL: `https://user:${SECRET}@hooks.example.com`,
    });
    expect(result.code, result.stderr).toBe(5);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PLUGSMITH_PUBLIC_URL} is the manifest's shell-style variable, not a template literal
    expect(result.stderr).toContain('uses ${PLUGSMITH_PUBLIC_URL}, whose value holds "@"');
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it('deploy --dry-run and deploy name each variable they expanded (stderr, and expandedVariables in --json)', async () => {
    const path = await manifest({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      webhookUrl: 'http://${PLUGSMITH_PUBLIC_HOST}:${PORT:-3000}/webhook',
    });
    const extra = { PLUGSMITH_PUBLIC_HOST: '127.0.0.1', PORT: '' };
    const dry = await env.cli(
      ['deploy', '--dry-run', '--manifest', path, '--org', 'org_dev'],
      extra,
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      'plugin.webhookUrl uses ${PLUGSMITH_PUBLIC_HOST} from the environment',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    expect(dry.stderr).toContain('plugin.webhookUrl uses ${PORT} (unset: its default)');
    const json = await env.json(['deploy', '--manifest', path, '--org', 'org_dev'], extra);
    expect(json.expandedVariables).toEqual([
      { field: 'plugin.webhookUrl', variable: 'PLUGSMITH_PUBLIC_HOST', fromDefault: false },
      { field: 'plugin.webhookUrl', variable: 'PORT', fromDefault: true },
    ]);
  });
});
