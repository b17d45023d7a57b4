#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The shipped systemd units, judged by systemd's own tools: `systemd-analyze verify` accepts each
# (with the installed paths pointed at this build), and `systemd-analyze security --offline`
# rates each sandbox at or below its ceiling; the ratings are printed.
# Usage: tests/units.sh BUILD-DIR     (from the repository root)
set -u
b=${1:-build}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

command -v systemd-analyze >/dev/null ||
	{ echo "not ok 1 - systemd-analyze is missing: apt-get install systemd"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# unit file -> highest exposure allowed (systemd-analyze security's 0..10 scale)
units="contrib/systemd/nodrop-apply@.service:2.0 contrib/prometheus/nodrop-counters.service:2.0
contrib/nightly/nodrop-stress.service:2.5 contrib/prometheus/nodrop-counters.timer:-
contrib/nightly/nodrop-stress.timer:-"
for e in $units; do
	u=${e%%:*} name=$(basename "${e%%:*}")
	# a template is verified as an instance; the installed paths are this build's
	[ "$name" = nodrop-apply@.service ] && name=nodrop-apply@roce-lossless.service
	sed -e "s|/usr/local/sbin/nodrop-nightly|$PWD/contrib/nightly/nodrop-nightly|g" \
		-e "s|/usr/local/sbin/nodrop|$PWD/$b/nodrop|g" "$u" >"$tmp/$name"
done
# the timers' services sit next to them, so verify sees the pairs whole
if out=$(cd "$tmp" && systemd-analyze verify --man=no ./*.service ./*.timer 2>&1) && [ -z "$out" ]; then
	ok "systemd-analyze verify: $(ls "$tmp" | wc -l) units, no complaint"
else
	not_ok "systemd-analyze verify: $out"
fi
for e in $units; do
	u=${e%%:*} max=${e#*:}
	[ "$max" = - ] && continue
	name=$(basename "$u")
	[ "$name" = nodrop-apply@.service ] && name=nodrop-apply@roce-lossless.service
	out=$(systemd-analyze security --offline=true --threshold=$((${max%.*} * 10 + ${max#*.})) \
		"$tmp/$name" 2>&1)
	rc=$?
	level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p' <<<"$out")
	if [ "$rc" = 0 ] && [ -n "$level" ]; then
		ok "$name: exposure $level (ceiling $max)"
	else
		not_ok "$name: exposure ${level:-unknown} above $max: $(grep '✗' <<<"$out" | head -20)"
	fi
done
# what apply's sandbox grants, exactly: a widened grant must be a decision, not an accident
grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN' contrib/systemd/nodrop-apply@.service &&
	grep -qx 'ReadWritePaths=/sys/devices -/sys/kernel/config -/sys/kernel/debug' \
		contrib/systemd/nodrop-apply@.service &&
	ok "nodrop-apply@.service: CAP_NET_ADMIN only; writes sysfs devices, configfs, debugfs" ||
	not_ok "nodrop-apply@.service grants changed: update tests/units.sh and the VM test"

echo "$n checks, $failed failed"
[ "$failed" = 0 ]
