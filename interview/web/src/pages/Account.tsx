import { useState } from 'react';
import { api } from '../api';
import { ApiError, type User } from '../api/types';

// The account page: change the password (every other device is signed out),
// sign out everywhere, delete the account. Errors here are shown on the
// page: a wrong password is a 403, and the page stays signed in.
export function AccountPage({ user, minPassword, onSignedOut }: { user: User; minPassword: number; onSignedOut: (notice: string) => void }) {
  return (
    <section className="narrow account">
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{user.fullName}</strong> ({user.email}){user.hasPassword ? '' : ', with Google'}.
      </p>
      {user.hasPassword && <ChangePassword minPassword={minPassword} />}
      <SignOutEverywhere onSignedOut={onSignedOut} />
      <DeleteAccount user={user} onSignedOut={onSignedOut} />
    </section>
  );
}

function message(err: unknown, fallback: string): string {
  return err instanceof ApiError ? err.message : fallback;
}

function ChangePassword({ minPassword }: { minPassword: number }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setError('');
    setDone(false);
    if (next !== confirm) {
      setError('The new password and its confirmation differ. Type the same password twice.');
      return;
    }
    setBusy(true);
    try {
      await api.changePassword(current, next);
      setCurrent('');
      setNext('');
      setConfirm('');
      setDone(true);
    } catch (err) {
      setError(message(err, 'The password could not be changed. Try again.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <label>
        Current password
        <input type="password" name="currentPassword" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      </label>
      <label>
        New password
        <input type="password" name="newPassword" autoComplete="new-password" required minLength={minPassword} value={next} onChange={(e) => setNext(e.target.value)} aria-describedby="new-password-hint" />
      </label>
      <label>
        Confirm new password
        <input type="password" name="confirmPassword" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
      </label>
      <p id="new-password-hint" className="hint">
        At least {minPassword} characters, and not one of the most common passwords. Every other device signed in to this account is signed out; this one stays signed in.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {done && (
        <p className="info" role="status">
          Your password was changed. Other devices are signed out.
        </p>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {busy ? 'Changing…' : 'Change password'}
      </button>
    </form>
  );
}

function SignOutEverywhere({ onSignedOut }: { onSignedOut: (notice: string) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function signOut() {
    setBusy(true);
    setError('');
    try {
      await api.logoutAll();
      onSignedOut('You were signed out on every device, this one included. Sign in again to continue.');
    } catch (err) {
      setError(message(err, 'Could not sign out everywhere. Try again.'));
      setBusy(false);
    }
  }

  return (
    <div className="card" role="group" aria-labelledby="everywhere-title">
      <h2 id="everywhere-title">Sign out everywhere</h2>
      <p>Ends every session of this account, on this device and all others, for example after using a shared computer.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="button" onClick={signOut} disabled={busy}>
        {busy ? 'Signing out…' : 'Sign out everywhere'}
      </button>
    </div>
  );
}

function DeleteAccount({ user, onSignedOut }: { user: User; onSignedOut: (notice: string) => void }) {
  const [password, setPassword] = useState('');
  const [sure, setSure] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api.deleteAccount(password);
      onSignedOut('Your account and its interviews were deleted.');
    } catch (err) {
      setError(message(err, 'The account could not be deleted. Try again.'));
      setBusy(false);
    }
  }

  return (
    <form className="card danger" onSubmit={submit} aria-labelledby="delete-title">
      <h2 id="delete-title">Delete your account</h2>
      <p>Deletes the account and every interview in it, finished or not. This cannot be undone.</p>
      {user.hasPassword ? (
        <label>
          Password
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
      ) : (
        <p className="hint">This account signs in with Google. If you signed in more than 10 minutes ago, sign out and sign in with Google again first.</p>
      )}
      <label className="choice">
        <input type="checkbox" checked={sure} onChange={(e) => setSure(e.target.checked)} />
        I understand that my interviews will be deleted
      </label>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="danger" disabled={busy || !sure}>
        {busy ? 'Deleting…' : 'Delete my account'}
      </button>
    </form>
  );
}
