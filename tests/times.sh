#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/times.sh FILE: the table make check ends with: each tier's wall time in the order they
# ran ("tier NAME SECONDS" lines), the VM scenarios' under the vm tier ("vm SCRIPT SECONDS",
# written by tests/vm/vm.sh), the total: the wall time when a "wall SECONDS" line says it (tiers
# that ran side by side overlap), else their sum. A tier that failed is marked so.
[ -f "$1" ] || exit 0
awk -F '\t' '
	{ kind = $1; sub(/ .*/, "", kind); name = $1; sub(/^[^ ]* /, "", name) }
	kind == "vm" { vm[++nvm] = name; vms[nvm] = $2; next }
	kind == "tier" {
		tier[++nt] = name; ts[nt] = $2; total += $2
		# the scenarios written since the last VM tier ended are this one\47s
		if (name ~ /^vm/) { from[nt] = done + 1; to[nt] = nvm; done = nvm }
		next
	}
	kind == "wall" { wall = $2; next }
	END {
		print "  TIME   wall time per tier (s)"
		for (i = 1; i <= nt; i++) {
			printf "  TIME   %-28s %5d\n", tier[i], ts[i]
			if (tier[i] ~ /^vm/)
				for (k = from[i]; k <= to[i]; k++)
					printf "  TIME     %-26s %5d\n", vm[k], vms[k]
		}
		if (wall != "")
			printf "  TIME   %-28s %5d  (the tiers: %d s; check-host ran beside vm-one)\n",
				"total, wall clock", wall, total
		else
			printf "  TIME   %-28s %5d\n", "total", total
	}' "$1"
