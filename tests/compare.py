#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`nodrop compare` against cases it did not choose: seeded random histories built from
recorded VM stress runs (tests/fixtures/compare, written by tests/vm/stress2.sh) and from live
`nodrop sim` reports. Each case jitters every number of a history within its limit; the run is
either unchanged (exit 0, nothing worse), carries one injected regression past its limit
(exit 1, exactly that number worse, named in JSON and JUnit), or runs another workload (exit 2,
the difference named; --force compares and says so).

Usage: tests/compare.py NODROP [CASES] [SEED]"""
import copy
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import finish, ok  # noqa: E402

ND = sys.argv[1] if len(sys.argv) > 1 else "build/nodrop"
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 60
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else int(os.environ.get("ND_SEED", "1795"))
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures", "compare")
LIMITS = {"throughput": 10, "latency": 20, "cpu": 20, "jain": 0.05}


def run(*args):
    p = subprocess.run([ND, "compare", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def scale_numbers(rep, rng, factor_of):
    """Jitter the numbers compare reads, each by factor_of(class)."""
    rep["aggregate_gbps"] *= factor_of("throughput")
    for f in rep.get("flows", []):
        f["gbps"] *= factor_of("throughput")
    for key in ("latency", "completion", "fct"):
        d = rep.get(key)
        if d and d.get("count", 0) > 0:
            for p in ("p50_us", "p99_us", "p999_us"):
                d[p] *= factor_of("latency")
    if "cpu_s_per_gb" in rep:
        rep["cpu_s_per_gb"] *= factor_of("cpu")


def jittered(rep, rng):
    """A run of the same workload, every number within a third of its limit of @rep's."""
    r = copy.deepcopy(rep)

    def f(cls):
        return 1 + rng.uniform(-1, 1) * LIMITS[cls] / 300
    scale_numbers(r, rng, f)
    return r


def inject(rep, rng):
    """One regression past its limit; returns (report, the metric name compare must flag)."""
    r = copy.deepcopy(rep)
    choices = ["aggregate", "flow", "cpu", "loss", "verdict", "counter"]
    if any(r.get(k, {}).get("count", 0) > 0 for k in ("latency", "completion", "fct")):
        choices.append("latency")
    if r.get("kind") == "sim":
        choices = [c for c in choices if c not in ("cpu",)]
    what = rng.choice(choices)
    worse = 1 + rng.uniform(1.5, 4)          # 1.5x to 4x past the limit
    if what == "aggregate":
        r["aggregate_gbps"] *= 1 - LIMITS["throughput"] * worse / 100
        return r, "aggregate_gbps"
    if what == "flow":
        f = rng.choice(r["flows"])
        f["gbps"] *= max(0, 1 - LIMITS["throughput"] * worse / 100)
        # the aggregate follows a flow that fell only by its share: keep it as it was
        return r, f"flow {f['name']} gbps"
    if what == "cpu":
        r["cpu_s_per_gb"] *= 1 + LIMITS["cpu"] * worse / 100
        return r, "cpu_s_per_gb"
    if what == "latency":
        key = rng.choice([k for k in ("latency", "completion", "fct")
                          if r.get(k, {}).get("count", 0) > 0])
        ps = ["p50_us", "p99_us", "p999_us"]
        first = rng.randrange(3)
        # a tail from this percentile up got slower, so the percentiles stay in order
        for p in ps[first:]:
            r[key][p] *= 1 + LIMITS["latency"] * worse / 100
        return r, [f"{key} {p}" for p in ps[first:]]
    if what == "loss":
        key = rng.choice(["drops", "retransmits"])
        r[key] = r.get(key, 0) + rng.randint(1, 500)
        return r, key
    if what == "verdict":
        r["verdict"] = "lossy" if r.get("verdict") in ("lossless", "none") else "failed"
        return r, "verdict"
    where = rng.choice(["nd-vm0/eth0", "nd-vm1/eth0", "sw0/p3"])
    what_ctr = rng.choice(["out_of_sequence", "seq_err_naks", "rx_discards", "pfc_rx_frames"])
    prio = rng.choice([-1, 3])
    r.setdefault("evidence", []).append({"where": where, "what": what_ctr, "prio": prio,
                                         "delta": rng.randint(1, 10000)})
    name = f"counter {where} {what_ctr}" + (f" prio {prio}" if prio >= 0 else "")
    return r, name


def other_workload(rep, rng):
    """The same report with one identity field changed; returns (report, words the reason
    must hold)."""
    r = copy.deepcopy(rep)
    if r["kind"] == "sim":
        r["sim"]["seed"] = r["sim"]["seed"] + rng.randint(1, 1000)
        return r, f"seed {rep['sim']['seed']} vs {r['sim']['seed']}"
    what = rng.choice(["qps", "rate", "sizes", "host", "pattern"])
    if what == "qps":
        r["options"]["qps"] = rep["options"]["qps"] + rng.randint(1, 7)
        return r, "--qps %g vs %g" % (rep["options"]["qps"], r["options"]["qps"])
    if what == "rate":
        r["options"]["rate"] = round(rep["options"]["rate"] * rng.uniform(2, 9), 3)
        return r, "--rate"
    if what == "sizes":
        r["options"]["sizes"] = [rng.choice([4096, 65536, 1048576])]
        return r, "--sizes"
    if what == "host":
        r["ranks"][-1]["host"] = "gpu%03d" % rng.randint(1, 999)
        return r, "hosts"
    r["pattern"] = "incast"
    return r, "pattern pair vs incast"


def write(d, name, rep):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(rep, f)
    return path


def sim_reports(tmp):
    """Live sim reports: one fabric, and both fabrics in one file."""
    scen = os.path.join(os.path.dirname(HERE), "profiles", "scenarios", "incast-8.yaml")
    out = []
    for args in (["-j"], ["-j", "-c", "roce,ib"]):
        p = subprocess.run([ND, "sim", *args, scen], capture_output=True, text=True, check=True)
        out.append(json.loads(p.stdout))
    return out


def one_case(k, base_rep, rng, tmp):
    d = tempfile.mkdtemp(dir=tmp, prefix=f"c{k}-")
    hist = os.path.join(d, "results")
    os.makedirs(hist)
    many = isinstance(base_rep, list)
    reps = base_rep if many else [base_rep]
    nhist = rng.randint(1, 6)
    for i in range(nhist):
        sub = os.path.join(hist, f"run{i}")
        os.makedirs(sub)
        j = [jittered(r, rng) for r in reps]
        write(sub, "report.json", j if many else j[0])
    mode = rng.choice(["same", "worse", "worse", "other"])
    tag = f"case {k} ({reps[0]['kind']}{' x%d' % len(reps) if many else ''}, {nhist} runs, {mode})"
    if mode == "same":
        j = [jittered(r, rng) for r in reps]
        runp = write(d, "run.json", j if many else j[0])
        rc, out, err = run("-j", "--junit", os.path.join(d, "j.xml"), "--history", hist, runp)
        res = json.loads(out) if out else []
        # --history takes the newest 5 by default
        good = rc == 0 and all(x["regressions"] == 0 and len(x["baseline"]) == min(nhist, 5)
                               for x in res) and \
            'failures="0"' in open(os.path.join(d, "j.xml")).read()
        if not good:
            print("# worse: %s; stderr %s" % ([(m["name"], m["baseline"], m["run"])
                                               for x in res for m in x["metrics"]
                                               if m["worse"]], err.strip()))
        ok(good, f"{tag}: exit {rc}, nothing worse")
        return
    if mode == "worse":
        idx = rng.randrange(len(reps))
        j = [jittered(r, rng) for r in reps]
        j[idx], names = inject(j[idx], rng)
        names = names if isinstance(names, list) else [names]
        runp = write(d, "run.json", j if many else j[0])
        # baseline files named one by one this time
        files = [os.path.join(hist, f"run{i}", "report.json") for i in range(nhist)]
        rc, out, err = run("-j", "--junit", os.path.join(d, "j.xml"), *files, runp)
        res = json.loads(out) if out else []
        flagged = [m["name"] for x in res for m in x["metrics"] if m["worse"]]
        junit = open(os.path.join(d, "j.xml")).read()
        good = rc == 1 and flagged == names and f'failures="{len(names)}"' in junit
        if not good:
            print(f"# flagged {flagged}, wanted {names}; stderr {err.strip()}")
        ok(good, f"{tag}: exit {rc}, {names} the regression")
        # the same with those kinds skipped: shown, not judged
        kinds = sorted({m["class"] for x in res for m in x["metrics"] if m["worse"]})
        rc, out, err = run("-j", "--skip", ",".join(kinds), *files, runp)
        res = json.loads(out) if out else []
        rows = [m for x in res for m in x["metrics"] if m["name"] in names]
        ok(rc == 0 and rows and not any(m["worse"] or m["judged"] for m in rows),
           f"{tag}: --skip {','.join(kinds)}: exit {rc}, shown and not judged")
        return
    idx = rng.randrange(len(reps))
    j = [jittered(r, rng) for r in reps]
    j[idx], words = other_workload(j[idx], rng)
    runp = write(d, "run.json", j if many else j[0])
    rc, out, err = run("-j", "--history", hist, runp)
    res = json.loads(out) if out else []
    why = " ".join(s["why"] for x in res for s in x["skipped"])
    ok(rc == 2 and words in why and "no baseline run" in err,
       f"{tag}: exit {rc}, skipped naming '{words}'")
    rc, out, err = run("-j", "--force", "--history", hist, runp)
    res = json.loads(out) if out else []
    ok(rc in (0, 1) and any(x.get("forced") for x in res), f"{tag}: --force compares, says so")


def fixed_cases(tmp, stress):
    """The recorded nightly history itself: two clean runs, the third unchanged, the fourth
    rate-limited by tbf on the wire, the netem run lossy (other options: refused)."""
    f = [os.path.join(FIX, f"stress-pair-{i}.json") for i in (1, 2, 3, 4)]
    rc, out, _ = run(f[0], f[1], f[2])
    ok(rc == 0, "recorded: an unchanged run of the same workload: exit 0")
    rc, out, _ = run("-j", "--skip", "latency,cpu", f[0], f[1], f[3])
    res = json.loads(out)
    worse = {m["name"] for m in res[0]["metrics"] if m["worse"]}
    ok(rc == 1 and "aggregate_gbps" in worse, "recorded: the rate-limited run: exit 1, "
       "aggregate_gbps worse")
    rc, out, err = run(f[0], os.path.join(FIX, "stress-pair-netem.json"))
    ok(rc == 2 and "--qp-timeout 21 vs -1" in out, "recorded: the netem run has other options: "
       "exit 2, the option named")
    # a results directory also holds what is no run report (compare's own output): passed over
    hist = os.path.join(tmp, "results")
    for i in (1, 2):
        os.makedirs(os.path.join(hist, str(i)))
        shutil.copy(f[i - 1], os.path.join(hist, str(i), "nodrop-stress.json"))
    rc, out, _ = run("-j", "--history", hist, f[2])
    with open(os.path.join(hist, "2", "compare.json"), "w") as fh:
        fh.write(out)
    rc, out, _ = run("-j", "--history", hist, f[2])
    res = json.loads(out)
    ok(rc == 0 and len(res[0]["baseline"]) == 2 and len(res[0]["ignored"]) == 1 and
       res[0]["ignored"][0]["file"].endswith("compare.json"),
       "history with compare's own output beside the runs: ignored, said, exit 0")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as fh:
        fh.write('{"kind": "stress",\n "aggregate_gbps": 1,\n oops}\n')
    rc, out, err = run(f[0], bad)
    ok(rc == 2 and f"{bad}:3:" in err, "bad JSON: exit 2, FILE:LINE named")
    with open(bad, "w") as fh:
        json.dump({"verdict": "lossless"}, fh)
    rc, out, err = run(f[0], bad)
    ok(rc == 2 and "not a stress or sim report" in err, "not a report: exit 2, said")
    rc, out, err = run(f[0], os.path.join(tmp, "none.json"))
    ok(rc == 2 and "none.json" in err, "missing file: exit 2, named")
    rc, out, err = run(f[0])
    ok(rc == 2, "one file and no --history: usage")
    rc, out, err = run("--throughput", "x", f[0], f[1])
    ok(rc == 2 and "--throughput 'x'" in err, "bad limit: exit 2, the option named")
    rc, out, err = run("--skip", "latency,speed", f[0], f[1])
    ok(rc == 2 and "--skip 'latency,speed'" in err, "bad --skip: exit 2, the option named")


def main():
    rng = random.Random(SEED)
    print(f"# seed {SEED}, {CASES} cases")
    stress = [json.load(open(os.path.join(FIX, f"stress-pair-{i}.json"))) for i in (1, 2, 3)]
    with tempfile.TemporaryDirectory(prefix="nd-compare-") as tmp:
        fixed_cases(tmp, stress)
        sims = sim_reports(tmp)
        for k in range(CASES):
            base = rng.choice(stress + sims)
            one_case(k, base, rng, tmp)
    finish()


main()
