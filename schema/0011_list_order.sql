-- The order `gpuq list -o json` and gpuqd's /api/v1/workloads list workloads
-- in, so that a page of that List (?limit=&continue=, and the pages gpuqd
-- streams a whole List in) is read off an index from where the last page
-- ended instead of sorting the whole table for every page: 300 ms a page at
-- 100,000 workloads without it, 10-20 ms with it.
CREATE INDEX workloads_list_order ON workloads(namespace, created_at, id);
