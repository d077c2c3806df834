-- Session versions: every session token carries the version of its account
-- at issue, and a token with another version is refused. Changing the
-- password, "sign out everywhere" and linking a Google account bump it.
-- Existing tokens carry no version, which reads as 0: they stay valid.
ALTER TABLE users ADD COLUMN session_version bigint NOT NULL DEFAULT 0;

-- Per-user token buckets on model work, one row per user and operation.
-- Taking a token is one conditional upsert computed with the database's
-- clock, so replicas share the bucket and their clocks do not matter.
CREATE TABLE model_buckets (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    operation  text NOT NULL CHECK (operation IN ('start', 'answer', 'finish')),
    tokens     double precision NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, operation)
);

-- The daily budget of model calls: one row per user, holding the UTC day it
-- counts and the calls spent on it; a new day starts the count again in
-- the same upsert, so the table never grows beyond one row per user.
CREATE TABLE model_calls (
    user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    day     date NOT NULL,
    used    integer NOT NULL CHECK (used >= 0)
);

-- A user's interviews in progress: counted against the cap on every start
-- and listed, newest first, for resuming or discarding.
CREATE INDEX interviews_user_in_progress ON interviews (user_id, created_at DESC) WHERE status = 'in_progress';
