-- Practice that teaches. follow_ups is how many follow-up questions each
-- main question may get (interviews started before it existed had none);
-- job_description is the text the candidate pasted and requirements what
-- the interviewer read from it at the start; requirement_coverage is the
-- report's list of requirements with the answers that covered each,
-- stored with the report. A second try is kept inside its question's
-- element of question_results, under "retry".
ALTER TABLE interviews
    ADD COLUMN follow_ups smallint NOT NULL DEFAULT 0 CHECK (follow_ups BETWEEN 0 AND 2),
    ADD COLUMN job_description text CHECK (char_length(job_description) BETWEEN 1 AND 10000),
    ADD COLUMN requirements text[] NOT NULL DEFAULT '{}' CHECK (cardinality(requirements) <= 8),
    ADD COLUMN requirement_coverage jsonb CHECK (requirement_coverage IS NULL OR jsonb_typeof(requirement_coverage) = 'array');

-- Links that share one report, read-only, with no account. Only the
-- SHA-256 of a link's token is kept, so this table cannot be turned back
-- into working links; one link per interview (sharing again replaces it).
-- The link goes with its interview, and so with the account.
CREATE TABLE interview_shares (
    interview_id uuid PRIMARY KEY REFERENCES interviews (id) ON DELETE CASCADE,
    token_hash   bytea NOT NULL CHECK (length(token_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT interview_shares_token_hash_key UNIQUE (token_hash)
);
