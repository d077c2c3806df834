-- The report is stored whole, as it was built when the interview finished,
-- and read back as it is. The score columns stay for the history list;
-- they are null when no answer of the interview was scored. Interviews
-- completed before this migration have no report column: their report is
-- rebuilt from the score and prose columns when read.
ALTER TABLE interviews
    ADD COLUMN report jsonb CHECK (report IS NULL OR jsonb_typeof(report) = 'object'),
    DROP CONSTRAINT interviews_report,
    ADD CONSTRAINT interviews_report CHECK (status = 'in_progress' OR report IS NOT NULL OR overall_score IS NOT NULL);
