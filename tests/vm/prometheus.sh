#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop's metrics through Debian's Prometheus stack, on the guest's loopback only: the shipped
# nodrop-counters.service command writes the textfile, prometheus-node-exporter serves it, and
# a Prometheus server scrapes that with the shipped alerting rules loaded; drops moved on
# nicsim's lossless priority must become a firing NodropLosslessDrops alert, those on a lossy
# priority must not. Also: a host without mapped counters still shows itself, a failed run keeps
# the last good file, and a malformed file is what node_exporter reports as a scrape error.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-$ND_VM_REPO/build/nodrop}
DBG=/sys/kernel/debug/nicsim
DCB=nd_vm_dcb
IP=/usr/sbin/ip
TF=/run/textfile
NE=127.0.0.1:19100
PR=127.0.0.1:19090
UNIT=$ND_VM_REPO/contrib/prometheus/nodrop-counters.service
RULES=$ND_VM_REPO/contrib/prometheus/nodrop.rules.yml
pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT

nd_vm_need prometheus-node-exporter prometheus-node-exporter
nd_vm_need prometheus prometheus
nd_vm_need promtool prometheus
nd_vm_need curl curl

move() { printf '%s\n' "$@" >"$DBG/nicsim0/counters"; }

# The unit's ExecStart as systemd would run it: "$$" is "$", ${TEXTFILE_DIR} its Environment=,
# the binary the one under test. Runs it with the given nodrop ($1); returns its status.
collect() {
	local cmd
	cmd=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$UNIT" | sed 's/^ExecStart=//; s/\\$//' | tr -d '\n')
	cmd=${cmd//\$\$/\$}
	cmd=${cmd//\/usr\/local\/sbin\/nodrop/$1}
	cmd=${cmd//\$\{TEXTFILE_DIR\}/$TF}
	eval "$cmd"
}

scrape() { curl -sf "http://$NE/metrics"; }

# wait_until SECONDS CMD...: until CMD succeeds
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

setup() {
	nd_vm_nicsim_load 1 && $IP link set nicsim0 up &&
		$DCB pfc set dev nicsim0 prio-pfc all:off 3:on && mkdir -p "$TF"
}

check_textfile() {
	local s
	if collect "$ND" && [ -s "$TF/nodrop.prom" ] && [ -z "$(ls -A "$TF" | grep -v '^nodrop.prom$')" ]; then
		nd_vm_pass "the unit's command wrote $TF/nodrop.prom (no temporary left)"
	else
		nd_vm_fail "the unit's command: $(ls -la "$TF")"
	fi
	prometheus-node-exporter --web.listen-address=$NE --collector.disable-defaults \
		--collector.textfile --collector.textfile.directory=$TF >/run/ne.log 2>&1 &
	pids+=($!)
	wait_until 60 scrape >/dev/null || { nd_vm_fail "node_exporter did not answer: $(tail -5 /run/ne.log)"; return; }
	s=$(scrape)
	grep -q '^node_textfile_scrape_error 0$' <<<"$s" &&
		grep -q '^nodrop_pfc_rx_frames_total{device="nicsim0",prio="3",source="ethtool"} ' <<<"$s" &&
		grep -q '^nodrop_pfc_rx_duration_seconds_total{device="nicsim0",prio="3",source="ethtool"} ' <<<"$s" &&
		grep -q '^nodrop_pfc_enabled{device="nicsim0",prio="3"} 1$' <<<"$s" &&
		nd_vm_pass "node_exporter serves nodrop's series, no scrape error ($(grep -c '^nodrop_' <<<"$s") series)" ||
		nd_vm_fail "scrape: $(grep -E '^(node_textfile|nodrop_pfc_rx_frames)' <<<"$s" | head)"
	local why
	why=$(grep -E '^(# (HELP|TYPE) )?nodrop_' <<<"$s" | promtool check metrics 2>&1)
	[ -z "$why" ] && nd_vm_pass "promtool: nodrop's part of the scrape is clean" ||
		nd_vm_fail "promtool on the scrape: $why"
	local ts now
	ts=$(sed -n 's/^nodrop_last_success_timestamp_seconds \([0-9.e+]*\)$/\1/p' <<<"$s")
	now=$(date +%s)
	awk -v t="$ts" -v n="$now" 'BEGIN { exit !(t != "" && n - t >= 0 && n - t < 120) }' &&
		nd_vm_pass "last success timestamp is now ($ts)" ||
		nd_vm_fail "last success timestamp '$ts' vs now $now"
}

# No mapped counters (lo only): still the port, a count of 0 and a fresh timestamp.
check_empty_host() {
	local s
	"$ND" counters --prometheus lo >"$TF/.t" && mv "$TF/.t" "$TF/nodrop.prom"
	s=$(scrape)
	grep -q '^nodrop_port_info{device="lo",driver=""} 1$' <<<"$s" &&
		grep -q '^nodrop_port_mapped_counters{device="lo"} 0$' <<<"$s" &&
		grep -q '^nodrop_last_success_timestamp_seconds ' <<<"$s" &&
		nd_vm_pass "a host without mapped counters is visible (info, 0 mapped, timestamp)" ||
		nd_vm_fail "empty host: $(grep nodrop_ <<<"$s")"
}

# A failing run (nodrop replaced by false) keeps the last good file and fails the unit.
check_failed_run() {
	local before after
	collect "$ND"
	before=$(md5sum <"$TF/nodrop.prom")
	if collect /bin/false; then
		nd_vm_fail "the unit's command succeeded with a failing nodrop"
	else
		after=$(md5sum <"$TF/nodrop.prom")
		[ "$before" = "$after" ] && [ "$(ls -A "$TF")" = nodrop.prom ] &&
			nd_vm_pass "a failed run exits non-zero and leaves the last good file alone" ||
			nd_vm_fail "a failed run changed the textfile directory: $(ls -A "$TF")"
	fi
}

# The negative control: node_exporter does report a malformed file, so "0" above means something.
check_scrape_error() {
	local good=$TF/nodrop.prom.good
	cp "$TF/nodrop.prom" "$good"
	printf 'nodrop_bad{x="1" 1\n' >>"$TF/nodrop.prom"
	scrape | grep -q '^node_textfile_scrape_error 1$' &&
		nd_vm_pass "a malformed file is a scrape error (negative control)" ||
		nd_vm_fail "node_exporter took a malformed file: $(scrape | grep textfile_scrape)"
	mv "$good" "$TF/nodrop.prom"
}

alerts() { curl -sf "http://$PR/api/v1/alerts"; }
ingested() { # QUERY: Prometheus returns a sample for it
	curl -sfG "http://$PR/api/v1/query" --data-urlencode "query=$1" |
		jq -e '.data.result | length > 0' >/dev/null
}
rules_healthy() {
	curl -sf "http://$PR/api/v1/rules" |
		jq -e '[.data.groups[].rules[] | select(.health == "ok")] | length == 8' >/dev/null
}
firing() { # JQ-FILTER over the firing alerts
	alerts | jq -e "[.data.alerts[] | select(.state == \"firing\") | $1] | length > 0" >/dev/null
}

# The shipped rules in a real Prometheus: drops on PFC priority 3 fire NodropLosslessDrops; drops
# on priority 0 (PFC off) do not.
check_alerts() {
	mkdir -p /run/prom
	cat >/run/prom/prometheus.yml <<EOC
global: {scrape_interval: 3s, scrape_timeout: 3s, evaluation_interval: 1s}
rule_files: [$RULES]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ['$NE']}]
EOC
	prometheus --config.file=/run/prom/prometheus.yml --storage.tsdb.path=/run/prom/data \
		--web.listen-address=$PR >/run/prom/log 2>&1 &
	pids+=($!)
	if ! wait_until 120 alerts >/dev/null; then
		nd_vm_fail "prometheus did not answer: $(tail -5 /run/prom/log)"
		return
	fi
	# The API answers before the group's first evaluation ends: a rule not evaluated yet is
	# "unknown", not broken, so wait for the evaluation (1 s interval) before judging.
	wait_until 30 rules_healthy &&
		nd_vm_pass "prometheus loaded the 8 shipped rules, all healthy" ||
		nd_vm_fail "rules: $(curl -sf "http://$PR/api/v1/rules" |
			jq -c '[.data.groups[].rules[] | {name, health, lastError}]')"
	collect "$ND"
	# Prometheus holds the counter before the drops, or increase() has one point only
	wait_until 90 ingested 'nodrop_rx_prio_discards_total{device="nicsim0",prio="3"}' ||
		nd_vm_fail "prometheus never scraped the counters: $(tail -5 /run/prom/log)"
	move "rx_prio3_discards +25" "rx_prio0_discards +40"
	collect "$ND"
	if wait_until 90 firing 'select(.labels.alertname == "NodropLosslessDrops" and .labels.device == "nicsim0" and .labels.prio == "3")'; then
		nd_vm_pass "25 drops on lossless priority 3: NodropLosslessDrops fires"
	else
		nd_vm_fail "no NodropLosslessDrops: $(alerts | head -c 500); targets: $(curl -sf "http://$PR/api/v1/targets" | jq -c '[.data.activeTargets[] | {health, lastError, lastScrapeDuration}]'); increase: $(curl -sfG "http://$PR/api/v1/query" --data-urlencode 'query=increase(nodrop_rx_prio_discards_total{prio="3"}[5m])' | head -c 400)"
	fi
	if firing 'select(.labels.alertname == "NodropLosslessDrops" and .labels.prio == "0")'; then
		nd_vm_fail "drops on priority 0 (PFC off) fired an alert"
	else
		nd_vm_pass "drops on lossy priority 0 fire nothing"
	fi
	alerts >"$OUT/alerts.json" 2>/dev/null
}

OUT=${ND_OUT:-/tmp}
if ! setup; then
	nd_vm_fail "testbed setup"
	nd_vm_done
fi
check_textfile
check_empty_host
check_failed_run
check_scrape_error
check_alerts
cp "$TF/nodrop.prom" "$OUT/" 2>/dev/null
nd_vm_done
