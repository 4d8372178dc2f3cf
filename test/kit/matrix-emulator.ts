import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type Seed } from '../../emulator/index.js';
import { call, type ApiResponse, type CallOptions } from './http.js';

/** The seed of `test/fixtures/seed-matrix.json`: two orgs and a user token for every kind of caller. */
export const MATRIX_SEED: Seed = JSON.parse(
  readFileSync(new URL('../fixtures/seed-matrix.json', import.meta.url), 'utf8'),
);

/** The org most tests act in (org_acme) and a second org (org_beta). */
export const ORG = 'org_acme';
export const OTHER_ORG = 'org_beta';
/** A repository of each org in the seed. */
export const REPOSITORY = 'repo_acme';
export const OTHER_REPOSITORY = 'repo_beta';
/** ORG's agent, and its character, in the seed. */
export const AGENT = 'agent_acme';
export const CHARACTER = 'char_acme';
/** ORG's messaging API key in the seed. */
export const API_KEY = 'psk_matrix_acme';

/**
 * Token strings by kind of caller, relative to ORG: OWNER, MEMBER, VIEWER, a non-member
 * (OWNER of OTHER_ORG only), and two tokens of ORG's OWNER, one limited to ORG and one
 * limited to OTHER_ORG (where that user is OWNER too).
 */
export const TOKENS = {
  owner: 'pst_matrix_owner',
  member: 'pst_matrix_member',
  viewer: 'pst_matrix_viewer',
  outsider: 'pst_matrix_outsider',
  limitedInside: 'pst_matrix_olive_in_acme',
  limitedOutside: 'pst_matrix_olive_in_beta',
} as const;

export type Role = 'OWNER' | 'MEMBER' | 'VIEWER';

/** A kind of caller and the role it has in ORG (null: none); `token` undefined sends no header. */
export interface Caller {
  name: string;
  token: string | undefined;
  /** false: no token or an unknown one (401 on every route that needs a token). */
  authenticated: boolean;
  roleInOrg: Role | null;
  /** The org the token is limited to, or null. */
  limitedTo: string | null;
}

/** The eight kinds of caller of the authorization matrix. */
export const CALLERS: readonly Caller[] = [
  { name: 'no token', token: undefined, authenticated: false, roleInOrg: null, limitedTo: null },
  {
    name: 'unknown token',
    token: 'pst_not_a_token_of_this_emulator',
    authenticated: false,
    roleInOrg: null,
    limitedTo: null,
  },
  {
    name: 'non-member',
    token: TOKENS.outsider,
    authenticated: true,
    roleInOrg: null,
    limitedTo: null,
  },
  {
    name: 'VIEWER',
    token: TOKENS.viewer,
    authenticated: true,
    roleInOrg: 'VIEWER',
    limitedTo: null,
  },
  {
    name: 'MEMBER',
    token: TOKENS.member,
    authenticated: true,
    roleInOrg: 'MEMBER',
    limitedTo: null,
  },
  { name: 'OWNER', token: TOKENS.owner, authenticated: true, roleInOrg: 'OWNER', limitedTo: null },
  {
    name: 'org-limited token inside its org',
    token: TOKENS.limitedInside,
    authenticated: true,
    roleInOrg: 'OWNER',
    limitedTo: ORG,
  },
  // Its user is OWNER of ORG too: only the token's limit keeps it out.
  {
    name: 'org-limited token outside its org',
    token: TOKENS.limitedOutside,
    authenticated: true,
    roleInOrg: null,
    limitedTo: OTHER_ORG,
  },
];

/** A running emulator loaded with MATRIX_SEED, and shortcuts to call it. */
export interface MatrixEmulator {
  emu: Emulator;
  /** A request to the management API (`path` starts with /api or /_emulator). */
  call(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  /** Creates a plugin in `orgId` (default ORG) as its OWNER; fields override sensible defaults. */
  createPlugin(fields?: Record<string, unknown>, orgId?: string): Promise<Record<string, any>>;
  /** Adds an action or external event to a plugin as the OWNER of ORG. */
  createDefinition(
    pluginId: string,
    segment: 'actions' | 'external-events',
    fields: Record<string, unknown>,
  ): Promise<Record<string, any>>;
  /** Verifies a plugin's webhook as the OWNER of ORG; throws unless its webhook answered the challenge. */
  verifyWebhook(pluginId: string): Promise<void>;
  /**
   * Makes a file of ORG (parent: the org) as its OWNER; with `uploaded` its content is PUT and its status reported
   * UPLOADED, else its status stays null (awaiting upload).
   */
  uploadFile(options?: { uploaded?: boolean; isPublic?: boolean }): Promise<Record<string, any>>;
  /** Adds a file to a repository of ORG as its OWNER. */
  addRepositoryFile(repositoryId: string, fileId: string): Promise<void>;
  /** Installs a plugin as the OWNER of ORG (`path` is the entity's instances path); the instance. */
  install(path: string, body: Record<string, unknown>): Promise<Record<string, any>>;
  /** Opens a conversation with a character of ORG on the messaging API (API_KEY); its id. */
  createConversation(characterId: string): Promise<string>;
}

let pluginCount = 0;

/** Starts an in-memory emulator with MATRIX_SEED; close it with `emu.close()`. */
export async function startMatrixEmulator(): Promise<MatrixEmulator> {
  const emu = await startEmulator({ seed: MATRIX_SEED });
  // Admin paths carry the emulator's admin credential, as the CLI and startEmulator() do.
  const send = (method: string, path: string, options?: CallOptions) =>
    call(
      emu.url,
      method,
      path,
      path.startsWith('/_emulator')
        ? { ...options, headers: { ...emu.adminHeaders, ...options?.headers } }
        : options,
    );
  const created = (response: ApiResponse, what: string) => {
    if (response.status !== 201)
      throw new Error(
        `creating ${what} failed: ${response.status} ${JSON.stringify(response.body)}`,
      );
    return response.body.data as Record<string, any>;
  };
  return {
    emu,
    call: send,
    async createPlugin(fields = {}, orgId = ORG) {
      const body = {
        name: `Plugin ${++pluginCount}`,
        description: 'A plugin made by a test',
        type: 'DATA_PROVIDER',
        events: ['PLUGIN_INSTALLED'],
        scopes: ['REPOSITORY_FILES_READ'],
        tags: ['test'],
        isPublic: false,
        webhookUrl: 'http://127.0.0.1:9/webhook',
        inputsSchema: { type: 'object' },
        ...fields,
      };
      const token = orgId === ORG ? TOKENS.owner : TOKENS.outsider;
      return created(await send('POST', `/api/orgs/${orgId}/plugins`, { token, body }), 'a plugin');
    },
    async createDefinition(pluginId, segment, fields) {
      return created(
        await send('POST', `/api/plugins/${pluginId}/${segment}`, {
          token: TOKENS.owner,
          body: fields,
        }),
        segment,
      );
    },
    async verifyWebhook(pluginId) {
      const verification = await send('POST', `/api/plugins/${pluginId}/verify-webhook`, {
        token: TOKENS.owner,
      });
      if (verification.body?.data?.verified !== true)
        throw new Error(
          `verifying plugin ${pluginId} failed: ${verification.status} ${JSON.stringify(verification.body)}`,
        );
    },
    async uploadFile({ uploaded = false, isPublic = false } = {}) {
      const generated = await send('POST', '/api/generate-upload-url', {
        token: TOKENS.owner,
        body: { files: [{ fileName: 'matrix.txt', isPublic }], parentId: ORG, parentType: 'ORG' },
      });
      const { signedUrl, fileRecord } = created(generated, 'an upload URL').files[0];
      if (!uploaded) return fileRecord;
      const put = await request(signedUrl, { method: 'PUT', body: 'from the matrix' });
      await put.body.dump();
      if (put.statusCode >= 300) throw new Error(`uploading a file failed: ${put.statusCode}`);
      const reported = await send('PATCH', '/api/status', {
        token: TOKENS.owner,
        body: { fileId: fileRecord.id, status: 'UPLOADED' },
      });
      if (reported.status !== 200)
        throw new Error(
          `reporting a file UPLOADED failed: ${reported.status} ${JSON.stringify(reported.body)}`,
        );
      return reported.body.data as Record<string, any>;
    },
    async addRepositoryFile(repositoryId, fileId) {
      created(
        await send('POST', `/api/repositories/${repositoryId}/files`, {
          token: TOKENS.owner,
          body: { fileId },
        }),
        'a repository file',
      );
    },
    async install(path, body) {
      return created(await send('POST', path, { token: TOKENS.owner, body }), 'an instance');
    },
    async createConversation(characterId) {
      const conversation = await call(emu.messagingUrl, 'POST', '/conversations', {
        bearer: API_KEY,
        body: { characterId },
      });
      return created(conversation, 'a conversation').id as string;
    },
  };
}

/**
 * Starts a matrix emulator before the tests of the enclosing describe (or file) and closes it
 * after them. Read `.current` inside tests and hooks.
 */
export function useMatrixEmulator(): { current: MatrixEmulator } {
  const holder = {} as { current: MatrixEmulator };
  beforeAll(async () => {
    holder.current = await startMatrixEmulator();
  });
  afterAll(async () => {
    await holder.current?.emu.close();
  });
  return holder;
}
