-- Placeholder: number 15 is reserved for the WaitForPodsReady work of issue 17,
-- built on another branch. Migration numbers must run without gaps
-- (cmake/EmbedSchema.cmake), so this branch carries an empty one; the merge
-- replaces this file with that branch's 0015. Nothing here: 0016 depends on
-- nothing 0015 adds.
SELECT 1;
