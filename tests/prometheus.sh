#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The shipped alerting rules, with Prometheus's own tool as the oracle: promtool checks their
# syntax and runs their unit tests (tests/prometheus/*.rules.test.yml); then each rule is broken
# on purpose and its tests must notice. The metric names the rules use are checked against what
# `nodrop counters --prometheus` writes by the unit tier (test_counters_cli.c), and against what
# `nodrop audit --prometheus` writes by tests/cli.sh and the VM tier (peer.sh).
# Usage: tests/prometheus.sh        (from the repository root; promtool: apt-get install prometheus)
set -u
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

command -v promtool >/dev/null || { echo "not ok 1 - promtool is missing: apt-get install prometheus"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/contrib/prometheus" "$tmp/tests/prometheus"

# rules RULES TESTS: check, test, then break each rule (MUTATION lines on stdin: what|sed)
rules() {
	local rules=$1 tests=$2 out what expr
	if out=$(promtool check rules "$rules" 2>&1); then
		ok "promtool check rules $rules: $(grep -o '[0-9]* rules found' <<<"$out")"
	else
		not_ok "promtool check rules $rules: $out"
	fi
	if out=$(promtool test rules "$tests" 2>&1); then
		ok "promtool test rules $tests: $(grep -c 'alertname:' "$tests") alert checks pass"
	else
		not_ok "promtool test rules $tests: $out"
	fi
	cp "$tests" "$tmp/tests/prometheus/"
	while IFS='|' read -r what expr; do
		sed "$expr" "$rules" >"$tmp/$rules"
		if cmp -s "$rules" "$tmp/$rules"; then
			not_ok "mutation '$what' changed nothing in $rules (update this test)"
		elif promtool test rules "$tmp/$tests" >/dev/null 2>&1; then
			not_ok "the rule tests miss a broken rule: $what"
		else
			ok "the rule tests catch: $what"
		fi
	done
}

rules contrib/prometheus/nodrop.rules.yml tests/prometheus/nodrop.rules.test.yml <<'MUT'
storm without the tx check|/unless on(instance, job, device, prio)/,/rate(nodrop_tx_prio_packets_total/d
storm at 40 % pause|s/> 0.95/> 0.4/
drops on any priority|/and on(instance, job, device, prio) nodrop_pfc_enabled == 1/d
drops without the buffer counter|/rx_buf_discards_total/d
ECN alert with CNPs sent|s/increase(nodrop_cnp_sent_total\[5m\]) == 0/increase(nodrop_cnp_sent_total[5m]) >= 0/
retransmissions without sequence NAKs|/seq_err_naks_total/d
storm guard on a flat counter|s/increase(nodrop_pause_storm_errors_total\[5m\]) > 0/increase(nodrop_pause_storm_errors_total[5m]) >= 0/
stale after 10 min|s/> 120/> 600/
MUT
rules contrib/prometheus/nodrop-audit.rules.yml tests/prometheus/nodrop-audit.rules.test.yml <<'MUT'
a peer mismatch alert on any value|s/nodrop_peer_mismatch == 1/nodrop_peer_mismatch >= 0/
an unheard switch alert on a heard one|s/nodrop_peer_heard == 0/nodrop_peer_heard >= 0/
a peer mismatch alert at once|/expr: nodrop_peer_mismatch == 1/{n;s/for: 5m/for: 0m/}
MUT

echo "$n checks, $failed failed"
[ "$failed" = 0 ]
