import { describe, expect, test } from 'vitest';
import { validateScenario } from '../../src/scenario/validate.js';

describe('validateScenario', () => {
  test('accepts a scenario with references to earlier steps, env and unique values', () => {
    const checked = validateScenario(
      {
        name: 'a chat',
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
});
