-- gpuq schema, version 10: who holds the clock, beyond a pid (issue 13).
--
-- A runner killed with SIGKILL leaves its pid in the clock row, and pids
-- are reused: a live process that merely has the same pid must not freeze
-- the clock or block the next runner. With the pid goes the runner's
-- process start time (Linux: /proc/<pid>/stat field 22, clock ticks since
-- boot); a process with that pid but another start time is not the runner.
-- NULL (a row of an older binary, or a system without /proc): the pid alone
-- decides, as before.
ALTER TABLE clock ADD COLUMN runner_start INTEGER;
