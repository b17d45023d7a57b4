#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Mutated inputs through the sanitizer build of the nodrop command, as a new user's broken
files or a corrupted results directory would reach it: seeded random counter map directories
(`nodrop counters --maps DIR` on the fixture hosts) and run report pairs (`nodrop report A B`,
`nodrop compare A B`). Every run must end by itself with an exit code nodrop documents (0-3),
no signal, and no AddressSanitizer, LeakSanitizer or UBSan report. A run still going after
HANG_S seconds is a hang (the runs' wall times are printed, not asserted: the 1-second
expectation is read from the summary). Mutations: bytes flipped, inserted (NUL, 0xff, digits),
deleted, lines repeated, swapped or cut, files truncated or spliced, and in reports numbers
replaced by 1e999, NaN, -1e308, huge integers and negatives, keys and types changed.

Usage: tests/mutate.py SAN_NODROP [CASES] [SEED]   (make mutate N= SEED=)"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import finish, ok  # noqa: E402

ND = sys.argv[1] if len(sys.argv) > 1 else "build/san/nodrop"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else int(os.environ.get("ND_SEED", "3939"))
# cases at once: make check's lanes give each tier one core (ND_JOBS=1)
JOBS = int(os.environ.get("ND_JOBS") or os.cpu_count() or 2)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MAPS = os.path.join(ROOT, "data", "counters")
FIXTURES = os.path.join(HERE, "fixtures")
HANG_S = 20
SAN_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
             "SUMMARY: UndefinedBehaviorSanitizer")

EXTREME = ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1.7976931348623157e308",
           "-1e308", "4.9e-324", "-1", "0", "-0.0", "18446744073709551616",
           "99999999999999999999999", "-9223372036854775809", "1e-320", "\"x\"", "null",
           "[]", "{}", "true"]


def mutate_bytes(b, rng):
    b = bytearray(b)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(9)
        pos = rng.randrange(len(b) + 1) if b else 0
        if op == 0 and b:                       # flip a byte
            b[min(pos, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:                           # insert odd bytes
            b[pos:pos] = bytes(rng.choice([0, 0xff, 0x0a, 0x09, 0x7b, 0x7d, 0x25, 0x23,
                                           rng.randrange(256)])
                               for _ in range(rng.randint(1, 4)))
        elif op == 2 and b:                     # delete a range
            del b[pos:pos + rng.randint(1, 64)]
        elif op == 3:                           # truncate
            del b[pos:]
        elif op in (4, 5, 6):                   # lines: repeat, swap, cut
            lines = bytes(b).split(b"\n")
            i, k = rng.randrange(len(lines)), rng.randrange(len(lines))
            if op == 4:
                lines[i:i] = [lines[k]] * rng.randint(1, 40)
            elif op == 5:
                lines[i], lines[k] = lines[k], lines[i]
            else:
                del lines[i]
            b = bytearray(b"\n".join(lines))
        elif op == 7:                           # a digit run made huge or negative
            b[pos:pos] = rng.choice([b"9" * rng.randint(10, 400), b"-", b"1e999", b"{p}"])
        else:                                   # a long line
            b[pos:pos] = b"x" * rng.choice([1023, 1024, 1025, 5000])
    return bytes(b)


def mutate_json(doc, rng):
    """Change numbers, keys and types of a parsed report; returns text (maybe not JSON)."""
    nodes = []

    def walk(o):
        if isinstance(o, dict):
            for k in list(o):
                nodes.append((o, k))
                walk(o[k])
        elif isinstance(o, list):
            for i in range(len(o)):
                nodes.append((o, i))
                walk(o[i])
    walk(doc)
    raw = {}
    for n in range(rng.randint(1, 8)):
        if not nodes:
            break
        parent, key = rng.choice(nodes)
        op = rng.randrange(6)
        if op <= 2:                             # a number no run gives
            mark = f"__M{n}__"
            raw[mark] = rng.choice(EXTREME)
            parent[key] = mark
        elif op == 3 and isinstance(parent, dict):  # a key renamed or dropped
            v = parent.pop(key)
            if rng.random() < 0.5:
                parent[key + rng.choice(["_", "x", ""]) if isinstance(key, str) else key] = v
        elif op == 4 and isinstance(parent[key], list):  # a series made long or empty
            parent[key] = parent[key] * rng.randint(2, 50) if rng.random() < 0.5 else []
        else:                                   # a type changed
            parent[key] = rng.choice([[], {}, "", 0, None, [[1, 2]], {"count": 1}])
    text = json.dumps(doc)
    for mark, value in raw.items():
        text = text.replace(f'"{mark}"', value)
    return text.encode()


def run(args, env, case):
    t0 = time.monotonic()
    try:
        p = subprocess.run([ND, *args], capture_output=True, env=env, timeout=HANG_S)
        rc, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        rc, err = "hang", f"still running after {HANG_S} s"
    dt = time.monotonic() - t0
    san = next((m for m in SAN_MARKS if m in err), None)
    good = rc in (0, 1, 2, 3) and not san
    return good, dt, f"{case}: nodrop {' '.join(args)}: exit {rc}" + (
        f", {san}" if san else "") + ("" if good else "\n" + err[-3000:])


def maps_case(i, rng, work):
    d = os.path.join(work, f"maps{i}")
    os.mkdir(d)
    names = sorted(n for n in os.listdir(MAPS) if n.endswith(".map"))
    texts = {n: open(os.path.join(MAPS, n), "rb").read() for n in names}
    for n in rng.sample(names, rng.randint(1, len(names))):
        t = texts[n]
        if rng.random() < 0.15:                 # spliced with another map
            o = texts[rng.choice(names)]
            t = t[:rng.randrange(len(t))] + o[rng.randrange(len(o)):]
        if rng.random() < 0.9:
            t = mutate_bytes(t, rng)
        with open(os.path.join(d, rng.choice([n, n, "site-" + n])), "wb") as f:
            f.write(t)
    fixture = rng.choice(sorted(f for f in os.listdir(FIXTURES) if f.startswith("ctr-")))
    env = dict(os.environ, NODROP_SYSROOT=os.path.join(FIXTURES, fixture))
    args = ["counters", "--maps", d] + (["-j"] if rng.random() < 0.5 else [])
    res = run(args, env, f"maps case {i} ({fixture})")
    shutil.rmtree(d)
    return [res]


def report_case(i, rng, work, pool):
    files = []
    for k in range(2):
        text = rng.choice(pool)
        if k == 1 or rng.random() < 0.3:
            if rng.random() < 0.6:
                text = mutate_json(json.loads(text), rng)
            else:
                text = mutate_bytes(text, rng)
        path = os.path.join(work, f"r{i}-{k}.json")
        with open(path, "wb") as f:
            f.write(text)
        files.append(path)
    html = os.path.join(work, f"r{i}.html")
    res = [run(["report", *files, "-o", html], None, f"report case {i}"),
           run(["compare", *files], None, f"compare case {i}")]
    for p in files + [html]:
        if os.path.exists(p):
            os.unlink(p)
    return res


def main():
    work = tempfile.mkdtemp(prefix="nd-mutate-")
    pool = []
    cdir = os.path.join(FIXTURES, "compare")
    for n in sorted(os.listdir(cdir)):
        pool.append(open(os.path.join(cdir, n), "rb").read())
    scen = os.path.join(ROOT, "profiles", "scenarios")
    for s in ("incast-8.yaml", "victim-leaf-spine.yaml"):
        for extra in ([], ["--compare", "roce,ib"]):
            p = subprocess.run([ND, "sim", "-j", *extra, os.path.join(scen, s)],
                               capture_output=True, check=True)
            pool.append(p.stdout)
    print(f"# mutate: seed {SEED}, {CASES} map directories and {CASES} report pairs "
          f"(rerun: make mutate SEED={SEED} N={CASES})")
    jobs = []
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        for i in range(CASES):
            jobs.append(("maps", ex.submit(maps_case, i, random.Random(f"{SEED}-m{i}"),
                                           work)))
            jobs.append(("report", ex.submit(report_case, i, random.Random(f"{SEED}-r{i}"),
                                             work, pool)))
        times = {"maps": [], "report": []}
        bad = []
        for kind, j in jobs:
            for good, dt, what in j.result():
                times[kind].append(dt)
                if not good:
                    bad.append(what)
    shutil.rmtree(work)
    for what in bad[:20]:
        ok(False, what)
    for kind in ("maps", "report"):
        t = sorted(times[kind])
        n_bad = sum(1 for w in bad if w.startswith("maps" if kind == "maps" else ("report",
                                                                               "compare")))
        ok(n_bad == 0, f"{kind}: {len(t)} runs ended cleanly: wall time median "
           f"{t[len(t) // 2] * 1000:.0f} ms, p99 {t[int(len(t) * 0.99)] * 1000:.0f} ms, "
           f"max {t[-1] * 1000:.0f} ms ({sum(1 for x in t if x > 1)} over 1 s)")
    finish()


main()
