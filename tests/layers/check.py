#!/usr/bin/env python3
"""The layer check (in the spirit of curl's checksrc): lib/README.md's rules,
kept by the build instead of by prose.

  python3 tests/layers/check.py [--root DIR] [--exceptions FILE]

The top level holds only what the developers' guide lists (and build folders,
dot-files). Each folder of lib/ is a layer. A file may include the headers of its own
layer and of the layers listed for it below, the public headers
(gpuqueue/*.h) and the C library; each outside dependency has the one layer
that may include it; cli/ and daemon/ include only the public headers of
the library; store_int.h (the connection, the raw row-by-position read)
is included by lib/store/ alone; SQL text appears only in lib/store/; a
workload state is
spelt in quotes only by lib/core/state.{c,h} (the C and SQL text everyone
else uses comes from there). Every finding is one line
"path:line: rule: what", and the exit status is 1 when there is one.

Known debts are listed in tests/layers/exceptions.txt, one per line
("path rule detail", then a reason); a listed debt that is found no more
fails the check too, so the list only ever shrinks.
"""
import os
import re
import sys

# Which layers a layer may include, besides itself (lib/README.md).
MAY_INCLUDE = {
    "core": set(),
    "os": set(),
    "store": {"core", "os"},
    "manifest": {"core"},
    "kube": {"core", "os", "manifest"},
    "engine": {"core", "os", "store", "manifest", "kube"},
    "api": {"core", "os", "store", "manifest", "kube", "engine"},
}

# The one layer (or program) that includes each outside dependency.
DEPENDENCY = {
    "sqlite3.h": {"store"},
    "yaml.h": {"manifest"},
    "curl/": {"kube"},
    "json-c/": {"manifest", "kube"},
    "uuid.h": {"os"},
    "uuid/": {"os"},
    "microhttpd.h": {"daemon"},
}

SQL = re.compile(
    r'"[^"\n]*\b(SELECT\s+\S|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|'
    r'CREATE\s+(TABLE|INDEX|TRIGGER|VIEW)|PRAGMA\s+\w|BEGIN\s+(IMMEDIATE|DEFERRED|EXCLUSIVE)|'
    r'\bCOMMIT\b|\bROLLBACK\b)')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')

# The workload states: the one list (GQ_WL_STATES, lib/core/state.h) spells
# them, as the table's text and as SQL literals; a file that writes one in
# quotes has a second copy of the state machine. Only the exact lower-case
# word is a state ("Pending" is a check's state, "--pending" an option).
STATE_HOME = {"lib/core/state.h", "lib/core/state.c"}
STATE_ITEM = re.compile(r'^\s*X\(([A-Z_]+),\s*([a-z_]+)\)')
SQL_STATE_ARG = re.compile(r'\bGQ_(?:SQL_STATE|WL_TEXT)\(\s*(\w+)\s*\)')
# Words that are states but say something else here, each where it is
# (path, a piece of the line that holds it), and what it is instead.
NOT_STATE = {
    ("lib/api/api_metrics.c", 'statuses[] = {"pending", "active", "terminating"}'):
        "Kueue's ClusterQueue status, a metric label value",
    ("lib/api/api_metrics.c", "(with possible values 'pending', "):
        "the same statuses in the metric's HELP text",
    ("lib/api/report.c", 'wait_keys[GQ__NWAITS] = {"admission", "running",'):
        "the report's wait from submit to running, a JSON key",
    ("lib/api/report_csv.c", 'head[] = {"kind", "name",  "jobs",  "admitted",'):
        "a CSV column header",
    ("lib/api/report_html.c", 'svg_open(s, "pending", '):
        "an HTML element id",
}


def state_names(root):
    """The states, read off GQ_WL_STATES in lib/core/state.h (None: no such list)."""
    path = os.path.join(root, "lib", "core", "state.h")
    if not os.path.exists(path):
        return None
    names, inside = [], False
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#define GQ_WL_STATES(X)"):
                inside = True
            elif inside:
                m = STATE_ITEM.match(line)
                if m:
                    names.append(m.group(2))
                if not line.rstrip().endswith("\\"):
                    break
    return names or None


def strip_comments(text):
    """C comments blanked out (newlines kept, so line numbers hold); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(root, sub):
    top = os.path.join(root, sub)
    for dirpath, _, files in sorted(os.walk(top)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.join(dirpath, f)


ROOT = "."


# The repository's top level, as the developers' guide fixes it (dot-files aside), and what
# a build leaves there (ignored by git).
TOP_LEVEL = {"CMakeLists.txt", "lib", "cli", "daemon", "schema", "tests", "examples", "README.md",
             "cmake"}
BUILD_DIR = re.compile(r"^build")


def top_level(root):
    """A file or folder at the top level that the guide does not list."""
    for entry in sorted(os.listdir(root)):
        if entry.startswith(".") or entry in TOP_LEVEL or BUILD_DIR.match(entry):
            continue
        yield f"{entry}: layout: not one of the top level's entries (the guide lists them)"


def check(root):
    global ROOT
    ROOT = root
    yield from top_level(root)
    lib = os.path.join(root, "lib")
    layer_of = {}  # header base name -> layer
    for layer in MAY_INCLUDE:
        d = os.path.join(lib, layer)
        if not os.path.isdir(d):
            yield f"lib/{layer}: layout: the layer's folder is missing"
            continue
        for f in os.listdir(d):
            if f.endswith(".h"):
                layer_of[f] = layer
    for entry in sorted(os.listdir(lib)):
        p = os.path.join(lib, entry)
        if os.path.isfile(p) and entry.endswith((".c", ".h")):
            yield f"lib/{entry}: layout: a source file outside every layer's folder"
        elif os.path.isdir(p) and entry not in MAY_INCLUDE and entry != "include":
            yield f"lib/{entry}: layout: a folder that is no layer (lib/README.md names them)"

    states = state_names(root)
    if states is None:
        yield "lib/core/state.h: layout: GQ_WL_STATES, the list of workload states, is missing"
        states = []
    quoted = re.compile(r'(["\'])(%s)\1' % "|".join(states)) if states else None
    for sub in ("lib", "cli", "daemon"):
        for path in sources(root, sub):
            rel = os.path.relpath(path, root)
            parts = rel.split(os.sep)
            if sub == "lib":
                if parts[1] == "include":
                    who = "public"
                elif parts[1] in MAY_INCLUDE:
                    who = parts[1]
                else:
                    continue  # reported above
            else:
                who = sub
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = strip_comments(fh.read())
            for no, line in enumerate(text.split("\n"), 1):
                m = INCLUDE.match(line)
                if m:
                    yield from include_rule(rel, no, who, m.group(1), m.group(2), layer_of)
                    continue
                if who != "store" and SQL.search(line):
                    yield f"{rel}:{no}: sql: SQL text outside lib/store/"
                if quoted and rel not in STATE_HOME:
                    yield from state_rule(rel, no, line, quoted, states)


def state_rule(rel, no, line, quoted, states):
    """A state in quotes outside state.{c,h}; GQ_SQL_STATE of a word that is none.

    The message holds no quotes: key() makes "path state-literal" of it,
    one known debt per file whatever the word."""
    for m in quoted.finditer(line):
        if any(path == rel and piece in line for path, piece in NOT_STATE):
            continue
        kind = "C string" if m.group(1) == '"' else "SQL literal"
        yield (f"{rel}:{no}: state-literal: the workload state {m.group(2)} spelt as a {kind} "
               "outside lib/core/state.h (use its enum, gq__wl_state_name or GQ_SQL_*)")
    for m in SQL_STATE_ARG.finditer(line):
        if m.group(1) not in states and m.group(1) != "low":
            yield (f"{rel}:{no}: state-literal: GQ_SQL_STATE or GQ_WL_TEXT of {m.group(1)}, "
                   "which is no state")


def include_rule(rel, no, who, kind, name, layer_of):
    for dep, allowed in DEPENDENCY.items():
        if name == dep or (dep.endswith("/") and name.startswith(dep)):
            if who not in allowed:
                yield (f"{rel}:{no}: dependency: <{name}> is included only by "
                       f"{', '.join(sorted(allowed))}")
            return
    if kind != '"' or name.startswith("gpuqueue/"):
        return
    if os.path.exists(os.path.join(os.path.dirname(os.path.join(ROOT, rel)), name)):
        return  # beside the includer: its own folder (the public headers include each other so)
    target = layer_of.get(os.path.basename(name))
    if target is None:
        return  # a header of cli/ or daemon/ themselves, or a generated one
    if who in ("cli", "daemon", "public"):
        yield f"{rel}:{no}: include: {who} may use only the public header, not \"{name}\" ({target})"
    elif target == "store" and who != "store" and os.path.basename(name) == "store_int.h":
        yield (f"{rel}:{no}: include: \"{name}\" is store's own (the connection and the raw "
               "row-by-position read stay in lib/store/)")
    elif target != who and target not in MAY_INCLUDE[who]:
        yield f"{rel}:{no}: include: {who} may not include \"{name}\" ({target})"


def load_exceptions(path):
    known = {}
    if not path or not os.path.exists(path):
        return known
    with open(path, encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                known[line] = no
    return known


def key(finding):
    """path rule detail, without the line number (lines move; debts do not)."""
    where, rule, what = finding.split(": ", 2)
    path = where.split(":")[0]
    m = re.search(r'"([^"]+)"|<([^>]+)>', what)
    detail = (m.group(1) or m.group(2)) if m else ""
    return f"{path} {rule} {detail}".strip()


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    exceptions = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--root":
            root = args.pop(0)
        elif a == "--exceptions":
            exceptions = args.pop(0)
        else:
            print(f"check.py: unknown argument {a!r}", file=sys.stderr)
            return 2
    if exceptions is None:
        exceptions = os.path.join(root, "tests", "layers", "exceptions.txt")
    known = load_exceptions(exceptions)
    seen, bad = set(), 0
    for f in check(root):
        k = key(f)
        if k in known:
            seen.add(k)
            continue
        print(f)
        bad += 1
    for k, no in sorted(known.items(), key=lambda kv: kv[1]):
        if k not in seen:
            print(f"{os.path.relpath(exceptions, root)}:{no}: stale: \"{k}\" is found no more; "
                  "take it off the list")
            bad += 1
    print(f"layers: {bad} finding(s), {len(seen)} known debt(s) listed in "
          f"{os.path.relpath(exceptions, root)}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
