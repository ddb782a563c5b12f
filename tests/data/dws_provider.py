"""The provider's side of gpuq's ProvisioningRequests, for the golden tests.

Writes request conditions and moves the database's clock, as the cluster
autoscaler and time would (tests/cli/dws_timeout_fallback.t). GPUQ_DB names
the database. Usage:
  dws_provider.py accept JOB      JOB's live requests: Accepted, Provisioned=False
  dws_provider.py provision JOB   JOB's live requests: Provisioned
  dws_provider.py fail JOB        JOB's live requests: Failed
  dws_provider.py forward MIN     the clock MIN minutes ahead (table clock, speed 1)
  dws_provider.py wake            every backoff over (requeue_at in the past)
  dws_provider.py show JOB        JOB's state, its checks, live requests, failed flavors
"""
import json
import os
import sqlite3
import sys
import time

db = sqlite3.connect(os.environ["GPUQ_DB"])


def now():
    wall = int(time.time() * 1000)
    row = db.execute("SELECT wall_ms, virtual_ms, speed FROM clock WHERE id = 1").fetchone()
    return wall if row is None else row[1] + max(0, int((wall - row[0]) * row[2]))


def conditions(job, *conds):
    status = json.dumps({"conditions": [
        {"type": t, "status": s, "reason": t, "message": m} for t, s, m in conds]})
    db.execute("UPDATE provisioning_requests SET status = ? WHERE deleted_at IS NULL AND "
               "workload_id IN (SELECT id FROM workloads WHERE job_name = ?)", (status, job))


cmd, arg = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
if cmd == "accept":
    conditions(arg, ("Accepted", "True", ""),
               ("Provisioned", "False", "waiting for capacity, ETA unknown"))
elif cmd == "provision":
    conditions(arg, ("Accepted", "True", ""), ("Provisioned", "True", "capacity is here"))
elif cmd == "fail":
    conditions(arg, ("Failed", "True", "out of resources"))
elif cmd == "forward":
    v = now() + int(arg) * 60 * 1000
    db.execute("INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) VALUES (1, ?, ?, 1)",
               (int(time.time() * 1000), v))
elif cmd == "wake":
    db.execute("UPDATE workloads SET requeue_at = 1 WHERE requeue_at IS NOT NULL")
elif cmd == "show":
    wid, state, failed = db.execute(
        "SELECT id, state, failed_flavors FROM workloads WHERE job_name = ?", (arg,)).fetchone()
    checks = db.execute("SELECT name, state, retry_count FROM workload_checks "
                        "WHERE workload_id = ? ORDER BY name", (wid,)).fetchall()
    live = [r[0] for r in db.execute("SELECT attempt FROM provisioning_requests "
                                     "WHERE workload_id = ? AND deleted_at IS NULL", (wid,))]
    print(state, " ".join(f"{n}={s}/{c}" for n, s, c in checks) or "-",
          "live=" + ",".join(map(str, live)), "failed=" + (failed or "-"))
else:
    raise SystemExit(f"unknown command {cmd}")
db.commit()
