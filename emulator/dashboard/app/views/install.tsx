import { isolated } from '../format.js';
import { useEffect, useState } from 'react';
import { call, currentWorkspace } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { JsonView } from '../components/json-view.js';
import { navigate } from '../use-hash-route.js';
import type { ViewProps } from '../view-props.js';
import type {
  Agent,
  Delivery,
  Plugin,
  PluginInstance,
  Repository,
  WebhookVerification,
} from '#contract/resources';
import { entityTypeOfPluginType, INSTALL_TARGETS, installsPath } from '#contract/installs';
import { InputsForm, initialInputs } from './install-inputs.js';
import { AppPicker } from './app-picker.js';
import './data-views.css';

/**
 * The Verify & install page (`#/install/<pluginId>`): verify a plugin's webhook and show the
 * challenge exchange (from the challenge's delivery), then install it on an agent, a repository
 * or an app with an inputs form generated from its `inputsSchema`.
 */
export function InstallView({ params }: ViewProps) {
  const workspace = currentWorkspace();
  const pluginId = params[0] ?? '';
  const [plugins, setPlugins] = useState<Plugin[] | null>(null);
  const [plugin, setPlugin] = useState<Plugin | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!workspace.orgId) return;
    call<Plugin[]>(
      'api',
      'GET',
      `/orgs/${encodeURIComponent(workspace.orgId)}/plugins?@sortBy=name&@sortOrder=asc&@limit=100`,
    ).then((a) => setPlugins(a.data), setError);
  }, [workspace.orgId]);

  useEffect(() => {
    setPlugin(null);
    if (pluginId === '') return;
    call<Plugin>('api', 'GET', `/plugins/${encodeURIComponent(pluginId)}`).then(
      (a) => setPlugin(a.data),
      setError,
    );
  }, [pluginId]);

  return (
    <div>
      <h1 className="visually-hidden">Verify and install</h1>
      <div className="toolbar">
        <label>
          Plugin
          <select value={pluginId} onChange={(e) => navigate('install', e.target.value)}>
            <option value="">choose a plugin…</option>
            {(plugins ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {isolated(p.name)} ({p.type}, {p.id})
              </option>
            ))}
          </select>
        </label>
      </div>
      {plugins?.length === 0 && pluginId === '' && (
        <p className="muted">
          No plugins yet: create one with <code>plugsmith plugins create</code> (or start a project
          with <code>plugsmith init</code> and run <code>plugsmith dev</code>), or in{' '}
          <a href="#/data/plugins">Data → Plugins</a>.
        </p>
      )}
      <ErrorBox error={error} />
      {plugin && (
        <>
          <VerifySection
            key={`verify-${plugin.id}`}
            plugin={plugin}
            onVerified={(verified) => setPlugin({ ...plugin, webhookUrlIsVerified: verified })}
          />
          <InstallSection key={`install-${plugin.id}`} plugin={plugin} />
        </>
      )}
    </div>
  );
}

function VerifySection({
  plugin,
  onVerified,
}: {
  plugin: Plugin;
  onVerified: (verified: boolean) => void;
}) {
  const [result, setResult] = useState<WebhookVerification | null>(null);
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    setError(null);
    setDelivery(null);
    try {
      const answer = (
        await call<WebhookVerification>(
          'api',
          'POST',
          `/plugins/${encodeURIComponent(plugin.id)}/verify-webhook`,
        )
      ).data;
      setResult(answer);
      onVerified(answer.verified);
      if (answer.deliveryId)
        setDelivery(
          (
            await call<Delivery>(
              'admin',
              'GET',
              `/deliveries/${encodeURIComponent(answer.deliveryId)}`,
            )
          ).data,
        );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const attempt = delivery?.attempts[delivery.attempts.length - 1];
  const challenge = (delivery?.event.data as { challenge?: string } | undefined)?.challenge;
  return (
    <section className="step panel" aria-label="Verify the webhook">
      <h2>Verify the webhook</h2>
      <p>
        Webhook URL: <code>{plugin.webhookUrl ?? 'none'}</code> ·{' '}
        {plugin.webhookUrlIsVerified ? (
          <span className="status-ok">verified</span>
        ) : (
          <span className="status-warn">not verified</span>
        )}
      </p>
      <button type="button" className="primary" onClick={verify} disabled={busy}>
        Verify webhook
      </button>
      <ErrorBox error={error} />
      {result && (
        <dl className="exchange" aria-label="Challenge exchange">
          <dt>Challenge sent</dt>
          <dd>
            <code>{challenge ?? '—'}</code> to <code>{delivery?.url ?? plugin.webhookUrl}</code>
          </dd>
          <dt>Plugin answered</dt>
          <dd>
            {attempt ? (
              <>
                <span>
                  {attempt.responseStatus === null
                    ? `no answer: ${attempt.error ?? 'unknown error'}`
                    : `HTTP ${attempt.responseStatus} in ${Math.round(attempt.durationMs)} ms`}
                </span>
                {attempt.responseBody !== null && (
                  <JsonView
                    value={attempt.responseBody}
                    label="The plugin's answer to the challenge"
                  />
                )}
              </>
            ) : (
              '—'
            )}
          </dd>
          <dt>Result</dt>
          <dd>
            {result.verified ? (
              <strong className="status-ok" role="status">
                Verified
              </strong>
            ) : (
              <strong className="status-bad" role="status">
                Not verified: {result.reason}
              </strong>
            )}
          </dd>
          {delivery && (
            <>
              <dt>Request body (signed)</dt>
              <dd>
                <JsonView value={delivery.event} label="The challenge request body" />
                <a href={`#/deliveries/${encodeURIComponent(delivery.id)}`}>
                  Open delivery {delivery.id}
                </a>
              </dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}

function InstallSection({ plugin }: { plugin: Plugin }) {
  const workspace = currentWorkspace();
  const entityType = entityTypeOfPluginType(plugin.type);
  const target = INSTALL_TARGETS[entityType];
  const [entities, setEntities] = useState<Array<{ id: string; name: string }> | null>(null);
  const [entityId, setEntityId] = useState('');
  const [name, setName] = useState(plugin.name);
  const [events, setEvents] = useState<string[]>(plugin.events);
  const [scopes, setScopes] = useState<string[]>(plugin.scopes);
  const [mode, setMode] = useState<'ASYNC' | 'SYNC'>('ASYNC');
  const [inputs, setInputs] = useState<Record<string, unknown> | Error>(() =>
    initialInputs(plugin.inputsSchema),
  );
  const [created, setCreated] = useState<PluginInstance | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!workspace.orgId || plugin.type === 'APP') return;
    const org = encodeURIComponent(workspace.orgId);
    const list =
      plugin.type === 'EVENT_HANDLER'
        ? call<Agent[]>(
            'admin',
            'GET',
            `/agents?orgId=${org}&@sortBy=name&@sortOrder=asc&@limit=100`,
          )
        : call<Repository[]>(
            'api',
            'GET',
            `/orgs/${org}/repositories?@sortBy=name&@sortOrder=asc&@limit=100`,
          );
    list.then((a) => {
      setEntities(a.data);
      setEntityId((current) => current || (a.data[0]?.id ?? ''));
    }, setError);
  }, [plugin.type, workspace.orgId]);

  const toggle = (list: string[], value: string, on: boolean) =>
    on ? [...list, value] : list.filter((v) => v !== value);
  const install = async () => {
    setBusy(true);
    setCreated(null);
    try {
      if (inputs instanceof Error) throw inputs;
      const body = {
        name,
        pluginId: plugin.id,
        events,
        scopes,
        inputs,
        eventDispatchMode: mode,
        ...(plugin.type === 'APP' && workspace.orgId ? { orgId: workspace.orgId } : {}),
      };
      const route = installsPath(entityType, encodeURIComponent(entityId));
      setCreated((await call<PluginInstance>('api', 'POST', route, body)).data);
      setError(null);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="step panel" aria-label="Install the plugin">
      <h2>
        Install on {target.noun === 'app' ? 'an' : 'a'} {target.noun}
      </h2>
      {!plugin.webhookUrlIsVerified && (
        <p className="status-warn">
          The platform installs only plugins with a verified webhook: verify it above first.
        </p>
      )}
      <div className="toolbar">
        {plugin.type === 'APP' ? (
          workspace.orgId && (
            <AppPicker orgId={workspace.orgId} refresh={created} onChange={setEntityId} />
          )
        ) : entities?.length === 0 ? (
          <p className="muted">
            {target.noun === 'agent' ? (
              <>
                No agent in the org yet: create one in <a href="#/data/agents">Data → Agents</a> (or
                give the emulator a seed with agents).
              </>
            ) : (
              <>
                No repository in the org yet: create one with <code>plugsmith repos create</code> or
                in <a href="#/data/repositories">Data → Repositories</a>.
              </>
            )}
          </p>
        ) : (
          <label>
            {target.noun === 'agent' ? 'Agent' : 'Repository'}
            <select value={entityId} onChange={(e) => setEntityId(e.target.value)}>
              {(entities ?? []).map((e) => (
                <option key={e.id} value={e.id}>
                  {isolated(e.name)} ({e.id})
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Instance name
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Dispatch mode
          <select
            value={mode}
            onChange={(e) => setMode(e.target.value === 'SYNC' ? 'SYNC' : 'ASYNC')}
          >
            <option>ASYNC</option>
            <option>SYNC</option>
          </select>
        </label>
      </div>
      <fieldset>
        <legend>Events (the plugin's)</legend>
        {plugin.events.length === 0 && <span className="muted">none</span>}
        {plugin.events.map((event) => (
          <label key={event} className="check">
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(e) => setEvents(toggle(events, event, e.target.checked))}
            />
            {event}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Scopes (the plugin's)</legend>
        {plugin.scopes.length === 0 && <span className="muted">none</span>}
        {plugin.scopes.map((scope) => (
          <label key={scope} className="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes(toggle(scopes, scope, e.target.checked))}
            />
            {scope}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Inputs (from the plugin's inputsSchema; * required)</legend>
        <InputsForm inputsSchema={plugin.inputsSchema} onChange={setInputs} />
      </fieldset>
      <button
        type="button"
        className="primary"
        onClick={install}
        disabled={busy || entityId === '' || !plugin.webhookUrlIsVerified}
        title={plugin.webhookUrlIsVerified ? undefined : 'Verify the webhook first'}
      >
        Install plugin
      </button>
      <ErrorBox error={error} />
      {created && (
        <div role="status">
          <p className="status-ok">
            Installed: instance <code>{created.id}</code> on {target.noun}{' '}
            <code>{created.entityId}</code>.{' '}
            <a href={`#/data/plugins/${encodeURIComponent(plugin.id)}`}>See it in Data</a>
          </p>
          <JsonView value={created} label="The new instance" />
        </div>
      )}
    </section>
  );
}
