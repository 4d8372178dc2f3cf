import { expect, test } from 'vitest';
import { compareExchanges } from '../../src/parity/compare.js';
import { parityFileProblems, type Exchange, type ParityFile } from '../../src/parity/format.js';
import { renderReport } from '../../src/parity/render.js';

// A parity file is committed, so it can come from a stranger's pull request: its paths are keys of plain objects, and
// one named like a member of Object.prototype (`constructor`, `toString`, `__proto__`, which JSON.parse keeps as an
// own key) is a path like any other, never the prototype's member.

const exchange = (shape: Record<string, string>, values?: Exchange['values']): Exchange => ({
  step: 'plugins.create',
  method: 'POST',
  pathTemplate: '/api/plugins',
  status: 201,
  envelope: 'ok',
  shape,
  errorType: null,
  ...(values ? { values } : {}),
});

test('paths named like Object.prototype members are compared as paths, and the report renders', () => {
  const recorded = JSON.parse(
    JSON.stringify({
      version: 1,
      recordedAt: '2026-12-03T00:00:00.000Z',
      target: { kind: 'remote' },
      exchanges: [exchange({ constructor: 'string', data: 'object' }, { toString: 'x' })],
    }).replace('"data"', '"__proto__"'),
  ) as ParityFile;
  expect(parityFileProblems(recorded)).toEqual([]);
  const report = compareExchanges(recorded, [exchange({ hasOwnProperty: 'string' })]);
  expect(report.differences.map((d) => [d.kind, d.path, d.emulator])).toEqual([
    ['missing-field', 'constructor', 'absent'],
    ['missing-field', '__proto__', 'absent'],
  ]);
  expect(report.extras).toEqual([
    { step: 'plugins.create', path: 'hasOwnProperty', type: 'string' },
  ]);
  const text = renderReport(report);
  expect(text).toContain('constructor');
  expect(text).toContain('__proto__');
});

test('an exchange whose fields are not what a recording writes is refused, field by field', () => {
  const problems = parityFileProblems({
    version: 1,
    exchanges: [
      {
        step: 'plugins.create',
        method: 1,
        pathTemplate: ['/api'],
        status: 201,
        envelope: {},
        errorType: 3,
        skipped: false,
        shape: {},
        values: { a: { nested: true } },
      },
    ],
  });
  expect(problems).toEqual([
    'exchanges[0].method: must be a string',
    'exchanges[0].pathTemplate: must be a string',
    'exchanges[0].envelope: must be a string or null',
    'exchanges[0].errorType: must be a string or null',
    'exchanges[0].skipped: must be a string',
    'exchanges[0].values: must map paths to strings, numbers, booleans or null',
  ]);
});
