#!/usr/bin/env python3
"""The manual pages and completion scripts as `cmake --install` puts them
(issue 16): installed into a scratch prefix from the build tree, every page is
there (gpuq(1), gpuq-COMMAND(1) for every command `gpuq help` lists, gpuqd(8),
libgpuqueue(3) and libgpuqueue-NAME(3) for every public header), renders with
`man -l` and groff without a warning, and says the same as --help: every flag
in a command's --help is in its page and every flag in the page is in --help
(gpuq, each command, and gpuqd, whose parser's flags must all be in its --help).
Usage: test_manpages.py GPUQ_BINARY"""
import glob
import os
import re
import subprocess
import sys

from common import Checks, binary, scratch

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../.."))
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9]|-[a-zA-Z](?=[ ,]))")
HELP_FLAG = re.compile(r"^ {2,6}(?:(-[a-zA-Z]), )?(--[a-z][a-z0-9-]*)", re.M)
PLAIN = {"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u2013": "-", "\u2019": "'",
         "\u2018": "`"}


def render(path):
    """The page as `man -l` shows it on an 80-column terminal (plain text), and what
    man and groff said on stderr with every warning on."""
    env = dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="", LC_ALL="C.UTF-8")
    m = subprocess.run(["man", "--warnings", "-l", path], capture_output=True, env=env,
                       timeout=120)
    g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path], capture_output=True,
                       timeout=120)
    text = subprocess.run(["col", "-bx"], input=m.stdout, capture_output=True).stdout
    text = text.decode("utf-8", "replace")
    for k, v in PLAIN.items():
        text = text.replace(k, v)
    return m.returncode, text, (m.stderr + g.stderr).decode("utf-8", "replace")


def help_flags(text):
    """The flags --help lists, one per line: "--name", and "-x" for a short form."""
    flags = set()
    for short, long in HELP_FLAG.findall(text):
        flags.add(long)
        if short:
            flags.add(short)
    return flags


def page_flags(text):
    """Every flag a page's OPTIONS and GLOBAL FLAGS sections name as a tag."""
    flags, on = set(), False
    for line in text.splitlines():
        if re.match(r"^[A-Z]", line):
            on = line.strip() in ("OPTIONS", "GLOBAL FLAGS")
            continue
        # a tag: alone, before its ARG, or before its text on the same line
        m = re.match(r"^ {7}((?:-[a-zA-Z], )?--[a-z][a-z0-9-]*)(?=$| [A-Z]| {2,})", line)
        if on and m:
            flags.update(FLAG.findall(m.group(1) + " "))
    return flags


def install(c, build, tmp):
    prefix = os.path.join(tmp, "prefix")
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, timeout=600)
    c.check(r.returncode == 0, f"cmake --install: {r.stderr}")
    return prefix


def expected_pages(c, g, man):
    r = subprocess.run([g, "help"], capture_output=True, text=True)
    listed = re.findall(r"^  (\S+) ", r.stdout.split("Commands:")[1].split("Global flags")[0],
                        re.M)
    cmds = [w for w in listed if subprocess.run([g, w, "--help"], capture_output=True,
                                                text=True).stdout.find(f"gpuq {w}") >= 0]
    c.check("completion" in cmds and "submit" in cmds, f"commands from gpuq help: {cmds}")
    pages = {os.path.join(man, "man1", "gpuq.1"): None,
             os.path.join(man, "man8", "gpuqd.8"): None,
             os.path.join(man, "man3", "libgpuqueue.3"): None}
    for w in cmds:
        pages[os.path.join(man, "man1", f"gpuq-{w}.1")] = w
    for h in glob.glob(os.path.join(TOP, "lib", "include", "gpuqueue", "*.h")):
        name = os.path.splitext(os.path.basename(h))[0]
        pages[os.path.join(man, "man3", f"libgpuqueue-{name}.3")] = None
    return pages, cmds


def check_rendering(c, man, pages):
    installed = set(glob.glob(os.path.join(man, "man*", "*")))
    for p in pages:
        c.check(p in installed, f"{os.path.relpath(p, man)} installed")
    texts = {}
    for p in sorted(installed):
        rc, text, err = render(p)
        name = os.path.relpath(p, man)
        c.check(rc == 0 and err == "", f"man -l {name} renders without a warning: {err!r}")
        c.check(len(text.splitlines()) > 10 and "NAME" in text, f"{name} has a body")
        texts[p] = text
    return texts


def check_flags(c, what, help_text, page_text):
    want, got = help_flags(help_text), page_flags(page_text)
    c.check(len(want) > 0, f"{what}: --help lists flags")
    c.check(want - got == set(), f"{what}: flags in --help but not the page: {want - got}")
    c.check(got - want == set(), f"{what}: flags in the page but not --help: {got - want}")


def check_agreement(c, g, man, cmds, texts):
    r = subprocess.run([g, "--help"], capture_output=True, text=True)
    check_flags(c, "gpuq", r.stdout, texts[os.path.join(man, "man1", "gpuq.1")])
    for w in cmds:
        r = subprocess.run([g, w, "--help"], capture_output=True, text=True)
        check_flags(c, f"gpuq {w}", r.stdout, texts[os.path.join(man, "man1", f"gpuq-{w}.1")])
        summary = " ".join(r.stdout.splitlines()[0].split())
        page = " ".join(texts[os.path.join(man, "man1", f"gpuq-{w}.1")].split())
        c.check(summary in page, f"gpuq {w}: the page says the summary --help says: {summary}")
    gpuqd = os.path.join(os.path.dirname(os.path.dirname(g)), "daemon", "gpuqd")
    r = subprocess.run([gpuqd, "--help"], capture_output=True, text=True)
    check_flags(c, "gpuqd", r.stdout, texts[os.path.join(man, "man8", "gpuqd.8")])
    # gpuqd's parser has no table: every flag its source takes must be in its --help.
    with open(os.path.join(TOP, "daemon", "main.c"), encoding="utf-8") as f:
        parsed = set(re.findall(r'"(--[a-z][a-z0-9-]*)"', f.read()))
    c.check(parsed and parsed <= help_flags(r.stdout),
            f"gpuqd: flags it parses but --help does not list: {parsed - help_flags(r.stdout)}")


def check_library(c, man, texts):
    """Every function a public header declares is in its group's page."""
    for h in glob.glob(os.path.join(TOP, "lib", "include", "gpuqueue", "*.h")):
        name = os.path.splitext(os.path.basename(h))[0]
        with open(h, encoding="utf-8") as f:
            funcs = set(re.findall(r"GQ_EXTERN[^;(]*?\b(gq_\w+)\s*\(", f.read()))
        text = texts.get(os.path.join(man, "man3", f"libgpuqueue-{name}.3"), "")
        missing = {fn for fn in funcs if fn not in text}
        c.check(not missing, f"libgpuqueue-{name}(3) documents every function: {missing}")
        c.check(f"libgpuqueue-{name}" in texts[os.path.join(man, "man3", "libgpuqueue.3")],
                f"libgpuqueue(3) lists libgpuqueue-{name}(3)")


def check_completion_files(c, prefix):
    share = os.path.join(prefix, "share")
    for rel, first in (("bash-completion/completions/gpuq", "# bash"),
                       ("zsh/vendor-completions/_gpuq", "#compdef gpuq"),
                       ("fish/vendor_completions.d/gpuq.fish", "# fish")):
        path = os.path.join(share, rel)
        ok = os.path.isfile(path) and open(path, encoding="utf-8").read().startswith(first)
        c.check(ok, f"share/{rel} installed")
    kc = os.path.join(prefix, "bin", "kubectl_complete-gpuq")
    c.check(os.access(kc, os.X_OK), "bin/kubectl_complete-gpuq installed")
    r = subprocess.run([kc, "desc"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    c.check(r.stdout.split("\n")[0].startswith("describe") and ":4" in r.stdout,
            f"kubectl_complete-gpuq answers as __complete: {r.stdout!r} {r.stderr!r}")


def main():
    g = binary()
    c = Checks()
    build = os.path.dirname(os.path.dirname(g))
    with scratch() as tmp:
        prefix = install(c, build, tmp)
        man = os.path.join(prefix, "share", "man")
        pages, cmds = expected_pages(c, g, man)
        texts = check_rendering(c, man, pages)
        if all(p in texts for p in pages):
            check_agreement(c, g, man, cmds, texts)
            check_library(c, man, texts)
        check_completion_files(c, prefix)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
