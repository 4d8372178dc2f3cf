import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadScenarioFile } from '../../src/scenario/load.js';
import { nestedDeeperThan, positionsOf } from '../../src/scenario/positions.js';
import { MAX_DEPTH } from '../../src/scenario/validate.js';
import { tempDir } from '../kit/index.js';

// A scenario file's nesting is checked on its text, before JSON.parse: a file of 8 MB nested four million deep took
// 13 s and a gigabyte to parse and to report (every path below the limit as long as the file).

test('the first object or list opening at the limit, by path and position; brackets inside strings do not count', () => {
  expect(nestedDeeperThan('{"a":[1,{"b":{}}]}', 3)).toEqual({
    path: 'a[1].b',
    position: { line: 1, column: 14 },
  });
  expect(nestedDeeperThan('{"a":[1,{"b":{}}]}', 4)).toBeNull();
  expect(nestedDeeperThan('[[]]', 0)).toEqual({ path: '$', position: { line: 1, column: 1 } });
  // Brackets and escaped quotes in strings, keys included, are text.
  const quoted = JSON.stringify({ 'k[{"': '[[[[{{{{\\"[[[[', list: ['"]]]]"', '\\'] });
  expect(JSON.parse(quoted)).toBeTruthy();
  expect(nestedDeeperThan(quoted, 2)).toBeNull();
  expect(nestedDeeperThan(`{\n  "x": {\n    "y\\"[": [\n      {}\n    ]\n  }\n}`, 3)).toEqual({
    path: 'x.y"[[0]',
    position: { line: 4, column: 7 },
  });
});

test('positionsOf still finds keys and items when strings hold brackets and escaped quotes', () => {
  const text = '{\n  "steps": [\n    { "message": "a \\" ] }" },\n    { "install": "x" }\n  ]\n}';
  const at = positionsOf(text, ['steps[1].install', 'steps[0].message']);
  expect(at.get('steps[1].install')).toEqual({ line: 4, column: 7 });
  expect(at.get('steps[0].message')).toEqual({ line: 3, column: 7 });
});

test('an 8 MB scenario nested four million deep is refused from its text, at its path and position', async () => {
  const dir = await tempDir();
  const levels = 4_000_000;
  const file = join(dir, 'deep.json');
  await writeFile(
    file,
    `{"name":"deep","steps":[{"message":${'['.repeat(levels)}${']'.repeat(levels)}}]}`,
  );
  const loaded = await loadScenarioFile(file);
  expect(loaded.scenario).toBeNull();
  expect(loaded.problems).toHaveLength(1);
  const [problem] = loaded.problems;
  // steps (1) > its item (2) > message (3, column 36) > its lists: the one opening at level MAX_DEPTH is named.
  expect(problem.path).toBe(`steps[0].message${'[0]'.repeat(MAX_DEPTH - 3)}`);
  expect(problem.message).toBe(`the scenario is nested more than ${MAX_DEPTH} levels deep here`);
  expect(problem).toMatchObject({ line: 1, column: 36 + MAX_DEPTH - 3 });
});

test('a file of too many steps is refused by their count before any is checked; a step of 200,000 unknown fields gives a bounded list, not a stack overflow', async () => {
  const dir = await tempDir('plugsmith-wide-');
  const many = join(dir, 'many.json');
  await writeFile(
    many,
    JSON.stringify({ name: 'many', steps: Array.from({ length: 20_000 }, () => ({ zz: 1 })) }),
  );
  const counted = await loadScenarioFile(many);
  expect(counted.problems).toEqual([
    expect.objectContaining({
      path: 'steps',
      message: 'the scenario has 20000 steps: at most 10000',
    }),
  ]);

  // A spread of every problem into one push() overflowed the stack: the CLI and MCP answered "Maximum call stack size
  // exceeded" (exit 1) instead of naming the problems.
  const wide = join(dir, 'wide.json');
  const fields = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, 1]));
  await writeFile(
    wide,
    JSON.stringify({
      name: 'wide',
      steps: [{ wait: fields }, { trigger: { event: 'AGENT_MESSAGE_RECEIVED', payload: fields } }],
    }),
  );
  const bounded = await loadScenarioFile(wide);
  expect(bounded.scenario).toBeNull();
  const of = (step: string) => bounded.problems.filter((p) => p.path.startsWith(step)).length;
  expect(of('steps[0]')).toBe(100);
  expect(of('steps[1].trigger.payload')).toBe(100);
  expect(bounded.problems.map((p) => p.message)).toContain('"k0" is not a field of wait');
});
