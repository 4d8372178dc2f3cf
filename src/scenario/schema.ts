import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EVENT_KINDS } from '#contract/enum-values';

// The scenario file's format, in TypeBox (the contract's style). `scenario.schema.json` at the
// package root is generated from it (`npm run docs`; test/scenario/schema-file.test.ts fails while
// it is stale), and the reference in docs/scenarios.md too. Validation (validate.ts) walks these
// schemas itself, to give every problem with its JSON path and a fix.

const Text = (description: string) => Type.String({ minLength: 1, description });

const WithinMs = Type.Integer({
  minimum: 1,
  maximum: 600_000,
  default: 5000,
  description: 'How long to wait for it, in milliseconds (default 5000)',
});

/** The `conversation` step. */
export const ConversationStepSchema = Type.Object(
  {
    character: Type.Optional(
      Text('The character to talk to (default: the first character of `agent`)'),
    ),
    agent: Type.Optional(
      Text(
        'The agent whose first character is talked to (default: the agent the plugin is installed on)',
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'A user opens a conversation with a character (messaging API)',
  },
);

/** The `message` step. */
export const MessageStepSchema = Type.Object(
  {
    conversation: Text('The conversation, usually a reference: "${conv.id}"'),
    text: Text('What the user writes'),
  },
  {
    additionalProperties: false,
    description:
      'A user sends a message in a conversation; an EVENT_HANDLER is told (AGENT_MESSAGE_RECEIVED)',
  },
);

/** The `addFile` step. */
export const AddFileStepSchema = Type.Object(
  {
    repository: Text('The repository the file is added to, e.g. repo_docs'),
    name: Text('The file name, e.g. guide.md'),
    content: Type.Optional(Type.String({ description: 'The file content (text)' })),
    path: Type.Optional(
      Text(
        "A file to upload instead of `content`, relative to the scenario file's folder: a regular file inside the project (links followed) and not under its .plugsmith/ (the emulator's store and secrets), at most 100,000,000 bytes",
      ),
    ),
    contentType: Type.Optional(
      Text('The content type (default: from the name, text/markdown for .md)'),
    ),
  },
  {
    additionalProperties: false,
    description:
      'A file is uploaded and added to a repository; a DATA_PROVIDER is told (REPOSITORY_FILE_ADDED)',
  },
);

/** The `removeFile` step. */
export const RemoveFileStepSchema = Type.Object(
  {
    repository: Text('The repository'),
    file: Text('The file id, usually a reference: "${doc.id}"'),
  },
  {
    additionalProperties: false,
    description: 'A file is removed from a repository (REPOSITORY_FILE_REMOVED)',
  },
);

/** The `install` step. */
export const InstallStepSchema = Type.Object(
  {
    on: Type.Union([Type.Literal('agent'), Type.Literal('repository'), Type.Literal('app')], {
      description: 'What kind of entity the plugin is installed on',
    }),
    id: Text('The agent, repository or app id, e.g. agent_nova'),
    name: Type.Optional(Text('The instance name (default: "scenario")')),
    inputs: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "The install's inputs" }),
    ),
    events: Type.Optional(
      Type.Array(Type.String(), {
        description: "The events the installation subscribes to (default: the plugin's events)",
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String(), {
        description: "The scopes the installation grants (default: the plugin's scopes)",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'The plugin is installed (PLUGIN_INSTALLED)',
  },
);

/** The `uninstall` step. */
export const UninstallStepSchema = Type.Object(
  { instance: Text('The instance, usually a reference: "${inst.id}"') },
  {
    additionalProperties: false,
    description: 'The plugin is uninstalled (PLUGIN_UNINSTALLED)',
  },
);

/** The `trigger` step. */
export const TriggerStepSchema = Type.Object(
  {
    event: Type.Union(
      EVENT_KINDS.map((kind) => Type.Literal(kind)),
      { description: 'The event to send', examples: ['AGENT_MESSAGE_RECEIVED'] },
    ),
    payload: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Fields of the event's data to set over the sample payload; a field the event does not have is an error",
      }),
    ),
    instance: Type.Optional(Text("The instance (default: the plugin's newest that fits)")),
  },
  {
    additionalProperties: false,
    description:
      'Any event is sent to the plugin: through the platform, or with `payload` as given (like `plugsmith trigger`)',
  },
);

/** The `rotateSecret` step. */
export const RotateSecretStepSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    description: "The plugin's webhook secret is rotated (the old one stays valid for its grace)",
  },
);

/** The `faults` step. */
export const FaultsStepSchema = Type.Object(
  {
    profile: Text('A fault profile (docs/fault-injection.md), or "off"'),
    seed: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], {
        description: 'The seed the faults are drawn from (default: a random one)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "The emulator's fault profile changes (until the scenario ends)",
  },
);

/** The `request` step. */
export const RequestStepSchema = Type.Object(
  {
    method: Type.Union(
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => Type.Literal(m)),
      { description: 'The HTTP method' },
    ),
    path: Text(
      'The path, from "/": "/api/plugins/${plug.data.id}" (no scheme or host, no "." or ".." segment, the query in `query`; nothing under /_emulator, the emulator admin API)',
    ),
    api: Type.Optional(
      Type.Union([Type.Literal('management'), Type.Literal('messaging')], {
        description:
          "Which API: management (default, with the user's token) or messaging (with the API key)",
      }),
    ),
    body: Type.Optional(Type.Unknown({ description: 'The JSON body' })),
    query: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Union([
          Type.String(),
          Type.Number(),
          Type.Boolean(),
          Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
        ]),
        {
          description:
            'Query parameters, e.g. { "@limit": 5, "tags": ["ai", "files"] } (a list repeats the name)',
        },
      ),
    ),
    status: Type.Optional(
      Type.Union([Type.Literal('2xx'), Type.Integer({ minimum: 100, maximum: 599 })], {
        description:
          'The status the platform must answer: "2xx" (default) or one status, e.g. 404; another fails the step',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "One request to any path of the platform's APIs; its answer is the step's result (`${id.data.id}`, `${id.data.0.name}`, `${id.meta.pagination.total}`: paths below data and meta)",
  },
);

/** The `wait` step. */
export const WaitStepSchema = Type.Object(
  {
    ms: Type.Integer({
      minimum: 0,
      maximum: 600_000,
      description: 'How long nothing happens, in milliseconds',
    }),
  },
  { additionalProperties: false, description: 'Nothing happens for a while' },
);

/** How many steps a scenario may have: a long recorded session has a few hundred. */
export const MAX_STEPS = 10_000;

/** Each step kind: what it does, and the fields of its result that `${id.field}` can name. */
export const STEP_KINDS = {
  conversation: { schema: ConversationStepSchema, results: ['id', 'characterId', 'agentId'] },
  message: { schema: MessageStepSchema, results: ['id', 'conversationId'] },
  addFile: { schema: AddFileStepSchema, results: ['id', 'name', 'repositoryId'] },
  removeFile: { schema: RemoveFileStepSchema, results: ['id'] },
  install: { schema: InstallStepSchema, results: ['id', 'entityId'] },
  uninstall: { schema: UninstallStepSchema, results: ['id'] },
  trigger: { schema: TriggerStepSchema, results: ['deliveryId', 'eventId', 'conversationId'] },
  rotateSecret: { schema: RotateSecretStepSchema, results: [] },
  faults: { schema: FaultsStepSchema, results: [] },
  request: { schema: RequestStepSchema, results: ['status', 'data', 'meta', 'error'] },
  wait: { schema: WaitStepSchema, results: [] },
} satisfies Record<string, { schema: TSchema; results: string[] }>;

export type StepKind = keyof typeof STEP_KINDS;
export const STEP_KIND_NAMES = Object.keys(STEP_KINDS) as StepKind[];

/** The `reply` expectation. */
export const ReplyExpectationSchema = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'The reply is exactly this text' })),
    pattern: Type.Optional(
      Text(
        'The reply matches this regular expression, anywhere in it (RE2 syntax: linear time; no backreferences or lookaround)',
      ),
    ),
    withinMs: Type.Optional(WithinMs),
  },
  {
    additionalProperties: false,
    description:
      "The plugin answers the step's message in its conversation (text or pattern; neither: any reply)",
  },
);

/** The `replies` expectation. */
export const RepliesExpectationSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'Exactly this many replies' }),
    withinMs: Type.Optional(WithinMs),
  },
  {
    additionalProperties: false,
    description:
      "The plugin answers the step's message exactly this many times (counted once the step's deliveries are settled)",
  },
);

/** The `file` expectation. */
export const FileExpectationSchema = Type.Object(
  {
    written: Type.Optional(
      Text(
        "A file of this name is added to the repository by the plugin (not by the scenario's addFile)",
      ),
    ),
    updated: Type.Optional(Text('A file of this name in the repository changes')),
    repository: Text('The repository'),
    withinMs: Type.Optional(WithinMs),
  },
  {
    additionalProperties: false,
    description: 'The plugin writes (or updates) a file in a repository',
  },
);

/** The `delivery` expectation. */
export const DeliveryExpectationSchema = Type.Object(
  {
    type: Type.Optional(
      Type.Union(
        EVENT_KINDS.map((kind) => Type.Literal(kind)),
        { description: "Only the step's deliveries of this event" },
      ),
    ),
    status: Type.Optional(
      Type.Union(
        [Type.Literal('2xx'), Type.Integer({ minimum: 100, maximum: 599, examples: [200] })],
        {
          description: 'What the plugin answers: "2xx" (default) or a status',
        },
      ),
    ),
    withinMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: "The plugin's first answer takes at most this many milliseconds",
      }),
    ),
    retried: Type.Optional(
      Type.Boolean({
        description:
          'false: the first attempt is the answer (no retry). true: the plugin refused an answer (not a 2xx, or none) and was tried again; status then judges the answer after the retries',
      }),
    ),
    count: Type.Optional(Type.Integer({ minimum: 0, description: 'Exactly this many deliveries' })),
  },
  {
    additionalProperties: false,
    description: 'How the plugin answers the deliveries the step causes',
  },
);

/** The `none` expectation. */
export const NoneExpectationSchema = Type.Object(
  {
    reply: Type.Literal(true, { description: 'No reply to the step message' }),
    withinMs: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 600_000,
        default: 5000,
        description: 'How long no reply must come, in milliseconds (default 5000)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Absence: the plugin writes no reply to the step within the window',
  },
);

/** Each expectation kind: what it checks about what the plugin did because of its step. */
export const EXPECTATION_KINDS = {
  reply: ReplyExpectationSchema,
  replies: RepliesExpectationSchema,
  file: FileExpectationSchema,
  delivery: DeliveryExpectationSchema,
  none: NoneExpectationSchema,
} satisfies Record<string, TSchema>;

export type ExpectationKind = keyof typeof EXPECTATION_KINDS;
export const EXPECTATION_KIND_NAMES = Object.keys(EXPECTATION_KINDS) as ExpectationKind[];

const StepId = Type.String({
  pattern: '^[A-Za-z][A-Za-z0-9_]*$',
  description: 'Names the step, for references to its result: "${conv.id}"',
});

/** One expectation: one of the kinds. */
const ExpectationSchema = Type.Union(
  EXPECTATION_KIND_NAMES.map((kind) =>
    Type.Object({ [kind]: EXPECTATION_KINDS[kind] }, { additionalProperties: false }),
  ),
);

/** One step: one of the kinds, an optional id and expectations. */
const StepSchema = Type.Union(
  STEP_KIND_NAMES.map((kind) =>
    Type.Object(
      {
        id: Type.Optional(StepId),
        [kind]: STEP_KINDS[kind].schema,
        expect: Type.Optional(Type.Array(ExpectationSchema)),
      },
      { additionalProperties: false },
    ),
  ),
);

/** The whole file. */
export const ScenarioSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({
      minLength: 1,
      description: 'Names the scenario in reports and deliveries',
    }),
    description: Type.Optional(Type.String()),
    plugin: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The plugin id (default: the project's manifest plugin)",
      }),
    ),
    env: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), {
        description:
          'The environment variables "${env.NAME}" may expand; any other is a problem. Each must also be allowed by the person running the file (`scenario run --allow-env NAME` or PLUGSMITH_SCENARIO_ENV), or nothing runs. Their values are sent as the steps say, and never shown: every output has "${env.NAME}" in their place',
      }),
    ),
    steps: Type.Array(StepSchema, { minItems: 1, maxItems: MAX_STEPS }),
  },
  {
    additionalProperties: false,
    title: 'plugsmith scenario',
    description:
      'A journey through the platform and what the plugin must do at each step (docs/scenarios.md). In its strings, "${conv.id}" is a field of an earlier step\'s result, "${env.NAME}" a declared environment variable, "${run.id}" and "${unique}" random values, and "$${" a literal "${"',
  },
);

/** A step's body as its kind's schema types it: `StepBody<'message'>` is `{ conversation: string; text: string }`. */
export type StepBody<K extends StepKind> = Static<(typeof STEP_KINDS)[K]['schema']>;

/** An expectation's body as its kind's schema types it. */
export type ExpectationBody<K extends ExpectationKind> = Static<(typeof EXPECTATION_KINDS)[K]>;

/** A step of one kind, as the runner reads it (validated first). */
export interface StepOf<K extends StepKind> {
  id?: string;
  kind: K;
  body: StepBody<K>;
  expect: Expectation[];
}

/** An expectation of one kind. */
export interface ExpectationOf<K extends ExpectationKind> {
  kind: K;
  body: ExpectationBody<K>;
}

type StepOfEachKind = { [K in StepKind]: StepOf<K> };
type ExpectationOfEachKind = { [K in ExpectationKind]: ExpectationOf<K> };

/** A step of any kind: `switch (step.kind)` narrows its body to that kind's. */
export type Step = StepOfEachKind[StepKind];

/** An expectation of any kind: `switch (expectation.kind)` narrows its body. */
export type Expectation = ExpectationOfEachKind[ExpectationKind];

/** Whether `expectation` is of `kind` (its body then typed as that kind's). */
export function isExpectationOf<K extends ExpectationKind>(
  expectation: Expectation,
  kind: K,
): expectation is ExpectationOfEachKind[K] {
  return expectation.kind === kind;
}

/** A step of `kind` when `body` fits that kind's schema; null when it does not (validation says why). */
export function typedStep<K extends StepKind>(
  kind: K,
  body: unknown,
  rest: { id?: string; expect: Expectation[] },
): StepOfEachKind[K] | null {
  const schema: (typeof STEP_KINDS)[K]['schema'] = STEP_KINDS[kind].schema;
  if (!Value.Check(schema, body)) return null;
  const step: StepOf<K> = { ...rest, kind, body };
  // TypeScript does not tie a generic kind to the member of the union it picks (microsoft/TypeScript#30581).
  return step as StepOfEachKind[K];
}

/** An expectation of `kind` when `body` fits that kind's schema; null when it does not. */
export function typedExpectation<K extends ExpectationKind>(
  kind: K,
  body: unknown,
): ExpectationOfEachKind[K] | null {
  const schema: (typeof EXPECTATION_KINDS)[K] = EXPECTATION_KINDS[kind];
  if (!Value.Check(schema, body)) return null;
  const expectation: ExpectationOf<K> = { kind, body };
  // As in typedStep: the check above tied the body to the kind; TypeScript cannot follow it.
  return expectation as ExpectationOfEachKind[K];
}

export interface Scenario {
  name: string;
  description?: string;
  plugin?: string;
  /** The environment variables `${env.NAME}` may expand (declared by the file). */
  env?: string[];
  steps: Step[];
  /** Where it was read from, when a file. */
  file?: string;
}

/** The file as written (validated). */
export type ScenarioFile = Static<typeof ScenarioSchema>;

/** The JSON Schema document written to scenario.schema.json. */
export function scenarioJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(ScenarioSchema)) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://plugsmith.dev/scenario.schema.json',
    ...plain,
  };
}
