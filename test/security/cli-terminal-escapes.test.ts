import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { createClient, type PlatformClient } from '../../src/client/index.js';
import { API_KEY, CLI_SEED, ORG, OWNER_TOKEN } from '../kit/cli-env.js';
import { runCli } from '../kit/cli-process.js';
import { escapeControls, terminalText } from '../../src/ui/terminal-text.js';
import { emulator } from '../kit/index.js';

// A MEMBER's strings reach other people's terminals through the CLI: a plugin's name with OSC 52
// (writes the clipboard) and OSC 0 (the window title), a character's reply, a webhook's answer.
// Human output shows their control characters as visible text; --json stays the exact JSON.
const OSC52 = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const OSC0 = '\u001b]0;pwned\u0007';
const C1_CSI = '\u009b2J';
const HOSTILE = `evil${OSC52}${OSC0}${C1_CSI}\u007f\r end`;
/** Any control character but the line feed and tab that lay text out. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let emu: Emulator;
let api: PlatformClient;
let configDir: string;
let webhook: Server;
let pluginId: string;
const cli = (args: string[]) =>
  runCli(args, {
    env: {
      PLUGSMITH_CONFIG_DIR: configDir,
      PLUGSMITH_BASE_URL: emu.url,
      PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
      PLUGSMITH_TOKEN: OWNER_TOKEN,
      PLUGSMITH_API_KEY: API_KEY,
      PLUGSMITH_ADMIN_TOKEN: emu.adminToken!,
    },
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  emu = await emulator({
    seed: {
      ...CLI_SEED,
      characters: [
        {
          id: 'char_evil',
          orgId: ORG,
          agentId: 'agent_nova',
          name: `Eve${OSC0}`,
          script: [],
          fallbackReply: `line one${OSC52}\nline two${C1_CSI}`,
        },
      ],
    } as never,
  });
  configDir = await mkdtemp(join(tmpdir(), 'plugsmith-escapes-'));
  api = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: OWNER_TOKEN,
    apiKey: API_KEY,
    adminToken: emu.adminToken,
  });
  pluginId = (
    (await api.plugins.createInOrg(ORG, {
      name: HOSTILE,
      description: `about ${OSC52}`,
      type: 'APP',
    } as never)) as { id: string }
  ).id;
  webhook = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`thanks${OSC52}${OSC0}`),
    );
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await api?.close();
  await new Promise((r) => webhook.close(r));
  await rm(configDir, { recursive: true, force: true });
});

describe('human output escapes control characters from stored strings', () => {
  it('plugins get and plugins list show the name with its controls as visible text', async () => {
    for (const args of [
      ['plugins', 'get', pluginId],
      ['plugins', 'list', '--org', ORG],
    ]) {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stdout).toContain(
        'evil\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]0;pwned\\x07\\x9b2J\\x7f',
      );
    }
  });

  it('a bidi override in a name is shown as visible text, in tables, details and --json', async () => {
    // U+202E shows `gnp.exe` as `exe.png`; U+2066-2069 and U+200E/F reorder or hide text the same way.
    const name = `invoice\u202egnp.exe\u2066x\u2069\u200f`;
    const created = (await api.plugins.createInOrg(ORG, { name, type: 'APP' } as never)) as {
      id: string;
    };
    const bidi = /[\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
    for (const args of [
      ['plugins', 'get', created.id],
      ['plugins', 'list', '--org', ORG],
    ]) {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(bidi);
      expect(result.stdout).toContain('invoice\\u202egnp.exe\\u2066x\\u2069\\u200f');
    }
    const json = await cli(['plugins', 'get', created.id, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toMatch(bidi);
    expect(JSON.parse(json.stdout).name).toBe(name);
  });

  it('--json keeps the exact strings', async () => {
    const result = await cli(['plugins', 'get', pluginId, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).name).toBe(HOSTILE);
    expect(JSON.parse(result.stdout).description).toBe(`about ${OSC52}`);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
  });

  it('an error message that echoes a server string is escaped', async () => {
    const result = await cli(['plugins', 'get', `plg_${OSC0}`]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain('plg_\\x1b]0;pwned\\x07');
  });

  it("chat shows a character's reply with its controls visible and its lines kept", async () => {
    const result = await cli(['chat', 'char_evil', '-m', 'hi']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain('line one\\x1b]52;c;cm0gLXJmIH4K\\x07\nline two\\x9b2J');
  });

  it("trigger --direct shows the webhook's answer escaped", async () => {
    const { port } = webhook.address() as AddressInfo;
    const result = await cli([
      'trigger',
      'WEBHOOK_CHALLENGE',
      '--direct',
      `http://127.0.0.1:${port}/webhook`,
      '--secret',
      'whsec_' + Buffer.alloc(24, 7).toString('base64'),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain('thanks\\x1b]52;c;cm0gLXJmIH4K\\x07\\x1b]0;pwned\\x07');
  });
});

describe('the escaping functions', () => {
  it('escapeControls makes every C0, DEL and C1 character visible, line breaks too', () => {
    expect(escapeControls('a\u0000\t\n\u001b\u007f\u0080\u009f\u00a0é')).toBe(
      'a\\x00\\x09\\x0a\\x1b\\x7f\\x80\\x9f\u00a0é',
    );
  });

  it("terminalText keeps the CLI's own colours and layout, and escapes any other sequence", () => {
    expect(terminalText('\u001b[1mbold\u001b[22m \u001b[32mgreen\u001b[39m\n\tx')).toBe(
      '\u001b[1mbold\u001b[22m \u001b[32mgreen\u001b[39m\n\tx',
    );
    expect(terminalText('\u001b[8mhidden\u001b[2J\u001b[1;3H\r')).toBe(
      '\\x1b[8mhidden\\x1b[2J\\x1b[1;3H\\x0d',
    );
    expect(terminalText(OSC52)).toBe('\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(terminalText('a\u202eb\u2028c\u061c')).toBe('a\\u202eb\\u2028c\\u061c');
  });
});
