import { Type, type Static } from '@sinclair/typebox';

// The plugin's own output: the lines the process plugsmith starts as the plugin (dev, scenario run --start) writes,
// posted by the CLI to the emulator, kept per plugin, and shown beside the delivery attempts they belong to.

/** The newest lines kept per plugin: at most this many… */
export const OUTPUT_MAX_LINES = 2000;
/** …and at most this many bytes of text (UTF-8, plus 40 per line), whichever bound is reached first. */
export const OUTPUT_MAX_BYTES = 512 * 1024;
/** A longer line is cut here (characters), with a note of how much was cut. */
export const OUTPUT_MAX_LINE_CHARS = 4096;
/** Lines per POST /_emulator/plugins/:pluginId/output. */
export const OUTPUT_MAX_BATCH = 500;

/** One line the plugin wrote, as kept: scrubbed of known secrets, terminal control characters escaped. */
export const PluginOutputLineSchema = Type.Object(
  {
    at: Type.String({
      format: 'date-time',
      description: 'When plugsmith read the line from the plugin process (ISO 8601, ms)',
    }),
    stream: Type.Union([Type.Literal('stdout'), Type.Literal('stderr')]),
    text: Type.String({
      maxLength: 2 * OUTPUT_MAX_LINE_CHARS,
      description:
        'Untrusted text written by the plugin: secrets the emulator knows are replaced by `<prefix>_[redacted]`, control characters escaped as \\uXXXX',
    }),
  },
  { title: 'PluginOutputLine', additionalProperties: false },
);
export type PluginOutputLine = Static<typeof PluginOutputLineSchema>;

/** POST /_emulator/plugins/:pluginId/output: lines the CLI captured, oldest first. */
export const PluginOutputBatchSchema = Type.Object(
  { lines: Type.Array(PluginOutputLineSchema, { minItems: 1, maxItems: OUTPUT_MAX_BATCH }) },
  {
    additionalProperties: false,
    examples: [
      {
        lines: [
          {
            at: '2026-01-01T00:00:00.000Z',
            stream: 'stderr',
            text: 'event evt_1 failed: TypeError: boom',
          },
        ],
      },
    ],
  },
);
export type PluginOutputBatch = Static<typeof PluginOutputBatchSchema>;

/** `data` of POST /_emulator/plugins/:pluginId/output. */
export const PluginOutputAcceptedSchema = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0 }),
    next: Type.Integer({
      minimum: 1,
      description: 'The cursor one past the newest line kept (what `after` starts from)',
    }),
  },
  { title: 'PluginOutputAccepted' },
);
export type PluginOutputAccepted = Static<typeof PluginOutputAcceptedSchema>;

/** A kept line with its number in the plugin's output (the cursor). */
export const NumberedOutputLineSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: 'Its number in the plugin output: the cursor' }),
    ...PluginOutputLineSchema.properties,
  },
  { title: 'NumberedOutputLine' },
);

/** GET /_emulator/plugins/:pluginId/output's query. */
export const PluginOutputQuerySchema = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,15}$',
        description: 'Lines numbered above this cursor (default 0: every line kept)',
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,4}$',
        description: `At most this many lines (1 to ${OUTPUT_MAX_BATCH}, default ${OUTPUT_MAX_BATCH})`,
      }),
    ),
  },
  { additionalProperties: false },
);

/** `data` of GET /_emulator/plugins/:pluginId/output: the plugin's lines after a cursor, oldest first. */
export const PluginOutputPageSchema = Type.Object(
  {
    lines: Type.Array(NumberedOutputLineSchema),
    next: Type.Integer({
      minimum: 0,
      description: 'The cursor to pass as `after` to read on (the last line returned, or `after`)',
    }),
    hasMore: Type.Boolean(),
    dropped: Type.Integer({
      minimum: 0,
      description: 'Lines after the cursor that fell out of the bounded ring before they were read',
    }),
  },
  { title: 'PluginOutputPage' },
);
export type PluginOutputPage = Static<typeof PluginOutputPageSchema>;
