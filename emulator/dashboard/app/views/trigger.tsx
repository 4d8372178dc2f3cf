import { isolated } from '../format.js';
import { useEffect, useMemo, useState } from 'react';
import type { Delivery, ExternalEvent, Plugin, PluginInstance } from '#contract';
import { EVENT_DATA_SCHEMAS } from '#contract/events';
import { LIFECYCLE_EVENTS, type EventKind } from '#contract/enums';
import { fill, SAMPLE_EVENTS } from '#shared/sample-events/index';
import { ApiFailure, call, currentWorkspace } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { checkSchema, type SchemaProblem } from '../json-schema-check.js';
import { exampleOf } from '../schema-example.js';
import { navigate } from '../use-hash-route.js';
import type { ViewProps } from '../view-props.js';
import './deliveries.css';

function random(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The sample payload of an event for this plugin and instance, filled as `plugsmith trigger` fills it. */
export function samplePayload(
  type: EventKind,
  plugin: Plugin,
  instance: PluginInstance | null,
  /** Values that replace the fixture's samples (a real conversation's ids). */
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const fixture = SAMPLE_EVENTS[type];
  const known: Record<string, unknown> = {
    pluginId: plugin.id,
    orgId: plugin.orgId,
    events: plugin.events,
    scopes: plugin.scopes,
  };
  if (instance) {
    Object.assign(known, {
      pluginInstanceId: instance.id,
      instance,
      entityId: instance.entityId,
      entityType: instance.entityType,
      instanceName: instance.name,
    });
    if (instance.entityType === 'AGENT') known.agentId = instance.entityId;
    if (instance.entityType === 'REPOSITORY') known.repositoryId = instance.entityId;
  }
  const context = {
    ...fixture.defaults,
    now: new Date().toISOString(),
    random: random(),
    ...known,
    ...extra,
  };
  return fill(fixture.data, context) as Record<string, unknown>;
}

/** A real conversation for an AGENT_MESSAGE_RECEIVED sample: the plugin's reply into it must find it. */
interface SampleConversation {
  instanceId: string;
  characterId: string;
  conversationId: string;
}

/**
 * Opens a conversation with a character of the instance's agent, as `plugsmith trigger` does (the
 * emulator's admin API lists the agent's characters; the messaging API opens the conversation).
 * Null when the agent has no character.
 */
async function openSampleConversation(
  instance: PluginInstance,
): Promise<SampleConversation | null> {
  const agentId = String(instance.entityId);
  const characters = await call<Array<{ id: string }>>(
    'admin',
    'GET',
    `/characters?agentId=${encodeURIComponent(agentId)}&@limit=1`,
  );
  const character = characters.data[0];
  if (!character) return null;
  const conversation = await call<{ id: string }>('messaging', 'POST', '/conversations', {
    characterId: character.id,
  });
  return {
    instanceId: instance.id,
    characterId: character.id,
    conversationId: conversation.data.id,
  };
}

/** The events a plugin receives: the lifecycle ones, and those it subscribes to. */
function eventsOf(plugin: Plugin): EventKind[] {
  return [...new Set<EventKind>([...LIFECYCLE_EVENTS, ...plugin.events])];
}

/**
 * The event the view opens on for a plugin: one it subscribes to, never a lifecycle event when it
 * has another (a sample PLUGIN_INSTALLED would hand the plugin a sample token, a PLUGIN_UNINSTALLED
 * really uninstalls); PLUGIN_INSTALLED (a resend of the real install) when it subscribes to none.
 */
export function defaultEventOf(plugin: Plugin): EventKind {
  const lifecycle: readonly string[] = LIFECYCLE_EVENTS;
  return plugin.events.find((e) => !lifecycle.includes(e)) ?? 'PLUGIN_INSTALLED';
}

/** The logged install of an instance: its PLUGIN_INSTALLED delivery, sent again by a resend (same event, same token). */
async function loggedInstall(instanceId: string): Promise<Delivery | null> {
  const query = new URLSearchParams({
    type: 'PLUGIN_INSTALLED',
    pluginInstanceId: instanceId,
    '@sortBy': 'createdAt',
    '@sortOrder': 'asc',
    '@limit': '1',
  });
  const answer = await call<Delivery[]>('admin', 'GET', `/deliveries?${query}`);
  return answer.data[0] ?? null;
}

/** The data of a logged delivery's event (its `data`), as the payload editor shows it. */
function eventData(delivery: Delivery): unknown {
  return (delivery.event as { data?: unknown }).data ?? delivery.event;
}

/** The payload parsed and checked against the event's schema; an ApiFailure shaped like the emulator's 400 when it does not fit. */
export function checkPayload(type: EventKind, text: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ApiFailure(
      400,
      'VALIDATION_ERROR',
      `the payload is not JSON: ${(error as Error).message}`,
      [{ path: ['data'], message: 'fix the JSON syntax' }],
    );
  }
  const problems = checkSchema(EVENT_DATA_SCHEMAS[type], data, ['data']);
  if (problems.length > 0)
    throw new ApiFailure(
      400,
      'VALIDATION_ERROR',
      `data does not match the ${type} event's schema`,
      problems,
    );
  return data as Record<string, unknown>;
}

/** The select's value of an external event: prefixed, as its name is the plugin author's and may look like an event kind. */
const EXTERNAL = 'external:';

/** The outcome of checking an external event's payload: valid, or every problem with its path. */
type PayloadCheck = { valid: true } | { valid: false; problems: SchemaProblem[] };

/** An external event's payload checked against its `payloadSchema` (none: any JSON object passes). */
export function checkExternalPayload(event: ExternalEvent, text: string): PayloadCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return {
      valid: false,
      problems: [
        {
          path: [],
          code: 'json',
          expected: 'JSON',
          message: `the payload is not JSON: ${(error as Error).message}`,
        },
      ],
    };
  }
  const problems = checkSchema(event.payloadSchema ?? { type: 'object' }, data, ['payload']);
  return problems.length === 0 ? { valid: true } : { valid: false, problems };
}

/**
 * Trigger: pick a plugin and one of its events, edit the sample payload (the fixtures of
 * `plugsmith trigger`), and send it; a payload that does not fit the event's schema is refused
 * here with the schema's error, and sent nowhere. Sent, it opens the resulting delivery.
 * The plugin's external events are listed too, in their own group: the platform never emits
 * them to plugins, so for one the view only checks a payload against its `payloadSchema`.
 */
export function TriggerView(_props: ViewProps) {
  const [plugins, setPlugins] = useState<Plugin[] | null>(null);
  const [pluginId, setPluginId] = useState('');
  const [type, setType] = useState<EventKind | ''>('');
  const [instances, setInstances] = useState<PluginInstance[]>([]);
  const [instanceId, setInstanceId] = useState('');
  /** The plugin whose instances are in `instances` (null while they load). */
  const [instancesOf, setInstancesOf] = useState<string | null>(null);
  const [payload, setPayload] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const [externalEvents, setExternalEvents] = useState<ExternalEvent[]>([]);
  const [externalName, setExternalName] = useState<string | null>(null);
  const [checked, setChecked] = useState<PayloadCheck | null>(null);
  /** The real conversation the AGENT_MESSAGE_RECEIVED sample is about ('none' when the agent has no character; null while it opens). */
  const [conversation, setConversation] = useState<SampleConversation | 'none' | null>(null);
  /** The instance's logged install, resent for PLUGIN_INSTALLED ('none' when the log has none; null while it loads). */
  const [install, setInstall] = useState<{ instanceId: string; delivery: Delivery | null } | null>(
    null,
  );
  /** The person chose to send a sample token although the install cannot be resent. */
  const [sampleTokenConfirmed, setSampleTokenConfirmed] = useState(false);

  useEffect(() => {
    const { orgId } = currentWorkspace();
    if (!orgId) {
      setPlugins([]);
      return;
    }
    call<Plugin[]>('api', 'GET', `/orgs/${encodeURIComponent(orgId)}/plugins?@limit=100`).then(
      (answer) => {
        setPlugins(answer.data);
        // Opens on a plugin it can send to: a verified webhook first, then any webhook URL.
        const first =
          answer.data.find((p) => p.webhookUrl && p.webhookUrlIsVerified) ??
          answer.data.find((p) => p.webhookUrl) ??
          answer.data[0];
        if (first) setPluginId((current) => current || first.id);
      },
      (e) => {
        setPlugins([]);
        setError(e);
      },
    );
  }, []);

  const plugin = useMemo(
    () => plugins?.find((p) => p.id === pluginId) ?? null,
    [plugins, pluginId],
  );

  useEffect(() => {
    setInstances([]);
    setInstanceId('');
    setExternalEvents([]);
    setExternalName(null);
    if (!plugin) return;
    call<ExternalEvent[]>(
      'api',
      'GET',
      `/plugins/${encodeURIComponent(plugin.id)}/external-events?@limit=100`,
    ).then((answer) => setExternalEvents(answer.data), setError);
    // Each plugin opens on an event it subscribes to (never on a sample install: see defaultEventOf).
    setType(defaultEventOf(plugin));
    call<PluginInstance[]>(
      'admin',
      'GET',
      `/instances?pluginId=${encodeURIComponent(plugin.id)}&@limit=100`,
    ).then((answer) => {
      setInstances(answer.data);
      setInstancesOf(plugin.id);
      if (answer.data[0]) setInstanceId(answer.data[0].id);
    }, setError);
  }, [plugin]);

  const instance = instances.find((i) => i.id === instanceId) ?? null;
  const external =
    externalName === null ? null : (externalEvents.find((e) => e.name === externalName) ?? null);
  const needsInstance = !external && type !== '' && type !== 'WEBHOOK_CHALLENGE';
  const aboutMessage =
    !external && type === 'AGENT_MESSAGE_RECEIVED' && instance?.entityType === 'AGENT';
  // A message event is about a real conversation of the instance's agent, opened for the sample.
  useEffect(() => {
    setConversation(null);
    if (!aboutMessage || !instance) return;
    let current = true;
    openSampleConversation(instance).then(
      (opened) => {
        if (current) setConversation(opened ?? 'none');
      },
      (e) => {
        if (!current) return;
        setConversation('none');
        setError(e);
      },
    );
    return () => {
      current = false;
    };
  }, [aboutMessage, instance]);
  // PLUGIN_INSTALLED about an instance is a resend of its logged install, as `plugsmith trigger` does.
  const aboutInstall = !external && type === 'PLUGIN_INSTALLED' && instance !== null;
  useEffect(() => {
    setInstall(null);
    setSampleTokenConfirmed(false);
    if (!aboutInstall || !instance) return;
    let current = true;
    loggedInstall(instance.id).then(
      (delivery) => {
        if (current) setInstall({ instanceId: instance.id, delivery });
      },
      (e) => {
        if (!current) return;
        setInstall({ instanceId: instance.id, delivery: null });
        setError(e);
      },
    );
    return () => {
      current = false;
    };
  }, [aboutInstall, instance]);
  const resendOf = aboutInstall && install?.instanceId === instance?.id ? install.delivery : null;
  const installReady = !aboutInstall || install?.instanceId === instance?.id;
  const sampleToken = aboutInstall && installReady && resendOf === null;
  const conversationReady = (!aboutMessage || conversation !== null) && installReady;
  const sampleExtra =
    aboutMessage && conversation !== null && conversation !== 'none'
      ? { characterId: conversation.characterId, conversationId: conversation.conversationId }
      : {};
  /** The payload the editor starts from: an external event's example from its payloadSchema, or the event's sample. */
  const freshPayload = (): string | null => {
    if (external) return JSON.stringify(exampleOf(external.payloadSchema), null, 2);
    if (resendOf) return JSON.stringify(eventData(resendOf), null, 2);
    if (!plugin || !type) return null;
    return JSON.stringify(
      samplePayload(type, plugin, needsInstance ? instance : null, sampleExtra),
      null,
      2,
    );
  };
  // A new plugin, event or instance starts from a fresh sample.
  // biome-ignore lint/correctness/useExhaustiveDependencies: freshPayload is rebuilt on each render: a new plugin, event, instance or external event starts a fresh sample
  useEffect(() => {
    const fresh = freshPayload();
    if (fresh === null) return;
    setPayload(fresh);
    setError(null);
    setChecked(null);
  }, [plugin, type, instance, external, conversation, resendOf]);

  const choose = (value: string) => {
    setChecked(null);
    if (value.startsWith(EXTERNAL)) {
      setExternalName(value.slice(EXTERNAL.length));
      return;
    }
    setExternalName(null);
    const kind = plugin ? eventsOf(plugin).find((k) => k === value) : undefined;
    if (kind) setType(kind);
  };

  const send = async () => {
    if (external) {
      // Nothing is sent: the platform does not emit external events to plugins.
      setError(null);
      setChecked(checkExternalPayload(external, payload));
      return;
    }
    if (!plugin || !type) return;
    setError(null);
    if (resendOf) {
      setSending(true);
      try {
        const answer = await call<Delivery>(
          'admin',
          'POST',
          `/deliveries/${encodeURIComponent(resendOf.id)}/redeliver`,
        );
        navigate('deliveries', answer.data.id);
      } catch (e) {
        setError(e);
      } finally {
        setSending(false);
      }
      return;
    }
    let data: Record<string, unknown>;
    try {
      data = checkPayload(type, payload);
    } catch (e) {
      setError(e);
      return;
    }
    setSending(true);
    try {
      const answer = await call<Delivery>('admin', 'POST', '/events', {
        type,
        pluginId: plugin.id,
        ...(needsInstance && instance ? { pluginInstanceId: instance.id } : {}),
        data,
        mode: 'SYNC',
      });
      navigate('deliveries', answer.data.id);
    } catch (e) {
      setError(e);
    } finally {
      setSending(false);
    }
  };

  if (plugins === null) return <p className="muted">Loading plugins…</p>;
  return (
    <div className="tr-form">
      <h1 className="dl-title">Trigger an event</h1>
      {plugins.length === 0 ? (
        <p className="muted">
          No plugins yet, so nothing to send an event to: create one with{' '}
          <code>plugsmith plugins create</code> or in <a href="#/data/plugins">Data → Plugins</a>{' '}
          (or start a project with <code>plugsmith init</code> and run <code>plugsmith dev</code>),
          then verify its webhook on <a href="#/install">Verify &amp; install</a>.
        </p>
      ) : (
        <form
          className="tr-form"
          aria-label="Trigger an event"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <div className="toolbar">
            <label>
              Plugin
              <select
                aria-label="Plugin"
                value={pluginId}
                onChange={(e) => setPluginId(e.target.value)}
              >
                {plugins.map((p) => (
                  <option key={p.id} value={p.id}>
                    {isolated(p.name)} ({p.id})
                  </option>
                ))}
              </select>
            </label>
            <label>
              Event kind
              <select
                aria-label="Event kind"
                value={external ? EXTERNAL + external.name : type}
                onChange={(e) => choose(e.target.value)}
              >
                <optgroup label="Platform events">
                  {plugin &&
                    eventsOf(plugin).map((k) => (
                      <option key={k} value={k}>
                        {k}
                      </option>
                    ))}
                </optgroup>
                {externalEvents.length > 0 && (
                  <optgroup label="External events (check the payload only)">
                    {externalEvents.map((e) => (
                      <option key={e.id} value={EXTERNAL + e.name}>
                        {isolated(e.name)} ({isolated(e.title)})
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
            </label>
            {needsInstance && (
              <label>
                Instance
                <select
                  aria-label="Instance"
                  value={instanceId}
                  onChange={(e) => setInstanceId(e.target.value)}
                  disabled={instances.length === 0}
                >
                  {instances.length === 0 && (
                    <option value="">none: install the plugin first</option>
                  )}
                  {instances.map((i) => (
                    <option key={i.id} value={i.id}>
                      {isolated(i.name)} ({i.id}, {i.entityType.toLowerCase()} {i.entityId})
                    </option>
                  ))}
                </select>
              </label>
            )}
          </div>
          {needsInstance && plugin && instancesOf === plugin.id && instances.length === 0 && (
            <p className="status-warn">
              This event acts on an installed instance, and the plugin has none yet: install it on{' '}
              <a href={`#/install/${encodeURIComponent(plugin.id)}`}>Verify &amp; install</a> first
              (installing sends a real PLUGIN_INSTALLED).
            </p>
          )}
          {external ? (
            <p className="muted" id="tr-external-note">
              {external.description ? (
                <>
                  <bdi>{external.description}</bdi>{' '}
                </>
              ) : (
                ''
              )}
              An external event is raised by your integration, not by the platform: the platform
              does not emit external events to plugins, so nothing is sent from here. Use this to
              check the payloads your integration will send against the event's payloadSchema
              {external.payloadSchema ? '' : ' (it has none: any JSON object fits)'}.
            </p>
          ) : (
            type && <p className="muted">{SAMPLE_EVENTS[type].description}</p>
          )}
          {aboutMessage && conversation !== null && conversation !== 'none' && (
            <p className="muted">
              The sample is about conversation <code>{conversation.conversationId}</code>, opened
              with character <code>{conversation.characterId}</code> of agent{' '}
              <code>{String(instance?.entityId)}</code>, so the plugin's reply into it finds it.
            </p>
          )}
          {aboutMessage && conversation === 'none' && (
            <p className="status-warn">
              Agent <code>{String(instance?.entityId)}</code> has no character, so the sample names
              a conversation that does not exist and the plugin's reply will fail: create a
              character in <a href="#/data/characters">Data → Characters</a> first.
            </p>
          )}
          {resendOf && (
            <p className="muted" id="tr-install-note">
              Sending resends instance <code>{instance?.id}</code>'s install (delivery{' '}
              <a href={`#/deliveries/${encodeURIComponent(resendOf.id)}`}>{resendOf.id}</a>): the
              same event and installation token the plugin was given, as{' '}
              <code>plugsmith trigger PLUGIN_INSTALLED</code> does; no instance is added. The
              payload below is that event's, and cannot be edited.
            </p>
          )}
          {sampleToken && (
            <div className="status-warn" id="tr-install-note">
              <p>
                Instance <code>{instance?.id}</code>'s install is not in the delivery log (the store
                was imported or reset?), so its token cannot be sent again. The sample below carries
                a sample installation token: a plugin that keeps it fails every later call to the
                platform (401) until it is installed again. Uninstall and install it again on{' '}
                <a href={`#/install/${encodeURIComponent(plugin?.id ?? '')}`}>
                  Verify &amp; install
                </a>{' '}
                instead.
              </p>
              <label>
                <input
                  type="checkbox"
                  checked={sampleTokenConfirmed}
                  onChange={(e) => setSampleTokenConfirmed(e.target.checked)}
                />{' '}
                Send the sample token anyway
              </label>
            </div>
          )}
          {plugin && !external && !plugin.webhookUrl && (
            <p className="status-warn">
              This plugin has no webhook URL: set one before triggering.
            </p>
          )}
          <label>
            Payload (the event's data, JSON)
            <textarea
              aria-label="Payload (the event's data, JSON)"
              className="tr-payload mono"
              value={payload}
              readOnly={resendOf !== null}
              onChange={(e) => {
                setPayload(e.target.value);
                setChecked(null);
              }}
              spellCheck={false}
            />
          </label>
          <ErrorBox error={error} />
          {checked?.valid === true && (
            <p role="status" className="status-ok">
              Valid: the payload matches the payloadSchema of <bdi>{external?.name}</bdi>.
            </p>
          )}
          {checked?.valid === false && (
            <div className="error" role="alert">
              <strong>
                The payload does not match the payloadSchema of <bdi>{external?.name}</bdi>
              </strong>
              <ul>
                {checked.problems.map((p, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: one check's problems, rendered whole and never reordered
                  <li key={i}>
                    {p.path.length > 0 ? <code>{p.path.join('.')}</code> : null} {p.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <div className="toolbar">
            {external ? (
              <button type="submit" className="primary" aria-describedby="tr-external-note">
                Check payload
              </button>
            ) : (
              <button
                type="submit"
                className="primary"
                aria-describedby={aboutInstall ? 'tr-install-note' : undefined}
                disabled={
                  sending ||
                  !conversationReady ||
                  !plugin ||
                  !type ||
                  (needsInstance && !instance) ||
                  (sampleToken && !sampleTokenConfirmed)
                }
              >
                {sending
                  ? 'Sending…'
                  : !installReady
                    ? 'Reading the install…'
                    : resendOf
                      ? 'Resend the install'
                      : conversationReady
                        ? 'Send event'
                        : 'Opening a conversation…'}
              </button>
            )}
            <button
              type="button"
              onClick={() => {
                const fresh = freshPayload();
                if (fresh !== null) setPayload(fresh);
                setChecked(null);
              }}
            >
              Reset payload
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
