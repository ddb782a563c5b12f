-- Placeholder so that migrations run without gaps on the MultiKueue branch
-- (0018): number 0017 is another issue-17 helper's. Delete this file at merge.
SELECT 1;
