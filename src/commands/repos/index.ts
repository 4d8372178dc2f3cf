import { defineCommand } from '../types.js';
import { listOptions, orgOption, targetOptions, yesOption } from '../list-options.js';

const run = () => import('./run.js');

/** `plugsmith repos create|get|list` and `plugsmith repos files add|list|remove`. */
export const repoCommands = [
  defineCommand({
    path: ['repos', 'create'],
    summary: 'Create a repository in an org',
    examples: [
      'plugsmith repos create --name docs --description "Product docs"',
      'plugsmith repos create --name docs --org org_acme --json | jq -r .id',
    ],
    options: [
      { flags: '--name <name>', description: 'repository name' },
      { flags: '--description <text>', description: 'what it holds' },
      orgOption,
      ...targetOptions,
    ],
    load: () => run().then((m) => ({ default: m.create })),
  }),
  defineCommand({
    path: ['repos', 'get'],
    summary: 'Show a repository (members of its org only)',
    examples: ['plugsmith repos get repo_docs', 'plugsmith repos get repo_docs --json'],
    args: ['<repositoryId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.get })),
  }),
  defineCommand({
    path: ['repos', 'list'],
    summary: 'List the repositories of an org (members only)',
    examples: [
      'plugsmith repos list',
      'plugsmith repos list --org org_acme --search docs --all --json',
    ],
    options: [orgOption, ...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['repos', 'files', 'add'],
    summary: 'Add an uploaded file to a repository (its data providers get REPOSITORY_FILE_ADDED)',
    examples: [
      'plugsmith repos files add repo_docs file_123',
      'plugsmith repos files add repo_docs "$(plugsmith files upload guide.pdf --parent-type ORG --parent-id org_dev --json | jq -r .[0].fileId)"',
    ],
    args: ['<repositoryId>', '<fileId>'],
    options: [...targetOptions],
    load: () => run().then((m) => ({ default: m.addFile })),
  }),
  defineCommand({
    path: ['repos', 'files', 'list'],
    summary: 'List the files of a repository',
    examples: [
      'plugsmith repos files list repo_docs',
      'plugsmith repos files list repo_docs --all --json',
    ],
    args: ['<repositoryId>'],
    options: [...listOptions, ...targetOptions],
    load: () => run().then((m) => ({ default: m.listFiles })),
  }),
  defineCommand({
    path: ['repos', 'files', 'remove'],
    summary: 'Remove a file from a repository (its data providers get REPOSITORY_FILE_REMOVED)',
    examples: ['plugsmith repos files remove repo_docs file_123 --yes'],
    args: ['<repositoryId>', '<fileId>'],
    options: [yesOption, ...targetOptions],
    load: () => run().then((m) => ({ default: m.removeFile })),
  }),
];
