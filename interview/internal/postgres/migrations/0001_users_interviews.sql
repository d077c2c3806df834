-- Accounts. An account signs in with a password, with Google, or both; the
-- email is stored lowercased so uniqueness is case-insensitive.
CREATE TABLE users (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    full_name     text NOT NULL CHECK (char_length(full_name) BETWEEN 1 AND 100),
    email         text NOT NULL CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 254 AND position('@' IN email) > 1),
    password_hash text,
    google_id     text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_email_key UNIQUE (email),
    CONSTRAINT users_google_id_key UNIQUE (google_id),
    CONSTRAINT users_has_credential CHECK (password_hash IS NOT NULL OR google_id IS NOT NULL)
);

-- One interview session. current_question is the server's copy of the
-- question being answered; claim_token and answer_claimed_at mark an answer
-- being evaluated, so it is evaluated once.
CREATE TABLE interviews (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id             uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    status              text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'completed')),
    candidate_name      text NOT NULL CHECK (char_length(candidate_name) BETWEEN 1 AND 100),
    role                text NOT NULL CHECK (char_length(role) BETWEEN 1 AND 100),
    experience          text NOT NULL CHECK (char_length(experience) BETWEEN 1 AND 100),
    difficulty          text NOT NULL CHECK (difficulty IN ('easy', 'medium', 'hard')),
    total_questions     integer NOT NULL CHECK (total_questions BETWEEN 1 AND 20),
    current_question    jsonb CHECK (current_question IS NULL OR (jsonb_typeof(current_question) = 'object' AND current_question ? 'id' AND current_question ? 'text')),
    answer_claimed_at   timestamptz,
    claim_token         uuid,
    question_results    jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(question_results) = 'array'),
    overall_score       integer CHECK (overall_score BETWEEN 0 AND 100),
    technical_accuracy  integer CHECK (technical_accuracy BETWEEN 0 AND 100),
    communication_score integer CHECK (communication_score BETWEEN 0 AND 100),
    strengths           text[],
    weaknesses          text[],
    suggested_topics    text[],
    feedback            text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    completed_at        timestamptz,
    CONSTRAINT interviews_claim_pair CHECK ((claim_token IS NULL) = (answer_claimed_at IS NULL)),
    CONSTRAINT interviews_completed_at CHECK ((status = 'completed') = (completed_at IS NOT NULL)),
    CONSTRAINT interviews_report CHECK (status = 'in_progress' OR (overall_score IS NOT NULL AND technical_accuracy IS NOT NULL AND communication_score IS NOT NULL))
) WITH (fillfactor = 70);
-- Each answer updates its row twice (claim, then result); free space on the
-- page lets Postgres keep those as heap-only updates, without index writes.

-- History: a user's completed interviews, newest first. Its user_id prefix
-- also serves the cascade from users.
CREATE INDEX interviews_user_status_completed ON interviews (user_id, status, completed_at DESC);
