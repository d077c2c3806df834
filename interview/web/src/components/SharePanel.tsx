import { useState } from 'react';
import { api } from '../api';
import { ApiError } from '../api/types';

// Share a report by a read-only link. The server keeps only a digest of a
// link's token, so a link is shown once, when it is made; after a reload
// the page can only make a new one (the old one stops working) or stop
// sharing.
export function SharePanel({ id, shared }: { id: string; shared: boolean }) {
  const [exists, setExists] = useState(shared);
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');

  async function run(what: () => Promise<void>, fallback: string) {
    setBusy(true);
    setError('');
    setStatus('');
    try {
      await what();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : fallback);
    } finally {
      setBusy(false);
    }
  }

  const share = () =>
    run(async () => {
      const link = await api.share(id);
      setUrl(link.url);
      setExists(true);
      setStatus('Anyone with this link can read this report, without an account. It shows no email and nothing else of yours.');
    }, 'The link could not be created. Try again.');

  const stop = () =>
    run(async () => {
      await api.unshare(id);
      setUrl('');
      setExists(false);
      setStatus('Sharing stopped: the link no longer works.');
    }, 'Sharing could not be stopped. Try again.');

  async function copy() {
    try {
      await navigator.clipboard.writeText(url);
      setStatus('Link copied.');
    } catch {
      setStatus('Select the link and copy it.');
    }
  }

  return (
    <section className="card share no-print" aria-labelledby="share-title">
      <h2 id="share-title">Share this report</h2>
      {url ? (
        <p className="share-link">
          <label htmlFor="share-url">Read-only link</label>
          <input id="share-url" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={copy}>
            Copy link
          </button>
        </p>
      ) : exists ? (
        <p>A link to this report exists. It cannot be shown again; make a new one (the old one stops working) or stop sharing.</p>
      ) : (
        <p>
          Make a read-only link to show this report to a mentor or a friend: the role, your answers and the feedback on each. Nothing else of yours, not your name
          or email. They need no account; you can withdraw the link at any time.
        </p>
      )}
      <p className="share-actions">
        <button type="button" className={exists ? '' : 'primary'} onClick={share} disabled={busy}>
          {exists ? 'Make a new link' : 'Create a share link'}
        </button>
        {exists && (
          <button type="button" className="danger" onClick={stop} disabled={busy}>
            Stop sharing
          </button>
        )}
      </p>
      <p role="status" className="info-line">
        {status}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
