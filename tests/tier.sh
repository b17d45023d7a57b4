#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/tier.sh TARGET [MAKE-ARGS...]: `make TARGET MAKE-ARGS`, its wall time appended to
# $ND_TIMES as "tier TARGET SECONDS" (marked "(failed)" when it failed) for tests/times.sh;
# exits with make's status. MAKE names the make to run (make check passes its own). ND_TIER names
# the tier to tests/vm/vm.sh, whose lines then say which tier their scenario ran in.
s=$(date +%s)
rc=0
ND_TIER=$1 ${MAKE:-make} --no-print-directory "$@" || rc=$?
t=$1
[ "$rc" = 0 ] || t="$1 (failed)"
printf 'tier %s\t%s\n' "$t" $(($(date +%s) - s)) >>"${ND_TIMES:?}"
exit "$rc"
