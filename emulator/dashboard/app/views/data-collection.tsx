import { useEffect, useRef, useState, type ReactNode } from 'react';
import { call, type Target } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { JsonView } from '../components/json-view.js';
import { CopyButton } from '../components/copy-button.js';
import { SORT_ORDERS, type SortOrder } from '#contract/enum-values';
import {
  initialListState,
  listQuery,
  withQuery,
  type ListState,
  type PageInfo,
} from './data-query.js';
import { isolated, when } from '../format.js';
import './data-views.css';

/** A record of any collection: what the API answered, with its id. */
export type DataRecord = Record<string, unknown> & { id: string };

/** Where a list is: the workspace's org and, for a nested list, the record it belongs to. */
export interface DataContext {
  orgId: string;
  parent?: DataRecord;
}

/** One column of a list's table. */
export interface Column {
  field: string;
  label: string;
  render?: (record: DataRecord) => ReactNode;
}

/** A property filter of a list: free text, or a choice among `options`. */
export interface FilterField {
  field: string;
  label: string;
  options?: string[];
}

/**
 * What the generic list and record views need to know of one collection: where it is listed (on
 * the emulator's query system), its columns, sort fields and filters, and how the same API creates,
 * edits and deletes its records (each optional: only what the API allows).
 */
export interface CollectionConfig {
  key: string;
  label: string;
  noun: string;
  target: Target;
  listPath: (ctx: DataContext) => string;
  paging?: 'index' | 'cursor';
  defaultSort?: string;
  defaultOrder?: SortOrder;
  sortFields: string[];
  filters: FilterField[];
  columns: Column[];
  /** Said above the list (where the records come from). */
  note?: string;
  /** Said when the list is empty (no search or filter set): how records get here, the next step named. */
  empty?: (ctx: DataContext) => ReactNode;
  create?: {
    target?: Target;
    path: (ctx: DataContext) => string;
    template: (ctx: DataContext) => Record<string, unknown>;
    /** A field of the answer that holds a secret shown only this once (a new token or API key). */
    secretField?: string;
    label?: string;
  };
  edit?: {
    target?: Target;
    method: 'PUT' | 'PATCH';
    path: (record: DataRecord, ctx: DataContext) => string;
    /** The fields the editor starts with (the ones the API lets change). */
    fields: string[];
    /** Fields sent even when unchanged (the endpoint requires them); every other field goes out only when edited. */
    always?: string[];
    toBody?: (draft: Record<string, unknown>, record: DataRecord) => unknown;
  };
  remove?: {
    target?: Target;
    path: (record: DataRecord, ctx: DataContext) => string;
    label?: string;
  };
  children?: CollectionConfig[];
  /** Fields kept out of the JSON view and its copy (a webhook secret): the record's `extra` reveals them on request. */
  masked?: string[];
  /** More of a record's panel (a plugin's webhook secret: reveal, rotate); `onRecord` takes its new state. */
  extra?: (record: DataRecord, onRecord: (record: DataRecord) => void) => ReactNode;
}

/** A cell's text: strings as they are, everything else as compact JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  // One date format across the dashboard, with the time since.
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return when(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Parses a JSON editor's text into an object, or says what is wrong with it. */
function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`Not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('The body must be a JSON object');
  return value as Record<string, unknown>;
}

interface ListProps {
  config: CollectionConfig;
  ctx: DataContext;
  /** Given for a page-level list (the selection is in the URL); nested lists keep their own. */
  selectedId?: string | null;
  onSelect?: (id: string | null) => void;
}

/**
 * The one list-and-record view of every collection of the Data page: the list on the emulator's
 * query system (sort, filters, search, index or cursor paging), a record as formatted JSON, and
 * create, edit and delete through the same API, with its errors and their details shown inline.
 */
export function CollectionList({ config, ctx, selectedId, onSelect }: ListProps) {
  const paging = config.paging ?? 'index';
  const [state, setState] = useState<ListState>(() =>
    initialListState(config.defaultSort ?? 'createdAt', config.defaultOrder ?? 'desc'),
  );
  const [records, setRecords] = useState<DataRecord[]>([]);
  const [pageInfo, setPageInfo] = useState<PageInfo | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [reload, setReload] = useState(0);
  const [ownSelection, setOwnSelection] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const selected = onSelect ? (selectedId ?? null) : ownSelection;
  const select = onSelect ?? setOwnSelection;
  const parentId = ctx.parent?.id;

  // biome-ignore lint/correctness/useExhaustiveDependencies: ctx and config are rebuilt by each render of the parent: the collection's key, the parent's id, the org, the list state and a reload say when to fetch again
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    call<DataRecord[]>(
      config.target,
      'GET',
      withQuery(config.listPath(ctx), listQuery(state, paging)),
      undefined,
      controller.signal,
    ).then(
      (answer) => {
        setRecords(answer.data);
        setPageInfo((answer.meta?.pagination as PageInfo | undefined) ?? null);
        setError(null);
        setLoading(false);
      },
      (failure) => {
        if (controller.signal.aborted) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [config.key, parentId, ctx.orgId, state, reload]);

  const change = (patch: Partial<ListState>) =>
    setState((s) => ({ ...s, page: 1, cursors: [''], ...patch }));
  const narrowed = state.search !== '' || Object.values(state.filters).some((v) => v !== '');
  const label = config.label;
  return (
    <section className="collection" aria-label={label}>
      {config.note && <p className="muted">{config.note}</p>}
      <div className="toolbar">
        <label>
          Search {label.toLowerCase()}
          <input
            type="search"
            value={state.search}
            onChange={(e) => change({ search: e.target.value })}
          />
        </label>
        <label>
          Sort {label.toLowerCase()} by
          <select value={state.sortBy} onChange={(e) => change({ sortBy: e.target.value })}>
            {config.sortFields.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </label>
        <label>
          Order of {label.toLowerCase()}
          <select
            value={state.sortOrder}
            onChange={(e) =>
              change({ sortOrder: SORT_ORDERS.find((o) => o === e.target.value) ?? 'desc' })
            }
          >
            <option value="desc">descending</option>
            <option value="asc">ascending</option>
          </select>
        </label>
        {config.filters.map((f) => (
          // biome-ignore lint/a11y/noLabelWithoutControl: the label holds its control, a <select> or an <input> below
          <label key={f.field}>
            {f.label}
            {f.options ? (
              <select
                value={state.filters[f.field] ?? ''}
                onChange={(e) =>
                  change({ filters: { ...state.filters, [f.field]: e.target.value } })
                }
              >
                <option value="">any</option>
                {f.options.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : (
              <input
                value={state.filters[f.field] ?? ''}
                onChange={(e) =>
                  change({ filters: { ...state.filters, [f.field]: e.target.value } })
                }
              />
            )}
          </label>
        ))}
        <label>
          {label} per page
          <select value={state.limit} onChange={(e) => change({ limit: Number(e.target.value) })}>
            {[10, 20, 50, 100].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          Refresh {label.toLowerCase()}
        </button>
        {config.create && (
          <button type="button" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
            {config.create.label ?? `New ${config.noun}`}
          </button>
        )}
      </div>
      {creating && config.create && (
        <CreatePanel
          config={config}
          ctx={ctx}
          onCreated={(record) => {
            setReload((n) => n + 1);
            if (record) select(record.id);
          }}
        />
      )}
      <ErrorBox error={error} />
      <table aria-busy={loading}>
        <caption className="visually-hidden">{label}</caption>
        <thead>
          <tr>
            {config.columns.map((c) => (
              <th key={c.field} scope="col">
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr
              key={record.id}
              aria-selected={record.id === selected}
              className={record.id === selected ? 'selected' : undefined}
            >
              {config.columns.map((c, i) => (
                <td key={c.field}>
                  {i === 0 ? (
                    <button
                      type="button"
                      className="link"
                      onClick={() => select(record.id === selected ? null : record.id)}
                      aria-label={`Open ${config.noun} ${isolated(cellText(record[c.field]))}`}
                    >
                      {c.render ? c.render(record) : <bdi>{cellText(record[c.field])}</bdi>}
                    </button>
                  ) : c.render ? (
                    c.render(record)
                  ) : (
                    <bdi>{cellText(record[c.field])}</bdi>
                  )}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {/* Below the table rather than in a row: a wide table scrolls sideways in its box, and the sentence must not scroll with it. */}
      {!loading && records.length === 0 && !error && (
        <p className="muted empty">
          {narrowed ? (
            <>
              No {label.toLowerCase()} match.{' '}
              <button
                type="button"
                className="link"
                onClick={() => change({ search: '', filters: {} })}
              >
                Clear the search and filters
              </button>
            </>
          ) : (
            (config.empty?.(ctx) ?? `No ${label.toLowerCase()} yet.`)
          )}
        </p>
      )}
      <Pager label={label} info={pageInfo} state={state} setState={setState} />
      {selected && (
        <RecordPanel
          key={selected}
          config={config}
          ctx={ctx}
          id={selected}
          onChanged={() => setReload((n) => n + 1)}
          onClose={() => select(null)}
        />
      )}
    </section>
  );
}

function Pager({
  label,
  info,
  state,
  setState,
}: {
  label: string;
  info: PageInfo | null;
  state: ListState;
  setState: (update: (s: ListState) => ListState) => void;
}) {
  if (!info) return null;
  const nav = (children: ReactNode) => (
    <nav className="pager" aria-label={`Pages of ${label.toLowerCase()}`}>
      {children}
    </nav>
  );
  if (info.type === 'index') {
    return nav(
      <>
        <button
          type="button"
          disabled={!info.hasPrev}
          onClick={() => setState((s) => ({ ...s, page: s.page - 1 }))}
        >
          Previous page
        </button>
        <span>
          Page {info.page} of {Math.max(info.totalPages, 1)} ({info.total} in all)
        </span>
        <button
          type="button"
          disabled={!info.hasNext}
          onClick={() => setState((s) => ({ ...s, page: s.page + 1 }))}
        >
          Next page
        </button>
      </>,
    );
  }
  return nav(
    <>
      <button
        type="button"
        disabled={state.cursors.length <= 1}
        onClick={() => setState((s) => ({ ...s, cursors: s.cursors.slice(0, -1) }))}
      >
        Previous page
      </button>
      <span>Page {state.cursors.length} (cursor paging)</span>
      <button
        type="button"
        disabled={!info.hasNext || info.nextCursor === null}
        onClick={() => setState((s) => ({ ...s, cursors: [...s.cursors, info.nextCursor ?? ''] }))}
      >
        Next page
      </button>
    </>,
  );
}

function CreatePanel({
  config,
  ctx,
  onCreated,
}: {
  config: CollectionConfig;
  ctx: DataContext;
  onCreated: (record: DataRecord | null) => void;
}) {
  const create = config.create!;
  const [text, setText] = useState(() => JSON.stringify(create.template(ctx), null, 2));
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<DataRecord | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    setBusy(true);
    try {
      const answer = await call<DataRecord>(
        create.target ?? config.target,
        'POST',
        create.path(ctx),
        parseObject(text),
      );
      setError(null);
      setCreated(answer.data);
      onCreated(answer.data && typeof answer.data.id === 'string' ? answer.data : null);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const secret = created && create.secretField ? created[create.secretField] : undefined;
  return (
    <div className="panel editor">
      <label className="block">
        New {config.noun} (JSON body of POST {create.path(ctx)})
        <textarea
          rows={Math.min(16, text.split('\n').length + 1)}
          value={text}
          onChange={(e) => setText(e.target.value)}
          spellCheck={false}
        />
      </label>
      <div className="toolbar">
        <button type="button" className="primary" disabled={busy} onClick={submit}>
          Create {config.noun}
        </button>
      </div>
      <ErrorBox error={error} />
      {typeof secret === 'string' && (
        <p role="status" className="secret">
          Created. The secret is shown this once: <code>{secret}</code>{' '}
          <CopyButton text={secret} label={`Copy the new ${config.noun}`} />
        </p>
      )}
      {created && typeof secret !== 'string' && (
        <p role="status" className="status-ok">
          Created {config.noun} {created.id}.
        </p>
      )}
    </div>
  );
}

function pick(record: DataRecord, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.filter((f) => record[f] !== undefined).map((f) => [f, record[f]]),
  );
}

/** One record: its JSON, its editor and delete button (when the API allows them), and its nested lists. */
function RecordPanel({
  config,
  ctx,
  id,
  onChanged,
  onClose,
}: {
  config: CollectionConfig;
  ctx: DataContext;
  id: string;
  onChanged: () => void;
  onClose: () => void;
}) {
  const [record, setRecord] = useState<DataRecord | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [missing, setMissing] = useState(false);
  const [draft, setDraft] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const [deleted, setDeleted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const editor = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const editing = draft !== null;
  const wasEditing = useRef(false);
  // The editor takes the focus and comes into view when it opens; the Edit button gets it back when it closes.
  useEffect(() => {
    if (editing && !wasEditing.current) {
      editor.current?.focus({ preventScroll: true });
      editor.current?.scrollIntoView({ block: 'nearest' });
    }
    if (!editing && wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: config is rebuilt by each render of the parent: its key and the id say which record to fetch
  useEffect(() => {
    const controller = new AbortController();
    // Every list filters by id: one record through the same list endpoint, whatever the collection.
    call<DataRecord[]>(
      config.target,
      'GET',
      withQuery(config.listPath(ctx), new URLSearchParams({ id }).toString()),
      undefined,
      controller.signal,
    ).then(
      (answer) => {
        if (answer.data.length === 0) setMissing(true);
        else setRecord(answer.data[0]);
      },
      (failure) => {
        if (!controller.signal.aborted) setLoadError(failure);
      },
    );
    return () => controller.abort();
  }, [config.key, id]);

  const heading = `${config.noun[0].toUpperCase()}${config.noun.slice(1)} ${id}`;
  const shown =
    record && config.masked
      ? Object.fromEntries(
          Object.entries(record).map(([k, v]) => [
            k,
            config.masked!.includes(k) && typeof v === 'string'
              ? '•••••••• (hidden: Reveal below)'
              : v,
          ]),
        )
      : record;
  const save = async () => {
    if (!record || !config.edit || draft === null) return;
    setBusy(true);
    try {
      const edited = parseObject(draft);
      // Only what changed goes out (and what the endpoint always needs): a field sent back unchanged
      // can still mean something to the API (a webhookUrl was once re-verified whenever present).
      const original = pick(record, config.edit.fields);
      const body = Object.fromEntries(
        Object.entries(edited).filter(
          ([field, value]) =>
            config.edit!.always?.includes(field) ||
            JSON.stringify(value) !== JSON.stringify(original[field]),
        ),
      );
      if (Object.keys(body).filter((f) => !config.edit!.always?.includes(f)).length === 0) {
        setDraft(null);
        setActionError(null);
        setNotice(`Nothing changed: ${config.noun} ${id} was not saved.`);
        return;
      }
      setNotice(null);
      const answer = await call<DataRecord>(
        config.edit.target ?? config.target,
        config.edit.method,
        config.edit.path(record, ctx),
        config.edit.toBody ? config.edit.toBody(body, record) : body,
      );
      setRecord({ ...record, ...answer.data });
      setDraft(null);
      setActionError(null);
      setNotice(`Saved ${Object.keys(body).join(', ')}.`);
      onChanged();
    } catch (failure) {
      setActionError(failure);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    if (!record || !config.remove) return;
    setBusy(true);
    try {
      await call(config.remove.target ?? config.target, 'DELETE', config.remove.path(record, ctx));
      setDeleted(true);
      setActionError(null);
      onChanged();
    } catch (failure) {
      setActionError(failure);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };

  return (
    <article className="panel record" aria-label={heading}>
      <div className="record-head">
        <h2>{heading}</h2>
        <button type="button" onClick={onClose} aria-label={`Close ${config.noun} ${id}`}>
          Close
        </button>
      </div>
      <ErrorBox error={loadError} />
      {missing && (
        <p className="muted">
          No {config.noun} {id} here (deleted, or not visible to the workspace).
        </p>
      )}
      {deleted && (
        <p role="status" className="status-ok">
          Deleted {config.noun} {id}.
        </p>
      )}
      {record && !deleted && (
        <>
          <JsonView value={shown} label={`${config.noun} ${id} as JSON`} />
          <div className="toolbar">
            <CopyButton text={JSON.stringify(shown, null, 2)} label={`Copy ${config.noun} JSON`} />
            {config.edit && draft === null && (
              <button
                type="button"
                ref={editButton}
                onClick={() => setDraft(JSON.stringify(pick(record, config.edit!.fields), null, 2))}
              >
                Edit {config.noun}
              </button>
            )}
            {config.remove && !confirming && (
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                {config.remove.label ?? `Delete ${config.noun}`}
              </button>
            )}
            {confirming && (
              <>
                <button type="button" className="danger" disabled={busy} onClick={remove}>
                  Confirm: {config.remove?.label?.toLowerCase() ?? `delete ${config.noun}`} {id}
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </>
            )}
          </div>
          {draft !== null && config.edit && (
            <div className="editor">
              <label className="block">
                Edit {config.noun} (JSON body of {config.edit.method}{' '}
                {config.edit.path(record, ctx)})
                <textarea
                  ref={editor}
                  rows={Math.min(20, draft.split('\n').length + 1)}
                  value={draft}
                  onChange={(e) => setDraft(e.target.value)}
                  spellCheck={false}
                />
              </label>
              <div className="toolbar">
                <button type="button" className="primary" disabled={busy} onClick={save}>
                  Save {config.noun}
                </button>
                <button
                  type="button"
                  onClick={() => {
                    setDraft(null);
                    setActionError(null);
                  }}
                >
                  Cancel edit
                </button>
              </div>
            </div>
          )}
          {notice && (
            <p role="status" className="muted">
              {notice}
            </p>
          )}
          <ErrorBox error={actionError} />
          {config.extra?.(record, setRecord)}
          {config.children?.map((child) => (
            <div key={child.key} className="child">
              <h3>{child.label}</h3>
              <CollectionList config={child} ctx={{ orgId: ctx.orgId, parent: record }} />
            </div>
          ))}
        </>
      )}
    </article>
  );
}
