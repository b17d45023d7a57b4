#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""`nodrop report` in a real browser: Debian's Chromium, headless, opens the HTML pages made
from recorded VM stress runs (a history of four, the last rate-limited) and from live sim
reports of two fabrics. From the DOM Chromium built: the verdict comes first, every plot
(svg.plot) has data points, the history marks the regression; from Chromium's own network log:
nothing but the page's own file was requested. A screenshot of each page is saved under OUT.

Usage: tests/report.py NODROP OUT"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import finish, ok  # noqa: E402

ND = sys.argv[1] if len(sys.argv) > 1 else "build/nodrop"
OUT = sys.argv[2] if len(sys.argv) > 2 else "build/report"
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures", "compare")
SCEN = os.path.join(os.path.dirname(HERE), "profiles", "scenarios")


class Dom(html.parser.HTMLParser):
    """Plots (svg.plot) with their data points (class pt), legend boxes (lgbox) and bars,
    regression rings, the first verdict box's text, and every URL-bearing attribute."""

    def __init__(self):
        super().__init__()
        self.plots = []          # [title, points]
        self.boxes = []          # per plot: {"lgbox": [...], "bar": [...], "frame": [...]}
        self.in_plot = 0
        self.rings = 0
        self.urls = []
        self.order = []          # classes of top-level boxes, in document order
        self.title_next = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        for k in ("src", "href", "xlink:href", "action", "data"):
            if k in a:
                self.urls.append(a[k])
        if tag == "svg" and "plot" in cls:
            self.plots.append(["", 0])
            self.boxes.append({"lgbox": [], "bar": [], "frame": []})
            self.in_plot = 1
        if self.in_plot and tag == "rect":
            for c in set(cls) & {"lgbox", "bar", "frame"}:
                self.boxes[-1][c].append(tuple(float(a.get(k, "nan"))
                                               for k in ("x", "y", "width", "height")))
        elif self.in_plot and tag == "svg":
            self.in_plot += 1
        if self.in_plot and "pt" in cls:
            self.plots[-1][1] += 1
        if "regression" in cls:
            self.rings += 1
        if tag == "title" and self.in_plot and not self.plots[-1][0]:
            self.title_next = True
        if "verdict" in cls:
            self.order.append("verdict")
        elif tag == "figure":
            self.order.append("plot")

    def handle_endtag(self, tag):
        if tag == "svg" and self.in_plot:
            self.in_plot -= 1
        if tag == "title":
            self.title_next = False

    def handle_data(self, data):
        if self.title_next:
            self.plots[-1][0] += data


def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(c):
            return c
    return None


def browse(browser, page, shot, tmp):
    """The DOM Chromium built and the URLs the page asked the network stack for (the browser's
    own background requests, initiator "not an origin", are not the page's); a screenshot.
    Every request goes to a proxy on loopback that refuses it and no name resolves: nothing
    leaves this machine whatever a page or the browser wants."""
    netlog = os.path.join(tmp, os.path.basename(page) + ".netlog.json")
    base = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            f"--user-data-dir={os.path.join(tmp, 'profile')}"]
    url = "file://" + os.path.abspath(page)
    dom = subprocess.run(base + [f"--log-net-log={netlog}", "--net-log-capture-mode=Everything",
                                 "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    if shot:
        subprocess.run(base + ["--window-size=1400,2400", f"--screenshot={shot}", url],
                       capture_output=True, text=True, timeout=120)
    urls = set()
    try:
        with open(netlog) as f:
            log = json.load(f)
        types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
        for ev in log.get("events", []):
            p = ev.get("params", {})
            if types.get(ev["type"]) == "URL_REQUEST_START_JOB" and p.get("url") and \
                    p.get("initiator") != "not an origin":
                urls.add(p["url"])
    except (OSError, ValueError, KeyError):
        urls = None
    return dom, urls


def overlap(a, b):
    """Whether boxes (x, y, w, h) share some area."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and \
        b[1] < a[1] + a[3]


def check_page(browser, name, page, tmp, want_plots, want_rings, verdict_word):
    shot = os.path.join(OUT, name + ".png")
    dom_text, urls = browse(browser, page, shot, tmp)
    d = Dom()
    d.feed(dom_text)
    ok(len(d.plots) >= want_plots, f"{name}: {len(d.plots)} plots in the DOM (>= {want_plots})")
    empty = [t for t, n in d.plots if n == 0]
    ok(not empty and d.plots, f"{name}: every plot has data points "
       f"({', '.join('%s %d' % (t, n) for t, n in d.plots)})" if not empty else
       f"{name}: plots without points: {empty}")
    ok(d.order[:1] == ["verdict"], f"{name}: the verdict comes first")
    first = dom_text.lower().split("<div class=\"verdict")[1].split("</span>")[0]
    ok(verdict_word.lower() in first, f"{name}: the first box says {verdict_word} ({first})")
    ok(not any(">none</span>" in b for b in dom_text.lower().split("<div class=\"verdict")[1:]),
       f"{name}: no box says NONE")
    lg = [b for b in d.boxes if b["lgbox"]]
    bad = [(t, lb, x) for (t, _), b in zip(d.plots, d.boxes) for lb in b["lgbox"]
           for x in b["bar"] + b["frame"] if overlap(lb, x)]
    ok(lg and not bad, f"{name}: {len(lg)} legends, none over the plot area or a bar"
       if not bad else f"{name}: legend over the plot: {bad[:3]}")
    ok(d.rings >= want_rings, f"{name}: {d.rings} regression marks (>= {want_rings})")
    ok(not d.urls, f"{name}: no element refers to a URL ({d.urls[:3]})")
    if urls is None:
        ok(False, f"{name}: Chromium wrote no network log")
    else:
        ok(not urls, f"{name}: the page asked the network for nothing (Chromium's net log)"
           if not urls else f"{name}: the page fetched {sorted(urls)[:5]}")
    size = os.path.getsize(shot) if os.path.exists(shot) else 0
    ok(size > 20000, f"{name}: screenshot {shot} ({size} bytes)")


def main():
    browser = chromium()
    if not browser:
        print("report: Chromium is not installed: apt-get install chromium (make deps-report)")
        sys.exit(3)
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="nd-report-") as tmp:
        # the oracle itself: a page that fetches an image is caught (the proxy refuses it)
        ctl = os.path.join(tmp, "control.html")
        with open(ctl, "w") as f:
            f.write('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
                    '</body></html>')
        _, urls = browse(browser, ctl, None, tmp)
        ok(urls == {"http://127.0.0.1:9/x.png"}, f"control: a page's fetch shows in the net "
           f"log ({urls})")
        hist = [os.path.join(FIX, f"stress-pair-{i}.json") for i in (1, 2, 3, 4)]
        page = os.path.join(OUT, "history.html")
        p = subprocess.run([ND, "report", "-o", page, *hist], capture_output=True, text=True)
        ok(p.returncode == 0, f"report of a 4-run history: exit {p.returncode} {p.stderr}")
        check_page(browser, "history", page, tmp, want_plots=5, want_rings=1,
                   verdict_word="lossless")
        sims = []
        for scen in ("incast-8", "websearch-30"):
            j = os.path.join(tmp, scen + ".json")
            with open(j, "w") as f:
                subprocess.run([ND, "sim", "-j", "-c", "roce,ib",
                                os.path.join(SCEN, scen + ".yaml")], stdout=f, check=True)
            sims.append(j)
            page = os.path.join(OUT, f"sim-{scen}.html")
            p = subprocess.run([ND, "report", "-o", page, j], capture_output=True, text=True)
            ok(p.returncode == 0, f"report of sim {scen}, roce and ib: exit {p.returncode}")
            check_page(browser, f"sim-{scen}", page, tmp, want_plots=4, want_rings=0,
                       verdict_word="modelled")
        p = subprocess.run([ND, "report", "-o", os.path.join(tmp, "x.html"),
                            os.path.join(tmp, "nope.json")], capture_output=True, text=True)
        ok(p.returncode == 2 and "nope.json" in p.stderr, "a missing file: exit 2, named")
    finish()


main()
