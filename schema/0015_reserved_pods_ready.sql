-- Placeholder for the number issue 17 reserves for WaitForPodsReady: the
-- migrations must run without gaps, and that branch brings the real 0015.
-- Drop this file when merging it.
SELECT 1;
