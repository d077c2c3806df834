-- One pair of tables for every limit of the service (package quota): token
-- buckets (the sign-in, registration and share-link throttles, and the
-- per-user limits on model work) and daily allowances (model calls, speech
-- and transcription), both computed with the database's clock so that
-- replicas share them and their own clocks do not matter.
--
-- A row's name is the rule (a constant of the service, never user input)
-- and its key what the rule counts: a user's id, or the SHA-256 digest of
-- an address or an email, so these tables hold no address and no email.
-- Rows of a user carry user_id and go with the account.
CREATE TABLE quota_buckets (
    name       text NOT NULL,
    key        bytea NOT NULL,
    user_id    uuid REFERENCES users (id) ON DELETE CASCADE,
    tokens     double precision NOT NULL CHECK (tokens >= 0),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (name, key)
);
CREATE INDEX quota_buckets_updated ON quota_buckets (name, updated_at);
CREATE INDEX quota_buckets_user ON quota_buckets (user_id) WHERE user_id IS NOT NULL;

-- One row per rule and key, holding the UTC day it counts; a new day
-- starts the count again in the same upsert.
CREATE TABLE quota_days (
    name    text NOT NULL,
    key     bytea NOT NULL,
    user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    day     date NOT NULL,
    used    bigint NOT NULL CHECK (used >= 0),
    PRIMARY KEY (name, key)
);
CREATE INDEX quota_days_user ON quota_days (user_id) WHERE user_id IS NOT NULL;

INSERT INTO quota_buckets (name, key, tokens, updated_at)
SELECT rule, key, tokens, at FROM throttle_buckets;
INSERT INTO quota_buckets (name, key, user_id, tokens, updated_at)
SELECT 'model_' || operation, convert_to(user_id::text, 'UTF8'), user_id, GREATEST(tokens, 0), updated_at FROM model_buckets;
INSERT INTO quota_days (name, key, user_id, day, used)
SELECT 'model_calls', convert_to(user_id::text, 'UTF8'), user_id, day, used FROM model_calls;
INSERT INTO quota_days (name, key, user_id, day, used)
SELECT 'voice_' || resource, convert_to(user_id::text, 'UTF8'), user_id, day, used
  FROM voice_usage WHERE day = (now() AT TIME ZONE 'UTC')::date;

DROP TABLE throttle_buckets;
DROP TABLE model_buckets;
DROP TABLE model_calls;
DROP TABLE voice_usage;
