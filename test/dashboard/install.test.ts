import { describe, expect, it, onTestFinished } from 'vitest';
import { call } from '../kit/http.js';
import { verifiedPlugin, WebhookServer } from '../kit/webhook-server.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

const INPUTS_SCHEMA = {
  type: 'object',
  required: ['city', 'days'],
  properties: {
    city: { type: 'string', title: 'City', minLength: 2 },
    units: { type: 'string', enum: ['metric', 'imperial'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    verbose: { type: 'boolean' },
    extra: { type: 'object' },
  },
};

describe('dashboard: Verify & install', () => {
  it('verifies a webhook showing the challenge exchange, refuses a bad input with the schema error, and installs on an agent', async () => {
    const emu = await emulator();
    const hook = await WebhookServer.start();
    onTestFinished(() => hook.close());
    const auth = `Bearer ${emu.token}`;
    const plugin = (
      await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
        token: auth,
        body: {
          name: 'Weather',
          type: 'EVENT_HANDLER',
          webhookUrl: hook.url,
          events: ['AGENT_MESSAGE_RECEIVED'],
          scopes: ['AGENT_MESSAGE_WRITE'],
          inputsSchema: INPUTS_SCHEMA,
        },
      })
    ).body.data;

    const { page, consoleErrors } = await openDashboard(emu, `install/${plugin.id}`);
    const verify = page.getByRole('region', { name: 'Verify the webhook' });
    await verify.getByText('not verified').waitFor();
    // Installing waits for the verification: the platform would refuse it.
    const installButton = page
      .getByRole('region', { name: 'Install the plugin' })
      .getByRole('button', { name: 'Install plugin' });
    expect(await installButton.isDisabled()).toBe(true);
    await verify.getByRole('button', { name: 'Verify webhook' }).click();
    const exchange = verify.getByRole('definition').filter({ hasText: 'Verified' });
    await exchange.waitFor();
    // The challenge the receiver really got is the one shown, with its answer.
    const [sent] = await hook.waitFor(1, 'WEBHOOK_CHALLENGE');
    const challenge = (sent.event.data as { challenge: string }).challenge;
    await verify.getByText(challenge, { exact: true }).waitFor();
    await verify.getByText(/^HTTP 200 in \d+ ms$/).waitFor();
    expect(await verify.getByLabel("The plugin's answer to the challenge").textContent()).toContain(
      challenge,
    );
    await screenshot(page, 'install-verify', { fullPage: true });

    const install = page.getByRole('region', { name: 'Install the plugin' });
    await expect.poll(() => installButton.isEnabled()).toBe(true);
    await install.getByRole('combobox', { name: 'Agent', exact: true }).selectOption('agent_nova');
    // Events and scopes: the plugin's, as checkboxes.
    expect(
      await install.getByRole('checkbox', { name: 'AGENT_MESSAGE_RECEIVED' }).isChecked(),
    ).toBe(true);
    expect(await install.getByRole('checkbox', { name: 'AGENT_MESSAGE_WRITE' }).isChecked()).toBe(
      true,
    );
    expect(await install.getByRole('checkbox', { name: 'REPOSITORY_FILES_READ' }).count()).toBe(0);
    // The form generated from inputsSchema: text, choice, number, checkbox; JSON for the object.
    await install.getByLabel(/^City/).fill('Oslo');
    await install.getByLabel(/^units/).selectOption('metric');
    await install.getByLabel(/^days/).fill('12');
    await install.getByRole('checkbox', { name: /verbose/ }).check();
    await install.getByLabel(/^extra/).fill('{"lang":"nb"}');
    await install.getByRole('button', { name: 'Install plugin' }).click();
    const alert = install.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('400 VALIDATION_ERROR');
    await alert.getByText('inputs.days').waitFor();
    await screenshot(page, 'install-bad-input', { fullPage: true });

    await install.getByLabel(/^days/).fill('3');
    await install.getByRole('button', { name: 'Install plugin' }).click();
    const done = install.getByRole('status').filter({ hasText: 'Installed' });
    await done.waitFor();
    const instances = await call(emu.url, 'GET', '/api/agents/agent_nova/plugins', { token: auth });
    expect(instances.body.data).toHaveLength(1);
    expect(instances.body.data[0]).toMatchObject({
      pluginId: plugin.id,
      entityType: 'AGENT',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: ['AGENT_MESSAGE_WRITE'],
      inputs: { city: 'Oslo', units: 'metric', days: 3, verbose: true, extra: { lang: 'nb' } },
    });
    await done.getByText(instances.body.data[0].id, { exact: true }).waitFor();
    await hook.waitFor(1, 'PLUGIN_INSTALLED');
    await screenshot(page, 'install', { fullPage: true });

    const refused = (e: string) =>
      e.includes('status of 400') && e.includes('/api/agents/agent_nova/plugins');
    expect(consoleErrors.filter(refused)).toHaveLength(1);
    expectNoConsoleErrors(consoleErrors.filter((e) => !refused(e)));
  });

  it('shows why a webhook is not verified: the wrong answer to the challenge', async () => {
    const emu = await emulator();
    const hook = await WebhookServer.start(() => ({ body: { challenge: 'something else' } }));
    onTestFinished(() => hook.close());
    const plugin = (
      await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
        token: `Bearer ${emu.token}`,
        body: { name: 'Broken', type: 'DATA_PROVIDER', webhookUrl: hook.url },
      })
    ).body.data;
    const { page, consoleErrors } = await openDashboard(emu, `install/${plugin.id}`);
    const verify = page.getByRole('region', { name: 'Verify the webhook' });
    await verify.getByRole('button', { name: 'Verify webhook' }).click();
    await verify.getByText(/^Not verified: .+/).waitFor();
    expect(await verify.getByLabel("The plugin's answer to the challenge").textContent()).toContain(
      'something else',
    );
    // A data provider installs on a repository; a schema with no properties asks for no inputs.
    await page.getByText('The plugin declares no inputs.').waitFor();
    await page
      .getByRole('region', { name: 'Install the plugin' })
      .getByRole('combobox', { name: 'Repository', exact: true })
      .waitFor();
    await screenshot(page, 'install-not-verified', { fullPage: true });
    expectNoConsoleErrors(consoleErrors);
  });

  it("an APP plugin installs on an app picked from the org's apps (a new one offered under a free id), with no id to type", async () => {
    const emu = await emulator();
    const hook = await WebhookServer.start();
    onTestFinished(() => hook.close());
    const auth = `Bearer ${emu.token}`;
    const app = (name: string) =>
      verifiedPlugin(emu, emu.token!, emu.orgId!, { type: 'APP', webhookUrl: hook.url, name });
    const first = await app('CRM sync');
    const second = await app('Notes');
    const onApp = async (appId: string) =>
      (await call(emu.url, 'GET', `/api/apps/${appId}/plugins`, { token: auth })).body
        .data as Array<{ pluginId: string; name: string }>;

    const { page, consoleErrors } = await openDashboard(emu, `install/${first.id}`);
    const install = page.getByRole('region', { name: 'Install the plugin' });
    const picker = install.getByRole('combobox', { name: 'App', exact: true });
    // No app has a plugin yet: the picker offers a new app under the id plugsmith projects use, chosen already.
    await expect
      .poll(() => picker.locator('option:checked').textContent())
      .toBe('app_local: a new app');
    expect(await install.getByRole('textbox', { name: 'App id' }).count()).toBe(0);
    await screenshot(page, 'install-app-new', { fullPage: true });
    await install.getByRole('button', { name: 'Install plugin' }).click();
    await install.getByRole('status').filter({ hasText: 'on app app_local' }).waitFor();
    expect((await onApp('app_local')).map((i) => i.pluginId)).toEqual([first.id]);
    // The app is now one of the org's, still chosen, listed with what is on it; the next new one gets a free id.
    await expect
      .poll(() => picker.locator('option:checked').textContent())
      .toBe('app_local: 1 plugin (CRM sync)');
    expect(await picker.locator('option').allTextContents()).toEqual([
      'app_local: 1 plugin (CRM sync)',
      'app_local_2: a new app',
      'another app id…',
    ]);

    // Another APP plugin opens on the org's app: installing needs no choice at all.
    await page.getByRole('combobox', { name: 'Plugin', exact: true }).selectOption(second.id);
    await expect
      .poll(() => picker.locator('option:checked').textContent())
      .toBe('app_local: 1 plugin (CRM sync)');
    await install.getByRole('button', { name: 'Install plugin' }).click();
    await install.getByRole('status').filter({ hasText: 'on app app_local' }).waitFor();
    expect((await onApp('app_local')).map((i) => i.pluginId).sort()).toEqual(
      [first.id, second.id].sort(),
    );

    // An app the emulator has not seen (one of the real platform's, say) can still be named.
    await picker.selectOption({ label: 'another app id…' });
    const typed = install.getByRole('textbox', { name: 'App id' });
    expect(await install.getByRole('button', { name: 'Install plugin' }).isDisabled()).toBe(true);
    await typed.fill('app_crm');
    await install.getByRole('button', { name: 'Install plugin' }).click();
    await install.getByRole('status').filter({ hasText: 'on app app_crm' }).waitFor();
    expect((await onApp('app_crm')).map((i) => i.pluginId)).toEqual([second.id]);
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual([
        'app_crm: 1 plugin (Notes)',
        'app_local: 2 plugins (CRM sync, Notes)',
        'app_local_2: a new app',
        'another app id…',
      ]);
    await screenshot(page, 'install-app-known', { fullPage: true });
    expectNoConsoleErrors(consoleErrors);
  });

  it('Trigger opens on a plugin it can send to, not on the first one listed', async () => {
    const emu = await emulator();
    const hook = await WebhookServer.start();
    onTestFinished(() => hook.close());
    const auth = `Bearer ${emu.token}`;
    const reachable = (
      await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
        token: auth,
        body: {
          name: 'Reachable',
          type: 'EVENT_HANDLER',
          webhookUrl: hook.url,
          events: ['AGENT_MESSAGE_RECEIVED'],
        },
      })
    ).body.data;
    await call(emu.url, 'POST', `/api/plugins/${reachable.id}/verify-webhook`, { token: auth });
    // Newer, so listed first, but with nothing to send to.
    await call(emu.url, 'POST', `/api/orgs/${emu.orgId}/plugins`, {
      token: auth,
      body: { name: 'No webhook', type: 'EVENT_HANDLER', events: ['AGENT_MESSAGE_RECEIVED'] },
    });
    const { page, consoleErrors } = await openDashboard(emu, 'trigger');
    await expect
      .poll(() => page.getByLabel('Plugin', { exact: true }).inputValue())
      .toBe(reachable.id);
    expectNoConsoleErrors(consoleErrors);
  });
});
