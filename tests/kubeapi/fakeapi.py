#!/usr/bin/env python3
"""fakeapi: a fake Kubernetes API server for gpuq's tests (Python 3 standard library only).

    fakeapi.py --dir DIR [--users alice,bob] [--bookmark-interval S] [--history N] [--crds PATH ...]

Serves core/v1 namespaces, podtemplates, secrets, pods, events, limitranges; batch/v1 jobs;
coordination.k8s.io/v1 leases; node.k8s.io/v1 runtimeclasses;
apiextensions.k8s.io/v1 customresourcedefinitions and every custom resource they define, over TLS
with bearer tokens, with the semantics kubectl and client-go rely on (resourceVersion, watch
history, 410, bookmarks, selectors, pagination, patches, status subresources, finalizers, garbage
collection, validation). A plain-HTTP control port scripts faults and inspects state; see
README.md beside this file. One lock (a Condition) guards all state; watchers wait on it.
"""
import argparse, base64, bisect, copy, datetime, json, math, os, re, secrets, select, signal, socket, ssl
import subprocess, sys, threading, time, uuid
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

MISSING = object()
STOP = threading.Event()

# ---------------------------------------------------------------- YAML (the subset manifests use)


class YamlError(ValueError):
    pass


def yaml_load_all(text):
    """Block and flow YAML without anchors or tags; scalars resolved as go-yaml (YAML 1.1) does."""
    docs, cur = [], []
    for line in text.replace("\r\n", "\n").lstrip("\ufeff").split("\n"):
        if re.match(r"^(---|\.\.\.)(\s|$)", line):
            docs.append(cur)
            cur = []
        else:
            cur.append(line)
    docs.append(cur)
    out = []
    for lines in docs:
        p = _Yaml(lines)
        v = p.block(0, -1)
        if p.sig() is not None:
            raise YamlError(f"line {p.i + 1}: unexpected content")
        if v is not None:
            out.append(v)
    return out


def _scalar(s):
    if s in ("", "~", "null", "Null", "NULL"):
        return None
    if s in ("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"):
        return True
    if s in ("false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"):
        return False
    if re.fullmatch(r"[-+]?[0-9]+", s):
        return int(s)
    if re.fullmatch(r"0x[0-9a-fA-F]+", s):
        return int(s, 16)
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?", s):
        return float(s)
    if s.lower() in (".inf", "+.inf", "-.inf", ".nan"):
        return float(s.replace(".", ""))
    return s


_ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "/": "/", " ": " ",
        "e": "\x1b", "a": "\a", "b": "\b", "N": "\x85", "_": "\xa0", "\t": "\t"}


def _quoted(s, i):
    """Parse a quoted scalar starting at s[i]; return (value, index after the closing quote)."""
    q, j, out = s[i], i + 1, []
    while j < len(s):
        c = s[j]
        if c == q:
            if q == "'" and s[j + 1:j + 2] == "'":
                out.append("'")
                j += 2
                continue
            return "".join(out), j + 1
        if c == "\\" and q == '"':
            e = s[j + 1:j + 2]
            if e in "xuU" and e:
                n = {"x": 2, "u": 4, "U": 8}[e]
                out.append(chr(int(s[j + 2:j + 2 + n], 16)))
                j += 2 + n
                continue
            if e == "\n":
                j += 2
                while j < len(s) and s[j] in " \t":
                    j += 1
                continue
            out.append(_ESC.get(e, e))
            j += 2
            continue
        if c == "\n":  # line folding inside quotes
            while out and out[-1] in " \t":
                out.pop()
            k = j + 1
            nl = 0
            while k < len(s) and s[k] in " \t\n":
                nl += s[k] == "\n"
                k += 1
            out.append("\n" * nl if nl else " ")
            j = k
            continue
        out.append(c)
        j += 1
    raise YamlError("unterminated quoted scalar")


def _flow(s, i=0):
    """Parse a flow node at s[i]; return (value, next index)."""
    while i < len(s) and s[i] in " \t\n":
        i += 1
    if i >= len(s):
        return None, i
    c = s[i]
    if c in "[{":
        close, out, i = "]" if c == "[" else "}", [] if c == "[" else {}, i + 1
        while True:
            while i < len(s) and s[i] in " \t\n,":
                i += 1
            if i >= len(s):
                raise YamlError("unterminated flow collection")
            if s[i] == close:
                return out, i + 1
            k, i = _flow(s, i)
            while i < len(s) and s[i] in " \t\n":
                i += 1
            if isinstance(out, dict):
                v = None
                if i < len(s) and s[i] == ":":
                    v, i = _flow(s, i + 1)
                out[k] = v
            elif i < len(s) and s[i] == ":":  # [a: b] is a list of one-pair maps
                v, i = _flow(s, i + 1)
                out.append({k: v})
            else:
                out.append(k)
    if c in "'\"":
        return _quoted(s, i)
    m = re.compile(r"((?:[^,\[\]{}:#\n]|:(?=[^\s,\[\]{}])|(?<=\S)#)*)").match(s, i)
    return _scalar(m.group(1).strip()), m.end()


class _Yaml:
    KEY = re.compile(r"^([^\s#'\"\[\]{}][^#]*?|\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*')\s*:(?:[ \t]+|$)(.*)$")

    def __init__(self, lines):
        self.lines, self.i = lines, 0

    def sig(self):
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            s = raw.strip()
            if s and not s.startswith("#"):
                if "\t" in raw[:len(raw) - len(raw.lstrip())]:
                    raise YamlError(f"line {self.i + 1}: tab in indentation")
                ind = len(raw) - len(raw.lstrip(" "))
                return ind, raw[ind:].rstrip()
            self.i += 1
        return None

    @staticmethod
    def is_item(s):
        return s == "-" or s.startswith("- ")

    def key(self, s):
        m = self.KEY.match(s)
        if not m or s.startswith("- ") or s == "-":
            return None
        k = m.group(1)
        return _quoted(k, 0)[0] if k[0] in "'\"" else k, m.group(2)

    def block(self, ind, parent):
        t = self.sig()
        if t is None or t[0] < ind or t[0] <= parent:
            return None
        if self.is_item(t[1]):
            return self.seq(t[0])
        if self.key(t[1]) is not None:
            return self.map(t[0])
        self.i += 1
        return self.inline(t[1], parent)

    def seq(self, ind):
        out = []
        while True:
            t = self.sig()
            if t is None or t[0] != ind or not self.is_item(t[1]):
                return out
            rest = t[1][1:]
            if not rest.strip() or rest.strip().startswith("#"):
                self.i += 1
                out.append(self.block(ind + 1, ind))
                continue
            n = ind + 1 + len(rest) - len(rest.lstrip(" "))
            self.lines[self.i] = " " * n + rest.lstrip(" ")
            out.append(self.block(n, ind))

    def map(self, ind):
        out = {}
        while True:
            t = self.sig()
            if t is None or t[0] != ind:
                return out
            kv = self.key(t[1])
            if kv is None:
                raise YamlError(f"line {self.i + 1}: expected a mapping key")
            self.i += 1
            out[kv[0]] = self.value(ind, kv[1].strip())

    def value(self, ind, rest):
        if rest.startswith("#"):
            rest = ""
        if rest[:1] in ("&", "*", "!"):
            raise YamlError(f"line {self.i}: anchors, aliases and tags are not supported")
        if rest == "":
            t = self.sig()
            if t and t[0] == ind and self.is_item(t[1]):
                return self.seq(ind)
            return self.block(ind + 1, ind)
        if rest[0] in "|>":
            return self.block_scalar(ind, rest)
        return self.inline(rest, ind)

    def inline(self, text, parent):
        """A scalar or flow node beginning with text, continued on lines indented past parent."""
        while True:
            if text[0] in "[{\"'":
                try:
                    v, end = _flow(text)
                    if text[end:].strip() and not text[end:].strip().startswith("#"):
                        raise YamlError(f"line {self.i}: junk after value")
                    return v
                except (YamlError, IndexError):
                    if not self.more(parent):
                        raise
            else:
                text = re.sub(r"\s+#.*$", "", text)
                if not self.more(parent):
                    return _scalar(text.strip())
            raw = self.lines[self.i]
            self.i += 1
            text += "\n" + raw.strip() if text[0] in "[{\"'" else " " + raw.strip()

    def more(self, parent):
        if self.i >= len(self.lines):
            return False
        raw = self.lines[self.i]
        return bool(raw.strip()) and len(raw) - len(raw.lstrip(" ")) > parent and not raw.strip().startswith("#")

    def block_scalar(self, ind, header):
        m = re.match(r"^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$", header)
        if not m:
            raise YamlError(f"line {self.i}: bad block scalar header {header!r}")
        style, chomp, width = m.group(1), m.group(2) or m.group(4), m.group(3)
        lines, content = [], int(width) + max(ind, 0) if width else None
        while self.i < len(self.lines):
            raw = self.lines[self.i]
            if raw.strip():
                cur = len(raw) - len(raw.lstrip(" "))
                if cur <= ind:
                    break
                content = cur if content is None else content
                if cur < content:
                    break
                lines.append(raw[content:])
            else:
                lines.append("")
            self.i += 1
        trailing = 0
        while lines and lines[-1] == "":
            lines.pop()
            trailing += 1
        if style == "|":
            body = "\n".join(lines)
        else:
            body, prev = "", None
            for ln in lines:
                if prev is None:
                    body = ln
                elif ln == "" or prev == "" or ln[:1] in " \t" or prev[:1] in " \t":
                    body += "\n" + ln if prev != "" or ln[:1] in " \t" else ln if ln else "\n"
                else:
                    body += " " + ln
                prev = ln
        if chomp == "-" or not lines:
            return body
        return body + "\n" * (1 + (trailing if chomp == "+" else 0))


# ---------------------------------------------------------------- errors, time, small helpers


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code, self.reason, self.message, self.details = code, reason, message, details

    def status(self):
        s = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
             "message": self.message, "reason": self.reason, "code": self.code}
        if self.details:
            s["details"] = self.details
        return s


def bad_request(msg):
    return ApiError(400, "BadRequest", msg)


def canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def now_ts():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")
MICROTIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$")


def parse_ts(s):
    try:
        return datetime.datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return None


def human_age(secs):
    """k8s.io/apimachinery/pkg/util/duration.HumanDuration."""
    s = int(secs)
    if s < -1:
        return "<invalid>"
    s = max(s, 0)
    if s < 120:
        return f"{s}s"
    m, h, d = s // 60, s // 3600, s // 86400
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    if h < 192:
        return f"{d}d{h % 24}h" if h % 24 else f"{d}d"
    return f"{d}d" if d < 730 else f"{d // 365}y"


def gofmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, str):
        return json.dumps(v)
    return '"' + jtype(v) + '"'


def jtype(v):
    return {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object",
            list: "array", type(None): "null"}[type(v)]


def get_path(obj, path):
    for p in path.split("."):
        if not isinstance(obj, dict) or p not in obj:
            return None
        obj = obj[p]
    return obj


def jsonpath(obj, path):
    """The jsonPath subset of printer columns: .a.b, [N], [?(@.k=="v")]."""
    cur = [obj]
    for name, idx, fk, fv in re.findall(r"\.([\w-]+)|\[(\d+)\]|\[\?\(@\.([\w.]+)\s*==\s*[\"']([^\"']*)[\"']\)\]", path):
        nxt = []
        for c in cur:
            if name and isinstance(c, dict) and name in c:
                nxt.append(c[name])
            elif idx and isinstance(c, list) and int(idx) < len(c):
                nxt.append(c[int(idx)])
            elif fk and isinstance(c, list):
                nxt += [x for x in c if isinstance(x, dict) and get_path(x, fk) == fv]
        cur = nxt
    return cur[0] if cur else None


# ---------------------------------------------------------------- quantities

QTY = re.compile(r"^([+-]?)([0-9]+\.?[0-9]*|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$")
BIN = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
DEC = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
QTY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def parse_qty(s):
    """Return (value as Fraction, format) or None; format is bin, dec or exp."""
    if isinstance(s, bool) or not isinstance(s, (str, int, float)):
        return None
    if isinstance(s, float):
        if not math.isfinite(s):
            return None
        s = repr(s)
    m = QTY.match(str(s))
    if not m:
        return None
    sign, num, suf = m.group(1), m.group(2), m.group(3) or ""
    v = Fraction(num) * (-1 if sign == "-" else 1)
    if suf in BIN:
        return v * 1024 ** BIN.index(suf), "bin"
    if suf[0] in "eE":
        return v * Fraction(10) ** int(suf[1:]), "exp"
    return v * Fraction(10) ** DEC[suf], "dec"


def canon_qty(v, fmt):
    """resource.Quantity's canonical string (rounded up to nano units)."""
    n = v * 10 ** 9
    if n.denominator != 1:
        v = Fraction(math.ceil(n) if n > 0 else math.floor(n), 10 ** 9)
    if v == 0:
        return "0"
    if fmt == "bin" and v.denominator == 1 and abs(v) >= 1024:
        for k in range(6, 0, -1):
            if v % 1024 ** k == 0:
                return f"{v // 1024 ** k}{BIN[k]}"
        return str(v)
    for e in (18, 15, 12, 9, 6, 3, 0, -3, -6, -9):
        m = v / Fraction(10) ** e
        if m.denominator == 1:
            suf = ({0: ""} if fmt == "exp" else {}).get(e, f"e{e}" if fmt == "exp" else
                                                         {d: k for k, d in DEC.items()}[e])
            return f"{m.numerator}{suf}"
    return str(v)


# ---------------------------------------------------------------- names, labels, selectors

DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
SUBDOMAIN_RE = re.compile(rf"^{DNS_LABEL}(\.{DNS_LABEL})*$")
LABEL_RE = re.compile(rf"^{DNS_LABEL}$")
QNAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
             "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
QNAME_MSG = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
             "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
             "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def subdomain_errs(v):
    return ([] if SUBDOMAIN_RE.match(v) else [SUBDOMAIN_MSG]) + (["must be no more than 253 characters"]
                                                                  if len(v) > 253 else [])


def label_name_errs(v):
    return ([] if LABEL_RE.match(v) else [LABEL_MSG]) + (["must be no more than 63 characters"]
                                                          if len(v) > 63 else [])


def qname_errs(k):
    if not isinstance(k, str):
        return ["must be a string"]
    prefix, _, name = k.rpartition("/")
    if k.count("/") > 1:
        return [f"a qualified name {QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. "
                "'example.com/MyName')"]
    errs = [] if QNAME_RE.match(name) else [QNAME_MSG]
    errs += ["name part must be no more than 63 characters"] if len(name) > 63 else []
    if "/" in k:
        errs += ["prefix part " + e for e in subdomain_errs(prefix)] if prefix else ["prefix part must be non-empty"]
    return errs


def value_errs(v):
    if not isinstance(v, str):
        return ["must be a string"]
    return (["must be no more than 63 characters"] if len(v) > 63 else []) + \
        ([VALUE_MSG] if v and not QNAME_RE.match(v) else [])


def parse_label_selector(s):
    reqs, depth, term = [], 0, ""
    for ch in (s or "") + ",":
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            t = term.strip()
            term = ""
            if not t:
                continue
            m = re.fullmatch(r"(!?)\s*([^\s!=(),]+)", t)
            if m:
                reqs.append((m.group(2), "!exists" if m.group(1) else "exists", []))
            elif (m := re.fullmatch(r"([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)", t)):
                reqs.append((m.group(1), "!=" if m.group(2) == "!=" else "=", [m.group(3)]))
            elif (m := re.fullmatch(r"([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)", t)):
                reqs.append((m.group(1), m.group(2), [x.strip() for x in m.group(3).split(",")]))
            else:
                raise bad_request(f"unable to parse requirement: found '{t}', expected: identifier")
            for e in qname_errs(reqs[-1][0]):
                raise bad_request(f"unable to parse requirement: invalid label key \"{reqs[-1][0]}\": {e}")
            for v in reqs[-1][2]:
                for e in value_errs(v):
                    raise bad_request(f"unable to parse requirement: invalid label value: \"{v}\": {e}")
        else:
            term += ch
    return reqs


def labels_match(reqs, labels):
    labels = labels or {}
    for key, op, vals in reqs:
        has, v = key in labels, labels.get(key)
        if (op == "exists" and not has) or (op == "!exists" and has) or (op in ("=", "in") and v not in vals) \
                or (op in ("!=", "notin") and has and v in vals):
            return False
    return True


def parse_field_selector(s, kind):
    reqs = []
    for t in filter(None, (x.strip() for x in (s or "").split(","))):
        m = re.fullmatch(r"([\w.]+)\s*(==|=|!=)\s*(.*)", t)
        if not m:
            raise bad_request(f"invalid selector: '{s}'; can't understand '{t}'")
        if m.group(1) not in ("metadata.name", "metadata.namespace") + kind.fields:
            raise bad_request(f'field label not supported: {m.group(1)}')
        reqs.append((m.group(1), m.group(2) != "!=", m.group(3)))
    return reqs


def fields_match(reqs, obj):
    for path, eq, val in reqs:
        v = get_path(obj, path)
        if ((v if v is not None else "") == val) != eq:
            return False
    return True


# ---------------------------------------------------------------- patches

MERGE_KEYS = {"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "env": "name",
              "volumes": "name", "volumeMounts": "mountPath", "volumeDevices": "devicePath",
              "ports": "containerPort", "imagePullSecrets": "name", "ownerReferences": "uid",
              "conditions": "type", "hostAliases": "ip", "topologySpreadConstraints": "topologyKey",
              "resourceClaims": "name", "schedulingGates": "name"}
SET_LISTS = {"finalizers"}


def merge_patch(target, patch):
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _ptr(p):
    if p == "":
        return []
    if not isinstance(p, str) or not p.startswith("/"):
        raise ApiError(422, "Invalid", f"json patch: invalid pointer {p!r}")
    return [x.replace("~1", "/").replace("~0", "~") for x in p[1:].split("/")]


def _walk(doc, parts):
    for part in parts:
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            raise ApiError(422, "Invalid", f"json patch: doc is missing path: \"/{'/'.join(parts)}\"")
    return doc


def json_patch(doc, ops):
    """RFC 6902 on a deep copy of doc."""
    if not isinstance(ops, list):
        raise bad_request("json patch must be a list of operations")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict):
            raise bad_request("json patch operation must be an object")
        kind, parts = op.get("op"), _ptr(op.get("path"))
        if kind in ("move", "copy"):
            val = copy.deepcopy(_walk(doc, _ptr(op.get("from"))))
            if kind == "move":
                doc = json_patch(doc, [{"op": "remove", "path": op.get("from")}])
            kind = "add"
        else:
            val = copy.deepcopy(op.get("value"))
        if kind == "test":
            if canon(_walk(doc, parts)) != canon(val):
                raise ApiError(422, "Invalid", f"json patch: testing value {op.get('path')} failed: test failed")
            continue
        if kind not in ("add", "remove", "replace"):
            raise bad_request(f"json patch: unexpected operation {kind!r}")
        if not parts:
            if kind == "remove":
                raise ApiError(422, "Invalid", "json patch: cannot remove the whole document")
            doc = val
            continue
        parent, last = _walk(doc, parts[:-1]), parts[-1]
        if isinstance(parent, dict):
            if kind != "add" and last not in parent:
                raise ApiError(422, "Invalid", f"json patch: doc is missing key: {op.get('path')}")
            if kind == "remove":
                del parent[last]
            else:
                parent[last] = val
        elif isinstance(parent, list):
            n = len(parent) if last == "-" and kind == "add" else int(last) if last.isdigit() else -1
            if n < 0 or n > len(parent) or (kind != "add" and n == len(parent)):
                raise ApiError(422, "Invalid", f"json patch: index out of range: {op.get('path')}")
            if kind == "add":
                parent.insert(n, val)
            elif kind == "remove":
                del parent[n]
            else:
                parent[n] = val
        else:
            raise ApiError(422, "Invalid", f"json patch: cannot address into {op.get('path')}")
    return doc


def _strip(v):
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if not k.startswith("$")}
    if isinstance(v, list):
        return [_strip(x) for x in v if not (isinstance(x, dict) and x.get("$patch") == "delete")]
    return v


def strategic_merge(orig, patch, keys=MERGE_KEYS):
    """Strategic merge patch for built-in kinds: merge keys from `keys`, directives $patch,
    $retainKeys, $setElementOrder/, $deleteFromPrimitiveList/. With keys from a CRD's
    x-kubernetes-list-map-keys this is also the "merge" of server-side apply."""
    if not isinstance(patch, dict) or not isinstance(orig, dict):
        return _strip(patch)
    if patch.get("$patch") == "replace":
        return _strip(patch)
    out = copy.deepcopy(orig)
    for k, v in patch.items():
        if k.startswith("$deleteFromPrimitiveList/"):
            f = k.split("/", 1)[1]
            out[f] = [x for x in out.get(f) or [] if x not in v]
        elif k.startswith("$"):
            continue
        elif v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and v.get("$patch") == "delete":
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = strategic_merge(out[k], v, keys)
        elif isinstance(v, list) and k in keys and isinstance(out.get(k), list):
            out[k] = _merge_list(out[k], v, keys[k], keys)
        elif isinstance(v, list) and k in SET_LISTS and isinstance(out.get(k), list):
            out[k] = out[k] + [x for x in v if x not in out[k]]
        else:
            out[k] = _strip(v)
    for k, order in patch.items():
        f = k.split("/", 1)[1] if k.startswith("$setElementOrder/") else None
        if f and isinstance(out.get(f), list):
            mk = keys.get(f)
            ident = [(o.get(mk) if mk and isinstance(o, dict) else o) for o in order]
            ranked = lambda x: ident.index(x.get(mk) if mk and isinstance(x, dict) else x) \
                if (x.get(mk) if mk and isinstance(x, dict) else x) in ident else len(ident)
            out[f] = sorted(out[f], key=ranked)
    if isinstance(patch.get("$retainKeys"), list):
        out = {k: v for k, v in out.items() if k in patch["$retainKeys"]}
    return out


def _merge_list(cur, items, mk, keys):
    out = copy.deepcopy(cur)
    for item in items:
        if not isinstance(item, dict):
            continue
        idx = next((i for i, x in enumerate(out) if isinstance(x, dict) and x.get(mk) == item.get(mk)), None)
        if item.get("$patch") == "delete":
            if idx is not None:
                del out[idx]
        elif idx is None:
            out.append(_strip(item))
        else:
            out[idx] = strategic_merge(out[idx], item, keys)
    return out


# ---------------------------------------------------------------- validation

def f_req(field, detail=""):
    return ("FieldValueRequired", field, "Required value" + (f": {detail}" if detail else ""))


def f_bad(field, value, detail):
    return ("FieldValueInvalid", field, f"Invalid value: {gofmt(value)}: {detail}")


def f_unsupported(field, value, allowed):
    return ("FieldValueNotSupported", field,
            f"Unsupported value: {gofmt(value)}: supported values: " + ", ".join(json.dumps(a) for a in allowed))


def f_forbidden(field, detail):
    return ("FieldValueForbidden", field, f"Forbidden: {detail}")


def invalid(kind, name, errs):
    texts = [f"{f}: {t}" if f else t for _, f, t in errs]
    details = {"name": name, "kind": kind.kind,
               "causes": [{"reason": r, "message": t, "field": f} for r, f, t in errs]}
    if kind.group:
        details["group"] = kind.group
    gk = kind.kind + ("." + kind.group if kind.group else "")
    msg = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    return ApiError(422, "Invalid", f'{gk} "{name}" is invalid: {msg}', details)


def schema_walk(val, sch, path, errs, unknown, old=MISSING, decode=False):
    """Validate val against an OpenAPI v3 structural schema, pruning unknown fields (CRD semantics),
    or only check JSON types (decode=True: built-in kinds, whose type errors are decode errors).
    Returns the pruned value, or MISSING when the value is pruned (a null for a non-nullable field)."""
    here = path or "<root>"
    if val is None:
        return None if sch.get("nullable") or decode else MISSING
    t, got = sch.get("type"), jtype(val)
    if got == "integer" and not -2**63 <= val < 2**63:
        got = "number"
    if sch.get("x-kubernetes-int-or-string"):
        t = "integer" if got == "integer" else "string"
    if t and t != got and not (t == "number" and got == "integer"):
        errs.append((t, here, got) if decode else ("FieldValueTypeInvalid", here, f'Invalid value: "{got}": '
                                                   f'{here} in body must be of type {t}: "{got}"'))
        return val
    if decode and "format" in sch and isinstance(val, (int, str)):
        fmt = sch["format"]
        if (fmt == "int32" and not -2**31 <= val < 2**31) or (fmt == "int64" and not -2**63 <= val < 2**63) \
                or (fmt == "micro-time" and not MICROTIME.match(val)) \
                or (fmt == "date-time" and not RFC3339.match(val)):
            errs.append((fmt, here, json.dumps(val)))
        return val
    out = val
    if isinstance(val, dict):
        props, addl = sch.get("properties"), sch.get("additionalProperties")
        keep = sch.get("x-kubernetes-preserve-unknown-fields") or addl is True
        out = {}
        for k, v in val.items():
            sub = (props or {}).get(k) if props and k in props else addl if isinstance(addl, dict) else None
            sub = None if path == "" and k in ("apiVersion", "kind", "metadata") else sub
            o = old.get(k, MISSING) if isinstance(old, dict) else MISSING
            if sub is not None:
                nv = schema_walk(v, sub, f"{path}.{k}" if path else k, errs, unknown, o, decode)
                if nv is not MISSING:
                    out[k] = nv
            elif keep or (path == "" and k in ("apiVersion", "kind", "metadata")):
                out[k] = v
            else:
                unknown.append(f"{path}.{k}" if path else k)
        if not decode:
            for r in sch.get("required", []):
                if r not in val:
                    errs.append(f_req(f"{path}.{r}" if path else r))
            if "maxProperties" in sch and len(val) > sch["maxProperties"]:
                errs.append(("FieldValueTooMany", here, f"Too many: {len(val)}: must have at most "
                             f"{sch['maxProperties']} items"))
    elif isinstance(val, list):
        items = sch.get("items") or {}
        out = []
        for i, v in enumerate(val):
            nv = schema_walk(v, items, f"{path}[{i}]", errs, unknown, MISSING, decode)
            out.append(v if nv is MISSING else nv)
        if not decode and "minItems" in sch and len(val) < sch["minItems"]:
            errs.append(f_bad(here, len(val), f"{here} in body should have at least {sch['minItems']} items"))
        if not decode and "maxItems" in sch and len(val) > sch["maxItems"]:
            errs.append(("FieldValueTooMany", here, f"Too many: {len(val)}: must have at most "
                         f"{sch['maxItems']} items"))
    elif not decode:
        schema_scalar(val, sch, here, errs)
    if not decode and old is not MISSING:
        for rule in sch.get("x-kubernetes-validations") or []:
            if re.sub(r"\s", "", rule.get("rule", "")) == "self==oldSelf" and canon(val) != canon(old):
                errs.append(f_bad(here, jtype(val) if isinstance(val, (dict, list)) else val,
                                  rule.get("message", "failed rule: self == oldSelf")))
    return out


def schema_scalar(val, sch, here, errs):
    if "enum" in sch and val not in sch["enum"]:
        errs.append(f_unsupported(here, val, sch["enum"]))
    if isinstance(val, str):
        if "maxLength" in sch and len(val) > sch["maxLength"]:
            errs.append(("FieldValueTooLong", here, f"Too long: may not be more than {sch['maxLength']} bytes"))
        if "minLength" in sch and len(val) < sch["minLength"]:
            errs.append(f_bad(here, val, f"{here} in body should be at least {sch['minLength']} chars long"))
        if "pattern" in sch and not re.search(sch["pattern"], val):
            errs.append(f_bad(here, val, f"{here} in body should match '{sch['pattern']}'"))
        if sch.get("format") == "date-time" and not RFC3339.match(val):
            errs.append(f_bad(here, val, f"{here} in body must be of type date-time: {json.dumps(val)}"))
    elif isinstance(val, (int, float)) and not isinstance(val, bool):
        if "minimum" in sch and (val < sch["minimum"] or (sch.get("exclusiveMinimum") and val == sch["minimum"])):
            errs.append(f_bad(here, val, f"{here} in body should be greater than or equal to {sch['minimum']}"))
        if "maximum" in sch and (val > sch["maximum"] or (sch.get("exclusiveMaximum") and val == sch["maximum"])):
            errs.append(f_bad(here, val, f"{here} in body should be less than or equal to {sch['maximum']}"))
        if sch.get("format") == "int32" and not -2**31 <= val < 2**31:
            errs.append(f_bad(here, val, f"{here} in body should be less than or equal to {2**31 - 1}"))


def _o(props=None, **kw):
    return dict(type="object", properties=props or {}, **{"x-kubernetes-preserve-unknown-fields": True}, **kw)


STR, BOOL, I32, I64 = {"type": "string"}, {"type": "boolean"}, {"type": "integer", "format": "int32"}, \
    {"type": "integer", "format": "int64"}
STRMAP = {"type": "object", "additionalProperties": STR}
META = _o({"name": STR, "generateName": STR, "namespace": STR, "labels": STRMAP, "annotations": STRMAP,
           "finalizers": {"type": "array", "items": STR}, "resourceVersion": STR, "uid": STR,
           "ownerReferences": {"type": "array", "items": _o({"apiVersion": STR, "kind": STR, "name": STR,
                                                               "uid": STR, "controller": BOOL,
                                                               "blockOwnerDeletion": BOOL})}})
CONTAINER = _o({"name": STR, "image": STR, "args": {"type": "array", "items": STR},
                "command": {"type": "array", "items": STR},
                "resources": _o({"requests": _o(), "limits": _o()})})
POD_TEMPLATE = _o({"metadata": META, "spec": _o({
    "containers": {"type": "array", "items": CONTAINER}, "initContainers": {"type": "array", "items": CONTAINER},
    "nodeSelector": STRMAP, "tolerations": {"type": "array", "items": _o({"key": STR, "operator": STR,
                                                                          "value": STR, "effect": STR})},
    "restartPolicy": STR, "schedulingGates": {"type": "array", "items": _o({"name": STR})}})})
BUILTIN_SCHEMAS = {
    "Job": _o({"metadata": META, "spec": _o({
        "parallelism": I32, "completions": I32, "backoffLimit": I32, "activeDeadlineSeconds": I64,
        "ttlSecondsAfterFinished": I32, "suspend": BOOL, "manualSelector": BOOL, "completionMode": STR,
        "template": POD_TEMPLATE}), "status": _o({"startTime": {"type": "string", "format": "date-time"},
                                                   "active": I32, "succeeded": I32, "failed": I32})}),
    "PodTemplate": _o({"metadata": META, "template": POD_TEMPLATE}),
    "Lease": _o({"metadata": META, "spec": _o({
        "holderIdentity": STR, "leaseDurationSeconds": I32, "leaseTransitions": I32,
        "acquireTime": {"type": "string", "format": "micro-time"},
        "renewTime": {"type": "string", "format": "micro-time"}})}),
    "Namespace": _o({"metadata": META}), "Event": _o({"metadata": META}),
    "CustomResourceDefinition": _o({"metadata": META}),
}
GOTYPE = {"integer": "int32", "string": "string", "boolean": "bool", "object": "map", "array": "slice",
          "number": "float64"}


def decode_check(kind, obj):
    """Built-in kinds: JSON type errors and malformed quantities are 400 decode errors, as from Go."""
    errs = []
    schema_walk(obj, BUILTIN_SCHEMAS.get(kind.kind, _o()), "", errs, [], decode=True)
    pre = f'{kind.kind} in version "{kind.versions[0]}" cannot be handled as a {kind.kind}: '
    for want, path, got in errs[:1]:
        if want in ("micro-time", "date-time"):
            layout = "2006-01-02T15:04:05.000000Z07:00" if want == "micro-time" else "2006-01-02T15:04:05Z07:00"
            raise bad_request(f'{pre}parsing time {got} as "{layout}": cannot parse {got} as "{layout}"')
        if want in ("int32", "int64"):
            raise bad_request(f"{pre}json: cannot unmarshal number {got} into Go struct field .{path} of type {want}")
        got = {"integer": "number", "boolean": "bool"}.get(got, got)
        raise bad_request(f"{pre}json: cannot unmarshal {got} into Go struct field .{path} of type {GOTYPE[want]}")
    for spec in pod_specs(kind, obj):
        for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
            res = c.get("resources") if isinstance(c, dict) else None
            for which in ("requests", "limits"):
                rl = (res or {}).get(which) or {}
                for r, q in rl.items():
                    p = parse_qty(q)
                    if p is None:
                        raise bad_request(f"{pre}{QTY_MSG}")
                    rl[r] = canon_qty(*p)


def pod_specs(kind, obj, paths=False):
    tmpl = get_path(obj, "spec.template") if kind.kind == "Job" else obj.get("template") \
        if kind.kind == "PodTemplate" else None
    if not isinstance(tmpl, dict):
        return []
    spec = tmpl.setdefault("spec", {})
    pre = "spec.template.spec" if kind.kind == "Job" else "template.spec"
    return [(spec, pre)] if paths else [spec] if isinstance(spec, dict) else []


def meta_errs(kind, obj, old):
    m, errs = obj["metadata"], []
    name = m.get("name", "")
    if not name:
        errs.append(f_req("metadata.name", "name or generateName is required"))
    else:
        for e in label_name_errs(name) if kind.kind == "Namespace" else subdomain_errs(name):
            errs.append(f_bad("metadata.name", name, e))
        if kind.kind == "Job" and len(name) > 63:
            errs.append(f_bad("metadata.name", name, "must be no more than 63 characters"))
    for field in ("labels", "annotations"):
        for k, v in (m.get(field) or {}).items():
            for e in qname_errs(k):
                errs.append(f_bad(f"metadata.{field}", k, e))
            for e in value_errs(v) if field == "labels" else []:
                errs.append(f_bad(f"metadata.labels", v, e))
    if len(canon(m.get("annotations") or {})) > 256 * 1024:
        errs.append(("FieldValueTooLong", "metadata.annotations", "Too long: must have at most 262144 bytes"))
    for i, f in enumerate(m.get("finalizers") or []):
        for e in qname_errs(f):
            errs.append(f_bad(f"metadata.finalizers[{i}]", f, e))
    refs = m.get("ownerReferences") or []
    for i, r in enumerate(refs):
        for f in ("apiVersion", "kind", "name"):
            if not r.get(f):
                errs.append(f_bad(f"metadata.ownerReferences.{f}", r.get(f, ""), f"{f} must not be empty"))
        if not r.get("uid"):
            errs.append(f_bad("metadata.ownerReferences.uid", r.get("uid", ""), "uid must not be empty"))
    if sum(1 for r in refs if r.get("controller")) > 1:
        errs.append(f_bad("metadata.ownerReferences", refs, "Only one reference can have Controller set to true"))
    if old and old["metadata"].get("deletionTimestamp"):
        new_f = set(m.get("finalizers") or []) - set(old["metadata"].get("finalizers") or [])
        if new_f:
            errs.append(f_forbidden("metadata.finalizers", "no new finalizers can be added if the object is "
                                    "being deleted, found new finalizers " + json.dumps(sorted(new_f))))
    return errs


def is_extended(r):
    return "/" in r and not r.startswith(("kubernetes.io/", "requests.")) or r.startswith("hugepages-")


def pod_spec_errs(spec, pre, job):
    errs = []
    cs = spec.get("containers")
    if not cs:
        errs.append(f_req(f"{pre}.containers"))
    seen = set()
    for which in ("containers", "initContainers"):
        for i, c in enumerate(spec.get(which) or []):
            p = f"{pre}.{which}[{i}]"
            if not c.get("name"):
                errs.append(f_req(f"{p}.name"))
            elif c["name"] in seen:
                errs.append(("FieldValueDuplicate", f"{p}.name", f'Duplicate value: "{c["name"]}"'))
            else:
                errs += [f_bad(f"{p}.name", c["name"], e) for e in label_name_errs(c["name"])]
                seen.add(c["name"])
            if not c.get("image"):
                errs.append(f_req(f"{p}.image"))
            errs += resource_errs(c.get("resources") or {}, f"{p}.resources")
    allowed = ["OnFailure", "Never"] if job else ["Always", "OnFailure", "Never"]
    if spec.get("restartPolicy") not in allowed:
        errs.append(f_unsupported(f"{pre}.restartPolicy", spec.get("restartPolicy"), allowed))
    return errs


def resource_errs(res, p):
    errs, req, lim = [], res.get("requests") or {}, res.get("limits") or {}
    for which, rl in (("requests", req), ("limits", lim)):
        for r, q in rl.items():
            v = parse_qty(q)[0]
            if v < 0:
                errs.append(f_bad(f"{p}.{which}[{r}]", q, "must be greater than or equal to 0"))
            if is_extended(r) and v.denominator != 1:
                errs.append(f_bad(f"{p}.{which}[{r}]", q, "must be an integer"))
    for r, q in req.items():
        if r in lim:
            v, lv = parse_qty(q)[0], parse_qty(lim[r])[0]
            if is_extended(r) and v != lv:
                errs.append(f_bad(f"{p}.requests", q, f"must be equal to {r} limit of {lim[r]}"))
            elif v > lv:
                errs.append(f_bad(f"{p}.requests", q, f"must be less than or equal to {r} limit of {lim[r]}"))
        elif is_extended(r):
            errs.append(f_req(f"{p}.limits", "Limit must be set for non overcommitable resources"))
    return errs


def default_pod_spec(spec, job):
    spec.setdefault("restartPolicy", "Always")
    for k, v in (("dnsPolicy", "ClusterFirst"), ("schedulerName", "default-scheduler"),
                 ("securityContext", {}), ("terminationGracePeriodSeconds", 30)):
        spec.setdefault(k, v)
    for which in ("containers", "initContainers"):
        for c in spec.get(which) or []:
            if isinstance(c, dict):
                img = c.get("image") or ""
                latest = ":" not in img.rsplit("/", 1)[-1] or img.endswith(":latest")
                c.setdefault("imagePullPolicy", "Always" if latest and "@" not in img else "IfNotPresent")
                c.setdefault("terminationMessagePath", "/dev/termination-log")
                c.setdefault("terminationMessagePolicy", "File")
                c.setdefault("resources", {})


def default_job(obj, old):
    spec = obj.setdefault("spec", {})
    spec.setdefault("suspend", False)
    if "parallelism" not in spec and "completions" not in spec:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("podReplacementPolicy", "TerminatingOrFailed")
    tmpl = spec.setdefault("template", {})
    if isinstance(tmpl, dict):
        default_pod_spec(tmpl.setdefault("spec", {}), True)
        if old is None and not spec.get("manualSelector"):
            uid, name = obj["metadata"]["uid"], obj["metadata"].get("name", "")
            labels = tmpl.setdefault("metadata", {}).setdefault("labels", {})
            labels.update({"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name,
                           "controller-uid": uid, "job-name": name})
            spec.setdefault("selector", {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}})


def job_errs(obj, old):
    spec, errs = obj["spec"], []
    for f in ("parallelism", "completions", "backoffLimit"):
        if isinstance(spec.get(f), int) and spec[f] < 0:
            errs.append(f_bad(f"spec.{f}", spec[f], "must be greater than or equal to 0"))
    if spec.get("completionMode") not in ("NonIndexed", "Indexed"):
        errs.append(f_unsupported("spec.completionMode", spec.get("completionMode"), ["NonIndexed", "Indexed"]))
    sel = (spec.get("selector") or {}).get("matchLabels")
    if not spec.get("selector"):
        errs.append(f_req("spec.selector"))
    elif old is None and not spec.get("manualSelector") and \
            sel != {"batch.kubernetes.io/controller-uid": obj["metadata"]["uid"]}:
        errs.append(f_bad("spec.selector", spec["selector"], "`selector` not auto-generated"))
    labels = get_path(spec, "template.metadata.labels") or {}
    if sel and any(labels.get(k) != v for k, v in sel.items()):
        errs.append(f_bad("spec.template.metadata.labels", labels, "`selector` does not match template `labels`"))
    if old is None:
        return errs
    ospec = old["spec"]
    for f in ("selector", "completionMode", "completions", "podFailurePolicy", "backoffLimitPerIndex"):
        if canon(spec.get(f)) != canon(ospec.get(f)):
            errs.append(f_bad(f"spec.{f}", spec.get(f), "field is immutable"))
    a, b = copy.deepcopy(ospec.get("template")), copy.deepcopy(spec.get("template"))
    if ospec.get("suspend") and not get_path(old, "status.startTime"):
        for t in (a, b):
            for p, f in (("metadata", "labels"), ("metadata", "annotations"), ("spec", "nodeSelector"),
                         ("spec", "tolerations"), ("spec", "affinity"), ("spec", "schedulingGates")):
                (t.get(p) or {}).pop(f, None) if isinstance(t, dict) else None
    if canon(a) != canon(b):
        errs.append(("FieldValueInvalid", "spec.template",
                     f"Invalid value: {go_template(spec.get('template'))}: field is immutable"))
    # 1.30+ (RejectStartTimeUpdateForUnsuspendedJob): startTime is the Job controller's while the Job
    # runs; a queue controller clears it (Kueue's Job.Stop) only once the Job is suspended.
    ost, nst = get_path(old, "status.startTime"), get_path(obj, "status.startTime")
    if ost and nst != ost and not spec.get("suspend"):
        errs.append(f_req("status.startTime", "startTime cannot be removed for unsuspended job"))
    return errs


def go_value(v):
    """v as Go's %#v prints an internal API struct, roughly: keys capitalised, zero values kept."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k[:1].upper()}{k[1:]}:{go_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[]{" + ", ".join(go_value(x) for x in v) + "}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return "nil" if v is None else json.dumps(v)


def go_template(t):
    """The value a real API server prints in its "spec.template: Invalid value: ..." (apimachinery's
    field.Error with a core.PodTemplateSpec, %#v): the whole template, thousands of characters, before
    the reason; a client that cuts the message at the end loses the reason."""
    t = t if isinstance(t, dict) else {}
    m = t.get("metadata") or {}
    labels = ", ".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in sorted((m.get("labels") or {}).items()))
    meta = ('v1.ObjectMeta{Name:"", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", '
            'Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), '
            'DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), '
            f'Labels:map[string]string{{{labels}}}, Annotations:map[string]string(nil), '
            'OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), '
            'ManagedFields:[]v1.ManagedFieldsEntry(nil)}')
    return f"core.PodTemplateSpec{{ObjectMeta:{meta}, Spec:core.PodSpec{go_value(t.get('spec') or {})}}}"


def lease_errs(obj, old):
    spec, errs = obj.get("spec") or {}, []
    if isinstance(spec.get("leaseDurationSeconds"), int) and spec["leaseDurationSeconds"] <= 0:
        errs.append(f_bad("spec.leaseDurationSeconds", spec["leaseDurationSeconds"], "must be greater than 0"))
    if isinstance(spec.get("leaseTransitions"), int) and spec["leaseTransitions"] < 0:
        errs.append(f_bad("spec.leaseTransitions", spec["leaseTransitions"], "must be greater than or equal to 0"))
    return errs


def crd_errs(obj, old):
    spec, errs = obj.get("spec") or {}, []
    names, group = spec.get("names") or {}, spec.get("group") or ""
    if not group:
        errs.append(f_req("spec.group"))
    for f in ("plural", "kind"):
        if not names.get(f):
            errs.append(f_req(f"spec.names.{f}"))
    if obj["metadata"].get("name") != f"{names.get('plural')}.{group}":
        errs.append(f_bad("metadata.name", obj["metadata"].get("name"), 'must be spec.names.plural+"."+spec.group'))
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        errs.append(f_unsupported("spec.scope", spec.get("scope"), ["Cluster", "Namespaced"]))
    vs = spec.get("versions") or []
    if not vs:
        errs.append(f_req("spec.versions", "must have exactly one version marked as storage version"))
    elif sum(1 for v in vs if v.get("storage")) != 1:
        errs.append(f_bad("spec.versions", "array", "must have exactly one version marked as storage version"))
    if old and (old["spec"].get("scope") != spec.get("scope")):
        errs.append(f_bad("spec.scope", spec.get("scope"), "field is immutable"))
    return errs


def default_crd(obj, old):
    spec = obj.setdefault("spec", {})
    names = dict(spec.get("names") or {})
    names.setdefault("singular", (names.get("kind") or "").lower())
    names.setdefault("listKind", (names.get("kind") or "") + "List")
    spec["names"] = names
    stored = [v.get("name") for v in spec.get("versions") or [] if v.get("storage")]
    prev = get_path(old, "status.storedVersions") if old else None
    cond = lambda t, r, m: {"type": t, "status": "True", "lastTransitionTime": now_ts(), "reason": r, "message": m}
    obj["status"] = {"acceptedNames": names, "storedVersions": sorted(set((prev or []) + stored)),
                     "conditions": [cond("NamesAccepted", "NoConflicts", "no conflicts found"),
                                    cond("Established", "InitialNamesAccepted",
                                         "the initial names have been accepted")]}
    if old and get_path(old, "status.conditions"):
        obj["status"]["conditions"] = old["status"]["conditions"]


# ---------------------------------------------------------------- kinds

VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def version_priority(v):
    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", v)
    return (3, 0, 0, v) if not m else ({None: 0, "beta": 1, "alpha": 2}[m.group(2)], -int(m.group(1)),
                                       -int(m.group(3) or 0), v)


class Kind:
    def __init__(self, group, versions, plural, kind, namespaced=True, status=False, short=(), gen=False,
                 fields=(), crd=None, categories=()):
        self.group, self.versions, self.plural, self.kind = group, list(versions), plural, kind
        self.namespaced, self.status, self.short, self.gen, self.fields, self.crd = \
            namespaced, status, list(short), gen, tuple(fields), crd
        self.singular, self.list_kind, self.storage, self.key = kind.lower(), kind + "List", versions[0], \
            (group, plural)
        self.schemas, self.columns, self.categories = {}, {}, list(categories)

    def gv(self, v=None):
        return f"{self.group}/{v or self.storage}" if self.group else v or self.storage

    def qualified(self):
        return self.plural + ("." + self.group if self.group else "")

    def details(self, name):
        d = {"name": name, "kind": self.plural}
        if self.group:
            d["group"] = self.group
        return d

    def not_found(self, name):
        return ApiError(404, "NotFound", f'{self.qualified()} "{name}" not found', self.details(name))

    def conflict(self, name, why="the object has been modified; please apply your changes to the latest "
                                 "version and try again"):
        return ApiError(409, "Conflict", f'Operation cannot be fulfilled on {self.qualified()} "{name}": {why}',
                        self.details(name))


def builtin_kinds():
    return [Kind("", ["v1"], "namespaces", "Namespace", namespaced=False, status=True, short=["ns"],
                 fields=("status.phase",)),
            Kind("", ["v1"], "podtemplates", "PodTemplate"),
            Kind("", ["v1"], "secrets", "Secret", fields=("type",)),
            Kind("", ["v1"], "pods", "Pod", status=True, short=["po"],
                 fields=("status.phase", "spec.nodeName")),
            Kind("", ["v1"], "events", "Event", short=["ev"],
                 fields=tuple("involvedObject." + f for f in ("kind", "namespace", "name", "uid", "apiVersion",
                                                              "resourceVersion", "fieldPath"))
                 + ("reason", "type", "source", "reportingComponent")),
            Kind("batch", ["v1"], "jobs", "Job", status=True, gen=True, fields=("status.successful",),
                 categories=["all"]),
            Kind("coordination.k8s.io", ["v1"], "leases", "Lease"),
            Kind("", ["v1"], "limitranges", "LimitRange", short=["limits"]),
            Kind("node.k8s.io", ["v1"], "runtimeclasses", "RuntimeClass", namespaced=False),
            Kind("apiextensions.k8s.io", ["v1"], "customresourcedefinitions", "CustomResourceDefinition",
                 namespaced=False, status=True, short=["crd", "crds"], gen=True)]


def crd_kind(obj):
    spec, names = obj["spec"], obj["spec"]["names"]
    vs = sorted((v for v in spec["versions"] if v.get("served", True)), key=lambda v: version_priority(v["name"]))
    k = Kind(spec["group"], [v["name"] for v in vs] or [spec["versions"][0]["name"]], names["plural"],
             names["kind"], spec.get("scope") == "Namespaced",
             any("status" in (v.get("subresources") or {}) for v in vs), names.get("shortNames") or [], True,
             crd=obj["metadata"]["name"])
    k.singular, k.list_kind = names.get("singular") or k.singular, names.get("listKind") or k.list_kind
    k.categories = names.get("categories") or []
    k.storage = next(v["name"] for v in spec["versions"] if v.get("storage"))
    k.schemas = {v["name"]: get_path(v, "schema.openAPIV3Schema") or _o() for v in vs}
    k.columns = {v["name"]: v.get("additionalPrinterColumns") or [] for v in vs}
    return k


def cell(v, typ):
    if v is None:
        return None
    if typ == "date":
        t = parse_ts(v) if isinstance(v, str) else None
        return human_age(time.time() - t) if t else "<invalid>"
    return v if typ in ("integer", "number", "boolean") or isinstance(v, str) else canon(v)


def columns(kind, version):
    cols = [("Name", "string", "name", lambda o: o["metadata"].get("name"))]
    age = ("Age", "string", "", lambda o: cell(o["metadata"].get("creationTimestamp"), "date"))
    if kind.crd and kind.columns.get(version):
        return cols + [(c["name"], c.get("type", "string"), c.get("format", ""),
                        lambda o, c=c: cell(jsonpath(o, c.get("jsonPath", "")), c.get("type")))
                       for c in kind.columns[version]]
    if kind.kind == "Job":
        def status(o):
            for t in ("Complete", "Failed", "FailureTarget", "Suspended"):
                conds = get_path(o, "status.conditions") or []
                if any(c.get("type") == t and c.get("status") == "True" for c in conds):
                    return t
            return "Terminating" if o["metadata"].get("deletionTimestamp") else "Running"
        cols += [("Status", "string", "", status), ("Completions", "string", "", lambda o: "%s/%s" % (
            get_path(o, "status.succeeded") or 0, get_path(o, "spec.completions") or 1))]
    elif kind.kind == "Namespace":
        cols.append(("Status", "string", "", lambda o: get_path(o, "status.phase")))
    elif kind.kind == "CustomResourceDefinition":
        return cols + [("Created At", "date", "", lambda o: o["metadata"].get("creationTimestamp"))]
    return cols + [age]


def to_table(kind, version, objs, rv, include="Metadata", cont=None):
    cols = columns(kind, version)
    rows = []
    for o in objs:
        row = {"cells": [f(o) for _, _, _, f in cols]}
        if include == "Object":
            row["object"] = o
        elif include != "None":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": o["metadata"]}
        rows.append(row)
    meta = {"resourceVersion": rv}
    if cont:
        meta["continue"] = cont
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": meta,
            "columnDefinitions": [{"name": n, "type": t, "format": f, "description": n, "priority": 0}
                                  for n, t, f, _ in cols], "rows": rows}


# ---------------------------------------------------------------- the store


def obj_key(kind, obj):
    m = obj["metadata"]
    return f"{m.get('namespace', '')}/{m['name']}" if kind.namespaced else m["name"]


class Store:
    """Every object, the watch history and all write semantics; callers hold self.cond."""

    def __init__(self, history):
        self.cond = threading.Condition()
        self.rv, self.compacted, self.floor, self.form, self.history_max = 1, 0, 0, "event", history
        self.cursors = {}  # live watch -> the resourceVersion it has consumed up to
        self.kinds, self.objs, self.uids = {}, {}, {}  # key -> Kind; key -> {okey: obj}; uid -> (key, okey)
        self.hist, self.hist_rv = [], []   # (rv, kind key, type, obj, prev)
        self.watch_gen, self.watches, self.gc_dirty, self.bookmark_interval = 0, 0, False, 1.0
        for k in builtin_kinds():
            self.add_kind(k)
        ctx = {"q": {}, "warnings": []}
        for ns in ("default", "kube-system", "kube-public", "kube-node-lease"):
            with self.cond:
                self.create(self.kinds[("", "namespaces")], "v1", None, {"metadata": {"name": ns}}, ctx)

    def add_kind(self, k):
        self.kinds[k.key] = k
        self.objs.setdefault(k.key, {})

    def find(self, group, version, plural):
        k = self.kinds.get((group, plural))
        return k if k and version in k.versions else None

    def kind_of(self, api_version, kind):
        group = api_version.rpartition("/")[0] if "/" in (api_version or "") else ""
        return next((k for k in self.kinds.values() if k.group == group and k.kind == kind), None)

    # -- history

    def commit(self, kind, typ, obj, prev):
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        okey, uid = obj_key(kind, obj), obj["metadata"].get("uid")
        if typ == "DELETED":
            self.objs[kind.key].pop(okey, None)
            self.uids.pop(uid, None)
            self.gc_dirty = True
        else:
            self.objs[kind.key][okey] = obj
            self.uids[uid] = (kind.key, okey)
            self.gc_dirty |= bool(obj["metadata"].get("ownerReferences") or obj["metadata"].get("deletionTimestamp"))
        self.hist.append((self.rv, kind.key, typ, obj, prev))
        self.hist_rv.append(self.rv)
        if len(self.hist) > self.history_max * 1.1 + 10:
            self.trim(self.hist_rv[len(self.hist) - self.history_max - 1])
            self.compacted = max(self.compacted, self.floor)
        self.cond.notify_all()
        if kind.kind == "CustomResourceDefinition":
            self.crd_changed(obj, typ)

    def trim(self, upto):
        n = bisect.bisect_right(self.hist_rv, upto)
        if n:
            self.floor = self.hist_rv[n - 1]
            del self.hist[:n], self.hist_rv[:n]

    def compact(self):
        """Forget history up to now for new requests; live watches keep what they have not read yet."""
        self.compacted = self.rv
        self.trim(min(list(self.cursors.values()) + [self.rv]))

    def events_after(self, rv):
        return self.hist[bisect.bisect_right(self.hist_rv, rv):]

    def snapshot(self, kind, at):
        """The objects of one kind as they were at resourceVersion `at` (which must not be compacted)."""
        cur = dict(self.objs[kind.key])
        for _, kk, typ, obj, prev in reversed(self.events_after(at)):
            if kk == kind.key:
                if typ == "ADDED":
                    cur.pop(obj_key(kind, obj), None)
                else:
                    cur[obj_key(kind, prev)] = prev
        return cur

    def crd_changed(self, obj, typ):
        name = obj["metadata"]["name"]
        cur = next((k for k in self.kinds.values() if k.crd == name), None)
        if typ == "DELETED":
            if cur:
                for o in list(self.objs[cur.key].values()):
                    self.remove(cur, o)
                del self.kinds[cur.key], self.objs[cur.key]
        else:
            k = crd_kind(obj)
            if cur and cur.key != k.key:
                del self.kinds[cur.key]
            self.add_kind(k)

    # -- reads

    def get(self, kind, ns, name):
        o = self.objs[kind.key].get(f"{ns or ''}/{name}" if kind.namespaced else name)
        if o is None:
            raise kind.not_found(name)
        return o

    @staticmethod
    def present(kind, version, obj):
        return obj if version == kind.storage else {**obj, "apiVersion": kind.gv(version)}

    # -- writes

    def create(self, kind, version, ns, obj, ctx):
        m = self.body_meta(kind, version, obj)
        if kind.namespaced:
            if m.get("namespace") and m["namespace"] != ns:
                raise bad_request("the namespace of the provided object does not match the namespace sent on "
                                  "the request")
            m["namespace"] = ns
            nso = self.objs[("", "namespaces")].get(ns)
            if nso is None:
                raise ApiError(404, "NotFound", f'namespaces "{ns}" not found', {"name": ns, "kind": "namespaces"})
            if nso["metadata"].get("deletionTimestamp"):
                raise ApiError(403, "Forbidden", f"{kind.plural} \"{m.get('name', '')}\" is forbidden: unable to "
                               f"create new content in namespace {ns} because it is being terminated")
        else:
            m.pop("namespace", None)
        if m.get("resourceVersion"):
            raise bad_request("resourceVersion should not be set on objects to be created")
        if not m.get("name") and m.get("generateName"):
            for _ in range(100):
                m["name"] = m["generateName"] + "".join(secrets.choice("bcdfghjklmnpqrstvwxz2456789")
                                                        for _ in range(5))
                if obj_key(kind, obj) not in self.objs[kind.key]:
                    break
        if m.get("name") and obj_key(kind, obj) in self.objs[kind.key]:
            raise ApiError(409, "AlreadyExists", f'{kind.qualified()} "{m["name"]}" already exists',
                           kind.details(m["name"]))
        for f in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "generation"):
            m.pop(f, None)
        m.update(uid=str(uuid.uuid4()), creationTimestamp=now_ts())
        return self.write(kind, version, obj, None, ctx)

    def body_meta(self, kind, version, obj):
        if not isinstance(obj, dict):
            raise bad_request(f"the body of the request was not a {kind.kind} object")
        for f, want in (("apiVersion", kind.gv(version)), ("kind", kind.kind)):
            if obj.get(f) and obj[f] != want:
                raise bad_request(f"the {f} of the provided object ({obj[f]}) does not match the {f} of the "
                                  f"request ({want})")
        if not isinstance(obj.setdefault("metadata", {}), dict):
            raise bad_request(f"{kind.kind} in version \"{version}\" cannot be handled as a {kind.kind}: "
                              "metadata must be an object")
        return obj["metadata"]

    def update(self, kind, version, ns, name, sub, obj, ctx):
        m = self.body_meta(kind, version, obj)
        if m.get("name") != name:
            raise bad_request(f"the name of the object ({m.get('name', '')}) does not match the name on the URL "
                              f"({name})")
        if kind.namespaced and m.get("namespace", ns) != ns:
            raise bad_request("the namespace of the provided object does not match the namespace sent on the "
                              "request")
        old = self.get(kind, ns, name)
        if not m.get("resourceVersion") and kind.crd:
            raise invalid(kind, name, [f_bad("metadata.resourceVersion", 0, "must be specified for an update")])
        if m.get("resourceVersion") and m["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise kind.conflict(name)
        return self.write(kind, version, obj, old, ctx, sub)

    def patch(self, kind, version, ns, name, sub, body, ctype, ctx):
        ct = (ctype or "").split(";")[0].strip().lower()
        try:
            patch = json.loads(body or b"null")
        except ValueError:
            if ct != "application/apply-patch+yaml":
                raise bad_request("error decoding patch: invalid JSON")
            try:
                patch = (yaml_load_all(body.decode()) or [None])[0]
            except (YamlError, UnicodeDecodeError) as e:
                raise bad_request(f"error decoding YAML: {e}")
        key = f"{ns or ''}/{name}" if kind.namespaced else name
        old = self.objs[kind.key].get(key)
        if ct == "application/apply-patch+yaml":
            fm = ctx["q"].get("fieldManager", "")
            if not fm or len(fm) > 128:
                raise bad_request("fieldManager is required for apply requests" if not fm else
                                  "fieldManager: Too long: may not be more than 128 bytes")
            m = self.body_meta(kind, version, patch)
            if not patch.get("apiVersion") or not patch.get("kind"):
                raise bad_request("apiVersion and kind must be set for apply")
            if m.get("name", name) != name:
                raise bad_request(f"the name of the object ({m.get('name')}) does not match the name on the "
                                  f"URL ({name})")
            if old is None:
                if sub:
                    raise kind.not_found(name)
                m["name"] = name
                return self.create(kind, version, ns, copy.deepcopy(patch), ctx)
            new = strategic_merge(self.present(kind, version, old), patch, {} if kind.crd else MERGE_KEYS)
        elif old is None:
            raise kind.not_found(name)
        elif ct == "application/merge-patch+json" and isinstance(patch, dict):
            new = merge_patch(self.present(kind, version, old), patch)
        elif ct == "application/json-patch+json":
            new = json_patch(self.present(kind, version, old), patch)
        elif ct == "application/strategic-merge-patch+json" and not kind.crd and isinstance(patch, dict):
            new = strategic_merge(self.present(kind, version, old), patch)
        elif ct in ("application/merge-patch+json", "application/strategic-merge-patch+json") \
                and not kind.crd:
            raise bad_request("error decoding patch: the patch must be a JSON object")
        else:
            raise ApiError(415, "UnsupportedMediaType", f"the body of the request was in an unknown format - "
                           "accepted media types include: application/json-patch+json, application/merge-patch+"
                           "json, application/apply-patch+yaml" + (", application/strategic-merge-patch+json"
                                                                    if not kind.crd else ""))
        m = self.body_meta(kind, version, new)
        if m.get("resourceVersion") and m["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise kind.conflict(name)
        if m.get("name") != name or (kind.namespaced and m.get("namespace") != ns):
            raise bad_request("metadata.name and metadata.namespace cannot be changed by a patch")
        return self.write(kind, version, new, old, ctx, sub)

    def write(self, kind, version, new, old, ctx, sub=None):
        """Validate, default and store `new` (request-version form) over `old`; return (code, stored)."""
        m, name = new["metadata"], new["metadata"].get("name", "")
        new["apiVersion"], new["kind"] = kind.gv(version), kind.kind
        if old is not None:
            om = old["metadata"]
            if m.get("uid") and m["uid"] != om["uid"]:
                raise kind.conflict(name, f"Precondition failed: UID in precondition: {m['uid']}, UID in object "
                                          f"meta: {om['uid']}")
            for f in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"):
                m.pop(f, None) if f not in om else m.__setitem__(f, om[f])
            if sub == "status" and kind.crd:  # custom resources take only the status from /status
                st = new.get("status", MISSING)
                new = copy.deepcopy(self.present(kind, version, old))
                new.pop("status", None) if st is MISSING else new.__setitem__("status", st)
                m = new["metadata"]
            elif sub == "status":  # built-ins take metadata and status, and keep the spec
                new.pop("spec", None) if "spec" not in old else new.__setitem__("spec", copy.deepcopy(old["spec"]))
            elif kind.status:
                new.pop("status", None) if "status" not in old else new.__setitem__("status",
                                                                                    copy.deepcopy(old["status"]))
        elif kind.status:
            new.pop("status", None)
        if kind.crd:
            errs, unknown = [], []
            oldv = self.present(kind, version, old) if old else MISSING
            new = schema_walk(new, kind.schemas.get(version) or _o(), "", errs, unknown, oldv)
            m = new["metadata"]
            if unknown and ctx["q"].get("fieldValidation") == "Strict":
                raise bad_request("strict decoding error: " + ", ".join(f'unknown field "{u}"' for u in unknown))
            ctx["warnings"] += [f'unknown field "{u}"' for u in unknown] \
                if ctx["q"].get("fieldValidation") in ("Warn", "Strict", None) and unknown else []
            if errs:
                raise invalid(kind, name, meta_errs(kind, new, old) + errs)
        else:
            decode_check(kind, new)
        errs = self.default_and_validate(kind, new, old)
        if errs:
            raise invalid(kind, name, errs)
        if kind.gen:
            m["generation"] = 1 if old is None else old["metadata"].get("generation", 1) + (
                self.gen_changed(kind, old, new))
        stored = {"kind": kind.kind, "apiVersion": kind.gv(), **{k: v for k, v in new.items()
                                                                 if k not in ("kind", "apiVersion")}}
        if old is not None:
            m["resourceVersion"] = old["metadata"]["resourceVersion"]
            if canon(stored) == canon(old):
                return 200, old
        if ctx["q"].get("dryRun") == "All":
            return (201 if old is None else 200), stored
        if old is not None and m.get("deletionTimestamp") and not m.get("finalizers"):
            self.remove(kind, stored, old)
        else:
            self.commit(kind, "ADDED" if old is None else "MODIFIED", stored, old)
        return (201 if old is None else 200), stored

    def default_and_validate(self, kind, new, old):
        if kind.kind == "Job":
            default_job(new, old)
        elif kind.kind == "PodTemplate":
            tmpl = new.setdefault("template", {})
            default_pod_spec(tmpl.setdefault("spec", {}), False) if isinstance(tmpl, dict) else None
        elif kind.kind == "Namespace":
            new.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
            new["status"] = (old or {}).get("status") or {"phase": "Active"}
        elif kind.kind == "CustomResourceDefinition":
            default_crd(new, old)
        if kind.kind == "Job" and not old:
            new["status"] = {}
        errs = meta_errs(kind, new, old)
        if kind.kind == "Job":
            errs += job_errs(new, old)
        if kind.kind == "Lease":
            errs += lease_errs(new, old)
        if kind.kind == "CustomResourceDefinition":
            errs += crd_errs(new, old)
        for spec, pre in pod_specs(kind, new, paths=True):
            errs += pod_spec_errs(spec, pre, kind.kind == "Job")
        return errs

    @staticmethod
    def gen_changed(kind, a, b):
        if not kind.crd:
            return canon(a.get("spec")) != canon(b.get("spec"))
        skip = ("metadata", "status") if kind.status else ("metadata",)
        strip = lambda o: {k: v for k, v in o.items() if k not in skip + ("apiVersion",)}
        return canon(strip(a)) != canon(strip(b))

    def delete(self, kind, ns, name, opts, ctx):
        old = self.get(kind, ns, name)
        pre, om = opts.get("preconditions") or {}, old["metadata"]
        for f, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
            if pre.get(f) and pre[f] != om.get(f):
                raise kind.conflict(name, f"Precondition failed: {label} in precondition: {pre[f]}, {label} in "
                                          f"object meta: {om.get(f)}")
        policy = opts.get("propagationPolicy") or ctx["q"].get("propagationPolicy") or \
            ("Orphan" if opts.get("orphanDependents") else None)
        if policy not in (None, "Orphan", "Background", "Foreground"):
            raise invalid(kind, name, [f_unsupported("propagationPolicy", policy,
                                                     ["Foreground", "Background", "Orphan", "nil"])])
        if policy is None and kind.kind == "Job":
            ctx["warnings"].append("child pods are preserved by default when jobs are deleted; set "
                                   "propagationPolicy=Background to remove them or set propagationPolicy=Orphan "
                                   "to suppress this warning")
            policy = "Orphan"
        if kind.kind == "Namespace" and name in ("default", "kube-system", "kube-public"):
            raise ApiError(403, "Forbidden", f'namespaces "{name}" is forbidden: this namespace may not be '
                                             "deleted", kind.details(name))
        if opts.get("dryRun") == ["All"] or ctx["q"].get("dryRun") == "All":
            return 200, old
        return 200, self.delete_obj(kind, old, policy or "Background")

    def delete_obj(self, kind, old, policy):
        uid, fins = old["metadata"]["uid"], list(old["metadata"].get("finalizers") or [])
        if policy == "Orphan":
            for dkind, dep in self.dependents(uid):
                new = copy.deepcopy(dep)
                new["metadata"]["ownerReferences"] = [r for r in dep["metadata"]["ownerReferences"]
                                                      if r.get("uid") != uid]
                self.commit(dkind, "MODIFIED", new, dep)
        if policy == "Foreground" and self.dependents(uid) and "foregroundDeletion" not in fins:
            fins.append("foregroundDeletion")
        if not fins and kind.kind != "Namespace":
            return self.remove(kind, old)
        if old["metadata"].get("deletionTimestamp") and fins == old["metadata"].get("finalizers"):
            return old
        new = copy.deepcopy(old)
        new["metadata"].setdefault("deletionTimestamp", now_ts())
        new["metadata"].setdefault("deletionGracePeriodSeconds", 0)
        if fins:
            new["metadata"]["finalizers"] = fins
        if kind.kind == "Namespace":
            new["status"] = {"phase": "Terminating"}
        self.commit(kind, "MODIFIED", new, old)
        return new

    def remove(self, kind, obj, prev=None):
        final = copy.deepcopy(obj)
        self.commit(kind, "DELETED", final, prev or obj)
        return final

    def dependents(self, uid):
        return [(self.kinds[kk], o) for kk, objs in self.objs.items() for o in objs.values()
                if any(r.get("uid") == uid for r in o["metadata"].get("ownerReferences") or [])]

    def gc_sweep(self):
        """The garbage collector and namespace controller, one pass: delete dependents whose owners are
        gone, finish foreground deletions, empty terminating namespaces."""
        self.gc_dirty = False
        for kk, objs in list(self.objs.items()):
            kind = self.kinds.get(kk)
            for o in list(objs.values()):
                if kind is None or o is not self.objs.get(kk, {}).get(obj_key(kind, o)):
                    continue
                m = o["metadata"]
                refs = m.get("ownerReferences") or []
                dangling = [r for r in refs if self.kind_of(r.get("apiVersion"), r.get("kind"))
                            and self.uids.get(r.get("uid"), (None,))[0] != self.kind_of(r.get("apiVersion"),
                                                                                          r.get("kind")).key]
                if refs and len(dangling) == len(refs) and not m.get("deletionTimestamp"):
                    self.delete_obj(kind, o, "Background")
                elif dangling and len(dangling) < len(refs):
                    new = copy.deepcopy(o)
                    new["metadata"]["ownerReferences"] = [r for r in refs if r not in dangling]
                    self.commit(kind, "MODIFIED", new, o)
                elif m.get("deletionTimestamp") and "foregroundDeletion" in (m.get("finalizers") or []):
                    deps = self.dependents(m["uid"])
                    for dk, d in deps:
                        if not d["metadata"].get("deletionTimestamp"):
                            self.delete_obj(dk, d, "Background")
                    if not deps:
                        self.drop_finalizer(kind, o, "foregroundDeletion")
                elif kind.kind == "Namespace" and m.get("deletionTimestamp"):
                    left = [(k, x) for k in self.kinds.values() if k.namespaced
                            for x in self.objs[k.key].values() if x["metadata"].get("namespace") == m["name"]]
                    for k, x in left:
                        if not x["metadata"].get("deletionTimestamp"):
                            self.delete_obj(k, x, "Background")
                    if not left:
                        self.remove(kind, o)

    def drop_finalizer(self, kind, o, fin):
        new = copy.deepcopy(o)
        new["metadata"]["finalizers"] = [f for f in o["metadata"]["finalizers"] if f != fin]
        if not new["metadata"]["finalizers"]:
            del new["metadata"]["finalizers"]
            self.remove(kind, new, o)
        else:
            self.commit(kind, "MODIFIED", new, o)


def _pb_fields(b):
    """Protocol-buffer wire format: [(field number, int or bytes)]."""
    def varint(i):
        v = s = 0
        while True:
            v |= (b[i] & 0x7f) << s
            s += 7
            i += 1
            if not b[i - 1] & 0x80:
                return v, i
    i, out = 0, []
    while i < len(b):
        key, i = varint(i)
        if key & 7 == 0:
            v, i = varint(i)
        elif key & 7 == 2:
            n, i = varint(i)
            v, i = b[i:i + n], i + n
        elif key & 7 in (1, 5):
            n = 8 if key & 7 == 1 else 4
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("unsupported protobuf wire type")
        out.append((key >> 3, v))
    return out


def protobuf_object(kind, body):
    """kubectl's typed create commands (e.g. `kubectl create namespace`) send protobuf. Decode the
    runtime.Unknown envelope and the ObjectMeta; only kinds whose other fields may be left out
    (Namespace) are accepted, others get 415 asking for JSON."""
    if kind.kind != "Namespace" or not body.startswith(b"k8s\x00"):
        raise ApiError(415, "UnsupportedMediaType", "fakeapi decodes protobuf only for Namespace: send "
                                                    "application/json")
    env = dict(_pb_fields(body[4:]))
    meta, str_of = {}, lambda v: v.decode()
    for f, v in _pb_fields(dict(_pb_fields(env.get(2, b""))).get(1, b"")):
        if f in (1, 2, 3) and v:
            meta[{1: "name", 2: "generateName", 3: "namespace"}[f]] = str_of(v)
        elif f in (11, 12):
            kv = dict(_pb_fields(v))
            meta.setdefault("labels" if f == 11 else "annotations", {})[str_of(kv.get(1, b""))] = \
                str_of(kv.get(2, b""))
        elif f == 14:
            meta.setdefault("finalizers", []).append(str_of(v))
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}


# ---------------------------------------------------------------- faults and the request log

ACTIONS = {"status", "close", "hang", "trickle", "redirect", "html", "truncate", "delay", "watch_error",
           "watch_close", "watch_silent", "watch_split", "watch_batch"}
REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
           409: "Conflict", 410: "Expired", 415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests",
           500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}


class Faults:
    def __init__(self):
        self.rules, self.lock = [], threading.Lock()

    def add(self, rule):
        if not isinstance(rule, dict) or rule.get("action") not in ACTIONS:
            raise ValueError(f"a rule needs an action, one of {sorted(ACTIONS)}")
        for f in ("path", "query"):
            re.compile(rule.get(f) or "")
        r = dict(rule, seen=0)
        r["times"] = int(r.get("times", 1))
        with self.lock:
            self.rules.append(r)

    def match(self, method, path, query, user, watch):
        with self.lock:
            for r in self.rules:
                if (r.get("method") and r["method"].upper() != method) or \
                        (r.get("path") and not re.search(r["path"], path)) or \
                        (r.get("query") and not re.search(r["query"], query)) or \
                        (r.get("user") and r["user"] != user) or (r["action"].startswith("watch_") and not watch):
                    continue
                r["seen"] += 1
                if r["seen"] <= int(r.get("after") or 0):
                    return None
                if r["times"] > 0:
                    r["times"] -= 1
                    if r["times"] == 0:
                        self.rules.remove(r)
                return dict(r)
        return None


class RequestLog:
    """Every request in arrival order; time is the server's wall clock when the request (its body
    read) reached the handler, before any fault's delay, so a test can compare it with other
    entries' times (a Lease renewal's, say) whatever the client's clock says."""

    def __init__(self):
        self.entries, self.lock, self.seq = [], threading.Lock(), 0

    def add(self, **entry):
        with self.lock:
            self.seq += 1
            entry.update(seq=self.seq, time=time.time(), status=None)
            self.entries.append(entry)
            return entry


# ---------------------------------------------------------------- the API server


class Abort(Exception):
    """End the connection now, without a clean end of the response."""


class App:
    def __init__(self, args):
        self.dir, self.store, self.faults, self.log = args.dir, Store(args.history), Faults(), RequestLog()
        self.store.bookmark_interval = args.bookmark_interval
        self.tokens, self.port, self.ctl_url = {}, 0, ""

    def user_of(self, header):
        if header and header.startswith("Bearer "):
            tok = header[7:].strip()
            return next((u for u, t in list(self.tokens.items()) if secrets.compare_digest(t, tok)), None)
        return None

    def set_status(self, body):
        st = self.store
        with st.cond:
            kind = next((k for k in st.kinds.values() if k.plural == body["resource"] and
                         body.get("group", k.group) == k.group), None)
            if kind is None:
                return 404, {"error": f"no resource {body['resource']!r}"}
            try:
                old = st.get(kind, body.get("namespace"), body["name"])
                new = copy.deepcopy(old)
                new["status"] = body["status"]
                if body.get("validate", True):
                    return 200, st.write(kind, kind.storage, new, old, {"q": {}, "warnings": []}, "status")[1]
                if canon(new) != canon(old):
                    st.commit(kind, "MODIFIED", new, old)
                return 200, new
            except ApiError as e:
                return e.code, e.status()

    def rotate(self, user, token=None, new=False):
        if user not in self.tokens and not new:
            raise KeyError(f"unknown user {user}")
        self.tokens[user] = token or secrets.token_urlsafe(32)
        write_file(os.path.join(self.dir, f"token-{user}"), self.tokens[user] + "\n")
        write_kubeconfig(self, user)
        return self.tokens[user]

    def route(self, method, path, q):
        """Map a request to {verb, kind, version, ns, name, sub} (kind None: a non-resource path)."""
        parts = [p for p in path.split("/") if p]
        r = {"verb": "get", "kind": None, "version": None, "ns": None, "name": None, "sub": None}
        if parts[:1] == ["api"] and len(parts) > 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) > 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return r
        st = self.store
        if rest[0] == "namespaces" and len(rest) > 2 and (k := st.find(group, version, rest[2])) and k.namespaced:
            r["ns"], rest = rest[1], rest[2:]
        kind = st.find(group, version, rest[0])
        if kind is None or len(rest) > 3 or (len(rest) == 3 and not (rest[2] == "status" and kind.status)) or \
                (len(rest) > 1 and kind.namespaced and r["ns"] is None):
            r["kind"] = False
            return r
        r.update(kind=kind, version=version, name=rest[1] if len(rest) > 1 else None,
                 sub=rest[2] if len(rest) > 2 else None)
        if r["name"] is None:
            r["verb"] = {"GET": "watch" if q.get("watch") in ("1", "true") else "list", "POST": "create",
                         "DELETE": "deletecollection"}.get(method, method.lower())
        else:
            r["verb"] = {"GET": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}.get(method,
                                                                                                 method.lower())
        return r

    def handle(self, r, path, q, body, headers, ctx):
        """Answer one non-watch request; returns (code, object). Raises ApiError."""
        kind, verb = r["kind"], r["verb"]
        if kind is None:
            return 200, self.nonresource(path)
        if kind is False:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        table = "as=Table" in (headers.get("Accept") or "")
        st, v, ns, name = self.store, r["version"], r["ns"], r["name"]
        ctype = (headers.get("Content-Type") or "application/json").split(";")[0].strip()

        def decode():
            try:
                if ctype == "application/vnd.kubernetes.protobuf":
                    return protobuf_object(kind, body)
                if ctype in ("application/yaml", "application/apply-patch+yaml") and body[:1] not in (b"{", b"["):
                    return (yaml_load_all(body.decode()) or [None])[0]
                return json.loads(body or b"null")
            except (ValueError, YamlError) as e:
                raise bad_request(f"{kind.kind} in version \"{v}\" cannot be handled as a {kind.kind}: {e}")

        with st.cond:
            if verb == "get":
                o = st.present(kind, v, st.get(kind, ns, name))
                return 200, to_table(kind, v, [o], o["metadata"]["resourceVersion"], q.get("includeObject",
                                                                                         "Metadata")) if table else o
            if verb == "list":
                return 200, self.list(kind, v, ns, q, table)
            if verb == "create":
                code, o = st.create(kind, v, ns, decode(), ctx)
            elif verb == "update":
                code, o = st.update(kind, v, ns, name, r["sub"], decode(), ctx)
            elif verb == "patch":
                code, o = st.patch(kind, v, ns, name, r["sub"], body, headers.get("Content-Type"), ctx)
            elif verb == "delete" and not r["sub"]:
                opts = decode() if body else {}
                code, o = st.delete(kind, ns, name, opts if isinstance(opts, dict) else {}, ctx)
            elif verb == "deletecollection":
                for o in self.list(kind, v, ns, q, False)["items"]:
                    st.delete(kind, o["metadata"].get("namespace"), o["metadata"]["name"], {}, ctx)
                return 200, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
            else:
                raise ApiError(405, "MethodNotAllowed", f"the server does not allow this method on the requested "
                                                        f"resource")
            return code, st.present(kind, v, o)

    def selectors(self, kind, ns, q):
        lsel, fsel = parse_label_selector(q.get("labelSelector")), parse_field_selector(q.get("fieldSelector"), kind)
        return lambda o: (ns is None or o["metadata"].get("namespace") == ns) and \
            labels_match(lsel, o["metadata"].get("labels")) and fields_match(fsel, o)

    def list(self, kind, v, ns, q, table):
        st, match = self.store, self.selectors(kind, ns, q)
        try:
            limit, rv = int(q.get("limit") or 0), q.get("resourceVersion") or ""
            at, start = st.rv, ""
            if q.get("continue"):
                try:
                    d = json.loads(base64.urlsafe_b64decode(q["continue"] + "=" * (-len(q["continue"]) % 4)))
                    at, start = int(d["rv"]), str(d["start"])
                except (ValueError, KeyError, TypeError):
                    raise bad_request("continue key is not valid: incorrect encoded start resourceVersion "
                                      "(version meta.k8s.io/v1)")
                if at < st.compacted:
                    raise ApiError(410, "Expired", "The provided continue parameter is too old to display a "
                                   "consistent list result. You can start a new list without the continue "
                                   "parameter, or use the continue value from the response.")
            elif rv not in ("", "0"):
                r = int(rv)
                if r > st.rv:
                    raise ApiError(504, "Timeout", f"Too large resource version: {r}, current: {st.rv}", {
                        "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                        "retryAfterSeconds": 1})
                if q.get("resourceVersionMatch") == "Exact":
                    if r < st.compacted:
                        raise ApiError(410, "Expired", f"too old resource version: {r} ({st.compacted})")
                    at = r
        except ValueError:
            raise bad_request(f"invalid resource version or limit in {q}")
        objs = st.snapshot(kind, at) if at != st.rv else st.objs[kind.key]
        items = [objs[k] for k in sorted(objs) if k > start and match(objs[k])]
        meta = {"resourceVersion": str(at)}
        if 0 < limit < len(items):
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"v": "meta.k8s.io/v1", "rv": at, "start": obj_key(kind, items[limit - 1])}).encode()).decode()
            if not q.get("labelSelector") and not q.get("fieldSelector"):
                meta["remainingItemCount"] = len(items) - limit
            items = items[:limit]
        items = [st.present(kind, v, o) for o in items]
        if table:
            return to_table(kind, v, items, str(at), q.get("includeObject", "Metadata"), meta.get("continue"))
        if not kind.crd:
            items = [{k: x for k, x in o.items() if k not in ("kind", "apiVersion")} for o in items]
        return {"kind": kind.list_kind, "apiVersion": kind.gv(v), "metadata": meta, "items": items}

    def nonresource(self, path):
        st, path = self.store, path.rstrip("/") or "/"
        groups = {}
        for k in st.kinds.values():
            groups.setdefault(k.group, set()).update(k.versions)
        grp = lambda g: {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in sorted(
            groups[g], key=version_priority)], "preferredVersion": {
            "groupVersion": f"{g}/{min(groups[g], key=version_priority)}", "version": min(groups[g],
                                                                                       key=version_priority)}}
        parts = path.split("/")[1:]
        if path == "/version":
            return {"major": "1", "minor": "32", "gitVersion": "v1.32.0-fakeapi", "gitCommit": "0" * 40,
                    "gitTreeState": "clean", "buildDate": "2024-12-11T00:00:00Z", "goVersion": "go1.23.4",
                    "compiler": "gc", "platform": "linux/amd64"}
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{self.port}"}]}
        if path == "/apis":
            return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [grp(g) for g in sorted(groups) if g]}
        if parts[0] == "apis" and len(parts) == 2 and parts[1] in groups:
            return dict(grp(parts[1]), kind="APIGroup", apiVersion="v1")
        if (parts[0] == "api" and len(parts) == 2) or (parts[0] == "apis" and len(parts) == 3):
            group, version = ("", parts[1]) if parts[0] == "api" else (parts[1], parts[2])
            res = []
            for k in sorted((k for k in st.kinds.values() if k.group == group and version in k.versions),
                            key=lambda k: k.plural):
                r = {"name": k.plural, "singularName": k.singular, "namespaced": k.namespaced, "kind": k.kind,
                     "verbs": VERBS}
                r.update({"shortNames": k.short} if k.short else {}, **({"categories": k.categories}
                                                                        if k.categories else {}))
                res.append(r)
                if k.status:
                    res.append({"name": k.plural + "/status", "singularName": "", "namespaced": k.namespaced,
                                "kind": k.kind, "verbs": ["get", "patch", "update"]})
            if res:
                return {"kind": "APIResourceList", "apiVersion": "v1",
                        "groupVersion": f"{group}/{version}" if group else version, "resources": res}
        if path in ("/healthz", "/livez", "/readyz"):
            return "ok"
        if path.startswith("/openapi/v3"):
            return self.openapi(path[len("/openapi/v3"):], groups)
        raise ApiError(404, "NotFound", "the server could not find the requested resource")


    def openapi(self, gvpath, groups):
        """Just enough OpenAPI v3 for kubectl: a root listing every group-version, and per group-version
        the PATCH operations with their fieldValidation parameter (so kubectl leaves validation to the
        server) and no strategic-merge media type (so it computes patches from its compiled-in types)."""
        gvs = [("api/v1", "", "v1")] + [(f"apis/{g}/{v}", g, v) for g in sorted(groups) if g for v in groups[g]]
        if not gvpath.strip("/"):
            return {"paths": {p: {"serverRelativeURL": f"/openapi/v3/{p}?hash={self.store.rv}"} for p, _, _ in gvs}}
        hit = [(g, v) for p, g, v in gvs if p == gvpath.strip("/")]
        if not hit:
            raise ApiError(404, "NotFound", "the server could not find the requested resource")
        paths, media = {}, ["application/json-patch+json", "application/merge-patch+json",
                            "application/apply-patch+yaml"]
        for k in self.store.kinds.values():
            if (k.group, hit[0][1]) == hit[0] and hit[0][1] in k.versions:
                base = f"/{gvpath.strip('/')}/" + ("namespaces/{namespace}/" if k.namespaced else "")
                paths[base + k.plural + "/{name}"] = {"patch": {
                    "x-kubernetes-group-version-kind": {"group": k.group, "version": hit[0][1], "kind": k.kind},
                    "parameters": [{"name": n, "in": "query", "schema": {"type": "string"}}
                                   for n in ("dryRun", "fieldManager", "fieldValidation", "force")],
                    "requestBody": {"content": {m: {"schema": {"type": "object"}} for m in media}},
                    "responses": {"200": {"description": "OK"}}}}
        return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.32.0"}, "paths": paths,
                "components": {"schemas": {}}}


class ApiHandler(BaseHTTPRequestHandler):
    protocol_version, server_version, sys_version = "HTTP/1.1", "fakeapi", ""

    def setup(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.request.settimeout(10)
        self.request = self.server.tls.wrap_socket(self.request, server_side=True)
        self.request.settimeout(None)
        super().setup()

    def log_message(self, *args):
        pass

    def do_GET(self):
        try:
            self.serve()
        except (Abort, OSError):
            self.abort()
    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def read_body(self):
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            out = b""
            while (n := int(self.rfile.readline().split(b";")[0], 16)):
                out += self.rfile.read(n)
                self.rfile.readline()
            self.rfile.readline()
            return out
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def serve(self):
        app = self.server.app
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        body = self.read_body()
        user = app.user_of(self.headers.get("Authorization"))
        with app.store.cond:
            r = app.route(self.command, url.path, q)
        kind = r["kind"]
        # agent: the client's User-Agent, which gpuqd makes "gpuq/<version> (<lease identity>)", so a
        # test tells two replicas apart even when they share one token, as on a real cluster.
        self.entry = app.log.add(user=user, agent=self.headers.get("User-Agent"), method=self.command,
                                 path=url.path, query=url.query, verb=r["verb"],
                                 resource=kind.plural if kind else "", namespace=r["ns"], name=r["name"],
                                 subresource=r["sub"], content_type=self.headers.get("Content-Type"), fault=None,
                                 body=body[:65536].decode("utf-8", "replace") if body else None)
        rule = app.faults.match(self.command, url.path, url.query, user, r["verb"] == "watch")
        action = rule["action"] if rule else None
        self.entry["fault"] = action
        early = action in ("status", "close", "hang", "redirect", "html") and not rule.get("apply")
        ctx = {"q": q, "warnings": []}
        try:
            if action == "delay":
                time.sleep(float(rule.get("seconds", 1)))
            if early:
                return self.fault_answer(rule)
            if user is None:
                raise ApiError(401, "Unauthorized", "Unauthorized")
            if r["verb"] == "watch":
                return self.watch(r, q, rule)
            code, obj = app.handle(r, url.path, q, body, self.headers, ctx)
        except ApiError as e:
            code, obj = e.code, e.status()
        if action in ("status", "close", "hang", "redirect", "html"):
            return self.fault_answer(rule)
        table = isinstance(obj, dict) and obj.get("kind") == "Table"
        self.answer(code, obj, action, "application/json;as=Table;v=v1;g=meta.k8s.io" if table else None,
                    ctx["warnings"])

    def answer(self, code, obj, action=None, ctype=None, warnings=(), extra=()):
        if isinstance(obj, (bytes, str)):
            data = obj.encode() if isinstance(obj, str) else obj
            ctype = ctype or "text/plain; charset=utf-8"
        else:
            data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        if action == "truncate":
            code, data, ctype = 200, data[:max(1, len(data) // 2)], "application/json"
        self.entry["status"] = code
        self.send_response(code)
        self.send_header("Content-Type", ctype or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        for w in warnings:
            self.send_header("Warning", '299 - "%s"' % w.replace('"', '\\"'))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if action == "trickle":
            for i in range(len(data)):
                if STOP.wait(1 if i else 0):
                    raise Abort()
                self.wfile.write(data[i:i + 1])
        else:
            self.wfile.write(data)

    def abort(self):
        self.close_connection = True
        try:
            self.request.shutdown(2)
        except OSError:
            pass

    def fault_answer(self, rule):
        a, code = rule["action"], int(rule.get("code", 500))
        if a == "close":
            self.entry["status"] = 0
            return self.abort()
        if a == "hang":
            self.entry["status"] = 0
            STOP.wait()
            return self.abort()
        if a == "redirect":
            return self.answer(302, b"", None, "text/plain", extra=[("Location", rule.get("location",
                                                                                          "https://example.com/"))])
        if a == "html":
            return self.answer(200, "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>"
                                    "</body></html>\n", None, "text/html")
        extra = [("Retry-After", str(rule["retry_after"]))] if rule.get("retry_after") is not None else []
        if rule.get("body") is not None:
            return self.answer(code, str(rule["body"]), None, rule.get("content_type", "application/json"),
                               extra=extra)
        err = ApiError(code, rule.get("reason", REASONS.get(code, "InternalError")),
                       rule.get("message", f"fakeapi: injected {code}"))
        st = err.status()
        if rule.get("retry_after") is not None:
            st["details"] = {"retryAfterSeconds": int(rule["retry_after"])}
        self.answer(code, st, None, rule.get("content_type"), extra=extra)

    # -- watch

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def watch(self, r, q, rule):
        app = self.server.app
        st, kind, v, action = app.store, r["kind"], r["version"], rule["action"] if rule else None
        table = "as=Table" in (self.headers.get("Accept") or "")
        match = app.selectors(kind, r["ns"], q)
        if r["name"]:
            match = (lambda m, n: lambda o: m(o) and o["metadata"]["name"] == n)(match, r["name"])
        rv = q.get("resourceVersion") or ""
        try:
            timeout = float(q.get("timeoutSeconds") or 0) or None
        except ValueError:
            raise bad_request(f"invalid timeoutSeconds {q['timeoutSeconds']!r}")
        bookmarks = q.get("allowWatchBookmarks") in ("1", "true")
        pending, done = [], False
        with st.cond:
            if rv in ("", "0") or q.get("sendInitialEvents") == "true":
                cursor = st.rv
                pending = [("ADDED", o) for k, o in sorted(st.objs[kind.key].items()) if match(o)]
                if q.get("sendInitialEvents") == "true":
                    pending.append(("BOOKMARK", {"kind": kind.kind, "apiVersion": kind.gv(v), "metadata": {
                        "resourceVersion": str(st.rv), "annotations": {"k8s.io/initial-events-end": "true"}}}))
            else:
                if not rv.isdigit():
                    raise bad_request(f'invalid resource version "{rv}"')
                cursor = int(rv)
                if cursor < st.compacted:
                    err = ApiError(410, "Expired", f"too old resource version: {cursor} ({st.compacted})")
                    if st.form == "status":
                        raise err
                    pending, done = [("ERROR", err.status())], True
            if action == "watch_error":
                err = ApiError(int(rule.get("code", 410)), rule.get("reason", "Expired"),
                               rule.get("message", "too old resource version: %s (%s)" % (rv or 0, st.rv)
                                        if int(rule.get("code", 410)) == 410 else "fakeapi: injected watch error"))
                pending, done = [("ERROR", err.status())], True
            me = object()
            st.cursors[me] = cursor
            st.watches += 1
        try:
            self.entry["status"] = 200
            self.send_response(200)
            self.send_header("Content-Type", "application/json;as=Table;v=v1;g=meta.k8s.io" if table else
                             "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache, private")
            self.end_headers()
            if action == "watch_silent":
                while not STOP.wait(0.5) and not self.gone():
                    pass
                raise Abort()
            self.stream(st, kind, v, match, cursor, pending, done, me, table, bookmarks, timeout, rule)
            self.chunk(b"")
        except (Abort, OSError, ssl.SSLError):
            self.abort()
        finally:
            with st.cond:
                del st.cursors[me]
                st.watches -= 1

    def gone(self):
        try:
            return bool(select.select([self.connection], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def stream(self, st, kind, v, match, cursor, pending, done, me, table, bookmarks, timeout, rule):
        action = rule["action"] if rule else None
        limit = int(rule.get("events", 0)) if action == "watch_close" else None
        deadline = time.monotonic() + timeout if timeout is not None else None
        gen, last_bm, sent, held = st.watch_gen, time.monotonic(), 0, None
        while True:
            if limit is not None and sent + len(pending) >= limit:
                pending, done = pending[:limit - sent], True
            if action == "watch_batch" and pending and not done:
                held = held or time.monotonic()
                if len(pending) < int(rule.get("events", 2)) and time.monotonic() - held < 0.5:
                    pending, keep = [], pending
                else:
                    keep, held = [], None
            else:
                keep = []
            if pending:
                self.send_events(kind, v, pending, table, action)
                sent += len(pending)
            pending = keep
            if done:
                return
            if not pending and self.gone():
                raise Abort()
            with st.cond:
                now = time.monotonic()
                if STOP.is_set() or st.watch_gen != gen or (deadline is not None and now >= deadline):
                    return
                if cursor < st.floor:  # history this watch still needed was dropped (--history)
                    err = ApiError(410, "Expired", f"too old resource version: {cursor} ({st.floor})")
                    pending, done = pending + [("ERROR", err.status())], True
                    continue
                evs = st.events_after(cursor)
                if not evs:
                    due = last_bm + st.bookmark_interval if bookmarks and st.bookmark_interval > 0 else None
                    if due is not None and now >= due:
                        pending.append(("BOOKMARK", {"kind": kind.kind, "apiVersion": kind.gv(v),
                                                     "metadata": {"resourceVersion": str(st.rv)}}))
                        last_bm, cursor = now, st.rv
                    else:
                        st.cond.wait(max(0.01, min(x for x in (1.0, due and due - now, deadline and deadline - now)
                                                   if x is not None)))
                    continue
                for ev in evs:
                    e = self.filter_event(kind, match, *ev[1:])
                    if e:
                        pending.append((e[0], dict(e[1], metadata=dict(e[1]["metadata"],
                                                                        resourceVersion=str(ev[0])))
                                        if e[0] == "DELETED" else e[1]))
                cursor = st.cursors[me] = evs[-1][0]

    @staticmethod
    def filter_event(kind, match, kk, typ, obj, prev):
        if kk != kind.key:
            return None
        new_ok = typ != "DELETED" and match(obj)
        old_ok = prev is not None and match(prev)
        if typ == "DELETED":
            return ("DELETED", obj) if match(obj) else None
        if typ == "ADDED" or (new_ok and not old_ok):
            return ("ADDED", obj) if new_ok else None
        if new_ok:
            return "MODIFIED", obj
        return ("DELETED", prev) if old_ok else None

    def send_events(self, kind, v, events, table, action):
        datas = []
        for typ, obj in events:
            if typ in ("ADDED", "MODIFIED", "DELETED"):
                obj = Store.present(kind, v, obj)
                obj = to_table(kind, v, [obj], obj["metadata"]["resourceVersion"]) if table else obj
            datas.append((json.dumps({"type": typ, "object": obj}, separators=(",", ":")) + "\n").encode())
        if action == "watch_batch":
            self.chunk(b"".join(d[:-1] for d in datas))
        elif action in ("watch_split", "trickle"):
            for d in datas:
                for i in range(len(d)):
                    if action == "trickle" and STOP.wait(1):
                        raise Abort()
                    self.chunk(d[i:i + 1])
        elif action == "truncate":
            self.chunk(datas[0][:len(datas[0]) // 2])
            raise Abort()
        else:
            for d in datas:
                self.chunk(d)


class ControlHandler(BaseHTTPRequestHandler):
    protocol_version, server_version, sys_version = "HTTP/1.1", "fakeapi-control", ""

    def setup(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()

    def log_message(self, *args):
        pass

    def reply(self, code, obj):
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.control()
    do_POST = do_GET

    def control(self):
        app = self.server.app
        st, url = app.store, urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            key = (self.command, url.path.rstrip("/"))
            if key == ("GET", "/_requests"):
                with app.log.lock:
                    return self.reply(200, [dict(e) for e in app.log.entries])
            if key == ("POST", "/_requests/clear"):
                with app.log.lock:
                    app.log.entries.clear()
                return self.reply(200, {})
            if key == ("GET", "/_faults"):
                with app.faults.lock:
                    return self.reply(200, [dict(r) for r in app.faults.rules])
            if key == ("POST", "/_faults"):
                for rule in body if isinstance(body, list) else [body]:
                    app.faults.add(rule)
                return self.reply(200, {})
            if key == ("POST", "/_faults/clear"):
                with app.faults.lock:
                    app.faults.rules.clear()
                return self.reply(200, {})
            if key == ("GET", "/_state"):
                with st.cond:
                    return self.reply(200, {"resourceVersion": str(st.rv), "compacted": str(st.compacted),
                                            "watches": st.watches, "form": st.form, "port": app.port})
            if key == ("POST", "/_objects/set_status"):
                return self.reply(*app.set_status(body))
            with st.cond:
                if key == ("POST", "/_compact"):
                    if body.get("form", "event") not in ("event", "status"):
                        raise ValueError("form must be event or status")
                    st.form = body.get("form", "event")
                    st.compact()
                    return self.reply(200, {"resourceVersion": str(st.rv)})
                if key == ("POST", "/_close_watches"):
                    st.watch_gen += 1
                    st.cond.notify_all()
                    return self.reply(200, {})
                if key == ("POST", "/_bookmarks"):
                    st.bookmark_interval = float(body.get("interval") or 0)
                    st.cond.notify_all()
                    return self.reply(200, {})
                if key == ("GET", "/_objects"):
                    kind = next((k for k in st.kinds.values() if k.plural == q.get("resource") and
                                 q.get("group", k.group) == k.group), None)
                    if kind is None:
                        return self.reply(404, {"error": f"no resource {q.get('resource')!r}"})
                    objs = [o for _, o in sorted(st.objs[kind.key].items()) if q.get("namespace") in
                            (None, o["metadata"].get("namespace")) and q.get("name") in (None, o["metadata"]["name"])]
                    return self.reply(200, objs)
            if key == ("POST", "/_rotate"):
                return self.reply(200, {"user": body["user"], "token": app.rotate(body["user"])})
            return self.reply(404, {"error": f"no control endpoint {self.command} {url.path}"})
        except (ValueError, KeyError, TypeError, re.error) as e:
            return self.reply(400, {"error": f"{type(e).__name__}: {e}"})




# ---------------------------------------------------------------- files: certificates, tokens, kubeconfigs


def make_certs(d):
    """A CA and a server certificate for 127.0.0.1 and localhost (kept when DIR already has them)."""
    p = lambda f: os.path.join(d, f)
    if all(os.path.exists(p(f)) for f in ("ca.crt", "ca.key", "server.crt", "server.key")):
        return
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", p("ca.key"), "-out", p("ca.crt"), "-days", "3650", "-subj",
        "/CN=fakeapi-ca", "-addext", "basicConstraints=critical,CA:TRUE", "-addext",
        "keyUsage=critical,keyCertSign,cRLSign")
    run("req", *ec, "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost")
    with open(p("server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", p("server.csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
        "-out", p("server.crt"), "-days", "3650", "-extfile", p("server.ext"))
    for f in ("server.csr", "server.ext", "ca.srl"):
        if os.path.exists(p(f)):
            os.unlink(p(f))


def write_file(path, text, mode=0o600):
    tmp = path + ".tmp"
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "w") as f:
        f.write(text)
    os.replace(tmp, path)


def write_kubeconfig(app, user):
    ca = base64.b64encode(open(os.path.join(app.dir, "ca.crt"), "rb").read()).decode()
    name = "kubeconfig" if user == "admin" else f"kubeconfig-{user}"
    write_file(os.path.join(app.dir, name), f"""apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: https://127.0.0.1:{app.port}
    certificate-authority-data: {ca}
contexts:
- name: fake
  context:
    cluster: fake
    user: {user}
    namespace: default
current-context: fake
preferences: {{}}
users:
- name: {user}
  user:
    token: {app.tokens[user]}
""")




def load_crds(app, paths):
    st, files = app.store, []
    for p in paths:
        files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith((".yaml", ".yml", ".json"))) \
            if os.path.isdir(p) else [p]
    for f in files:
        text = open(f, encoding="utf-8").read()
        docs = [json.loads(text)] if f.endswith(".json") else yaml_load_all(text)
        for d in docs:
            if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition":
                with st.cond:
                    try:
                        st.create(st.kinds[("apiextensions.k8s.io", "customresourcedefinitions")], "v1", None, d,
                                  {"q": {}, "warnings": []})
                    except ApiError as e:
                        sys.exit(f"fakeapi: {f}: {e.message}")


# ---------------------------------------------------------------- main


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


def gc_loop(st):
    while not STOP.is_set():
        with st.cond:
            if st.gc_dirty:
                st.gc_sweep()
        STOP.wait(0.05)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--users", default="")
    ap.add_argument("--bookmark-interval", type=float, default=1.0)
    ap.add_argument("--history", type=int, default=100000)
    ap.add_argument("--crds", nargs="*", action="extend", default=[])
    ap.add_argument("--port", type=int, default=0, help="API port (default: ephemeral)")
    ap.add_argument("--control-port", type=int, default=0, help="control port (default: ephemeral)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    make_certs(args.dir)
    app = App(args)
    load_crds(app, args.crds)
    api = ApiServer(("127.0.0.1", args.port), ApiHandler)
    api.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    api.tls.load_cert_chain(os.path.join(args.dir, "server.crt"), os.path.join(args.dir, "server.key"))
    api.tls.set_alpn_protocols(["http/1.1"])
    ctl = ApiServer(("127.0.0.1", args.control_port), ControlHandler)
    api.app = ctl.app = app
    app.port, app.ctl_url = api.server_address[1], f"http://127.0.0.1:{ctl.server_address[1]}"
    for user in ["admin"] + [u for u in args.users.split(",") if u and u != "admin"]:
        tf = os.path.join(args.dir, f"token-{user}")
        app.rotate(user, open(tf).read().strip() if os.path.exists(tf) else None, new=True)
    write_file(os.path.join(args.dir, "port"), f"{app.port}\n", 0o644)
    write_file(os.path.join(args.dir, "control"), app.ctl_url + "\n", 0o644)
    write_file(os.path.join(args.dir, "pid"), f"{os.getpid()}\n", 0o644)
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
               for s in (api, ctl)] + [threading.Thread(target=gc_loop, args=(app.store,), daemon=True)]
    for t in threads:
        t.start()
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    print("ready", flush=True)
    while not STOP.wait(0.2):
        pass
    with app.store.cond:
        app.store.cond.notify_all()
    for s in (api, ctl):
        s.shutdown()
        s.server_close()
    time.sleep(0.1)


if __name__ == "__main__":
    main()
