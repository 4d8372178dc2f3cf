import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { commands } from '../../src/commands/registry.js';
import { TEMPLATES } from '../../src/project/plugin-types.js';
import { runCli } from '../kit/cli-process.js';

// The README is the front door and docs/ the manual: what they tell a person to type must be
// what the CLI takes, and the project `init` writes must lead the same way (`plugsmith dev`).

const ROOT = resolve(import.meta.dirname, '../..');
const GLOBAL_FLAGS = [
  '--json',
  '--quiet',
  '--no-color',
  '--verbose',
  '--profile',
  '--timeout',
  '--help',
  '--version',
];
/** Text in code that starts with "plugsmith " but is output, not a command line. */
const NOT_COMMANDS = ['plugsmith emulator ready', 'plugsmith is not built'];

/** The code of a markdown text: fenced blocks line by line, and inline code spans. */
function codeOf(markdown: string): string[] {
  const code: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (fenced) code.push(line);
    else for (const m of line.matchAll(/`([^`]+)`/g)) code.push(m[1]!);
  }
  return code;
}

/** Every problem with the plugsmith command lines in `code`: unknown commands, and options the command does not take. */
function problemsIn(where: string, code: string[]): string[] {
  const problems: string[] = [];
  for (const line of code) {
    for (const m of line.matchAll(/(?:^|[\s(])plugsmith((?: [a-z][a-z-]*)+)([^|;&#)]*)/g)) {
      if (NOT_COMMANDS.some((text) => line.includes(text))) continue;
      const words = m[1]!.trim().split(' ');
      const spec = [3, 2, 1]
        .map((n) => commands.find((c) => c.path.join(' ') === words.slice(0, n).join(' ')))
        .find(Boolean);
      const isGroup = commands.some((c) => c.path[0] === words[0]);
      if (!isGroup) {
        problems.push(`${where}: \`plugsmith ${words.join(' ')}\`: no command ${words[0]}`);
        continue;
      }
      if (!spec) {
        // A group alone (`plugsmith plugins …`) prints its help; a word after it must be a subcommand.
        if (
          words.length > 1 &&
          !commands.some((c) => c.path[0] === words[0] && c.path[1] === words[1])
        )
          problems.push(
            `${where}: \`plugsmith ${words.slice(0, 2).join(' ')}\`: no subcommand ${words[1]}`,
          );
        continue;
      }
      const known = new Set([
        ...GLOBAL_FLAGS,
        ...(spec.options ?? []).flatMap((o) => o.flags.match(/--[a-z-]+/g) ?? []),
      ]);
      for (const flag of `${m[1]}${m[2]}`.match(/(?<=\s)--[a-z][a-z-]*/g) ?? []) {
        if (!known.has(flag))
          problems.push(`${where}: \`plugsmith ${spec.path.join(' ')}\` takes no ${flag}`);
      }
    }
  }
  return problems;
}

async function pages(): Promise<Array<[string, string]>> {
  const docs = (await readdir(join(ROOT, 'docs')))
    .filter((f) => f.endsWith('.md') && f !== 'commands.md')
    .map((f) => `docs/${f}`);
  return Promise.all(
    ['README.md', 'templates/common/README.md', 'templates/python/common/README.md', ...docs].map(
      async (f) => [f, await readFile(join(ROOT, f), 'utf8')] as [string, string],
    ),
  );
}

describe('the README and docs/', () => {
  test('the README is a front door: at most 250 lines', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  test("CI runs exactly the README's test command", async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const command = /^(npm ci && npm test)\s+#/m.exec(readme)?.[1];
    expect(command).toBe('npm ci && npm test');
    const ci = await readFile(join(ROOT, '.ci/run'), 'utf8');
    expect(ci.trimEnd().split('\n').at(-1)).toBe(command);
  });

  test('every plugsmith command line they show names a command, and options it takes', async () => {
    const problems = (await pages()).flatMap(([file, text]) => problemsIn(file, codeOf(text)));
    for (const [type, template] of Object.entries(TEMPLATES))
      problems.push(...problemsIn(`installHint of ${type}`, codeOf(template.installHint)));
    expect(problems).toEqual([]);
  });

  test('every relative link leads to a file that exists, and to a heading of it', async () => {
    const all = await pages();
    /** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
    const slug = (heading: string) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-');
    const anchors = new Map<string, Set<string>>();
    for (const [file, text] of [
      ...all,
      ['docs/commands.md', await readFile(join(ROOT, 'docs/commands.md'), 'utf8')] as [
        string,
        string,
      ],
    ]) {
      let fenced = false;
      const set = new Set<string>();
      for (const line of text.split('\n')) {
        if (line.startsWith('```')) fenced = !fenced;
        const heading = fenced ? null : /^#+ (.*)$/.exec(line);
        if (heading) set.add(slug(heading[1]!));
      }
      anchors.set(normalize(file), set);
    }
    const broken: string[] = [];
    for (const [file, text] of all) {
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [path, anchor] = link.split('#');
        const target = path ? normalize(join(dirname(file), path)) : normalize(file);
        if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${link}`);
        else if (anchor && anchors.has(target) && !anchors.get(target)!.has(anchor))
          broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('the checker finds a mistyped command, subcommand and option', () => {
    expect(
      problemsIn('x', [
        'plugsmith tirgger',
        'npx plugsmith plugins verfy plg_1',
        'plugsmith handlers add agent_nova --plgin p',
        'plugsmith plugins …',
      ]),
    ).toEqual([
      'x: `plugsmith tirgger`: no command tirgger',
      'x: `plugsmith plugins verfy`: no subcommand verfy',
      'x: `plugsmith handlers add` takes no --plgin',
    ]);
  });

  test("init's closing lines and the project README lead with `plugsmith dev`", async () => {
    const work = await mkdtemp(join(tmpdir(), 'plugsmith-docs-'));
    onTestFinished(() => rm(work, { recursive: true, force: true }));
    const result = await runCli(['init', join(work, 'my-bot'), '--yes'], {
      env: { XDG_CACHE_HOME: join(work, 'cache') },
    });
    expect(result.code, result.stderr).toBe(0);
    const next = result.stderr.slice(result.stderr.indexOf('Next:'));
    expect(next).toContain('npx plugsmith dev');
    expect(next).toContain('npx plugsmith trigger AGENT_MESSAGE_RECEIVED');
    expect(next).not.toContain('npm run dev');
    expect(problemsIn('init', next.split('\n'))).toEqual([]);
    const readme = await readFile(join(work, 'my-bot/README.md'), 'utf8');
    expect(readme.indexOf('npx plugsmith dev')).toBeGreaterThan(0);
    expect(readme.indexOf('npx plugsmith dev')).toBeLessThan(readme.indexOf('npm run dev'));
    // One story with the main README: the trigger after `dev` needs no login.
    const run = readme.slice(
      readme.indexOf('## Run it against the local emulator'),
      readme.indexOf('## Commands'),
    );
    expect(run).toContain('No login is needed');
    const block = run.slice(run.indexOf('```'), run.indexOf('```', run.indexOf('```') + 3));
    expect(block).toContain('npx plugsmith trigger');
    expect(block).not.toContain('login');
  });
});
