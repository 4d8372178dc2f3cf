import { describe, expect, test } from 'vitest';
import { runCliRecordingLoads } from '../kit/cli-process.js';
import { ORG, useCliEnv } from '../kit/cli-env.js';

// Issue #25: most of a command's start is loading modules. These tests hold the structure that keeps
// it short: help loads the command declarations and commander, none of what the commands run; a
// command that calls the API loads the client and sends with node:http (undici only when a proxy
// variable is set), not the wire contract's schemas (TypeBox) nor what other commands need. How fast
// it is, is the benchmark's question (`npm run bench -- cli`), never a test's.

/** Packages that only some commands need: chat (ink, react), the emulator, the wizards, the contract's schemas, a proxy. */
const HEAVY = [
  'undici',
  '@sinclair/typebox',
  'ink',
  'react',
  'fastify',
  'lowdb',
  'ajv',
  'minio',
  '@inquirer/prompts',
];

/** The packages (from node_modules) among loaded module URLs. */
function packagesIn(loaded: string[]): string[] {
  const names = loaded
    .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

const t = useCliEnv();

describe('what a command loads', () => {
  test("--help, and a group's help, load commander alone from node_modules", async () => {
    for (const args of [['--help'], ['plugins', '--help']]) {
      const run = await runCliRecordingLoads(args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('Usage: plugsmith');
      // The recorder saw the program's own chunks: an empty list would prove nothing.
      expect(
        run.loaded.filter((url) => url.includes('/dist/')).length,
        args.join(' '),
      ).toBeGreaterThan(2);
      expect(packagesIn(run.loaded), args.join(' ')).toEqual(['commander']);
    }
  });

  test('plugins list --json loads none of the heavy packages (undici included) and sends with node:http', async () => {
    const run = await runCliRecordingLoads(['plugins', 'list', '--org', ORG, '--json'], {
      env: { ...t.env, HTTP_PROXY: '', http_proxy: '', HTTPS_PROXY: '', https_proxy: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(run.stdout))).toBe(true);
    expect(packagesIn(run.loaded).filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(run.loaded).toContain('node:http');
    expect(run.loaded).not.toContain('node:v8');
  });

  test('mcp serves (ready to answer initialize) without what its tools run: no client transport, no emulator', async () => {
    // stdin closed at once: the server starts, reads the end of its input and stops; tools load only when called.
    const run = await runCliRecordingLoads(['--emulator', 'http://127.0.0.1:9', 'mcp'], {
      env: { ...t.env, HTTP_PROXY: '', http_proxy: '', HTTPS_PROXY: '', https_proxy: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('serving over stdio');
    // The MCP SDK and zod are bundled into the CLI's chunks (tsup.config.ts); the recorder saw those chunks.
    expect(run.loaded.filter((url) => url.includes('/dist/')).length).toBeGreaterThan(2);
    // The SDK itself imports ajv (its JSON Schema validator): every other heavy package stays out, as do the client's
    // SSE parser and the scenario checker's linear-time regular expressions.
    expect(
      packagesIn(run.loaded).filter(
        (name) =>
          (HEAVY.includes(name) && name !== 'ajv') ||
          ['eventsource-parser', 're2js'].includes(name),
      ),
    ).toEqual([]);
  });
});
