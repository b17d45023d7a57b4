#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/times.sh FILE: the table make check ends with: each tier's wall time in the order they
# ended ("tier NAME SECONDS" lines, from tests/tier.sh), under each the VM scenarios that ran in
# it ("vm SCRIPT SECONDS TIER", from tests/vm/vm.sh), then the total: the wall time when a
# "wall SECONDS" line says it (the lanes overlap), else the tiers' sum. A tier that failed is
# marked so.
[ -f "$1" ] || exit 0
awk -F '\t' '
	{ kind = $1; sub(/ .*/, "", kind); name = $1; sub(/^[^ ]* /, "", name) }
	kind == "vm" { t = $3; n[t]++; vm[t, n[t]] = name; vms[t, n[t]] = $2; next }
	kind == "tier" { tier[++nt] = name; ts[nt] = $2; total += $2; next }
	kind == "wall" { wall = $2; next }
	END {
		print "  TIME   wall time per tier (s)"
		for (i = 1; i <= nt; i++) {
			printf "  TIME   %-28s %5d\n", tier[i], ts[i]
			t = tier[i]
			sub(/ \(failed\)$/, "", t)
			for (k = 1; k <= n[t]; k++)
				printf "  TIME     %-26s %5d\n", vm[t, k], vms[t, k]
		}
		if (wall != "")
			printf "  TIME   %-28s %5d  (the tiers: %d s; the two lanes ran side by side)\n",
				"total, wall clock", wall, total
		else
			printf "  TIME   %-28s %5d\n", "total", total
	}' "$1"
