#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/vm/failed.sh LOG NAME: what the Makefile prints when VM scenario NAME failed. The log's
# tail, then each guest's first failing check with what the guest printed since its last passing
# check (a check's own messages come before its "not ok"), last, where a CI summary that keeps only
# the end of the output still shows why the scenario failed and not just how it ended. Exits 1.
set -u
log=$1 name=$2

tail -40 "$log"
guests=$(grep -oE '^\[g[0-9]+\] ' "$log" | sort -u)
[ -n "$guests" ] || guests=NONE
while IFS= read -r g; do
	[ "$g" = NONE ] && g=""
	# that guest's lines since its last passing check (that check's own messages, at most 6;
	# the prefix kept) and its first "not ok"
	awk -v pre="$g" 'substr($0, 1, length(pre)) == pre {
			t = substr($0, length(pre) + 1)
			if (t ~ /^ok [0-9]/) {
				n = 0
				next
			}
			ring[n++ % 6] = substr($0, 1, 200)
			if (t !~ /^not ok [0-9]/)
				next
			label = pre
			sub(/ $/, "", label)
			print "first failure" (label == "" ? "" : " of " label) ":"
			for (i = (n > 6 ? n - 6 : 0); i < n; i++)
				print "  " ring[i % 6]
			exit
		}' "$log"
done <<<"$guests"
echo "VM scenario $name failed; log: $log"
exit 1
