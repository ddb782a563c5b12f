#!/usr/bin/env python3
"""Conformance scenarios for `gpuq schedule`: Kueue's admission rules, as tables.

Usage: run.py GPUQ_BINARY [-j N] [FILE.scn ...]
(no files: every tests/scenarios/*.scn, in name order). See README.md for the
format. Each scenario runs in a fresh temporary directory with
GPUQ_DB=<tmp>/gpuq.db and NO_COLOR=1; its steps run in order and the first step
that differs fails it. Every scenario that passed is then run a second time on
a fresh database, and its final `gpuq list -A -o json` (job, state, cluster
queue, flavors, counts, reason, message with UIDs, workload names and times
masked) must be identical to the first run's. Prints `ok NAME` or
`FAIL NAME: <step line>: <what differed>` (with the actual table), then
"N passed, M failed"; exits 1 if any failed, 2 on a usage error.
Python 3 standard library only.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
KEYWORDS = ("apply", "schedule", "run", "run-fails", "expect", "expect-usage")
STATES = ("pending", "reserved", "admitted", "running", "finished", "cancelled",
          "deactivated", "evicted")
TIMEOUT = 120  # seconds per gpuq command


class Malformed(Exception):
    """The scenario file itself is wrong."""


class Failed(Exception):
    """A step did not give what the scenario expects."""

    def __init__(self, msg, table=None):
        super().__init__(msg)
        self.table = table


# ------------------------------------------------------------------ quantities

_QTY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$")
_SUFFIX = {None: Fraction(1), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6),
           "m": Fraction(1, 1000), "k": Fraction(10**3), "M": Fraction(10**6),
           "G": Fraction(10**9), "T": Fraction(10**12), "P": Fraction(10**15),
           "E": Fraction(10**18), "Ki": Fraction(2**10), "Mi": Fraction(2**20),
           "Gi": Fraction(2**30), "Ti": Fraction(2**40), "Pi": Fraction(2**50),
           "Ei": Fraction(2**60)}


def quantity(v):
    """A Kubernetes quantity (string or JSON number) as an exact Fraction."""
    if isinstance(v, bool):
        raise ValueError(f"not a quantity: {v!r}")
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(str(v))
    if not isinstance(v, str):
        raise ValueError(f"not a quantity: {v!r}")
    m = _QTY.match(v.strip())
    if not m:
        raise ValueError(f"not a quantity: {v!r}")
    num = Fraction(m.group(1))
    if m.group(2):
        return num * Fraction(10) ** int(m.group(2)[1:])
    return num * _SUFFIX[m.group(3)]


# --------------------------------------------------------------------- parsing

def _job_key(s):
    return s if "/" in s else "default/" + s


def parse_expect_line(text, where):
    """`<job> <state> [attr=value ...] [message~REGEX | message=TEXT]`."""
    exp = {"line": where, "attrs": {}, "flavors": {}, "counts": {}, "message": None}
    m = re.search(r"(?:^|\s)message([~=])", text)
    if m:
        rest = text[m.end():].strip()
        if m.group(1) == "~":
            try:
                exp["message"] = ("~", re.compile(rest))
            except re.error as e:
                raise Malformed(f"{where}: bad message regex {rest!r}: {e}")
        else:
            exp["message"] = ("=", rest)
        text = text[:m.start()]
    toks = text.split()
    if len(toks) < 2:
        raise Malformed(f"{where}: want '<job> <state> [attr=value ...]'")
    exp["job"] = _job_key(toks[0])
    exp["state"] = toks[1]
    if exp["state"] not in STATES:
        raise Malformed(f"{where}: unknown state {toks[1]!r} (one of {', '.join(STATES)})")
    for tok in toks[2:]:
        key, eq, val = tok.partition("=")
        if not eq or not val:
            raise Malformed(f"{where}: want attr=value, got {tok!r}")
        if key.startswith("flavor."):
            exp["flavors"].setdefault(None, {})[key[len("flavor."):]] = val
        elif key.startswith("flavor@"):
            ps, dot, res = key[len("flavor@"):].partition(".")
            if not dot or not ps or not res:
                raise Malformed(f"{where}: want flavor@<podset>.<resource>=<flavor>, got {tok!r}")
            exp["flavors"].setdefault(ps, {})[res] = val
        elif key == "count" or key.startswith("count@"):
            ps = None if key == "count" else key[len("count@"):]
            if not val.isdigit():
                raise Malformed(f"{where}: count must be a number, got {tok!r}")
            exp["counts"][ps] = int(val)
        elif key in ("podsready", "requeued"):
            if val != "none" and val.partition("/")[0] not in ("True", "False"):
                raise Malformed(f"{where}: want {key}=True/REASON, False/REASON or none, got {tok!r}")
            exp["attrs"][key] = val
        elif key in ("cq", "reason", "evicted", "preempted"):
            exp["attrs"][key] = val
        else:
            raise Malformed(f"{where}: unknown attribute {key!r}")
    return exp


def parse_usage_line(text, where):
    """`<clusterqueue> <flavor> <resource> <total> [borrowed=<n>]` or `<cq> - - 0`."""
    toks = text.split()
    if len(toks) not in (4, 5):
        raise Malformed(f"{where}: want '<cq> <flavor> <resource> <total> [borrowed=<n>]'")
    u = {"line": where, "cq": toks[0], "flavor": toks[1], "resource": toks[2],
         "total": toks[3], "borrowed": None}
    if u["flavor"] == "-" or u["resource"] == "-":
        if not (u["flavor"] == "-" and u["resource"] == "-" and len(toks) == 4):
            raise Malformed(f"{where}: the 'nothing reserved' form is '<cq> - - 0'")
    if len(toks) == 5:
        key, _, val = toks[4].partition("=")
        if key != "borrowed" or not val:
            raise Malformed(f"{where}: want borrowed=<quantity>, got {toks[4]!r}")
        u["borrowed"] = val
    for q in (u["total"], u["borrowed"]):
        if q is not None:
            try:
                quantity(q)
            except ValueError as e:
                raise Malformed(f"{where}: {e}")
    if u["flavor"] == "-" and quantity(u["total"]) != 0:
        raise Malformed(f"{where}: '<cq> - - <n>' is only allowed with 0")
    return u


def parse(path):
    name = os.path.basename(path)
    if name.endswith(".scn"):
        name = name[:-4]
    sc = {"name": name, "path": path, "rule": None, "steps": []}
    cur = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        where = f"line {n}"
        if line.startswith("--- "):
            kw, _, arg = line[4:].strip().partition(" ")
            if kw not in KEYWORDS:
                raise Malformed(f"{where}: unknown section {kw!r} (one of {', '.join(KEYWORDS)})")
            cur = {"kind": kw, "arg": arg.strip(), "line": n, "header": line.strip(), "body": []}
            if kw == "schedule":
                if not (cur["arg"] == "until-stable" or re.fullmatch(r"[1-9]\d*", cur["arg"])):
                    raise Malformed(f"{where}: want '--- schedule N' or '--- schedule until-stable'")
            elif kw in ("run", "run-fails"):
                if not cur["arg"]:
                    raise Malformed(f"{where}: '--- {kw}' needs gpuq arguments")
            elif cur["arg"]:
                raise Malformed(f"{where}: '--- {kw}' takes no argument")
            sc["steps"].append(cur)
            continue
        if cur is None:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("rule:"):
                if sc["rule"] is not None:
                    raise Malformed(f"{where}: a second 'rule:' line")
                sc["rule"] = line[len("rule:"):].strip()
                continue
            raise Malformed(f"{where}: text before the first section: {line!r}")
        if cur["kind"] == "apply":
            cur["body"].append(line)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if cur["kind"] == "expect":
            cur["body"].append(parse_expect_line(stripped, where))
        elif cur["kind"] == "expect-usage":
            cur["body"].append(parse_usage_line(stripped, where))
        else:
            raise Malformed(f"{where}: '--- {cur['kind']}' takes no body: {line!r}")
    if not sc["rule"]:
        raise Malformed("no 'rule:' line")
    if not sc["steps"]:
        raise Malformed("no steps")
    for st in sc["steps"]:
        if st["kind"] == "apply" and not "".join(st["body"]).strip():
            raise Malformed(f"line {st['line']}: empty '--- apply'")
        if st["kind"] in ("expect", "expect-usage") and not st["body"]:
            raise Malformed(f"line {st['line']}: empty '--- {st['kind']}'")
        seen = set()
        if st["kind"] == "expect":
            for e in st["body"]:
                if e["job"] in seen:
                    raise Malformed(f"{e['line']}: {e['job']} listed twice")
                seen.add(e["job"])
    return sc


# ------------------------------------------------------------ reading results

def _get(obj, path, what):
    """obj[path...] or Failed naming the missing field."""
    cur = obj
    for p in path:
        if isinstance(cur, dict) and p in cur:
            cur = cur[p]
        elif isinstance(cur, list) and isinstance(p, int) and -len(cur) <= p < len(cur):
            cur = cur[p]
        else:
            raise Failed(f"{what}: field {'.'.join(str(x) for x in path)} is missing")
    return cur


def wl_key(w):
    meta = _get(w, ["metadata"], "workload")
    wname = meta.get("name", "?")
    ns = meta.get("namespace") or "default"
    refs = meta.get("ownerReferences") or []
    job = refs[0].get("name") if refs and isinstance(refs[0], dict) else None
    return f"{ns}/{job or wname}"


def wl_gpuq(w):
    return _get(w, ["status", "gpuq"], f"workload {wl_key(w)}")


def wl_state(w):
    return _get(w, ["status", "gpuq", "state"], f"workload {wl_key(w)}")


def wl_podsets(w):
    """[(podset name, {resource: flavor}, count or None)] from status.admission."""
    adm = (w.get("status") or {}).get("admission")
    if not adm:
        return None
    out = []
    for i, psa in enumerate(adm.get("podSetAssignments") or []):
        if not isinstance(psa, dict):
            raise Failed(f"workload {wl_key(w)}: status.admission.podSetAssignments[{i}] is not an object")
        out.append((psa.get("name", f"#{i}"), dict(psa.get("flavors") or {}), psa.get("count")))
    return out


def wl_condition(w, ctype):
    for c in (w.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == ctype:
            return c
    return None


def describe(w):
    """One workload as an expect line (what the scenario would have to say)."""
    g = (w.get("status") or {}).get("gpuq") or {}
    parts = [wl_key(w).removeprefix("default/"), str(g.get("state", "?"))]
    if g.get("clusterQueue"):
        parts.append(f"cq={g['clusterQueue']}")
    pss = wl_podsets(w) or []
    for i, (ps, flavors, count) in enumerate(pss):
        tag = "" if len(pss) == 1 else f"@{ps}"
        for res in sorted(flavors):
            parts.append(f"flavor{tag or '.'}{'.' if tag else ''}{res}={flavors[res]}")
        if count is not None:
            parts.append(f"count{tag}={count}")
    if g.get("reason"):
        parts.append(f"reason={g['reason']}")
    for ctype, key in (("Evicted", "evicted"), ("Preempted", "preempted")):
        c = wl_condition(w, ctype)
        if c and c.get("status") == "True":
            parts.append(f"{key}={c.get('reason')}")
    if g.get("message"):
        parts.append(f"message={g['message']}")
    return " ".join(parts)


def table_of(items):
    rows = []
    for w in items:
        try:
            rows.append(describe(w))
        except (Failed, AttributeError, TypeError) as e:
            rows.append(f"<unreadable workload: {e}>")
    return sorted(rows)


# ------------------------------------------------------------------- checking

def check_expect(block, items):
    """Differences between an expect block and `gpuq list -A -o json` items."""
    live = {}
    for w in items:
        if wl_state(w) == "cancelled":
            continue
        k = wl_key(w)
        if k in live:
            raise Failed(f"two live workloads for job {k}: the scenario cannot name them apart")
        live[k] = w
    problems = []
    for e in block:
        w = live.get(e["job"])
        short = e["job"].removeprefix("default/")
        if w is None:
            problems.append(f"{short}: expected {e['state']}, but there is no such live workload")
            continue
        for p in check_one(e, w):
            problems.append(f"{short}: {p}")
    listed = {e["job"] for e in block}
    for k in sorted(set(live) - listed):
        problems.append(f"{k.removeprefix('default/')}: live workload ({wl_state(live[k])}) not listed")
    return problems


def check_one(e, w):
    g = wl_gpuq(w)
    out = []
    state = g.get("state")
    if state != e["state"]:
        out.append(f"state {state!r}, want {e['state']!r}")
    a = e["attrs"]
    if "cq" in a:
        cq = g.get("clusterQueue") or ""
        if cq != a["cq"]:
            out.append(f"clusterQueue {cq!r}, want {a['cq']!r}")
        adm = (w.get("status") or {}).get("admission")
        if adm and adm.get("clusterQueue") not in (None, a["cq"]):
            out.append(f"status.admission.clusterQueue {adm.get('clusterQueue')!r}, want {a['cq']!r}")
    pss = wl_podsets(w)
    if e["flavors"] or e["counts"]:
        if not pss:
            out.append("status.admission.podSetAssignments is missing or empty, "
                       "but flavors/count are expected")
        else:
            by_name = {ps: (fl, c) for ps, fl, c in pss}
            want_ps = set(e["flavors"]) | set(e["counts"])
            for ps in sorted(want_ps, key=lambda x: (x is not None, x or "")):
                if ps is None:
                    got = (pss[0][1], pss[0][2])
                    label = f"pod set {pss[0][0]}"
                elif ps in by_name:
                    got = by_name[ps]
                    label = f"pod set {ps}"
                else:
                    out.append(f"no pod set assignment named {ps!r} (have {', '.join(by_name)})")
                    continue
                if ps in e["flavors"] and got[0] != e["flavors"][ps]:
                    out.append(f"{label} flavors {fmt_map(got[0])}, want {fmt_map(e['flavors'][ps])}")
                if ps in e["counts"]:
                    if got[1] is None:
                        out.append(f"{label}: count is missing in status.admission")
                    elif got[1] != e["counts"][ps]:
                        out.append(f"{label} count {got[1]}, want {e['counts'][ps]}")
    elif e["state"] == "pending" == state and "cq" in a and pss:
        out.append(f"pending but still holds an admission {[(p, f) for p, f, _ in pss]}")
    if "reason" in a:
        reason = g.get("reason") or ""
        if reason != a["reason"]:
            out.append(f"reason {reason!r}, want {a['reason']!r}")
    if e["message"]:
        msg = g.get("message") or ""
        kind, want = e["message"]
        if kind == "~" and not want.search(msg):
            out.append(f"message {msg!r} does not match /{want.pattern}/")
        if kind == "=" and msg != want:
            out.append(f"message {msg!r}, want {want!r}")
    for ctype, key in (("Evicted", "evicted"), ("Preempted", "preempted")):
        if key not in a:
            continue
        c = wl_condition(w, ctype)
        true = c is not None and c.get("status") == "True"
        if a[key] == "none":
            if true:
                out.append(f"condition {ctype}=True reason {c.get('reason')!r}, want none")
        elif not true:
            out.append(f"no condition {ctype}=True, want reason {a[key]!r}"
                       + (f" (it is {c.get('status')} {c.get('reason')!r})" if c else ""))
        elif c.get("reason") != a[key]:
            out.append(f"condition {ctype} reason {c.get('reason')!r}, want {a[key]!r}")
    for ctype, key in (("PodsReady", "podsready"), ("Requeued", "requeued")):
        if key not in a:
            continue
        c = wl_condition(w, ctype)
        got = f"{c.get('status')}/{c.get('reason')}" if c else "none"
        if got != a[key]:
            out.append(f"condition {ctype} {got}, want {a[key]}")
    return out


def fmt_map(m):
    return "{" + ", ".join(f"{k}: {m[k]}" for k in sorted(m)) + "}"


def usage_rows(cqs):
    rows = {}
    for cq in cqs:
        name = _get(cq, ["metadata", "name"], "clusterqueue")
        rows.setdefault(name, {})
        for fl in (cq.get("status") or {}).get("flavorsReservation") or []:
            for r in fl.get("resources") or []:
                rows[name][(fl.get("name"), r.get("name"))] = (r.get("total", "0"), r.get("borrowed", "0"))
    return rows


def usage_table(rows):
    lines = []
    for cq in sorted(rows):
        if not rows[cq]:
            lines.append(f"{cq} (no flavorsReservation)")
        for (fl, res), (total, borrowed) in sorted(rows[cq].items()):
            lines.append(f"{cq} {fl} {res} {total} borrowed={borrowed}")
    return lines


def check_usage(block, cqs):
    rows = usage_rows(cqs)
    problems = []
    for u in block:
        where = f"{u['cq']} {u['flavor']} {u['resource']}"
        if u["cq"] not in rows:
            problems.append(f"{u['cq']}: no such ClusterQueue")
            continue
        if u["flavor"] == "-":
            busy = [f"{fl}/{res}={t}" for (fl, res), (t, _) in sorted(rows[u["cq"]].items())
                    if quantity(t) != 0]
            if busy:
                problems.append(f"{u['cq']}: reserves {', '.join(busy)}, want nothing")
            continue
        got = rows[u["cq"]].get((u["flavor"], u["resource"]))
        if got is None:
            if quantity(u["total"]) != 0 or (u["borrowed"] and quantity(u["borrowed"]) != 0):
                problems.append(f"{where}: not in status.flavorsReservation, want total {u['total']}")
            continue
        try:
            total, borrowed = quantity(got[0]), quantity(got[1])
        except ValueError as e:
            problems.append(f"{where}: {e}")
            continue
        if total != quantity(u["total"]):
            problems.append(f"{where}: total {got[0]}, want {u['total']}")
        if u["borrowed"] is not None and borrowed != quantity(u["borrowed"]):
            problems.append(f"{where}: borrowed {got[1]}, want {u['borrowed']}")
    return problems, usage_table(rows)


# ------------------------------------------------------------------ normalize

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_TIME = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def normalize(items):
    """The final state, with everything that may differ between two runs masked."""
    names = {}
    for w in items:
        wname = (w.get("metadata") or {}).get("name")
        if wname:
            names[wname] = f"<workload of {wl_key(w)}>"
    rows = []
    for w in items:
        g = (w.get("status") or {}).get("gpuq") or {}
        if g.get("state") == "cancelled":
            continue
        msg = g.get("message") or ""
        for wname in sorted(names, key=len, reverse=True):
            msg = msg.replace(wname, names[wname])
        msg = _TIME.sub("<time>", _UUID.sub("<uid>", msg))
        pss = wl_podsets(w) or []
        rows.append(" | ".join([
            wl_key(w), str(g.get("state")), str(g.get("clusterQueue") or ""),
            ";".join(f"{ps}:{fmt_map(fl)}x{c}" for ps, fl, c in pss),
            str(g.get("reason") or ""), msg]))
    return sorted(rows)


# ------------------------------------------------------------------- running

class Runner:
    def __init__(self, gpuq):
        self.gpuq = gpuq

    def gpuq_cmd(self, env, cwd, args, stdin=None):
        try:
            p = subprocess.run([self.gpuq] + args, input=stdin, capture_output=True,
                               text=True, env=env, cwd=cwd, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failed(f"`gpuq {' '.join(args)}` timed out after {TIMEOUT}s")
        except OSError as e:
            raise Failed(f"cannot run {self.gpuq}: {e}")
        return p

    def must(self, env, cwd, args, stdin=None):
        p = self.gpuq_cmd(env, cwd, args, stdin)
        if p.returncode != 0:
            err = (p.stderr.strip() or p.stdout.strip()).splitlines()
            raise Failed(f"`gpuq {' '.join(args)}` exited {p.returncode}: "
                         + (" / ".join(err[:5]) if err else "(no output)"))
        return p.stdout

    def list_json(self, env, cwd, args):
        out = self.must(env, cwd, args)
        try:
            doc = json.loads(out)
        except ValueError as e:
            raise Failed(f"`gpuq {' '.join(args)}` did not print JSON: {e}")
        items = doc.get("items") if isinstance(doc, dict) else None
        if not isinstance(items, list):
            raise Failed(f"`gpuq {' '.join(args)}`: no items list in its JSON")
        return items

    def workloads(self, env, cwd):
        return self.list_json(env, cwd, ["list", "-A", "-o", "json"])

    def run(self, sc):
        """(None, final normalized state) on success, else (message, table)."""
        tmp = tempfile.mkdtemp(prefix=f"gpuq-scn-{sc['name'][:20]}-")
        env = dict(os.environ)
        env.update(GPUQ_DB=os.path.join(tmp, "gpuq.db"), NO_COLOR="1", TZ="UTC")
        step = None
        try:
            for step in sc["steps"]:
                self.step(step, env, tmp)
            return None, normalize(self.workloads(env, tmp))
        except Failed as f:
            where = f"line {step['line']}: {step['header']}" if step else "setup"
            return f"{where}: {f}", f.table
        except Exception as e:  # a malformed answer must fail the scenario, not the run
            where = f"line {step['line']}: {step['header']}" if step else "setup"
            return f"{where}: unexpected output ({type(e).__name__}: {e})", None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def step(self, st, env, cwd):
        kind = st["kind"]
        if kind == "apply":
            self.must(env, cwd, ["apply", "-f", "-"], "\n".join(st["body"]) + "\n")
        elif kind == "schedule":
            args = ["--until-stable"] if st["arg"] == "until-stable" else ["--cycles", st["arg"]]
            self.must(env, cwd, ["schedule"] + args)
        elif kind == "run":
            self.must(env, cwd, st["arg"].split())
        elif kind == "run-fails":
            args = st["arg"].split()
            p = self.gpuq_cmd(env, cwd, args)
            if p.returncode == 0:
                raise Failed(f"`gpuq {' '.join(args)}` exited 0, want a failure")
        elif kind == "expect":
            items = self.workloads(env, cwd)
            try:
                problems = check_expect(st["body"], items)
            except Failed as f:
                f.table = table_of(items)
                raise
            if problems:
                raise Failed("\n    also: ".join(problems), table_of(items))
        elif kind == "expect-usage":
            cqs = self.list_json(env, cwd, ["list", "clusterqueues", "-o", "json"])
            problems, table = check_usage(st["body"], cqs)
            if problems:
                raise Failed("\n    also: ".join(problems), table)


def report_fail(name, msg, table):
    print(f"FAIL {name}: {msg}")
    if table is not None:
        print("    actual:" if table else "    actual: (nothing)")
        for line in table:
            print(f"      {line}")


def main(argv):
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args, files, jobs = argv[1:], [], os.cpu_count() or 2
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    gpuq = args.pop(0)
    while args:
        a = args.pop(0)
        if a == "-j" and args:
            jobs = int(args.pop(0))
        elif a.startswith("-j") and a[2:].isdigit():
            jobs = int(a[2:])
        else:
            files.append(a)
    if os.sep in gpuq or not shutil.which(gpuq):
        gpuq = os.path.abspath(gpuq)
    if not os.access(gpuq, os.X_OK):
        print(f"run.py: {gpuq}: not an executable", file=sys.stderr)
        return 2
    if not files:
        files = sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".scn"))
    if not files:
        print("run.py: no scenarios", file=sys.stderr)
        return 2

    runner = Runner(gpuq)
    scenarios, failed = [], set()
    for path in files:
        name = os.path.basename(path).removesuffix(".scn")
        try:
            scenarios.append(parse(path))
        except (Malformed, OSError) as e:
            scenarios.append({"name": name, "error": str(e)})

    def first(sc):
        if "error" in sc:
            return f"malformed scenario: {sc['error']}", None
        return runner.run(sc)

    finals = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for sc, (msg, res) in zip(scenarios, pool.map(first, scenarios)):
            if msg is None:
                finals[sc["name"]] = res
                print(f"ok {sc['name']}")
            else:
                failed.add(sc["name"])
                report_fail(sc["name"], msg, res)
            sys.stdout.flush()

        # Determinism: the same steps on a fresh database must end the same way.
        again = [sc for sc in scenarios if sc["name"] in finals]
        for sc, (msg, res) in zip(again, pool.map(runner.run, again)):
            if msg is not None:
                failed.add(sc["name"])
                report_fail(sc["name"], f"determinism: the second run failed at {msg}", res)
            elif res != finals[sc["name"]]:
                failed.add(sc["name"])
                first_only = [r for r in finals[sc["name"]] if r not in res]
                second_only = [r for r in res if r not in finals[sc["name"]]]
                print(f"FAIL {sc['name']}: determinism: the final state differs between two runs")
                for r in first_only:
                    print(f"    first run:  {r}")
                for r in second_only:
                    print(f"    second run: {r}")
            sys.stdout.flush()

    print(f"{len(scenarios) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
