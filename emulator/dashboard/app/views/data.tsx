import { currentWorkspace } from '../api.js';
import { navigate } from '../use-hash-route.js';
import type { ViewProps } from '../view-props.js';
import { CollectionList } from './data-collection.js';
import { COLLECTIONS } from './data-collections.js';

/**
 * The Data page (`#/data/<collection>/<recordId>`): every collection of the emulator in one
 * generic list-and-record view, each through the API that owns it.
 */
export function StoreDataView({ params }: ViewProps) {
  const config = COLLECTIONS.find((c) => c.key === params[0]) ?? COLLECTIONS[0];
  const orgId = currentWorkspace().orgId;
  return (
    <div>
      <h1 className="visually-hidden">Data</h1>
      <nav className="tabs" aria-label="Collections">
        {COLLECTIONS.map((c) => (
          <a key={c.key} href={`#/data/${c.key}`} aria-current={c === config ? 'page' : undefined}>
            {c.label}
          </a>
        ))}
      </nav>
      {orgId === null ? (
        <p className="muted">
          The workspace has no org: start the emulator with a seed that gives its user one.
        </p>
      ) : (
        <CollectionList
          key={config.key}
          config={config}
          ctx={{ orgId }}
          selectedId={params[1] ?? null}
          onSelect={(id) =>
            id === null ? navigate('data', config.key) : navigate('data', config.key, id)
          }
        />
      )}
    </div>
  );
}
