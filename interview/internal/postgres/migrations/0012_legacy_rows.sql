-- Rows written before evaluations said whether they were scored, or before
-- questions had kinds, are brought up to the shape the code reads, so the
-- code reads every row one way: an evaluation without "scorable" was
-- scored (every answer was, then), a question without "kind" is a main
-- question. Each item of question_results is mended, its second try's
-- evaluation too, as are the current question and the items of a stored
-- report. Keys a row already has are kept (the right side of || wins).
CREATE OR REPLACE FUNCTION pg_temp.mended_result(r jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(r) <> 'object' THEN r ELSE
        r
        || CASE WHEN jsonb_typeof(r->'question') = 'object'
                THEN jsonb_build_object('question', '{"kind": "main"}'::jsonb || (r->'question')) ELSE '{}'::jsonb END
        || CASE WHEN jsonb_typeof(r->'evaluation') = 'object'
                THEN jsonb_build_object('evaluation', '{"scorable": true}'::jsonb || (r->'evaluation')) ELSE '{}'::jsonb END
        || CASE WHEN jsonb_typeof(r->'retry'->'evaluation') = 'object'
                THEN jsonb_build_object('retry', (r->'retry') || jsonb_build_object('evaluation', '{"scorable": true}'::jsonb || (r->'retry'->'evaluation')))
                ELSE '{}'::jsonb END
    END
$$;

CREATE OR REPLACE FUNCTION pg_temp.mended_results(rs jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(rs) <> 'array' THEN rs ELSE
        (SELECT coalesce(jsonb_agg(pg_temp.mended_result(r) ORDER BY i), '[]'::jsonb)
         FROM jsonb_array_elements(rs) WITH ORDINALITY AS e(r, i))
    END
$$;

UPDATE interviews SET question_results = pg_temp.mended_results(question_results)
WHERE question_results <> pg_temp.mended_results(question_results);

UPDATE interviews SET current_question = '{"kind": "main"}'::jsonb || current_question
WHERE jsonb_typeof(current_question) = 'object' AND NOT current_question ? 'kind';

UPDATE interviews SET report = jsonb_set(report, '{questionResults}', pg_temp.mended_results(report->'questionResults'))
WHERE report ? 'questionResults' AND report->'questionResults' <> pg_temp.mended_results(report->'questionResults');

DROP FUNCTION pg_temp.mended_results(jsonb);
DROP FUNCTION pg_temp.mended_result(jsonb);
