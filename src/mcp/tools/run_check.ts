import { z } from 'zod';
import { UserError } from '../../errors.js';
import { pluginIdOf } from '../connection.js';
import { result } from '../shape.js';
import { anyObject, defineTool, WRITES } from '../tool.js';

export const runCheck = defineTool({
  name: 'run_check',
  title: 'Check the plugin',
  description:
    "Runs `plugsmith check` against the plugin's webhook: signed requests that test signature verification (valid, missing, wrong, rotated), replays, duplicates, unknown events and answer time, and, on the emulator, what the plugin did. Returns each check with its status and the fix for each failure. It sends real requests to the plugin, which may act on them.",
  inputSchema: {
    pluginId: z.string().optional().describe("default: this project's plugin"),
    deliveryTimeoutSeconds: z.number().min(1).max(600).default(10),
  },
  outputSchema: {
    ok: z.boolean(),
    url: z.string(),
    summary: anyObject,
    latency: anyObject,
    checks: z.array(anyObject),
  },
  annotations: WRITES,
  async run(args, connection) {
    const pluginId = await pluginIdOf(connection, args.pluginId);
    const plugin = await connection.client.plugins.get(pluginId);
    const secret = typeof plugin.webhookSecret === 'string' ? plugin.webhookSecret : undefined;
    if (!plugin.webhookUrl || !secret)
      throw new UserError(
        `plugin ${pluginId} has no webhook URL or its secret is not shown: set webhookUrl in plugsmith.json and let \`plugsmith dev\` deploy it`,
      );
    const { runCheck: check } = await import('../../check/index.js');
    const report = await check({
      url: plugin.webhookUrl,
      secret,
      plugin,
      client: connection.client,
      timeoutMs: args.deliveryTimeoutSeconds * 1000,
    });
    const checks = report.checks.map((one) => ({
      id: one.id,
      title: one.title,
      required: one.required,
      status: one.status,
      fix: one.fix,
      untrusted: { sent: one.sent, received: one.received },
    }));
    const failed = report.checks.filter((one) => one.status === 'failed');
    const summary = report.ok
      ? `All required checks passed (${report.summary.passed} passed, ${report.summary.skipped} skipped).`
      : `${failed.length} check(s) failed: ${failed.map((one) => one.id).join(', ')}; each one's fix is in "fix".`;
    return result(
      summary,
      {
        ok: report.ok,
        url: report.url,
        summary: report.summary,
        latency: { ...report.latency },
        checks,
      },
      [...connection.credentials, secret],
    );
  },
});
