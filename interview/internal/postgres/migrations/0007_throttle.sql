-- The sign-in and registration throttles (package throttle), shared by every
-- replica of the service. A key is the SHA-256 digest of what a rule counts
-- (an address or its /64, an account's email, or both for a known address),
-- so these tables hold no address and no email. A bucket untouched for its
-- rule's whole refill time is full, the same as no row, and is deleted; a
-- known address is deleted once its time is up.
CREATE TABLE throttle_buckets (
    rule   text NOT NULL,
    key    bytea NOT NULL,
    tokens double precision NOT NULL CHECK (tokens >= 0),
    at     timestamptz NOT NULL,
    PRIMARY KEY (rule, key)
);
CREATE INDEX throttle_buckets_at ON throttle_buckets (rule, at);

CREATE TABLE throttle_known (
    key bytea PRIMARY KEY,
    at  timestamptz NOT NULL
);
CREATE INDEX throttle_known_at ON throttle_known (at);
