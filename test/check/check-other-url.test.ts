import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ORG, useCliEnv } from '../kit/cli-env.js';
import { deadUrl, receiver } from '../kit/index.js';

// `plugsmith check URL` inside a deployed project: the project's plugin is what the check is about only when URL is that
// plugin's webhook. Another URL is another webhook: its secret is not the plugin's, and the side-effect checks would
// count the project's plugin's messages while probing a server that is not it.

const t = useCliEnv();

interface Report {
  pluginId: string | null;
  checks: Array<{ id: string; status: string; fix: string | null }>;
}

async function deployedProject() {
  const dir = join(t.dir, 'deployed');
  const init = await t.cli(['init', dir, '--type', 'EVENT_HANDLER', '--yes']);
  expect(init.code, init.stderr).toBe(0);
  const port = new URL(await deadUrl()).port;
  const manifest = join(dir, 'plugsmith.json');
  const deployed = await t.json(['deploy', '--manifest', manifest, '--org', ORG], { PORT: port });
  const pluginId: string = deployed.pluginId ?? deployed.plugin?.id;
  expect(pluginId, JSON.stringify(deployed)).toMatch(/^plg_/);
  return { manifest, pluginId, port };
}

function reportOf(result: { stdout: string; stderr: string }): Report {
  expect(result.stdout, result.stderr).toMatch(/^\{/);
  return JSON.parse(result.stdout) as Report;
}

test("another webhook's URL with --secret is checked as itself, not as the project's plugin; the plugin's own URL in another spelling is the plugin", async () => {
  const project = await deployedProject();
  const other = await receiver();
  const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;

  const checked = await t.cli([
    'check',
    other.webhookUrl,
    '--secret',
    otherSecret,
    '--manifest',
    project.manifest,
    '--json',
  ]);
  const report = reportOf(checked);
  expect(report.pluginId).toBeNull();
  const skipped = report.checks.filter((c) => c.status === 'skipped');
  expect(skipped.length).toBeGreaterThan(0);
  expect(skipped.map((c) => c.fix).join('\n')).toContain(
    `${other.webhookUrl} is not the webhook of this project's plugin ${project.pluginId}`,
  );
  expect(skipped.map((c) => c.fix).join('\n')).toContain('pass --plugin PLUGIN_ID');

  // Without --secret the other webhook's secret is unknown: the project plugin's is not handed to it.
  const noSecret = await t.cli(['check', other.webhookUrl, '--manifest', project.manifest]);
  expect(noSecret.code, noSecret.stderr).toBe(2);
  expect(noSecret.stderr).toContain('which secret? pass --secret -');
  expect(other.received.some((r) => r.json?.type === 'AGENT_MESSAGE_RECEIVED')).toBe(false);

  // The manifest says 127.0.0.1 with a trailing-slash-free path; localhost and a trailing slash reach the same webhook.
  const own = await t.cli([
    'check',
    `http://localhost:${project.port}/webhook/`,
    '--manifest',
    project.manifest,
    '--json',
  ]);
  expect(reportOf(own).pluginId).toBe(project.pluginId);
  // A query makes it another webhook of the same server.
  const query = await t.cli([
    'check',
    `http://127.0.0.1:${project.port}/webhook?tenant=b`,
    '--secret',
    otherSecret,
    '--manifest',
    project.manifest,
    '--json',
  ]);
  expect(reportOf(query).pluginId).toBeNull();

  // --plugin says which plugin a URL belongs to, whatever its webhookUrl.
  const named = await t.cli([
    'check',
    other.webhookUrl,
    '--plugin',
    project.pluginId,
    '--manifest',
    project.manifest,
    '--delivery-timeout',
    '1',
    '--json',
  ]);
  expect(reportOf(named).pluginId).toBe(project.pluginId);
});
