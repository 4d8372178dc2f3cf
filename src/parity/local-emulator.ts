import { randomBytes } from 'node:crypto';
import type { Seed } from '../../emulator/index.js';
import type { ProbeTarget } from './probe.js';

// The emulator `parity check` replays the journey on by default: in memory, on free ports, seeded
// with what the journey needs (an org the user owns with a repository and a character, and a second
// org the user is not a member of, for the 403 step). Loaded lazily: the emulator is large.

/** A started emulator as a probe target, and how to stop it. */
export interface LocalTarget {
  target: ProbeTarget;
  close(): Promise<void>;
}

/** Starts an in-memory emulator seeded for the probe journey. */
export async function startParityEmulator(): Promise<LocalTarget> {
  const token = `pst_parity_${randomBytes(16).toString('hex')}`;
  const apiKey = `psk_parity_${randomBytes(16).toString('hex')}`;
  const seed: Seed = {
    users: [
      { id: 'user_parity', name: 'Parity' },
      { id: 'user_other', name: 'Someone else' },
    ],
    orgs: [
      { id: 'org_parity', name: 'Parity Org', members: [{ userId: 'user_parity', role: 'OWNER' }] },
      { id: 'org_other', name: 'Other Org', members: [{ userId: 'user_other', role: 'OWNER' }] },
    ],
    tokens: [{ userId: 'user_parity', token, orgId: null, name: 'parity' }],
    agents: [{ id: 'agent_parity', orgId: 'org_parity', name: 'Parity agent' }],
    characters: [
      {
        id: 'char_parity',
        orgId: 'org_parity',
        agentId: 'agent_parity',
        name: 'Parity',
        script: [],
        fallbackReply: 'A reply of the emulator, sent in packets like a character message.',
      },
    ],
    apiKeys: [{ key: apiKey, orgId: 'org_parity', name: 'parity' }],
    repositories: [
      { id: 'repo_parity', orgId: 'org_parity', name: 'Docs', description: 'A repository' },
    ],
  };
  const { startEmulator } = await import('../../emulator/index.js');
  const emulator = await startEmulator({
    seed,
    inMemory: true,
    port: 0,
    messagingPort: 0,
    log: () => undefined,
  });
  return {
    target: {
      baseUrl: emulator.url,
      messagingUrl: emulator.messagingUrl,
      token,
      apiKey,
      orgId: 'org_parity',
      characterId: 'char_parity',
      otherOrgId: 'org_other',
    },
    close: () => emulator.close(),
  };
}
