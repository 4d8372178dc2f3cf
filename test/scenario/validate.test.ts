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
    // A byte-order mark (some Windows editors save one) is named where JSON.parse gives no position.
    const marked = join(dir, 'bom.json');
    await writeFile(marked, '\ufeff{"name": "marked", "steps": []}');
    const bom = await loadScenarioFile(marked);
    expect(bom.problems[0]).toMatchObject({ line: 1, column: 1 });
    expect(bom.problems[0]!.message).toBe(
      'not JSON: line 1, column 1: a byte-order mark (U+FEFF) starts the file: save it as UTF-8 without one',
    );
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

describe('every problem at once, in plain words', () => {
  /** A file of mistakes a newcomer makes, each of which used to hide another until it was fixed. */
  const MISTAKES = {
    name: 'mistakes',
    steps: [
      // An unknown event and, in the same step, an unknown field and a payload that is not an object.
      { trigger: { event: 'NOPE', payload: 3, x: 1 } },
      // A step with a problem of its own, whose reference is wrong too.
      { id: 'conv', conversation: { agent: 5 }, expect: [{ delivery: { status: '200' } }] },
      { message: { conversation: '${cnv.id}' }, expect: [{ reply: 'hello' }, { replies: {} }] },
      // A step kind misspelt, with a mistake in its expectations too.
      { mesage: { text: 'hi' }, expect: [{ delivery: { withinMs: 'soon' } }] },
      // A later reference to the bad step above: it is there, so not a problem.
      { message: { conversation: '${conv.id}', text: '' } },
      { wait: { ms: 1 }, expect: [{ reply: {} }] },
      {},
    ],
  };

  test('reports each mistake of every step, none hidden behind another', () => {
    const checked = validateScenario(MISTAKES);
    const byPath = Object.fromEntries(checked.problems.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        'steps[0].trigger.event',
        'steps[0].trigger.x',
        'steps[0].trigger.payload',
        'steps[1].conversation.agent',
        'steps[1].expect[0].delivery.status',
        'steps[2].message.conversation',
        'steps[2].message.text',
        'steps[2].expect[0].reply',
        'steps[2].expect[1].replies.count',
        'steps[3].mesage',
        'steps[3].expect[0].delivery.withinMs',
        'steps[4].message.text',
        'steps[5].expect[0].reply',
        'steps[6]',
      ].sort(),
    );
    expect(byPath['steps[2].message.text'].message).toBe(
      'message is missing "text": what the user writes',
    );
    expect(byPath['steps[2].message.text'].fix).toBe('add "text": "…" to message');
    expect(byPath['steps[2].expect[0].reply'].message).toMatch(
      /^"reply" must be an object .*, not a string$/,
    );
    expect(byPath['steps[2].expect[0].reply'].fix).toBe('write "reply": { "text": "…" }');
    expect(byPath['steps[1].expect[0].delivery.status'].message).toBe(
      '"status" must be "2xx" or a whole number from 100 to 599, not a string',
    );
    expect(byPath['steps[0].trigger.x'].message).toBe('"x" is not a field of trigger');
    expect(byPath['steps[4].message.text'].message).toMatch(/^"text" is empty/);
    // The reference to the step with problems of its own is not one more problem.
    expect(checked.problems.filter((p) => p.path.startsWith('steps[4]'))).toHaveLength(1);
    for (const problem of checked.problems) {
      expect(problem.message).not.toMatch(/expected (union|required|object|string|integer)/i);
      expect(problem.fix).not.toMatch(/^give (the|a|an|how|what) [a-z ]+ (comes|is|writes)/);
    }
  });

  test('a file that is read gives each problem its line and column', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { loadScenarioFile } = await import('../../src/scenario/load.js');
    const { tempDir } = await import('../kit/index.js');
    const file = join(await tempDir('plugsmith-scenario-where-'), 'where.json');
    await writeFile(
      file,
      [
        '{',
        '  "name": "where",',
        '  "steps": [',
        '    { "wait": { "ms": 1 } },',
        '    { "message": { "conversation": "c" },',
        '      "expect": [ { "reply": 5 } ] }',
        '  ]',
        '}',
      ].join('\n'),
    );
    const loaded = await loadScenarioFile(file);
    const byPath = Object.fromEntries(loaded.problems.map((p) => [p.path, p]));
    // A missing field is where its object's key is; an expectation where its key is.
    expect(byPath['steps[1].message.text']).toMatchObject({ line: 5, column: 7 });
    expect(byPath['steps[1].expect[0].reply']).toMatchObject({ line: 6, column: 21 });
  });
});

describe('expectations of one step that contradict each other', () => {
  const step = (expect: unknown[]) =>
    validateScenario({
      name: 'contradiction',
      steps: [
        { id: 'conv', conversation: {} },
        { message: { conversation: '${conv.id}', text: 'hi' }, expect },
      ],
    }).problems.map((p) => `${p.path}: ${p.message}`);

  test('a reply and none', () => {
    expect(step([{ reply: { text: 'hi' } }, { none: { reply: true, withinMs: 500 } }])).toEqual([
      'steps[1].expect[1].none: "none" expects no reply, but expect[0] expects one ("reply"): the step cannot pass both',
    ]);
  });

  test('counts of replies against none, a reply, each other and the reply texts', () => {
    expect(step([{ none: { reply: true, withinMs: 500 } }, { replies: { count: 1 } }])).toEqual([
      'steps[1].expect[0].none: "none" expects no reply, but expect[1] expects 1 ("replies")',
    ]);
    expect(step([{ reply: {} }, { replies: { count: 0 } }])).toEqual([
      'steps[1].expect[1].replies: "replies" expects none ("count": 0), but expect[0] expects a reply',
    ]);
    expect(step([{ replies: { count: 1 } }, { replies: { count: 2 } }])).toEqual([
      'steps[1].expect[1].replies: "replies" expects 2, but expect[0] expects 1',
    ]);
    expect(
      step([{ reply: { text: 'a' } }, { reply: { text: 'b' } }, { replies: { count: 1 } }]),
    ).toEqual([
      'steps[1].expect[2].replies: "replies" expects 1, but the step expects 2 different reply texts',
    ]);
  });

  test('a reply with both text and pattern, of which only text would be checked', () => {
    expect(step([{ reply: { text: 'a', pattern: 'b' } }])).toEqual([
      'steps[1].expect[0].reply: "reply" gives both "text" and "pattern": only "text" would be checked',
    ]);
  });

  test('deliveries: none expected but judged, a failure not retried, a challenge, two answers', () => {
    expect(step([{ delivery: { count: 0, status: '2xx' } }])).toEqual([
      'steps[1].expect[0].delivery: "delivery" expects no delivery ("count": 0), so its "status" cannot be checked',
    ]);
    expect(step([{ delivery: { status: 500, retried: false } }])).toEqual([
      'steps[1].expect[0].delivery: "delivery" expects the plugin to answer 500 and not to be retried, but an answer that is not a 2xx is retried',
    ]);
    expect(step([{ delivery: { type: 'WEBHOOK_CHALLENGE' } }])[0]).toMatch(
      /^steps\[1\]\.expect\[0\]\.delivery\.type: a step's deliveries never include WEBHOOK_CHALLENGE/,
    );
    expect(
      step([
        { delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: '2xx' } },
        { delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: 500 } },
      ]),
    ).toEqual([
      'steps[1].expect[1].delivery: "delivery" and expect[0] expect the AGENT_MESSAGE_RECEIVED deliveries to have a different "status"',
    ]);
  });

  test('expectations that agree are no problem', () => {
    expect(
      step([
        { reply: { text: 'a' } },
        { replies: { count: 1 } },
        { delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: '2xx', retried: false } },
        { delivery: { count: 1 } },
      ]),
    ).toEqual([]);
  });
});

describe('fixes', () => {
  test('every fix is an imperative sentence, never "give" and a description', async () => {
    const { STEP_KINDS, EXPECTATION_KINDS } = await import('../../src/scenario/schema.js');
    // Each step and expectation kind with a wrong value in each of its fields, and with its required fields left out.
    const wrong = (schema: { properties?: Record<string, unknown> }) =>
      Object.fromEntries(Object.keys(schema.properties ?? {}).map((f) => [f, [[]]]));
    const files: unknown[] = [
      [],
      { name: 'x,y', description: 5, plugin: [], env: 'A', steps: [], extra: 1 },
      { name: 'x', env: ['1A'], steps: [5, {}, { id: 7, wait: 5, expect: 5 }, { a: {}, b: {} }] },
      {
        name: 'kinds',
        steps: Object.entries(STEP_KINDS).flatMap(([kind, { schema }]) => [
          { [kind]: wrong(schema as never) },
          { [kind]: {} },
        ]),
      },
      {
        name: 'expectations',
        steps: [
          { id: 'conv', conversation: {} },
          {
            message: { conversation: '${conv.id}', text: '${nope.id} ${env.X} ${conv.nope}' },
            expect: [
              ...Object.entries(EXPECTATION_KINDS).flatMap(([kind, schema]) => [
                { [kind]: wrong(schema as never) },
                { [kind]: {} },
              ]),
              {},
              { reply: {}, none: {} },
              { replys: {} },
              { reply: { pattern: '(a)\\1' } },
              { file: { repository: 'r' } },
            ],
          },
        ],
      },
    ];
    const fixes = files.flatMap((file) => validateScenario(file).problems.map((p) => p.fix));
    expect(fixes.length).toBeGreaterThan(60);
    const imperative =
      /^(did you mean [^?]+\? )?(add|write|remove|use|give|keep|split|put|correct|fix|set|name|make|expect|flatten)\b/;
    for (const fix of fixes) {
      expect(fix).toMatch(imperative);
      // "give " followed by a description ("give the answer comes within this many ms") is how they went wrong.
      expect(fix).not.toMatch(/^give (the|a|an|how|what|exactly|only|false)\b/i);
    }
  });
});
