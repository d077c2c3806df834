-- How many main questions an interview has answered is counted once, in
-- Go (interviewer.MainAnswers), and stored beside the results when an
-- answer is stored; the history and in-progress lists read it from here
-- instead of counting the results' JSON again.
ALTER TABLE interviews ADD COLUMN answered_questions int NOT NULL DEFAULT 0 CHECK (answered_questions >= 0);

UPDATE interviews SET answered_questions = (
    SELECT count(*) FROM jsonb_array_elements(question_results) r
    WHERE r->'question'->>'kind' IS DISTINCT FROM 'followUp');
