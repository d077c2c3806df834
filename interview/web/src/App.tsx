import { useCallback, useEffect, useRef, useState } from 'react';
import { api, onSessionLost } from './api';
import type { User } from './api/types';
import { useLoad } from './load';
import { LoadFailed } from './components/LoadFailed';
import { link, match, navigate, shownPage, titleFor, usePath } from './router';
import { modeLabel } from './practice';
import { SignIn } from './pages/SignIn';
import { SetupPage } from './pages/Setup';
import { InterviewPage } from './pages/Interview';
import { ReportPage } from './pages/Report';
import { HistoryPage } from './pages/History';
import { AccountPage } from './pages/Account';
import { SharedPage } from './pages/Shared';

const sessionEndedNotice = 'Your session ended, so you were signed out. Sign in again to continue where you were.';

export function App() {
  const path = usePath();
  const route = match(path);
  // undefined: not known yet; null: nobody is signed in.
  const [user, setUser] = useState<User | null | undefined>(undefined);
  const signedInNow = useRef(false);
  signedInNow.current = !!user;
  const shown = shownPage(route, !!user);
  const main = useRef<HTMLElement>(null);
  // A shared report's page needs no account: it does not ask who is
  // signed in, and its links load the app afresh.
  const [openedShared] = useState(() => match(location.pathname).page === 'shared');
  const boot = useLoad((signal) => Promise.all([api.config(signal), openedShared ? Promise.resolve(null) : api.me(signal)]), [openedShared]);

  useEffect(() => {
    if (boot.data) setUser(boot.data[1]);
  }, [boot.data]);

  // The one place a lost session is handled: any call that finds the
  // session gone signs the page out, keeps the page to come back to after
  // signing in again, and the sign-in page says why. A late 401 after
  // signing out changes nothing.
  useEffect(
    () =>
      onSessionLost(() => {
        if (!signedInNow.current) return;
        signedInNow.current = false;
        sessionStorage.setItem('afterSignIn', location.pathname);
        sessionStorage.setItem('signedOutNotice', sessionEndedNotice);
        setUser(null);
      }),
    [],
  );

  // Move focus to the new page's heading so that keyboard and screen
  // reader users start at the top of what changed.
  useEffect(() => {
    const h = main.current?.querySelector<HTMLElement>('h1');
    if (h) {
      h.tabIndex = -1;
      h.focus({ preventScroll: false });
    }
    document.title = titleFor(shown);
  }, [path, user, shown]);

  const signedIn = useCallback((u: User) => {
    setUser(u);
    const back = sessionStorage.getItem('afterSignIn');
    sessionStorage.removeItem('afterSignIn');
    navigate(back && back !== '/signin' ? back : '/', { replace: true });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } finally {
      setUser(null);
      navigate('/signin');
    }
  }, []);

  // The session ended on purpose (signed out everywhere, account deleted):
  // back to the sign-in page, with nothing to return to.
  const signedOut = useCallback((notice: string) => {
    sessionStorage.removeItem('afterSignIn');
    // Said once on the sign-in page, so nobody lands there wondering why.
    sessionStorage.setItem('signedOutNotice', notice);
    setUser(null);
    navigate('/signin', { replace: true });
  }, []);

  if (boot.error) {
    return (
      <main className="page" ref={main}>
        <LoadFailed error={boot.error} fallback="The page could not load." onRetry={boot.retry} />
      </main>
    );
  }
  if (!boot.data || user === undefined) {
    return (
      <main className="page" ref={main}>
        <p role="status">Loading…</p>
      </main>
    );
  }

  const [config] = boot.data;
  const mode = modeLabel(config.mode);
  let page: React.ReactNode;
  if (route.page === 'shared') {
    page = <SharedPage key={route.token} token={route.token} />;
  } else if (!user) {
    if (route.page !== 'signin') sessionStorage.setItem('afterSignIn', path);
    page = <SignIn config={config} onSignedIn={signedIn} />;
  } else {
    switch (route.page) {
      case 'signin':
      case 'setup':
        page = <SetupPage user={user} config={config} />;
        break;
      case 'interview':
        page = <InterviewPage key={route.id} id={route.id} config={config} />;
        break;
      case 'report':
        page = <ReportPage key={route.id} id={route.id} />;
        break;
      case 'history':
        page = <HistoryPage config={config} />;
        break;
      case 'account':
        page = <AccountPage user={user} minPassword={config.limits.minPassword} onSignedOut={signedOut} />;
        break;
      default:
        page = (
          <section>
            <h1>Page not found</h1>
            <p>
              <a href="/" onClick={link('/')}>Start a new interview</a>
            </p>
          </section>
        );
    }
  }

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href="/" onClick={user ? link('/') : undefined}>
          Interview practice
        </a>
        {mode && (
          <span className={`mode mode-${config.mode}`} title="How questions are asked and scored">
            {mode}
          </span>
        )}
        {user && (
          <nav aria-label="Main">
            <a href="/" onClick={link('/')} aria-current={route.page === 'setup' ? 'page' : undefined}>
              New interview
            </a>
            <a href="/history" onClick={link('/history')} aria-current={route.page === 'history' ? 'page' : undefined}>
              History
            </a>
            <a href="/account" onClick={link('/account')} aria-current={route.page === 'account' ? 'page' : undefined}>
              Account
            </a>
            <button type="button" className="link" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main id="main" className="page" ref={main}>
        {page}
      </main>
    </>
  );
}
