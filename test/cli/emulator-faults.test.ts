import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { runCli, spawnCli, tempConfigDir } from '../kit/cli-process.js';

describe('--faults and --faults-seed', () => {
  test('emulator start refuses a bad profile with exit 2, naming each bad part and the syntax, before it listens', async () => {
    const config = await tempConfigDir();
    const result = await runCli(
      [
        'emulator',
        'start',
        '--in-memory',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--faults',
        'dup=0.2,drop=2,delay=100-500ms',
      ],
      { env: { PLUGSMITH_CONFIG_DIR: config } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid --faults');
    expect(result.stderr).toContain('"dup=0.2": unknown fault "dup"');
    expect(result.stderr).toContain('"drop=2"');
    expect(result.stderr).not.toContain('"delay=100-500ms"');
    expect(result.stderr).toContain('duplicate=0.2,delay=100-500ms,reorder=0.1');
    expect(result.stdout).toBe('');
  });

  test('a seed needs a profile, and a bad seed is named', async () => {
    const config = await tempConfigDir();
    const env = { PLUGSMITH_CONFIG_DIR: config };
    const alone = await runCli(['emulator', 'start', '--in-memory', '--faults-seed', '5'], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--faults-seed needs --faults');
    const badSeed = await runCli(
      ['emulator', 'start', '--in-memory', '--faults', 'drop=0.1', '--faults-seed', 'a b'],
      { env },
    );
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toContain('invalid --faults-seed "a b"');
    const dev = await runCli(['dev', '--faults', 'reorder=often'], { env });
    expect(dev.code).toBe(2);
    expect(dev.stderr).toContain('"reorder=often": "often" is not a probability');
  });

  test('emulator start --faults prints the profile and seed, and GET /_emulator/faults shows them', async () => {
    const config = await tempConfigDir();
    const proc = spawnCli(
      [
        'emulator',
        'start',
        '--in-memory',
        '--port',
        '0',
        '--messaging-port',
        '0',
        '--json',
        '--faults',
        'duplicate=1,delay=10-20ms',
        '--faults-seed',
        '9',
      ],
      {
        env: { PLUGSMITH_CONFIG_DIR: config },
      },
    );
    const state = JSON.parse(await proc.nextLine()) as {
      url: string;
      adminToken: string;
      faults: string;
      faultsSeed: string;
    };
    expect(state).toMatchObject({ faults: 'duplicate=1,delay=10-20ms', faultsSeed: '9' });
    const response = await request(`${state.url}/_emulator/faults`, {
      headers: { 'x-plugsmith-admin': state.adminToken },
    });
    expect(await response.body.json()).toMatchObject({
      ok: true,
      data: { on: true, profile: 'duplicate=1,delay=10-20ms', seed: '9' },
    });
    const { code } = await proc.stop('SIGTERM');
    expect(code).toBe(0);
    expect(proc.stderr()).toContain('fault injection on: duplicate=1,delay=10-20ms (seed 9');
  });
});
