import { ApiError } from '../api/types';

/** The sentence for a failed load: notFound for a 404 when given, the
 * server's message, or fallback when the failure has none. */
export function loadFailure(err: unknown, fallback: string, notFound?: string): string {
  if (!(err instanceof ApiError)) return fallback;
  if (err.status === 404 && notFound) return notFound;
  return err.message;
}

/** Whether trying again may help: not for a refusal of this request itself
 * (a 4xx other than a timeout or a rate limit). */
function retryable(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.code === 'bad_response') return true;
  return !(err.status >= 400 && err.status < 500) || err.status === 408 || err.status === 429;
}

/** What a page shows when its data did not load: the reason, and a way to
 * try again when that may help. */
export function LoadFailed({ title, error, fallback, notFound, onRetry, children }: { title?: string; error: unknown; fallback: string; notFound?: string; onRetry: () => void; children?: React.ReactNode }) {
  return (
    <section>
      {title && <h1>{title}</h1>}
      <p className="error" role="alert">
        {loadFailure(error, fallback, notFound)}
      </p>
      {retryable(error) && (
        <p>
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        </p>
      )}
      {children}
    </section>
  );
}
