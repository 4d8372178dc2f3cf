import { describe, expect, test } from 'vitest';
import { startEmulator } from '../../emulator/index.js';
import { startOnChosenPorts } from '../../src/dev/local-emulator.js';
import { own, server } from '../kit/index.js';

// startEmulator rather than the kit's emulator(): the code under test starts it on chosen ports, and retries.

// Two projects starting `plugsmith dev` (or `emulator start`) at the same moment: both find the
// default port free, one listens first, and the other's listen fails. choosePort's check cannot see
// that; startOnChosenPorts makes the second start on a free port instead, unless the port was asked for.

const instead = 'this emulator listens on a free port instead';

async function takenPort(): Promise<number> {
  const held = await server((_req, res) => res.end());
  return Number(new URL(held.url).port);
}

describe('a default port taken between the check and the listen', () => {
  test('the emulator starts on a free port instead, and a note names who holds the default', async () => {
    const port = await takenPort();
    const notes: string[] = [];
    const tried: number[] = [];
    const emu = await startOnChosenPorts(
      { port, messagingPort: 0 },
      {},
      notes,
      instead,
      (p, mp) => {
        tried.push(p);
        return startEmulator({ port: p, messagingPort: mp, log: () => undefined });
      },
    );
    own(() => emu.close());
    expect(tried).toEqual([port, 0]);
    expect(new URL(emu.url).port).not.toBe(String(port));
    expect((await fetch(`${emu.url}/_emulator/health`, { headers: emu.adminHeaders })).status).toBe(
      200,
    );
    expect(notes).toEqual([
      expect.stringMatching(new RegExp(`^port ${port} is in use by .*: ${instead}$`)),
    ]);
  });

  test('the messaging port likewise', async () => {
    const messagingPort = await takenPort();
    const notes: string[] = [];
    const emu = await startOnChosenPorts({ port: 0, messagingPort }, {}, notes, instead, (p, mp) =>
      startEmulator({ port: p, messagingPort: mp, log: () => undefined }),
    );
    own(() => emu.close());
    expect(new URL(emu.messagingUrl).port).not.toBe(String(messagingPort));
    expect(notes).toHaveLength(1);
  });

  test('both defaults taken (two projects starting at once): each moves to a free port, with a note each', async () => {
    const [port, messagingPort] = [await takenPort(), await takenPort()];
    const notes: string[] = [];
    const tried: Array<[number, number]> = [];
    const emu = await startOnChosenPorts({ port, messagingPort }, {}, notes, instead, (p, mp) => {
      tried.push([p, mp]);
      return startEmulator({ port: p, messagingPort: mp, log: () => undefined });
    });
    own(() => emu.close());
    expect(tried).toEqual([
      [port, messagingPort],
      [0, messagingPort],
      [0, 0],
    ]);
    expect((await fetch(`${emu.url}/_emulator/health`, { headers: emu.adminHeaders })).status).toBe(
      200,
    );
    expect(notes).toHaveLength(2);
  });

  test('a port the user asked for is never changed: the failure stands', async () => {
    const port = await takenPort();
    const notes: string[] = [];
    await expect(
      startOnChosenPorts({ port, messagingPort: 0 }, { port }, notes, instead, (p, mp) =>
        startEmulator({ port: p, messagingPort: mp, log: () => undefined }),
      ),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(notes).toEqual([]);
  });
});
