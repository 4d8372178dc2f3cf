import { describe, expect, it } from 'vitest';
import { outputPath, renderTemplate } from '../../src/project/render.js';
import { completeAnswers, nameFromDir } from '../../src/project/scaffold.js';

describe('renderTemplate', () => {
  it('fills every placeholder, also several on a line and next to other braces', () => {
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
      renderTemplate('"${PORT:-{{port}}}" {{name}}/{{name}}', { port: '3000', name: 'bot' }),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${PORT} is the manifest's shell-style variable, not a template literal
    ).toBe('"${PORT:-3000}" bot/bot');
  });

  it('throws on an unknown placeholder, naming the file', () => {
    expect(() => renderTemplate('{{nmae}}', { name: 'x' }, 'common/README.md')).toThrow(
      'common/README.md: unknown placeholder {{nmae}}',
    );
    // Inherited keys are not values.
    expect(() => renderTemplate('{{constructor}}', {})).toThrow(/unknown placeholder/);
  });

  it('leaves text that only looks like a placeholder alone', () => {
    expect(renderTemplate('{ {name} } {{ name }} {{}}', {})).toBe('{ {name} } {{ name }} {{}}');
  });
});

describe('outputPath', () => {
  it('gives files npm would mangle their real names', () => {
    expect(outputPath('_gitignore')).toBe('.gitignore');
    expect(outputPath('sub/_gitignore')).toBe('sub/.gitignore');
    expect(outputPath('src/_private.ts')).toBe('src/_private.ts');
  });
});

describe('completeAnswers', () => {
  it('adds what the template needs, in canonical order, without duplicates', () => {
    const { answers, added } = completeAnswers({
      name: 'x',
      type: 'EVENT_HANDLER',
      events: ['PLUGIN_UNINSTALLED', 'PLUGIN_INSTALLED', 'PLUGIN_INSTALLED'],
      scopes: [],
      port: 3000,
    });
    expect(answers.events).toEqual([
      'PLUGIN_INSTALLED',
      'PLUGIN_UNINSTALLED',
      'AGENT_MESSAGE_RECEIVED',
    ]);
    expect(answers.scopes).toEqual(['AGENT_MESSAGE_WRITE']);
    expect(added).toEqual(['AGENT_MESSAGE_RECEIVED', 'AGENT_MESSAGE_WRITE']);
  });

  it('refuses unknown events and scopes and bad names and ports as usage errors (exit 2)', () => {
    const base = { name: 'x', type: 'APP' as const, events: [], scopes: [], port: 3000 };
    for (const bad of [
      { events: ['NOPE'] },
      { scopes: ['NOPE'] },
      { name: '-x' },
      { name: 'X' },
      { port: 0 },
      { port: 1.5 },
    ]) {
      expect(() => completeAnswers({ ...base, ...bad })).toThrow(
        expect.objectContaining({ exitCode: 2 }),
      );
    }
  });
});

describe('nameFromDir', () => {
  it('makes an npm-safe name of a folder name', () => {
    expect(nameFromDir('/tmp/My Great Plugin')).toBe('my-great-plugin');
    expect(nameFromDir('/tmp/__x__')).toBe('x__');
    expect(nameFromDir('/tmp/…')).toBe('my-plugin');
  });
});
