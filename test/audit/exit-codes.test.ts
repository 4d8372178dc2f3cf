import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli-process.js';

// Audit of #14 ("One exit-code table, applied everywhere"): the README's table makes an invalid
// option value a usage error, exit 2, and most commands give 2 for `--base-url notaurl`
// ("the management URL must be an absolute http(s) URL"). whoami answers 1 (the table's
// "unexpected error, a bug"), and the emulator admin commands answer 7 (network), having
// tried to send a request to "notaurl/_emulator/…".

describe('an invalid --base-url is a usage error (exit 2) on every command', () => {
  const cases: string[][] = [
    ['plugins', 'marketplace'],
    ['whoami'],
    ['emulator', 'export', '/tmp/plugsmith-audit-never.json'],
    ['emulator', 'reset', '--yes'],
  ];
  for (const args of cases) {
    test(args.slice(0, 2).join(' '), async () => {
      const config = await tempConfigDir();
      const run = await runCli([...args, '--base-url', 'notaurl'], { env: { PLUGSMITH_CONFIG_DIR: config, PLUGSMITH_TOKEN: 'pst_audit', PLUGSMITH_ADMIN_TOKEN: 'psa_audit_token_0123456789' } });
      expect(run.stderr).toContain('notaurl');
      expect(run.code, run.stderr).toBe(2);
    });
  }
});
