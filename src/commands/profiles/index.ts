import { defineCommand } from '../types.js';

/** `plugsmith profiles list|use|remove`. */
export const profileCommands = [
  defineCommand({
    path: ['profiles', 'list'],
    summary: 'List saved profiles (the current one is marked)',
    examples: ['plugsmith profiles list', 'plugsmith profiles list --json'],
    load: () => import('./list.js'),
  }),
  defineCommand({
    path: ['profiles', 'use'],
    summary: 'Make a saved profile the current one',
    examples: ['plugsmith profiles use staging'],
    args: ['<name>'],
    load: () => import('./use.js'),
  }),
  defineCommand({
    path: ['profiles', 'remove'],
    summary: 'Delete a saved profile',
    examples: ['plugsmith profiles remove staging'],
    args: ['<name>'],
    load: () => import('./remove.js'),
  }),
];
