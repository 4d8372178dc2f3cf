import { useState } from 'react';
import type { WebhookSecretRotation } from '#contract';
import { call } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorBox } from '../components/error-box.js';
import { when } from '../format.js';
import type { DataRecord } from './data-collection.js';

/**
 * A plugin's webhook signing secret: hidden until revealed, copyable, and rotated with a grace
 * period during which the previous secret still signs (POST /api/plugins/:id/webhook-secret/rotate,
 * what `plugsmith plugins secret rotate` calls).
 */
export function WebhookSecret({
  plugin,
  onRotated,
}: {
  plugin: DataRecord;
  onRotated: (record: DataRecord) => void;
}) {
  const [revealed, setRevealed] = useState(false);
  const [grace, setGrace] = useState('86400');
  const [confirming, setConfirming] = useState(false);
  const [rotation, setRotation] = useState<WebhookSecretRotation | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const secret = typeof plugin.webhookSecret === 'string' ? plugin.webhookSecret : null;
  if (secret === null) return null;
  const rotate = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await call<WebhookSecretRotation>(
        'api',
        'POST',
        `/plugins/${encodeURIComponent(String(plugin.id))}/webhook-secret/rotate`,
        { graceSeconds: Number(grace) },
      );
      setRotation(answer.data);
      onRotated({ ...plugin, webhookSecret: answer.data.webhookSecret });
      setConfirming(false);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="secret-panel" aria-label="Webhook secret">
      <h3>Webhook secret</h3>
      <p>
        <code data-testid="webhook-secret">{revealed ? secret : 'whsec_••••••••••••'}</code>{' '}
        <button type="button" onClick={() => setRevealed((r) => !r)} aria-pressed={revealed}>
          {revealed ? 'Hide secret' : 'Reveal secret'}
        </button>{' '}
        <CopyButton text={secret} label="Copy secret" />
      </p>
      <div className="toolbar">
        <label>
          Grace period (seconds the previous secret still signs)
          <input
            aria-label="Grace period in seconds"
            type="number"
            min={0}
            max={604800}
            value={grace}
            onChange={(e) => setGrace(e.target.value)}
          />
        </label>
        {!confirming ? (
          <button type="button" onClick={() => setConfirming(true)}>
            Rotate secret…
          </button>
        ) : (
          <>
            <button type="button" className="danger" disabled={busy} onClick={rotate}>
              Confirm: rotate the secret
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        )}
      </div>
      {rotation && (
        <p role="status">
          Rotated.{' '}
          {rotation.previousSecretExpiresAt
            ? `The previous secret signs too until ${when(rotation.previousSecretExpiresAt)}.`
            : 'The previous secret no longer signs.'}{' '}
          Update your plugin's secret.
        </p>
      )}
      <ErrorBox error={error} />
    </section>
  );
}
