import { describe, expect, it, onTestFinished } from 'vitest';
import { call } from '../kit/http.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';
import { emulator } from '../kit/index.js';

describe('dashboard: Data', () => {
  it('shows a plugin created through the API; searches, edits (an invalid edit shows the details) and deletes it', async () => {
    const emu = await emulator();
    const auth = `Bearer ${emu.token}`;
    const create = (name: string) =>
      call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
        token: auth,
        body: {
          name,
          type: 'EVENT_HANDLER',
          webhookUrl: 'http://127.0.0.1:9/webhook',
          events: ['AGENT_MESSAGE_RECEIVED'],
        },
      });
    const weather = (await create('Weather')).body.data;
    await create('Almanac');
    await call(emu.url, 'POST', `/api/plugins/${weather.id}/actions`, {
      token: auth,
      body: { name: 'get_forecast', title: 'Get forecast' },
    });

    const { page, consoleErrors } = await openDashboard(emu, 'data/plugins');
    const plugins = page.getByRole('region', { name: 'Plugins' });
    await plugins.getByRole('button', { name: 'Open plugin Weather' }).waitFor();
    await plugins.getByRole('button', { name: 'Open plugin Almanac' }).waitFor();

    // The query system: @search narrows the list.
    await plugins.getByLabel('Search plugins').fill('weath');
    await plugins
      .getByRole('button', { name: 'Open plugin Almanac' })
      .waitFor({ state: 'detached' });
    await plugins.getByText('Page 1 of 1 (1 in all)').waitFor();

    // A record opens as formatted JSON, with its actions beneath.
    await plugins.getByRole('button', { name: 'Open plugin Weather' }).click();
    const record = page.getByRole('article', { name: `Plugin ${weather.id}` });
    const json = record.getByLabel(`plugin ${weather.id} as JSON`);
    await json.waitFor();
    expect(JSON.parse((await json.textContent()) ?? '')).toMatchObject({
      id: weather.id,
      name: 'Weather',
      type: 'EVENT_HANDLER',
    });
    await record
      .getByRole('region', { name: 'Actions' })
      .getByRole('button', { name: 'Open action get_forecast' })
      .waitFor();
    expect(page.url()).toContain(`#/data/plugins/${weather.id}`);
    await screenshot(page, 'data-plugin-record', { fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'data-plugin-record-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Edit through PUT /api/plugins/:id.
    await record.getByRole('button', { name: 'Edit plugin' }).click();
    const editor = record.getByLabel(/^Edit plugin/);
    const draft = JSON.parse(await editor.inputValue());
    expect(draft).toMatchObject({ name: 'Weather', type: 'EVENT_HANDLER' });
    await editor.fill(
      JSON.stringify({ ...draft, name: 'Weather 2', description: 'edited in the dashboard' }),
    );
    await record.getByRole('button', { name: 'Save plugin' }).click();
    await record.getByText('"name": "Weather 2"').waitFor();
    expect(
      (await call(emu.url, 'GET', `/api/plugins/${weather.id}`, { token: auth })).body.data,
    ).toMatchObject({ name: 'Weather 2', description: 'edited in the dashboard' });

    // An invalid edit: the API's 400 and its details, inline; nothing changes.
    await record.getByRole('button', { name: 'Edit plugin' }).click();
    await record
      .getByLabel(/^Edit plugin/)
      .fill(JSON.stringify({ type: 'NOT_A_TYPE', webhookUrl: 'ftp://nope' }));
    await record.getByRole('button', { name: 'Save plugin' }).click();
    const alert = record.getByRole('alert');
    await alert.waitFor();
    const alertText = (await alert.textContent()) ?? '';
    expect(alertText).toContain('400 VALIDATION_ERROR');
    expect(await alert.locator('li').count()).toBeGreaterThan(0);
    expect(alertText).toMatch(/type|webhookUrl/);
    await screenshot(page, 'data-invalid-edit', { fullPage: true });
    expect(
      (await call(emu.url, 'GET', `/api/plugins/${weather.id}`, { token: auth })).body.data.type,
    ).toBe('EVENT_HANDLER');
    await record.getByRole('button', { name: 'Cancel edit' }).click();

    // Delete through DELETE /api/plugins/:id, confirmed.
    await record.getByRole('button', { name: 'Delete plugin' }).click();
    await record.getByRole('button', { name: `Confirm: delete plugin ${weather.id}` }).click();
    await record.getByText(`Deleted plugin ${weather.id}.`).waitFor();
    expect((await call(emu.url, 'GET', `/api/plugins/${weather.id}`, { token: auth })).status).toBe(
      404,
    );
    await plugins.getByLabel('Search plugins').fill('');
    await plugins.getByRole('button', { name: 'Open plugin Almanac' }).waitFor();
    expect(await plugins.getByRole('button', { name: 'Open plugin Weather 2' }).count()).toBe(0);
    // Chromium logs every 4xx answer; the refused edit's is the only one expected.
    const refused = (e: string) =>
      e.includes('status of 400') && e.includes(`/api/plugins/${weather.id}`);
    expect(consoleErrors.filter(refused)).toHaveLength(1);
    expectNoConsoleErrors(consoleErrors.filter((e) => !refused(e)));
  });

  it('an edit of the description sends only the description and keeps the webhook verified', async () => {
    const emu = await emulator();
    const hook = await WebhookServer.start();
    onTestFinished(() => hook.close());
    const plugin = await verifiedPlugin(emu, emu.token!, emu.orgId!, {
      type: 'EVENT_HANDLER',
      webhookUrl: hook.url,
      name: 'Verified',
    });

    const { page, consoleErrors } = await openDashboard(emu, `data/plugins/${plugin.id}`);
    const record = page.getByRole('article', { name: `Plugin ${plugin.id}` });
    await record.getByRole('button', { name: 'Edit plugin' }).click();
    const editor = record.getByLabel(/^Edit plugin/);
    const draft = JSON.parse(await editor.inputValue());
    // The editor shows every field, the webhookUrl included…
    expect(draft).toMatchObject({ webhookUrl: hook.url, description: '' });
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT') sent.push(r.postData() ?? '');
    });
    await editor.fill(JSON.stringify({ ...draft, description: 'only this changed' }, null, 2));
    await record.getByRole('button', { name: 'Save plugin' }).click();
    await record.getByText('"description": "only this changed"').waitFor();
    // …but only what changed goes out, and the plugin stays verified (installs still allowed).
    expect(sent.map((b) => JSON.parse(b))).toEqual([{ description: 'only this changed' }]);
    const stored = (
      await call(emu.url, 'GET', `/api/plugins/${plugin.id}`, { token: `Bearer ${emu.token}` })
    ).body.data;
    expect(stored).toMatchObject({ description: 'only this changed', webhookUrlIsVerified: true });
    await record.getByRole('status').filter({ hasText: 'Saved description.' }).waitFor();

    // Saving with nothing changed sends nothing.
    await record.getByRole('button', { name: 'Edit plugin' }).click();
    await record.getByRole('button', { name: 'Save plugin' }).click();
    await record.getByRole('status').filter({ hasText: 'Nothing changed' }).waitFor();
    expect(sent).toHaveLength(1);
    expectNoConsoleErrors(consoleErrors);
  });

  it("hides a plugin's webhook secret until revealed, and rotates it with a grace period", async () => {
    const emu = await emulator();
    const created = (
      await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
        token: `Bearer ${emu.token}`,
        body: { name: 'Secretive', type: 'EVENT_HANDLER' },
      })
    ).body.data;
    const { page, consoleErrors } = await openDashboard(emu, 'data/plugins');
    // The list shows ids beside names.
    await page.getByRole('region', { name: 'Plugins' }).getByText(created.id).waitFor();
    await page.goto(new URL(`#/data/plugins/${created.id}`, page.url()).href);
    const record = page.getByRole('article', { name: `Plugin ${created.id}` });
    await record.getByLabel(`plugin ${created.id} as JSON`).waitFor();
    expect(await record.getByLabel(`plugin ${created.id} as JSON`).textContent()).not.toContain(
      created.webhookSecret,
    );
    const secret = record.getByTestId('webhook-secret');
    expect(await secret.textContent()).not.toContain(created.webhookSecret);
    await record.getByRole('button', { name: 'Reveal secret' }).click();
    expect(await secret.textContent()).toBe(created.webhookSecret);

    await record.getByLabel('Grace period in seconds').fill('3600');
    await record.getByRole('button', { name: 'Rotate secret…' }).click();
    await record.getByRole('button', { name: 'Confirm: rotate the secret' }).click();
    await record
      .getByRole('status')
      .filter({ hasText: 'The previous secret signs too until' })
      .waitFor();
    const stored = emulatorInternals(emu).db.plugins.get(created.id)!;
    expect(stored.webhookSecret).not.toBe(created.webhookSecret);
    expect(await secret.textContent()).toBe(stored.webhookSecret);
    expect(stored.previousWebhookSecret).toBe(created.webhookSecret);
    const left = Date.parse(stored.previousWebhookSecretExpiresAt!) - Date.now();
    expect(left).toBeGreaterThan(3000_000);
    expect(left).toBeLessThanOrEqual(3600_000);
    expectNoConsoleErrors(consoleErrors);
  });

  it('lists every collection, never a token, API key or hash, and creates an API key showing it once', async () => {
    const emu = await emulator();
    const { page, consoleErrors } = await openDashboard(emu, 'data/plugins');
    const tabs = [
      'Plugins',
      'Repositories',
      'Uploads',
      'Conversations',
      'Agents',
      'Characters',
      'Tokens',
      'API keys',
    ];
    const expected: Record<string, string> = {
      Repositories: 'Open repository Docs',
      Agents: 'Open agent Nova agent',
      Characters: 'Open character Nova',
      Tokens: 'Open token emulator default',
      'API keys': 'Open API key emulator default',
    };
    for (const tab of tabs) {
      await page
        .getByRole('navigation', { name: 'Collections' })
        .getByRole('link', { name: tab, exact: true })
        .click();
      const region = page.getByRole('region', { name: tab });
      await region.waitFor();
      if (expected[tab]) await region.getByRole('button', { name: expected[tab] }).waitFor();
      await screenshot(page, `data-${tab.toLowerCase().replace(' ', '-')}`);
    }
    const html = await page.content();
    expect(html).not.toContain(emu.apiKey);
    for (const token of emulatorInternals(emu).db.tokens.values())
      expect(html).not.toContain(token.hash);

    // Sorting by name ascending through the query system.
    const characters = await call(emu.url, 'POST', '/_emulator/characters', {
      headers: emu.adminHeaders,
      body: { orgId: emu.orgId, name: 'Aardvark' },
    });
    expect(characters.status).toBe(201);
    await page
      .getByRole('navigation', { name: 'Collections' })
      .getByRole('link', { name: 'Characters', exact: true })
      .click();
    const region = page.getByRole('region', { name: 'Characters' });
    await region.getByLabel('Sort characters by').selectOption('name');
    await region.getByLabel('Order of characters').selectOption('asc');
    await region.getByRole('button', { name: 'Open character Aardvark' }).waitFor();
    const names = await region.locator('tbody tr td:first-child').allTextContents();
    expect(names).toEqual(['Aardvark', 'Nova']);

    // Create an API key through the admin API: the key is shown once, then only its hint.
    await page
      .getByRole('navigation', { name: 'Collections' })
      .getByRole('link', { name: 'API keys', exact: true })
      .click();
    const keys = page.getByRole('region', { name: 'API keys' });
    await keys.getByRole('button', { name: 'New API key' }).click();
    await keys.getByRole('button', { name: 'Create API key' }).click();
    const shown = keys.getByRole('status').filter({ hasText: 'shown this once' });
    await shown.waitFor();
    const key = (await shown.locator('code').textContent()) ?? '';
    expect(key).toMatch(/^psk_/);
    await keys.getByRole('button', { name: 'Open API key web' }).waitFor();
    expect(
      (
        await call(emu.messagingUrl, 'POST', '/conversations', {
          token: `Bearer ${key}`,
          body: { characterId: 'char_nova' },
        })
      ).status,
    ).toBe(201);
    expectNoConsoleErrors(consoleErrors);
  });
});
