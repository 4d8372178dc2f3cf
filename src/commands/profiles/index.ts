import { defineCommand } from '../types.js';

const run = () => import('./run.js');

/** `plugsmith profiles list|use|remove`. */
export const profileCommands = [
  defineCommand({
    path: ['profiles', 'list'],
    summary: 'List saved profiles (the current one is marked)',
    examples: ['plugsmith profiles list', 'plugsmith profiles list --json'],
    load: () => run().then((m) => ({ default: m.list })),
  }),
  defineCommand({
    path: ['profiles', 'use'],
    summary: 'Make a saved profile the current one',
    examples: ['plugsmith profiles use staging'],
    args: ['<name>'],
    load: () => run().then((m) => ({ default: m.use })),
  }),
  defineCommand({
    path: ['profiles', 'remove'],
    summary: 'Delete a saved profile',
    examples: ['plugsmith profiles remove staging'],
    args: ['<name>'],
    load: () => run().then((m) => ({ default: m.remove })),
  }),
];
