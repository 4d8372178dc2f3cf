import { describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, EVENT_KINDS } from '../../src/contract/index.js';
import { checkSchema } from '../../emulator/dashboard/app/json-schema-check.js';
import { eventDataProblems } from '../../emulator/events/payloads.js';
import { sampleData } from '../../src/trigger/fixtures.js';

// The browser's checker must agree with the emulator's (ajv) on the event schemas: the same
// payloads pass, and a failing one is reported at the same paths.

const known = {
  pluginId: 'plg_1',
  orgId: 'org_1',
  events: ['AGENT_MESSAGE_RECEIVED'],
  scopes: [],
  pluginInstanceId: 'pi_1',
  entityId: 'agent_1',
  entityType: 'AGENT',
  instanceName: 'x',
  agentId: 'agent_1',
  repositoryId: 'repo_1',
  fileSize: 12,
};

function paths(problems: Array<{ path: string[] }>): string[] {
  return [...new Set(problems.map((p) => p.path.join('.')))].sort();
}

describe('checkSchema on the event schemas', () => {
  it.each(EVENT_KINDS)('passes the fixture sample of %s, as the emulator does', (type) => {
    const data = sampleData(type, known);
    expect(eventDataProblems(type, data)).toEqual([]);
    expect(checkSchema(EVENT_DATA_SCHEMAS[type], data, ['data'])).toEqual([]);
  });

  const broken: Array<[string, (typeof EVENT_KINDS)[number], (d: any) => void]> = [
    ['a number for text', 'AGENT_MESSAGE_RECEIVED', (d) => (d.message.content = 42)],
    ['a missing field', 'AGENT_MESSAGE_RECEIVED', (d) => delete d.agentId],
    ['an unknown enum value', 'AGENT_MESSAGE_RECEIVED', (d) => (d.message.sender = 'ROBOT')],
    ['a bad date', 'REPOSITORY_FILE_ADDED', (d) => (d.file.createdAt = 'yesterday')],
    ['a string for a nullable integer', 'REPOSITORY_FILE_ADDED', (d) => (d.file.fileSize = '12')],
    ['an empty id', 'REPOSITORY_FILE_REMOVED', (d) => (d.repositoryId = '')],
    ['a missing instance', 'PLUGIN_INSTALLED', (d) => delete d.instance],
    ['a wrong array item', 'PLUGIN_INSTALLED', (d) => (d.instance.events = [1])],
    ['a challenge that is no string', 'WEBHOOK_CHALLENGE', (d) => (d.challenge = null)],
  ];
  it.each(broken)('refuses %s at the same paths as the emulator', (_name, type, breakIt) => {
    const data = structuredClone(sampleData(type, known)) as any;
    breakIt(data);
    const server = eventDataProblems(type, data);
    const browser = checkSchema(EVENT_DATA_SCHEMAS[type], data, ['data']);
    expect(browser.length).toBeGreaterThan(0);
    expect(paths(browser)).toEqual(paths(server));
  });
});
