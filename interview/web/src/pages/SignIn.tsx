import { useEffect, useRef, useState } from 'react';
import { api } from '../api';
import { ApiError, type Config, type User } from '../api/types';

interface GoogleId {
  initialize(o: { client_id: string; callback: (r: { credential: string }) => void }): void;
  renderButton(el: HTMLElement, o: Record<string, unknown>): void;
}
declare global {
  interface Window {
    google?: { accounts: { id: GoogleId } };
  }
}

const gisSrc = 'https://accounts.google.com/gsi/client';

// The Google script is loaded only when the server has a client id, so that
// a deployment without Google sign-in makes no third-party request.
function loadGoogle(): Promise<GoogleId> {
  if (window.google?.accounts?.id) return Promise.resolve(window.google.accounts.id);
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = gisSrc;
    s.async = true;
    s.onload = () => (window.google?.accounts?.id ? resolve(window.google.accounts.id) : reject(new Error('no google')));
    s.onerror = () => reject(new Error('Google sign-in could not load.'));
    document.head.appendChild(s);
  });
}

export function SignIn({ config, onSignedIn }: { config: Config; onSignedIn: (u: User) => void }) {
  const [tab, setTab] = useState<'signin' | 'register'>('signin');
  const [fullName, setFullName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [notice] = useState(() => {
    const n = sessionStorage.getItem('signedOutNotice') ?? '';
    sessionStorage.removeItem('signedOutNotice');
    return n;
  });
  const googleBox = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!config.googleClientId) return;
    let live = true;
    loadGoogle()
      .then((g) => {
        if (!live || !googleBox.current) return;
        g.initialize({
          client_id: config.googleClientId,
          callback: async ({ credential }) => {
            setError('');
            try {
              onSignedIn(await api.google(credential));
            } catch (err) {
              setError(err instanceof ApiError ? err.message : 'Google sign-in failed.');
            }
          },
        });
        g.renderButton(googleBox.current, { type: 'standard', text: 'signin_with', theme: 'outline', size: 'large' });
      })
      .catch((err: Error) => live && setError(err.message));
    return () => {
      live = false;
    };
  }, [config.googleClientId, onSignedIn]);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const u = tab === 'register' ? await api.register(fullName.trim(), email.trim(), password) : await api.login(email.trim(), password);
      onSignedIn(u);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Something went wrong. Try again.');
      setBusy(false);
    }
  }

  const registering = tab === 'register';
  return (
    <section className="narrow">
      <h1>{registering ? 'Create an account' : 'Sign in'}</h1>
      {notice && (
        <p className="info" role="status">
          {notice}
        </p>
      )}
      <p className="lead">Practise job interviews: answer questions, get feedback on every answer and a report at the end.</p>
      <div className="tabs" role="group" aria-label="Account">
        <button type="button" aria-pressed={!registering} onClick={() => setTab('signin')}>
          I have an account
        </button>
        <button type="button" aria-pressed={registering} onClick={() => setTab('register')}>
          I am new here
        </button>
      </div>
      <form onSubmit={submit} className="card" noValidate={false}>
        {registering && (
          <label>
            Full name
            <input name="fullName" autoComplete="name" required value={fullName} onChange={(e) => setFullName(e.target.value)} />
          </label>
        )}
        <label>
          Email
          <input name="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete={registering ? 'new-password' : 'current-password'}
            required
            minLength={registering ? config.limits.minPassword : undefined}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-describedby={registering ? 'pw-hint' : undefined}
          />
        </label>
        {registering && (
          <p id="pw-hint" className="hint">
            At least {config.limits.minPassword} characters.
          </p>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Please wait…' : registering ? 'Create account' : 'Sign in'}
        </button>
      </form>
      {config.googleClientId && (
        <div className="google">
          <p>or</p>
          <div ref={googleBox} aria-label="Sign in with Google" />
        </div>
      )}
    </section>
  );
}
