import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from '../../emulator/dashboard/app/curl.js';
import { receiver } from '../kit/index.js';

const run = promisify(execFile);

const HOSTILE = [
  `it's`,
  `'; touch /tmp/pwned-curl; echo '`,
  'line one\nline two\r\nthree',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion the generated curl command must quote
  '$(touch /tmp/pwned-curl) `touch /tmp/pwned-curl` ${HOME} $HOME',
  `"double" \\back\\slash\\' '\\''`,
  '@/etc/passwd',
  '',
  'unicode: ☃ — ü',
];

describe('shellQuote', () => {
  it.each(HOSTILE)('gives one word that the shell reads back unchanged: %j', async (value) => {
    const { stdout } = await run('sh', ['-c', `printf '%s' ${shellQuote(value)}`]);
    expect(stdout).toBe(value);
  });
});

describe('curlCommand', () => {
  it('reproduces the request exactly when run by sh, however hostile the body', async () => {
    for (const text of HOSTILE) {
      const hook = await receiver();
      const url = `${hook.url}/hook?a=1&b='2'`;
      const got = hook.received;
      const body = JSON.stringify({ text, raw: text.replace(/\n/g, '') }).replace(
        '"raw"',
        '\n"raw"',
      );
      const headers = {
        'webhook-id': "evt_'1'",
        'webhook-timestamp': '1700000000',
        'webhook-signature': 'v1,abc+/= v1,$(x)',
        'content-type': 'application/json',
      };
      const command = curlCommand({ url, headers, body });
      await run('sh', ['-c', command]);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({ method: 'POST', url: "/hook?a=1&b='2'", body });
      expect(got[0].headers).toMatchObject(headers);
    }
  });

  it('puts each header and the body on its own continued line', () => {
    expect(curlCommand({ url: 'http://h/x', headers: { a: '1' }, body: '{}' })).toBe(
      `curl -sS -g -X POST --url 'http://h/x' \\\n  -H 'a: 1' \\\n  --data-raw '{}'`,
    );
  });

  it('gives the URL as the value of --url, so a URL starting with - is never read as an option', () => {
    const command = curlCommand({ url: '-K/etc/passwd', headers: {}, body: '{}' });
    expect(command).toContain(`--url '-K/etc/passwd'`);
  });
});
