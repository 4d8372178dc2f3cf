import { expect, test } from 'vitest';
import { recordedInputs } from '../../src/scenario/record-secrets.js';

// Which install inputs a recording writes as variables (src/scenario/record-secrets.ts): a credential by its key's last
// word or by its value's form, and nothing else.

function variables(inputs: Record<string, unknown>, install = 'prod'): string[] {
  return recordedInputs(install, inputs, new Set()).credentials.map((c) => c.path);
}

test('keys that name a credential, by their last word, in any case or separator; and what they hold below them', () => {
  expect(
    variables({
      openaiKey: 'a',
      openai_key: 'b',
      'license-key': 'c',
      Authorization: 'd',
      passphrase: 'e',
      apiToken: 'f',
      dbPassword: 'g',
      clientSecret: 'h',
      secrets: { openai: 'i', list: ['j'] },
    }),
  ).toEqual([
    'inputs.openaiKey',
    'inputs.openai_key',
    'inputs.license-key',
    'inputs.Authorization',
    'inputs.passphrase',
    'inputs.apiToken',
    'inputs.dbPassword',
    'inputs.clientSecret',
    'inputs.secrets.openai',
    'inputs.secrets.list.0',
  ]);
});

test('keys that only mention one are plain: tokenUrl, authMode, tokenizer, publicKey, sortKey, privateMode, author', () => {
  expect(
    variables({
      tokenUrl: 'https://auth.example.com/token',
      authMode: 'oauth',
      tokenizer: 'cl100k',
      publicKey: 'ssh-ed25519 AAAA',
      sortKey: 'name',
      privateMode: 'on',
      author: 'Jane',
    }),
  ).toEqual([]);
});

test('values of a credential form under any key; a URL with a password, its user empty too', () => {
  expect(
    variables({
      a: 'sk-proj-abcdefghijklmnopqrstu',
      b: 'redis://:pw@cache.example.com:6379',
      c: 'postgres://admin:Hunter2@db.example.com/x',
      d: 'https://db.example.com/x',
    }),
  ).toEqual(['inputs.a', 'inputs.b', 'inputs.c']);
});

test("a variable's name is never one of plugsmith's own", () => {
  const { credentials } = recordedInputs('plugsmith', { token: 'x' }, new Set());
  expect(credentials.map((c) => c.name)).toEqual(['INPUT_PLUGSMITH_TOKEN']);
});

test('long hostile values are looked at in bounded time: with unbounded quantifiers the last one took hours', () => {
  const inputs = { a: 'a.'.repeat(2000), b: 'eyJ-'.repeat(1000), c: 'a.'.repeat(500_000) };
  expect(variables(inputs)).toEqual([]);
});
