import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { useCliEnv, VIEWER_TOKEN, ORG } from '../kit/cli-env.js';
import { WebhookServer } from '../kit/webhook-server.js';

const t = useCliEnv();

describe('plugsmith plugins secret rotate', () => {
  test('prints the new secret; deliveries then verify under both secrets; `plugins secret` shows the new one', async () => {
    const hook = await WebhookServer.start();
    try {
      const plugin = await t.api.plugins.createInOrg(ORG, {
        name: 'Rotating',
        type: 'EVENT_HANDLER',
        webhookUrl: hook.url,
      });
      const old = String(plugin.webhookSecret);
      const rotated = await t.cli(['plugins', 'secret', 'rotate', plugin.id, '--grace', '2h']);
      expect(rotated.code, rotated.stderr).toBe(0);
      const fresh = rotated.stdout.trim();
      expect(fresh).toMatch(/^whsec_\S+$/);
      expect(fresh).not.toBe(old);
      expect(rotated.stderr).toMatch(/both secrets until \d{4}-/);
      expect((await t.cli(['plugins', 'secret', plugin.id])).stdout.trim()).toBe(fresh);

      await t.api.plugins.verifyWebhook(plugin.id);
      const received = hook.ofType('WEBHOOK_CHALLENGE').at(-1)!;
      for (const secret of [old, fresh])
        new Webhook(secret).verify(received.body, received.headers as Record<string, string>);

      const json = await t.json(['plugins', 'secret', 'rotate', plugin.id, '--grace', '0']);
      expect(json).toMatchObject({ id: plugin.id, previousSecretExpiresAt: null });
      expect(json.webhookSecret).toMatch(/^whsec_/);
    } finally {
      await hook.close();
    }
  });

  test('a bad --grace is a usage error naming the syntax; a VIEWER is refused', async () => {
    const plugin = await t.api.plugins.createInOrg(ORG, {
      name: 'Rotating too',
      type: 'EVENT_HANDLER',
    });
    const bad = await t.cli(['plugins', 'secret', 'rotate', plugin.id, '--grace', '5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--grace takes a duration such as 24h/);
    const viewer = await t.cli(['plugins', 'secret', 'rotate', plugin.id], {
      PLUGSMITH_TOKEN: VIEWER_TOKEN,
    });
    expect(viewer.code).not.toBe(0);
    expect(viewer.stderr).toMatch(/rotate webhook secrets/);
    expect(String((await t.api.plugins.get(plugin.id)).webhookSecret)).toBe(
      String(plugin.webhookSecret),
    );
  });

  test('bash completion offers `check` with its options and `plugins secret rotate` with --grace', async () => {
    const script = await t.cli(['completion', 'bash']);
    const path = join(t.dir, 'rotate-completion.bash');
    await writeFile(path, script.stdout);
    const complete = async (words: string[]) => {
      const line = words.map((w) => `'${w}'`).join(' ');
      const { stdout } = await promisify(execFile)('bash', [
        '-c',
        `source '${path}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _plugsmith; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
      return stdout.trim().split('\n');
    };
    expect(await complete(['plugsmith', 'chec'])).toEqual(['check']);
    expect(await complete(['plugsmith', 'check', '--deliv'])).toEqual(['--delivery-timeout']);
    expect(await complete(['plugsmith', 'plugins', 'secret', 'rot'])).toEqual(['rotate']);
    expect(await complete(['plugsmith', 'plugins', 'secret', 'rotate', 'plg_1', '--gr'])).toEqual([
      '--grace',
    ]);
  });
});
