import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Emulator, Seed } from '../../emulator/index.js';
import { api, emulator } from '../kit/index.js';
import { expectNoConsoleErrors, newContext, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';

// An empty list is where a newcomer starts: each one says how records get there, naming the
// command (or the page) that makes the first one.

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});

/** The element holding `sentence` (the innermost one), and its whole text. */
async function said(scope: Page | Locator, sentence: string): Promise<string> {
  const element = scope.getByText(sentence, { exact: false }).last();
  await element.waitFor();
  return (await element.textContent()) ?? '';
}

async function go(page: Page, view: string): Promise<void> {
  await page.goto(new URL(`#/${view}`, page.url()).href);
}

async function noSidewaysOverflow(page: Page, what: string): Promise<void> {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.scrollingElement.scrollWidth, window.innerWidth]',
  )) as [number, number];
  expect(scrollWidth, `${what} is ${scrollWidth} px wide`).toBeLessThanOrEqual(innerWidth);
}

describe('dashboard: every empty list names the next step', () => {
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    it(`a fresh emulator's empty lists, at ${width} px`, async () => {
      const browser = (await newContext()).browser()!;
      const context = await browser.newContext({ viewport: { width, height } });
      onTestFinished(() => context.close());
      const { page, consoleErrors } = await openDashboard(emu, undefined, context);
      const shot = async (name: string) => {
        await noSidewaysOverflow(page, `${name} at ${width} px`);
        await screenshot(page, `empty-${width}-${name}`, { fullPage: true });
      };

      await go(page, 'deliveries');
      const deliveries = await said(page, 'No deliveries yet');
      expect(deliveries).toContain('plugsmith trigger AGENT_MESSAGE_RECEIVED --plugin <pluginId>');
      expect(
        await page.getByRole('link', { name: 'Trigger', exact: true }).last().getAttribute('href'),
      ).toBe('#/trigger');
      await shot('deliveries');

      await go(page, 'data/plugins');
      const plugins = await said(page.getByRole('region', { name: 'Plugins' }), 'No plugins yet');
      expect(plugins).toContain('plugsmith plugins create --name Weather --type EVENT_HANDLER');
      expect(plugins).toContain('plugsmith init');
      expect(plugins).toContain('plugsmith dev');
      await shot('data-plugins');

      await go(page, 'data/uploads');
      expect(await said(page.getByRole('region', { name: 'Uploads' }), 'No uploads yet')).toContain(
        `plugsmith files upload ./guide.pdf --parent-type ORG --parent-id ${emu.orgId}`,
      );

      await go(page, 'data/conversations');
      expect(
        await said(page.getByRole('region', { name: 'Conversations' }), 'No conversations yet'),
      ).toContain('plugsmith chat');

      // The seed's repository has neither files nor data providers yet.
      const repositoryId = [...emulatorInternals(emu).db.repositories.values()][0].id;
      await go(page, `data/repositories/${repositoryId}`);
      const repository = page.getByRole('article', { name: `Repository ${repositoryId}` });
      expect(
        await said(
          repository.getByRole('region', { name: 'Data providers' }),
          'No data provider on this repository yet',
        ),
      ).toContain(`plugsmith providers add ${repositoryId} --plugin <pluginId>`);
      expect(
        await said(
          repository.getByRole('region', { name: 'Files' }),
          'No files in this repository yet',
        ),
      ).toContain(`plugsmith repos files add ${repositoryId} <fileId>`);
      await shot('data-repository');

      await go(page, 'chat');
      expect(
        await said(page.getByRole('navigation', { name: 'Conversations' }), 'No conversations yet'),
      ).toContain('plugsmith chat');
      await shot('chat');

      await go(page, 'uploads');
      const uploads = await said(page, 'Nothing uploaded from this page yet');
      expect(uploads).toContain(
        `plugsmith files upload ./guide.pdf --parent-type ORG --parent-id ${emu.orgId}`,
      );
      expect(uploads).toContain('Data → Uploads');
      await shot('uploads');

      await go(page, 'trigger');
      expect(await said(page, 'No plugins yet, so nothing to send an event to')).toContain(
        'plugsmith plugins create',
      );
      await shot('trigger');

      await go(page, 'install');
      expect(await said(page, 'No plugins yet')).toContain('plugsmith plugins create');
      await shot('install');
      expectNoConsoleErrors(consoleErrors);
    });
  }

  it("a new plugin's actions, external events and instances; a conversation's messages; a search that matches nothing", async () => {
    const owner = api(emu, { token: `Bearer ${emu.token}` });
    const plugin = await owner.data('POST', `/api/orgs/${emu.orgId}/plugins`, {
      name: 'Bare plugin',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      webhookUrl: 'http://127.0.0.1:9/webhook',
    });
    onTestFinished(async () => {
      await owner.delete(`/api/plugins/${plugin.id}`);
    });
    const characterId = [...emulatorInternals(emu).db.characters.values()][0].id;
    const conversation = await api(emu.messagingUrl, { token: `Bearer ${emu.apiKey}` }).data(
      'POST',
      '/conversations',
      { characterId },
    );

    const { page, consoleErrors } = await openDashboard(emu, `data/plugins/${plugin.id}`);
    const record = page.getByRole('article', { name: `Plugin ${plugin.id}` });
    expect(await said(record.getByRole('region', { name: 'Actions' }), 'No actions yet')).toContain(
      `plugsmith actions create ${plugin.id} --name`,
    );
    expect(
      await said(record.getByRole('region', { name: 'External events' }), 'No external events yet'),
    ).toContain(`plugsmith events create ${plugin.id} --name`);
    const instances = record.getByRole('region', { name: 'Instances' });
    expect(await said(instances, 'Not installed anywhere yet')).toContain('plugsmith handlers add');
    expect(
      await instances.getByRole('link', { name: 'Verify & install' }).getAttribute('href'),
    ).toBe(`#/install/${plugin.id}`);
    await screenshot(page, 'empty-plugin-children', { fullPage: true });

    // A search that matches nothing is not an empty collection: it says so, and clears.
    const list = page.getByRole('region', { name: 'Plugins' }).first();
    await list.getByRole('searchbox', { name: 'Search plugins' }).fill('no such plugin');
    await list.getByText('No plugins match.').waitFor();
    expect(await list.getByText('No plugins yet').count()).toBe(0);
    await list.getByRole('button', { name: 'Clear the search and filters' }).click();
    await list.getByRole('button', { name: 'Open plugin Bare plugin' }).waitFor();
    expect(await list.getByRole('searchbox', { name: 'Search plugins' }).inputValue()).toBe('');

    // Trigger: an event that acts on an instance, for a plugin installed nowhere.
    await go(page, 'trigger');
    await expect
      .poll(() => page.getByLabel('Plugin', { exact: true }).inputValue())
      .toBe(plugin.id);
    await said(page, 'This event acts on an installed instance, and the plugin has none yet');
    expect(
      await page.getByRole('link', { name: 'Verify & install' }).last().getAttribute('href'),
    ).toBe(`#/install/${plugin.id}`);

    await go(page, `data/conversations/${conversation.id}`);
    const messages = page
      .getByRole('article', { name: `Conversation ${conversation.id}` })
      .getByRole('region', { name: 'Messages' });
    await said(messages, 'No messages yet');
    expect(await messages.getByRole('link', { name: 'Chat' }).getAttribute('href')).toBe(
      `#/chat/${conversation.id}`,
    );
    expectNoConsoleErrors(consoleErrors);
  });

  it('an org with no agents or characters: Data, Chat and Install say where they come from', async () => {
    const seed: Seed = {
      users: [{ id: 'u_ada', name: 'Ada' }],
      orgs: [{ id: 'org_bare', name: 'Bare', members: [{ userId: 'u_ada', role: 'OWNER' }] }],
      tokens: [{ userId: 'u_ada', token: 'pst_bare_owner', orgId: null, name: 'dev' }],
      apiKeys: [{ key: 'psk_bare_key', orgId: 'org_bare' }],
    } as Seed;
    const bare = await emulator({ seed });
    const plugin = await api(bare, { token: 'Bearer pst_bare_owner' }).data(
      'POST',
      '/api/orgs/org_bare/plugins',
      { name: 'Handler', type: 'EVENT_HANDLER' },
    );

    const { page, consoleErrors } = await openDashboard(bare, 'data/agents');
    expect(await said(page.getByRole('region', { name: 'Agents' }), 'No agents yet')).toContain(
      'plugsmith emulator start --seed',
    );
    await go(page, 'data/characters');
    await said(page.getByRole('region', { name: 'Characters' }), 'No characters yet');
    await go(page, 'chat');
    expect(
      await page
        .getByText('No characters in the org yet')
        .getByRole('link', { name: 'Data → Characters' })
        .getAttribute('href'),
    ).toBe('#/data/characters');
    await screenshot(page, 'empty-chat-no-characters', { fullPage: true });
    await go(page, `install/${plugin.id}`);
    expect(
      await page
        .getByText('No agent in the org yet')
        .getByRole('link', { name: 'Data → Agents' })
        .getAttribute('href'),
    ).toBe('#/data/agents');
    expectNoConsoleErrors(consoleErrors);
  });
});
