-- Placeholder for the number issue 17 reserves for admission fair sharing:
-- the migrations must run without gaps, and that branch brings the real
-- 0016. Drop this file when merging it.
SELECT 1;
