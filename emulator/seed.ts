import { readFile } from 'node:fs/promises';
import { linearRegExpProblem } from './validation/linear-regex.js';
import { lazyValidator } from './validation/json-schema.js';
import { newSecret } from './store/ids.js';
import { SeedSchema, type Seed, type Workspace } from '#contract';
import { SECRET_PREFIX } from './auth/credentials.js';

export type { Seed } from '#contract';

/** The credentials to print and to write to the state file. */
export type Credentials = Pick<Workspace, 'token' | 'apiKey' | 'orgId'>;

const seedValidator = lazyValidator(SeedSchema, { allErrors: true });

/** Refuses a seed list in which two entries share `field` (a secret's value is not repeated in the message). */
function unique<T>(items: T[], list: string, field: keyof T & string, what: string): void {
  const seen = new Map<unknown, number>();
  items.forEach((item, i) => {
    const value = item[field];
    const first = seen.get(value);
    if (first !== undefined) {
      const shown = what === 'token' || what === 'API key' ? '' : ` ${String(value)}`;
      throw new SeedError(
        `${list}[${i}].${field}`,
        `duplicate ${what}${shown} (the same as ${list}[${first}].${field})`,
      );
    }
    seen.set(value, i);
  });
}

/** A seed that does not fit the format, with the path of the first bad field. */
export class SeedError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

function jsonPath(instancePath: string): string {
  return (
    instancePath
      .split('/')
      .slice(1)
      .reduce(
        (out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part),
        '',
      ) || '(root)'
  );
}

/** Checks a seed's shape and references; throws SeedError naming the bad field's path. */
export function validateSeed(seed: unknown): Seed {
  const validateShape = seedValidator();
  if (!validateShape(seed)) {
    const e = validateShape.errors![0];
    const params = e.params as Record<string, unknown>;
    let path = jsonPath(e.instancePath);
    let problem = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      path = `${path === '(root)' ? '' : path + '.'}${params.additionalProperty}`;
      problem = 'is not a field of the seed format';
    } else if (e.keyword === 'required') {
      path = `${path === '(root)' ? '' : path + '.'}${params.missingProperty}`;
      problem = 'is required';
    } else if (e.keyword === 'enum')
      problem = `must be one of ${(params.allowedValues as string[]).join(', ')}`;
    throw new SeedError(path, problem);
  }
  const s = seed as Seed;
  unique(s.users, 'users', 'id', 'user id');
  unique(s.orgs, 'orgs', 'id', 'org id');
  const users = new Set(s.users.map((u) => u.id));
  const orgs = new Set(s.orgs.map((o) => o.id));
  s.orgs.forEach((o, i) => {
    const listed = new Set<string>();
    o.members.forEach((m, j) => {
      if (!users.has(m.userId))
        throw new SeedError(`orgs[${i}].members[${j}].userId`, `no user ${m.userId} in users`);
      if (listed.has(m.userId))
        throw new SeedError(
          `orgs[${i}].members[${j}].userId`,
          `user ${m.userId} is listed twice in org ${o.id}: give each member one role`,
        );
      listed.add(m.userId);
    });
  });
  unique(s.tokens, 'tokens', 'token', 'token');
  unique(s.apiKeys ?? [], 'apiKeys', 'key', 'API key');
  unique(s.agents ?? [], 'agents', 'id', 'agent id');
  unique(s.characters ?? [], 'characters', 'id', 'character id');
  unique(s.repositories ?? [], 'repositories', 'id', 'repository id');
  const member = (orgId: string, userId: string) =>
    s.orgs.find((o) => o.id === orgId)?.members.some((m) => m.userId === userId);
  s.tokens.forEach((t, i) => {
    if (!users.has(t.userId))
      throw new SeedError(`tokens[${i}].userId`, `no user ${t.userId} in users`);
    if (t.orgId != null) {
      if (!orgs.has(t.orgId))
        throw new SeedError(`tokens[${i}].orgId`, `no org ${t.orgId} in orgs`);
      if (!member(t.orgId, t.userId))
        throw new SeedError(`tokens[${i}].orgId`, `user ${t.userId} is not a member of ${t.orgId}`);
    }
  });
  const owned = {
    agents: s.agents,
    characters: s.characters,
    apiKeys: s.apiKeys,
    repositories: s.repositories,
  };
  for (const [list, items] of Object.entries(owned)) {
    (items ?? []).forEach((item, i) => {
      if (!orgs.has(item.orgId))
        throw new SeedError(`${list}[${i}].orgId`, `no org ${item.orgId} in orgs`);
    });
  }
  const agents = new Map((s.agents ?? []).map((a) => [a.id, a.orgId]));
  (s.characters ?? []).forEach((c, i) => {
    if (c.agentId != null) {
      if (!agents.has(c.agentId))
        throw new SeedError(`characters[${i}].agentId`, `no agent ${c.agentId} in agents`);
      if (agents.get(c.agentId) !== c.orgId)
        throw new SeedError(
          `characters[${i}].agentId`,
          `agent ${c.agentId} belongs to another org`,
        );
    }
    (c.script ?? []).forEach((line, j) => {
      const problem = linearRegExpProblem(line.match, 'i');
      if (problem !== null)
        throw new SeedError(
          `characters[${i}].script[${j}].match`,
          `is not a valid regular expression (${problem})`,
        );
    });
  });
  return s;
}

/** Reads and validates a seed file; errors name the file and the field. */
export async function readSeedFile(path: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SeedError(
      path,
      `cannot read the seed file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SeedError(path, `is not valid JSON (${(error as Error).message})`);
  }
  try {
    return validateSeed(json);
  } catch (error) {
    if (error instanceof SeedError)
      throw new SeedError(`${path}: ${error.path}`, error.message.slice(error.path.length + 2));
    throw error;
  }
}

/** The default workspace: a user owning an org, an agent, a scripted character, a repository, and fresh secrets. */
export function defaultSeed(): Seed {
  return {
    users: [{ id: 'user_dev', name: 'Developer' }],
    orgs: [{ id: 'org_dev', name: 'Dev Org', members: [{ userId: 'user_dev', role: 'OWNER' }] }],
    tokens: [
      {
        userId: 'user_dev',
        token: newSecret(SECRET_PREFIX.user),
        orgId: null,
        name: 'emulator default',
      },
    ],
    agents: [{ id: 'agent_nova', orgId: 'org_dev', name: 'Nova agent' }],
    characters: [
      {
        id: 'char_nova',
        orgId: 'org_dev',
        agentId: 'agent_nova',
        name: 'Nova',
        persona: 'Nova is a friendly, concise assistant.',
        script: [
          {
            match: '\\b(hello|hi|hey)\\b',
            reply: "Hi there! I'm Nova, a scripted character in the plugsmith emulator.",
          },
          {
            match: 'help',
            reply:
              'Ask me anything: I answer from my script, and say "Tell me more." to everything else.',
          },
        ],
        fallbackReply: 'Tell me more.',
      },
    ],
    apiKeys: [{ key: newSecret(SECRET_PREFIX.apiKey), orgId: 'org_dev', name: 'emulator default' }],
    repositories: [
      {
        id: 'repo_docs',
        orgId: 'org_dev',
        name: 'Docs',
        description: 'A repository to attach data providers to',
      },
    ],
  };
}

/** The credentials a seed gives: its first token and API key, and the org of that token. */
export function seedCredentials(seed: Seed): Credentials {
  const firstToken = seed.tokens[0];
  return {
    token: firstToken?.token ?? null,
    apiKey: seed.apiKeys?.[0]?.key ?? null,
    orgId:
      firstToken?.orgId ??
      seed.orgs.find((o) => o.members.some((m) => m.userId === firstToken?.userId))?.id ??
      null,
  };
}
