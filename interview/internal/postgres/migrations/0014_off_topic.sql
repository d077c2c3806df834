-- Evaluations written before an off-topic answer was scored say nothing of
-- it; none of them was scored as one, so each gets "offTopic": false, and
-- the code reads every row one way. Each item of question_results is
-- mended, its second try's evaluation too, as are the items of a stored
-- report. Keys a row already has are kept (the right side of || wins).
CREATE OR REPLACE FUNCTION pg_temp.mended_result(r jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(r) <> 'object' THEN r ELSE
        r
        || CASE WHEN jsonb_typeof(r->'evaluation') = 'object'
                THEN jsonb_build_object('evaluation', '{"offTopic": false}'::jsonb || (r->'evaluation')) ELSE '{}'::jsonb END
        || CASE WHEN jsonb_typeof(r->'retry'->'evaluation') = 'object'
                THEN jsonb_build_object('retry', (r->'retry') || jsonb_build_object('evaluation', '{"offTopic": false}'::jsonb || (r->'retry'->'evaluation')))
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

UPDATE interviews SET report = jsonb_set(report, '{questionResults}', pg_temp.mended_results(report->'questionResults'))
WHERE report ? 'questionResults' AND report->'questionResults' <> pg_temp.mended_results(report->'questionResults');

DROP FUNCTION pg_temp.mended_results(jsonb);
DROP FUNCTION pg_temp.mended_result(jsonb);
