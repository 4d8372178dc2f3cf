import { defineCommand, integerOption } from '../types.js';
import { listOptions, targetOptions } from '../list-options.js';
import { PARENT_TYPES } from '#contract/enum-values';

const run = () => import('./run.js');

const parentOptions = [
  {
    flags: '--parent-type <type>',
    description: 'owning entity type: ORG, CHARACTER, KNOWLEDGE or AGENT',
    choices: PARENT_TYPES,
  },
  { flags: '--parent-id <id>', description: 'owning entity id' },
] as const;

/** `plugsmith files upload|list|url|status`: the upload interface. */
export const fileCommands = [
  defineCommand({
    path: ['files', 'upload'],
    summary:
      'Upload files (signed URLs in batches of 10, streamed, status set per file); exit 0 only if all succeed',
    examples: [
      'plugsmith files upload ./docs/*.pdf --parent-type ORG --parent-id org_dev',
      'plugsmith files upload report.csv --parent-type AGENT --parent-id agent_nova --folder reports/2026 --public --json',
    ],
    args: ['<paths...>'],
    options: [
      ...parentOptions,
      {
        flags: '--folder <folder>',
        description: 'folder for the files (at most 100 characters, "/"-separated)',
      },
      {
        flags: '--public',
        description: 'make the files public (direct URLs instead of signed ones)',
      },
      {
        flags: '--concurrency <n>',
        description: 'files sent at once',
        default: 4,
        parse: integerOption('--concurrency', 1, 10),
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.upload })),
  }),
  defineCommand({
    path: ['files', 'list'],
    summary:
      "List files: those you can see, or one parent entity's (--parent-type and --parent-id together)",
    examples: [
      'plugsmith files list --parent-type ORG --parent-id org_dev',
      'plugsmith files list --parent-type AGENT --parent-id agent_nova --filter status=FAILED --all --json',
    ],
    options: [...parentOptions, ...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['files', 'url'],
    summary: 'Print a URL to download a file (signed for a private file, direct for a public one)',
    examples: [
      'plugsmith files url file_123',
      'curl -o guide.pdf "$(plugsmith files url file_123 --expires-in 300)"',
    ],
    args: ['<fileId>'],
    options: [
      {
        flags: '--expires-in <seconds>',
        description: 'lifetime of a signed URL (default 3600)',
        parse: integerOption('--expires-in', 1),
      },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.url })),
  }),
  defineCommand({
    path: ['files', 'status'],
    summary: 'Set a file’s status (UPLOADED, FAILED with --error, PROCESSING, COMPLETED)',
    examples: [
      'plugsmith files status file_123 COMPLETED',
      'plugsmith files status file_123 FAILED --error "virus scan failed"',
    ],
    args: ['<fileId>', '<status>'],
    options: [
      { flags: '--error <message>', description: 'the reason (required with FAILED)' },
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.status })),
  }),
];
