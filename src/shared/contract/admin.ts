import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable } from './schema.js';

// The emulator's own admin API under /_emulator (not the platform's): fault injection, export, import and reset of the store.

/** A parsed fault profile: for each kind, how often (0..1) and, for delay and reorder, how long. */
export const FaultProfileSchema = Type.Object(
  {
    duplicate: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'Probability that a delivered event is sent once more (same webhook-id) right after its answer',
    }),
    delay: Type.Object(
      {
        probability: Type.Number({ minimum: 0, maximum: 1 }),
        minMs: Type.Number({ minimum: 0 }),
        maxMs: Type.Number({ minimum: 0 }),
      },
      {
        description:
          'Probability that an attempt waits before it is sent, for a time drawn in [minMs, maxMs]',
      },
    ),
    reorder: Type.Object(
      {
        probability: Type.Number({ minimum: 0, maximum: 1 }),
        windowMs: Type.Number({ minimum: 0 }),
      },
      {
        description:
          "Probability that a delivery is held back until the plugin's next delivery was answered (at most windowMs)",
      },
    ),
    drop: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'Probability that an attempt is not sent at all (logged as lost), so the retry path runs',
    }),
    timeoutAfterAnswer: Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        'Probability that an attempt the plugin answered 2xx counts as timed out, so it is sent again',
    }),
  },
  { title: 'FaultProfile' },
);
export type FaultProfile = Static<typeof FaultProfileSchema>;

/** `data` of GET|PUT /_emulator/faults: the profile and seed in force. */
export const FaultSettingsSchema = Type.Object(
  {
    on: Type.Boolean(),
    profile: Type.String({
      description: "The profile in the syntax --faults reads ('off' when no fault is on)",
    }),
    rules: FaultProfileSchema,
    seed: Type.String({
      description:
        'The seed the faults are drawn from: the same seed and the same events meet the same faults',
    }),
  },
  { title: 'FaultSettings' },
);
export type FaultSettings = Static<typeof FaultSettingsSchema>;

/** PUT /_emulator/faults. */
export const FaultsUpdateSchema = Type.Object(
  {
    profile: Type.String({ maxLength: 1000, description: '"off" turns every fault off' }),
    seed: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0 })]),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ profile: 'duplicate=0.2,delay=100-500ms,drop=0.1', seed: 'ci-1' }],
  },
);

/** `data` of GET|PUT /_emulator/scenario: the scenario whose name new deliveries carry (`scenario` on the delivery record). */
export const ScenarioTagSchema = Type.Object(
  {
    name: Nullable(
      Type.String({
        description:
          'The running scenario: deliveries emitted while it is set carry it as `scenario`',
      }),
    ),
  },
  { title: 'ScenarioTag' },
);
export type ScenarioTag = Static<typeof ScenarioTagSchema>;

/** PUT /_emulator/scenario: null ends the tagging. */
export const ScenarioTagUpdateSchema = Type.Object(
  { name: Nullable(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false, examples: [{ name: 'a chat is answered once' }] },
);

/** `data` of GET|PUT|DELETE /_emulator/plugins/:pluginId/hold: whether the plugin's deliveries are held, until when. */
export const DeliveryHoldSchema = Type.Object(
  {
    pluginId: Id,
    held: Type.Boolean(),
    since: Nullable(
      Type.String({ description: 'When the hold began (renewals keep it); null when not held' }),
    ),
    expiresAt: Nullable(
      Type.String({
        description:
          'When the hold ends by itself unless renewed (PUT again) or released (DELETE); null when not held',
      }),
    ),
    heldDeliveries: Type.Integer({
      description: 'Deliveries of the plugin waiting for the hold to end (marked `heldSince`)',
    }),
    released: Type.Optional(
      Type.Integer({ description: 'DELETE only: how many held deliveries went out on release' }),
    ),
  },
  { title: 'DeliveryHold' },
);
export type DeliveryHold = Static<typeof DeliveryHoldSchema>;

/** PUT /_emulator/plugins/:pluginId/hold: how long the hold lasts unless renewed (default 60 s, at most 10 min). */
export const DeliveryHoldUpdateSchema = Type.Object(
  {
    forMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
  },
  { additionalProperties: false, examples: [{ forMs: 60_000 }] },
);

/** The `format` field of an export file, so an import can tell it from any other JSON. */
export const EXPORT_FORMAT = 'plugsmith-emulator-export';
export const EXPORT_VERSION = 1;

/** One stored record of an export (secrets only as hashes): open on purpose, the import checks each collection's records itself. */
export const StoredRecordSchema = Type.Unsafe<{ id: string; [field: string]: unknown }>(
  Type.Object({ id: Id }, { additionalProperties: true, title: 'StoredRecord' }),
);
export type StoredRecord = Static<typeof StoredRecordSchema>;

/** GET /_emulator/export's `data`, and POST /_emulator/import's body: every record of every collection. */
export const EmulatorExportSchema = Type.Object(
  {
    format: Type.Literal(EXPORT_FORMAT),
    version: Type.Literal(EXPORT_VERSION),
    exportedAt: Type.Optional(Type.String({ description: 'When the export was made (ISO 8601)' })),
    collections: Type.Unsafe<Record<string, StoredRecord[]>>({
      type: 'object',
      description: 'Collection name -> its records (plugins, instances, tokens, deliveries…)',
      additionalProperties: { type: 'array', items: StoredRecordSchema },
    }),
  },
  {
    title: 'EmulatorExport',
    examples: [
      {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exportedAt: '2026-01-01T00:00:00.000Z',
        collections: { plugins: [{ id: 'plg_123', name: 'Weather' }] },
      },
    ],
  },
);
export type EmulatorExport = Static<typeof EmulatorExportSchema>;

/** `data` of POST /_emulator/import: how many records each collection now holds. */
export const ImportResultSchema = Type.Object({
  imported: Type.Literal(true),
  counts: Type.Unsafe<Record<string, number>>({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0 },
  }),
});
export type ImportResult = Static<typeof ImportResultSchema>;

/** `data` of POST /_emulator/reset. */
export const ResetResultSchema = Type.Object({ reset: Type.Literal(true) });
export type ResetResult = Static<typeof ResetResultSchema>;
