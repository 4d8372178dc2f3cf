import { describe, expect, test } from 'vitest';
import { runCli, tempConfigDir } from '../kit/cli-process.js';
import { EXIT } from '../../src/errors.js';

// A mistyped command, subcommand or event kind gets the closest by edit distance, as a mistyped
// option always did (commander's "(Did you mean --base-url?)"); the exit code stays the usage error's.

describe('did you mean', () => {
  test('a mistyped command, subcommand, event kind and option each name the closest, exit 2', async () => {
    const config = await tempConfigDir();
    const env = { PLUGSMITH_CONFIG_DIR: config, PLUGSMITH_BASE_URL: '', PLUGSMITH_PROFILE: '' };
    const [command, subcommand, eventType, lowerCase, option] = await Promise.all([
      runCli(['tirgger'], { env }),
      runCli(['plugins', 'verfy', 'plg_1'], { env }),
      runCli(['trigger', 'AGENT_MESAGE_RECEIVED'], { env }),
      runCli(['trigger', 'plugin_instaled'], { env }),
      runCli(['plugins', 'list', '--bse-url', 'http://127.0.0.1:9'], { env }),
    ]);
    expect(command.stderr).toContain("unknown command 'tirgger'");
    expect(command.stderr).toContain('(Did you mean trigger?)');
    expect(subcommand.stderr).toContain("unknown command 'verfy' of `plugsmith plugins`");
    expect(subcommand.stderr).toContain('(Did you mean verify?)');
    expect(eventType.stderr).toContain('unknown event kind "AGENT_MESAGE_RECEIVED"');
    expect(eventType.stderr).toContain('(Did you mean AGENT_MESSAGE_RECEIVED?)');
    expect(lowerCase.stderr).toContain('(Did you mean PLUGIN_INSTALLED?)');
    expect(option.stderr).toContain('(Did you mean --base-url?)');
    for (const run of [command, subcommand, eventType, lowerCase, option])
      expect(run.code, run.stderr).toBe(EXIT.USAGE);
  });

  test('a word close to nothing gets no guess, only the list', async () => {
    const [command, eventType] = await Promise.all([
      runCli(['zzzzqqq']),
      runCli(['trigger', 'NOTHING_LIKE_IT']),
    ]);
    for (const run of [command, eventType]) {
      expect(run.code, run.stderr).toBe(EXIT.USAGE);
      expect(run.stderr).not.toContain('Did you mean');
    }
    expect(command.stderr).toContain('its commands: login');
    expect(eventType.stderr).toContain('use one of WEBHOOK_CHALLENGE');
  });
});
