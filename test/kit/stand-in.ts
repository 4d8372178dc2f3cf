import {
  createServer,
  request as forward,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Emulator, Seed } from '../../emulator/index.js';
import { emulator, own } from './index.js';

// The stand-in for the real platform: an emulator behind a real HTTP proxy (node:http on port 0,
// one for the management API and one for messaging) that serves no `/_emulator` (404) and changes
// the one thing a test chooses. Server-sent-event streams pass through unbuffered.

/** One thing the stand-in answers differently from the emulator, on requests whose method and path match (and, with `whenStatus`, whose answer had that status). */
export type StandInChange = { method: string; path: RegExp; whenStatus?: number } & (
  | { kind: 'status'; status: number }
  /** Replaces a field's value (`data.isPublic` -> `"false"` changes its type). */
  | { kind: 'value'; field: string; value: unknown }
  | { kind: 'remove'; field: string }
);

/** A running stand-in: the URLs a client uses, the credentials of its seed, and what it saw. */
export interface StandIn {
  url: string;
  messagingUrl: string;
  token: string;
  apiKey: string;
  orgId: string;
  characterId: string;
  otherOrgId: string;
  /** The emulator behind it (for assertions only). */
  emulator: Emulator;
  /** Every `/_emulator` request the stand-in refused. */
  adminRequests: string[];
  /** Every request it received, on either API, in order: `GET /api/plugins/plg_1` (the path with its query). */
  requests: string[];
  /** How many requests the change applied to. */
  changed: () => number;
}

/** The seed of the stand-in: an org the user owns (repository, character), and one it is not a member of. */
function standInSeed(token: string, apiKey: string): Seed {
  return {
    users: [
      { id: 'user_real', name: 'Real user' },
      { id: 'user_stranger', name: 'Stranger' },
    ],
    orgs: [
      { id: 'org_real', name: 'Real Org', members: [{ userId: 'user_real', role: 'OWNER' }] },
      {
        id: 'org_stranger',
        name: 'Stranger Org',
        members: [{ userId: 'user_stranger', role: 'OWNER' }],
      },
    ],
    tokens: [{ userId: 'user_real', token, orgId: null, name: 'real' }],
    agents: [{ id: 'agent_real', orgId: 'org_real', name: 'Real agent' }],
    characters: [
      {
        id: 'char_real',
        orgId: 'org_real',
        agentId: 'agent_real',
        name: 'Real',
        script: [],
        fallbackReply: 'The real platform answers in packets too.',
      },
    ],
    apiKeys: [{ key: apiKey, orgId: 'org_real', name: 'real' }],
    repositories: [{ id: 'repo_real', orgId: 'org_real', name: 'Real docs', description: 'Docs' }],
  };
}

/** Starts an emulator and the proxy in front of it; both closed by the kit. */
export async function standIn(change?: StandInChange): Promise<StandIn> {
  const token = `pst_real_${randomBytes(12).toString('hex')}`;
  const apiKey = `psk_real_${randomBytes(12).toString('hex')}`;
  const emu = await emulator({ seed: standInSeed(token, apiKey) });
  const adminRequests: string[] = [];
  const requests: string[] = [];
  let changed = 0;

  const proxy = (upstream: string) =>
    createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
      const path = incoming.url ?? '/';
      requests.push(`${incoming.method} ${path}`);
      if (
        path === '/_emulator' ||
        path.startsWith('/_emulator/') ||
        path.startsWith('/_emulator?')
      ) {
        adminRequests.push(`${incoming.method} ${path}`);
        outgoing.writeHead(404, { 'content-type': 'application/json' });
        outgoing.end(
          JSON.stringify({ ok: false, error: { message: 'Not found', error: 'NOT_FOUND' } }),
        );
        return;
      }
      const target = new URL(path, upstream);
      const headers = { ...incoming.headers, host: target.host };
      const applies =
        change !== undefined &&
        change.method === incoming.method &&
        change.path.test(path.split('?')[0]);
      const upstreamRequest = forward(target, { method: incoming.method, headers }, (answer) => {
        if (
          !applies ||
          (change.whenStatus !== undefined && change.whenStatus !== answer.statusCode)
        ) {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          let status = answer.statusCode ?? 502;
          if (change.kind === 'status') {
            status = change.status;
            changed++;
          } else {
            const rewritten = rewrite(parseJson(body.toString('utf8')), change);
            if (rewritten !== undefined) {
              body = Buffer.from(JSON.stringify(rewritten));
              changed++;
            }
          }
          const {
            'content-length': _length,
            'transfer-encoding': _encoding,
            ...rest
          } = answer.headers;
          outgoing.writeHead(status, { ...rest, 'content-length': String(body.length) });
          outgoing.end(body);
        });
      });
      upstreamRequest.on('error', () => {
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      // A client that goes away (a closed event stream) ends the upstream request too.
      outgoing.on('close', () => upstreamRequest.destroy());
      incoming.pipe(upstreamRequest);
    });

  const listen = async (upstream: string) => {
    const server = proxy(upstream);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    own(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  return {
    url: await listen(emu.url),
    messagingUrl: await listen(emu.messagingUrl),
    token,
    apiKey,
    orgId: 'org_real',
    characterId: 'char_real',
    otherOrgId: 'org_stranger',
    emulator: emu,
    adminRequests,
    requests,
    changed: () => changed,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body with the change's field replaced or removed; undefined when the body has no such field (an error answer). */
function rewrite(body: unknown, change: StandInChange): unknown {
  if (change.kind === 'status') return body;
  const keys = change.field.split('.');
  const last = keys.pop()!;
  let parent = body as Record<string, unknown> | undefined;
  for (const key of keys) parent = parent?.[key] as Record<string, unknown> | undefined;
  if (parent === null || typeof parent !== 'object' || !(last in parent)) return undefined;
  if (change.kind === 'remove') delete parent[last];
  else parent[last] = change.value;
  return body;
}
