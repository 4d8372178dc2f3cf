import { describe, expect, test } from 'vitest';
import { validateScenario } from '../../src/scenario/validate.js';

describe('validateScenario', () => {
  test('accepts a scenario with references to earlier steps, env and unique values', () => {
    const checked = validateScenario(
      {
        name: 'a chat',
        env: ['WHO'],
        steps: [
          { id: 'conv', conversation: {} },
          {
            message: { conversation: '${conv.id}', text: 'hi ${unique} ${env.WHO}' },
            expect: [{ reply: { text: 'You said: hi' } }, { replies: { count: 1 } }],
          },
          { trigger: { event: 'AGENT_MESSAGE_RECEIVED', payload: { message: { content: 'x' } } } },
        ],
      },
      { WHO: 'me' },
    );
    expect(checked.problems).toEqual([]);
    expect(checked.scenario?.steps.map((s) => s.kind)).toEqual([
      'conversation',
      'message',
      'trigger',
    ]);
  });

  test('gives every problem at once, each with its JSON path and a fix', () => {
    const checked = validateScenario(
      {
        name: 'broken',
        stepz: [],
        steps: [
          { id: 'conv', conversaton: {} },
          { message: { conversation: '${cnv.id}', text: 'hi' } },
          { trigger: { event: 'AGENT_MESAGE_RECEIVED' } },
          { trigger: { event: 'AGENT_MESSAGE_RECEIVED', payload: { mesage: { content: 'x' } } } },
          { message: { conversation: '${later.id}', text: 5 }, expect: [{ replis: {} }] },
          { id: 'later', conversation: {} },
          { wait: { ms: 10 }, expect: [{ reply: { text: 'x' } }] },
        ],
      },
      {},
    );
    const byPath = Object.fromEntries(checked.problems.map((p) => [p.path, p]));
    expect(byPath.stepz.fix).toContain('did you mean "steps"');
    expect(byPath['steps[0].conversaton'].fix).toContain('did you mean "conversation"');
    expect(byPath['steps[1].message.conversation'].message).toContain('names step "cnv"');
    expect(byPath['steps[2].trigger.event'].message).toBe(
      '"AGENT_MESAGE_RECEIVED" is not an event kind',
    );
    expect(byPath['steps[2].trigger.event'].fix).toContain('did you mean "AGENT_MESSAGE_RECEIVED"');
    expect(byPath['steps[3].trigger.payload.mesage'].message).toContain('has no field "mesage"');
    expect(byPath['steps[3].trigger.payload.mesage'].fix).toContain('did you mean "message"');
    expect(byPath['steps[4].message.text'].message).toMatch(/string/);
    expect(byPath['steps[4].expect[0].replis'].fix).toContain('did you mean "replies"');
    expect(byPath['steps[6].expect[0].reply'].message).toContain('causes no reply');
    for (const problem of checked.problems) expect(problem.fix.length).toBeGreaterThan(3);
  });

  test('a reference to a later step says it comes later', () => {
    const checked = validateScenario({
      name: 'order',
      steps: [
        { message: { conversation: '${conv.id}', text: 'hi' } },
        { id: 'conv', conversation: {} },
      ],
    });
    expect(checked.problems[0].message).toContain('comes later');
  });

  test('an unset environment variable and an unknown result field are problems', () => {
    const checked = validateScenario(
      {
        name: 'refs',
        env: ['NOPE'],
        steps: [
          { id: 'conv', conversation: {} },
          { message: { conversation: '${conv.idd}', text: '${env.NOPE}' } },
        ],
      },
      {},
    );
    expect(checked.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('has no "idd"'),
      expect.stringContaining('NOPE is not set'),
    ]);
  });

  test('${env.NAME} takes only the names the file declares; the problem names the fix, and $${ is a literal ${', () => {
    const checked = validateScenario(
      {
        name: 'undeclared',
        env: ['WHO', 'not a name'],
        steps: [
          { id: 'conv', conversation: {} },
          {
            message: { conversation: '${conv.id}', text: 'hi ${env.PROBE_SECRET} $${env.LITERAL}' },
          },
        ],
      },
      { PROBE_SECRET: 'set', WHO: 'me' },
    );
    expect(checked.problems).toEqual([
      {
        path: 'env[1]',
        message: '"not a name" is not an environment variable name',
        fix: expect.stringContaining('letters, digits'),
      },
      {
        path: 'steps[1].message.text',
        message:
          '"${env.PROBE_SECRET}": the scenario does not declare the environment variable PROBE_SECRET',
        fix: 'add "env": ["WHO", "PROBE_SECRET"] at the top of the file to pass it, or write "$${env.PROBE_SECRET}" for the literal text',
      },
    ]);
  });
});

describe('loadScenarioFile', () => {
  test('a JSON syntax error names its line and column, never the text of the file', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { loadScenarioFile } = await import('../../src/scenario/load.js');
    const { tempDir } = await import('../kit/index.js');
    const dir = await tempDir('plugsmith-scenario-syntax-');
    const file = join(dir, 'broken.json');
    await writeFile(file, '{\n  "name": "broken",\n  TOPSECRET_VALUE: 1\n}\n');
    const loaded = await loadScenarioFile(file);
    expect(loaded.scenario).toBeNull();
    expect(loaded.problems).toHaveLength(1);
    expect(loaded.problems[0]!.message).toMatch(/^not JSON: line 3, column 3: /);
    expect(loaded.problems[0]!.message).not.toContain('TOPSECRET');
  });
});

describe('the request step', () => {
  test('its result is named by path below data and meta; other fields and bad paths are problems with a fix', () => {
    const ok = validateScenario({
      name: 'requests',
      steps: [
        { id: 'repo', request: { method: 'POST', path: '/api/repositories', body: { name: 'x' } } },
        {
          request: {
            method: 'GET',
            path: '/api/repositories/${repo.data.id}/files',
            query: { '@limit': 5, tags: ['a', 'b'] },
          },
        },
        { addFile: { repository: '${repo.data.id}', name: 'a.md', content: '${repo.status}' } },
        { request: { method: 'GET', path: '/api/plugins/nope', status: 404 } },
        { request: { method: 'GET', path: '/conversations/${repo.meta.x}', api: 'messaging' } },
      ],
    });
    expect(ok.problems).toEqual([]);

    const bad = validateScenario({
      name: 'bad requests',
      steps: [
        { id: 'r', request: { method: 'GET', path: 'https://elsewhere.example/api/plugins' } },
        { request: { method: 'GET', path: '/api/../_emulator/faults' } },
        { request: { method: 'GET', path: '/api/%2e%2e/x' } },
        { request: { method: 'GET', path: '/api/plugins?@limit=5' } },
        { request: { method: 'GET', path: 'api/plugins' } },
        { request: { method: 'GET', path: '//elsewhere.example/x' } },
        { request: { method: 'FETCH', path: '/api/plugins' } },
        { id: 'ok', request: { method: 'GET', path: '/api/plugins/marketplace' } },
        { message: { conversation: '${ok.id}', text: 'hi' } },
      ],
    });
    const byPath = Object.fromEntries(bad.problems.map((p) => [p.path, p]));
    expect(byPath['steps[0].request.path'].message).toMatch(/not a URL: no scheme or host/);
    expect(byPath['steps[1].request.path'].message).toMatch(/no "\." or "\.\." segment/);
    expect(byPath['steps[2].request.path'].message).toMatch(/no "\." or "\.\." segment/);
    expect(byPath['steps[3].request.path'].message).toMatch(/give the query as "query"/);
    expect(byPath['steps[4].request.path'].message).toMatch(/starts with "\/"/);
    expect(byPath['steps[5].request.path'].message).toMatch(/no scheme or host/);
    expect(byPath['steps[6].request.method']).toBeDefined();
    expect(byPath['steps[8].message.conversation'].message).toContain(
      'a request step\'s result has no "id"',
    );
    expect(byPath['steps[8].message.conversation'].fix).toContain('ok.status, ok.data, ok.meta');
    for (const problem of bad.problems) expect(problem.fix).not.toBe('');
  });
});
