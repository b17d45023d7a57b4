# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The Python tests' output: an "ok - ..." or "not ok - ..." line per check, the count last
("N passed, M failed", as the shell tiers end), exit 1 when any check failed."""
import sys

_counts = {"passed": 0, "failed": 0}


def ok(cond, what):
    _counts["passed" if cond else "failed"] += 1
    print(f"{'ok' if cond else 'not ok'} - {what}")
    return cond


def finish():
    print(f"{_counts['passed']} passed, {_counts['failed']} failed")
    sys.exit(1 if _counts["failed"] else 0)
