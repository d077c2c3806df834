-- Sessions ended by a plain sign-out. A session token is valid until it
-- expires; signing out adds the SHA-256 of that one token here, so a copy
-- of it taken before is refused too, on every replica. A row is needed only
-- until the token would have expired anyway, and goes with its account.
CREATE TABLE revoked_sessions (
    token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_sessions_expires_at ON revoked_sessions (expires_at);
CREATE INDEX revoked_sessions_user_id ON revoked_sessions (user_id);
