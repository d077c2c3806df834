-- The daily voice allowance: how much of each resource (characters spoken,
-- bytes transcribed) a user has used on one UTC day. Spending is one
-- conditional upsert, so concurrent requests cannot overshoot the limit.
-- Old days are never read again; they are kept small (one row per user,
-- day and resource) and go with the user.
CREATE TABLE voice_usage (
    user_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    day      date NOT NULL,
    resource text NOT NULL CHECK (resource IN ('speech_chars', 'transcribe_bytes')),
    used     bigint NOT NULL CHECK (used >= 0),
    PRIMARY KEY (user_id, day, resource)
);
