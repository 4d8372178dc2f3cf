import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, tempDir } from '../kit/index.js';

// `parity check --event-shapes` on files as a plugin could have kept them from a platform that differs
// from the emulator: what is a difference (a type the emulator never sends, a field it lacks, an event
// it has no schema for), what is listed apart (a field only the emulator always sends) and what is
// not compared (the keys of an installation's own inputs, the items of an empty array).

const WHERE = { method: 'POST', pathTemplate: ':webhookUrl' };

async function shapesFile(content: unknown): Promise<string> {
  const path = join(await tempDir('plugsmith-event-shapes-'), 'event-shapes.json');
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const ENVELOPE = {
  id: 'string',
  type: 'string',
  createdAt: 'string',
  pluginId: 'string',
  pluginInstanceId: 'string',
  orgId: 'string',
  data: 'object',
};

describe('parity check --event-shapes', () => {
  it('leaves out the unknown kind `plugsmith check` sends (a checked plugin keeps its shape too), saying why', async () => {
    const file = await shapesFile({
      version: 1,
      events: {
        PLUGSMITH_CHECK_UNKNOWN_EVENT: { ...ENVELOPE },
        WEBHOOK_CHALLENGE: { ...ENVELOPE, pluginInstanceId: 'null', 'data.challenge': 'string' },
      },
    });
    const run = await cli();
    const answer = await run.run(['parity', 'check', '--event-shapes', file, '--json']);
    expect(answer.code, answer.stdout + answer.stderr).toBe(0);
    const report = JSON.parse(answer.stdout);
    expect(report.differences).toEqual([]);
    expect(report.comparedEvents).toEqual(['WEBHOOK_CHALLENGE']);
    expect(report.notRecorded).toEqual([
      {
        step: 'event.PLUGSMITH_CHECK_UNKNOWN_EVENT',
        why: '`plugsmith check` sent it (its probe of an unknown event kind), not the platform',
      },
    ]);
    const table = await run.run(['parity', 'check', '--event-shapes', file]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('event.PLUGSMITH_CHECK_UNKNOWN_EVENT');
    expect(table.stdout).toContain('`plugsmith check` sent it');
  });

  it('names each difference, lists the emulator-only fields apart and skips what is not compared', async () => {
    const file = await shapesFile({
      version: 1,
      events: {
        AGENT_MESSAGE_RECEIVED: {
          ...ENVELOPE,
          'data.agentId': 'string',
          'data.characterId': 'string',
          'data.conversationId': 'string',
          'data.message': 'object',
          'data.message.id': 'string',
          'data.message.conversationId': 'string',
          'data.message.sender': 'string',
          'data.message.type': 'string',
          // null on the platform too, where the emulator always sends a string
          'data.message.content': 'null|string',
          // empty on every delivery: nothing is said of its items
          'data.message.attachments': 'array',
          // optional in the emulator's schema: present here, and alike
          'data.message.error': 'object',
          'data.message.error.code': 'string',
          // a field the emulator has not: named once, not its children
          'data.message.reactions': 'array',
          'data.message.reactions[]': 'object',
          'data.message.reactions[].emoji': 'string',
          'data.message.createdAt': 'string',
          'data.message.updatedAt': 'string',
          // data.message.isStreaming never came: listed apart
        },
        PLUGIN_INSTALLED: {
          ...ENVELOPE,
          'data.accessToken': 'string',
          'data.instance': 'object',
          // an installation's inputs are its own: nothing under them is compared
          'data.instance.inputs': 'object',
          'data.instance.inputs.anything': 'number',
          'data.instance.eventDispatchCondition': 'object',
        },
        REPOSITORY_FILE_ADDED: {
          ...ENVELOPE,
          'data.repositoryId': 'string',
          'data.file': 'object',
          'data.file.contentType': 'null',
          'data.file.fileSize': 'number',
          'data.file.checksum': 'string',
        },
        SOMETHING_NEW: { ...ENVELOPE },
      },
    });
    const run = await cli();
    const answer = await run.run(['parity', 'check', '--event-shapes', file, '--json']);
    expect(answer.code, answer.stderr).toBe(1);
    const report = JSON.parse(answer.stdout);
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([
      {
        step: 'event.AGENT_MESSAGE_RECEIVED',
        ...WHERE,
        kind: 'type',
        path: 'data.message.content',
        platform: 'null|string',
        emulator: 'string',
      },
      {
        step: 'event.AGENT_MESSAGE_RECEIVED',
        ...WHERE,
        kind: 'missing-field',
        path: 'data.message.reactions',
        platform: 'array',
        emulator: 'absent',
      },
      {
        step: 'event.REPOSITORY_FILE_ADDED',
        ...WHERE,
        kind: 'missing-field',
        path: 'data.file.checksum',
        platform: 'string',
        emulator: 'absent',
      },
      {
        step: 'event.SOMETHING_NEW',
        ...WHERE,
        kind: 'event',
        platform: 'sent',
        emulator: 'no such event',
      },
    ]);
    const extras = report.extras.filter(
      (e: { step: string }) => e.step === 'event.AGENT_MESSAGE_RECEIVED',
    );
    expect(extras).toEqual([
      { step: 'event.AGENT_MESSAGE_RECEIVED', path: 'data.message.isStreaming', type: 'boolean' },
    ]);
    // Under an object the platform sent: the instance's fields it lacks are listed, nothing under inputs.
    const installed = report.extras
      .filter((e: { step: string }) => e.step === 'event.PLUGIN_INSTALLED')
      .map((e: { path: string }) => e.path);
    expect(installed).toContain('data.instance.id');
    expect(installed).not.toContain('data.instance.agentId');
    expect(installed.filter((p: string) => p.includes('['))).toEqual([]);
    expect(report.comparedEvents).toEqual([
      'AGENT_MESSAGE_RECEIVED',
      'PLUGIN_INSTALLED',
      'REPOSITORY_FILE_ADDED',
    ]);

    const table = await run.run(['parity', 'check', '--event-shapes', file]);
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/^4 differences between the recorded platform and the emulator:/);
    expect(table.stdout).toMatch(
      /event\.SOMETHING_NEW\s+POST :webhookUrl\s+event\s+sent\s+no such event/,
    );
    expect(table.stdout).toMatch(
      /event\.AGENT_MESSAGE_RECEIVED\s+data\.message\.isStreaming\s+boolean/,
    );
  });

  it('reports the requests and the events in one table', async () => {
    const dir = await tempDir('plugsmith-parity-both-');
    const parity = join(dir, 'parity.json');
    await writeFile(
      parity,
      JSON.stringify({
        version: 1,
        recordedAt: '2026-12-02T00:00:00.000Z',
        target: { kind: 'remote' },
        exchanges: [
          {
            step: 'plugins.create',
            method: 'POST',
            pathTemplate: '/api/orgs/:orgId/plugins',
            status: 200,
            envelope: 'ok',
            shape: { ok: 'boolean', data: 'object' },
            errorType: null,
          },
        ],
      }),
    );
    const shapes = await shapesFile({
      version: 1,
      events: {
        WEBHOOK_CHALLENGE: { ...ENVELOPE, pluginInstanceId: 'null', 'data.challenge': 'number' },
      },
    });
    const run = await cli();
    const answer = await run.run(['parity', 'check', parity, '--event-shapes', shapes, '--json']);
    expect(answer.code, answer.stderr).toBe(1);
    const report = JSON.parse(answer.stdout);
    expect(
      report.differences.map((d: { step: string; kind: string }) => `${d.step} ${d.kind}`),
    ).toEqual(['plugins.create status', 'event.WEBHOOK_CHALLENGE type']);
    expect(report.compared).toBe(1);
    expect(report.comparedEvents).toEqual(['WEBHOOK_CHALLENGE']);
    expect(report.behaviours.map((b: { section: string }) => b.section)).toEqual([
      'Envelope and errors',
      'Plugins',
      'Schemas',
      'Webhook delivery',
    ]);
  });

  it('refuses a file that is not one, a missing one, and nothing to check, each saying what to do', async () => {
    const run = await cli();
    const wrong = await shapesFile({ version: 2, events: { AGENT_MESSAGE_RECEIVED: { id: 1 } } });
    const refused = await run.run(['parity', 'check', '--event-shapes', wrong]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('is not an event-shapes file');
    expect(refused.stderr).toContain('version: this plugsmith reads version 1, not 2');
    expect(refused.stderr).toContain('events.AGENT_MESSAGE_RECEIVED: must map paths to type names');
    expect(refused.stderr).toContain('PLUGSMITH_EVENT_SHAPES');

    const notJson = await run.run(['parity', 'check', '--event-shapes', await shapesFile('{')]);
    expect(notJson.code).toBe(5);
    expect(notJson.stderr).toContain('is not valid JSON');

    const missing = await run.run(['parity', 'check', '--event-shapes', 'nowhere/shapes.json']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('no event-shapes file nowhere/shapes.json');
    expect(missing.stderr).toContain('PLUGSMITH_EVENT_SHAPES=<file>');

    const nothing = await run.run(['parity', 'check']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('--event-shapes <file>');
  });
});
