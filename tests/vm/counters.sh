#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `nodrop counters` against the real kernel, run inside the guest by `make vm`: nicsim counters
# moved by known amounts through debugfs must come back as the same deltas under canonical
# names, with `ethtool -S` and `rdma statistic` as oracles for the raw values; PFC switched
# during one watch run makes per-priority counters appear and disappear; a 32-bit wrap and a
# reset are told apart; soft-RoCE counters arrive by RDMA netlink; the Prometheus output parses.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
DBG=${ND_VM_NICSIM_DEBUGFS:-/sys/kernel/debug/nicsim}
DCB=nd_vm_dcb
IP=/usr/sbin/ip
RDMA=/usr/bin/rdma
ETHTOOL=/usr/sbin/ethtool
OUT=${ND_OUT:-/tmp}

# set or add nicsim0 counters, one "NAME VALUE" or "NAME +DELTA" per argument
move() { printf '%s\n' "$@" >"$DBG/nicsim0/counters"; }

jqt() { # DESC JSON EXPR
	if jq -e "$3" >/dev/null 2>&1 <<<"$2"; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: $3 on $(head -c 2000 <<<"$2")"
	fi
}

# wait_for FILE JQ-EXPR SECONDS: until some complete document of FILE satisfies the expression
# (its complete lines: the last one may be half written). jq runs again only when a line was
# added (a watch writes one a second, and under TCG each jq takes half a second of the guest's
# one CPU, which the watch being judged needs).
wait_for() {
	local end=$((SECONDS + $3)) n seen=-1
	while :; do
		n=$(wc -l <"$1")
		if [ "$n" != "$seen" ]; then
			seen=$n
			head -n "$n" "$1" | jq -e -s "any(.[]; $2)" >/dev/null 2>&1 && return 0
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# seen DESC FILE CONDITION: wait until a counter of some watch document meets CONDITION
seen() {
	if wait_for "$2" "any(.[0].counters[]; $3)" 30; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: no counter with $3 in $2"
	fi
}

setup() {
	nd_vm_nicsim_load 1 &&
		$IP link set nicsim0 up &&
		$DCB pfc set dev nicsim0 prio-pfc all:off 3:on &&
		nd_vm_rxe_up
}

# The delta of a canonical counter between two one-shot documents.
delta() { # A B NAME PRIO SOURCE
	jq -n --argjson a "$1" --argjson b "$2" --arg n "$3" --argjson p "$4" --arg s "$5" '
		def v(d): [d[0].counters[] | select(.name == $n and .prio == $p and .source == $s
			and .mapped)][0].value;
		v($b) - v($a)'
}

check_deltas() {
	local a b want got n p s d
	a=$("$ND" counters -j nicsim0)
	move "rx_prio3_pause +100" "tx_prio3_pause +50" "rx_prio3_pause_duration +7000" \
		"tx_prio3_pause_duration +3000" "rx_prio3_pause_transition +4" "rx_discards_phy +7" \
		"rx_out_of_buffer +5" "rx_pause_ctrl_phy +3" "tx_pause_ctrl_phy +2" \
		"tx_pause_storm_warning_events +1" "tx_pause_storm_error_events +1" \
		"rx_prio3_buf_discard +2" "rx_prio3_cong_discard +6" "rx_prio3_marked +9" \
		"rx_prio3_packets +11" "rx_prio3_discards +12" "rx_prio5_bytes +13"
	b=$("$ND" counters -j nicsim0)
	echo "$b" >"$OUT/counters-nicsim0.json"
	while read -r n p s want; do
		got=$(delta "$a" "$b" "$n" "$p" "$s")
		if [ "$got" = "$want" ]; then
			nd_vm_pass "$n prio $p ($s) moved by $want"
		else
			nd_vm_fail "$n prio $p ($s): delta $got, want $want"
		fi
	done <<-EOF
		pfc_rx_frames 3 ethtool 100
		pfc_tx_frames 3 ethtool 50
		pfc_rx_duration_us 3 ethtool 7000
		pfc_tx_duration_us 3 ethtool 3000
		pfc_rx_transitions 3 ethtool 4
		rx_nobuf_discards null ethtool 7
		rx_no_wqe_discards null ethtool 5
		pause_rx_frames null ethtool 3
		pause_tx_frames null ethtool 2
		pause_rx_frames null pause 3
		pause_tx_frames null pause 2
		pause_storm_warnings null ethtool 1
		pause_storm_errors null ethtool 1
		rx_buf_discards 3 ethtool 2
		rx_cong_discards 3 ethtool 6
		rx_ecn_marked 3 ethtool 9
		rx_prio_packets 3 ethtool 11
		rx_prio_discards 3 ethtool 12
		rx_prio_bytes 5 ethtool 13
	EOF
	jqt "no PFC counters for priorities with PFC off" "$b" \
		'[.[0].counters[] | select(.name == "pfc_rx_frames") | .prio] == [3]'
	jqt "nicsim maps completely: no raw ethtool counter" "$b" \
		'[.[0].counters[] | select(.source == "ethtool" and (.mapped | not))] == []'
	jqt "802.3x pause from the MAC counter, the global-pause alias left out" "$b" \
		'[.[0].counters[] | select(.name == "pause_rx_frames" and .source == "ethtool")]
		 | length == 1 and .[0].raw == "rx_pause_ctrl_phy"'
	jqt "rx_out_of_buffer is the 32-bit WQE-exhaustion counter" "$b" \
		'any(.[0].counters[]; .name == "rx_no_wqe_discards" and .raw == "rx_out_of_buffer")'
	jqt "port without RDMA: rdma null, driver nicsim" "$b" \
		'.[0].rdma == null and .[0].driver == "nicsim"'
	check_ethtool_oracle "$b"
}

# Every value nodrop read through the ioctl is what `ethtool -S` prints, raw name by raw name.
check_ethtool_oracle() {
	local ours=$1 theirs bad
	theirs=$($ETHTOOL -S nicsim0 | awk -F': *' 'NR > 1 {gsub(/^ +/, "", $1); print $1 "=" $2}')
	bad=$(while IFS== read -r name value; do
		# moved by IPv6 autoconfiguration on their own; the global ones are aliases
		case $name in tx_packets | tx_bytes | rx_global_pause | tx_global_pause) continue ;; esac
		jq -e --arg n "$name" --argjson v "$value" \
			'any(.[0].counters[]; .raw == $n and .source == "ethtool" and .value == $v)' \
			>/dev/null <<<"$ours" || echo "$name=$value"
	done <<<"$theirs")
	if [ -z "$bad" ] && [ "$(wc -l <<<"$theirs")" -ge 80 ]; then
		nd_vm_pass "every ethtool -S value agrees ($(wc -l <<<"$theirs") strings)"
	else
		nd_vm_fail "ethtool -S disagrees on: $bad"
	fi
	theirs=$($ETHTOOL --include-statistics -a nicsim0 | awk '/rx_pause_frames/ {print $2}')
	jqt "pause statistics agree with ethtool --include-statistics ($theirs)" "$ours" \
		"any(.[0].counters[]; .name == \"pause_rx_frames\" and .source == \"pause\"
		 and .value == ${theirs:-0})"
}

# A 32-bit counter passing 2^32 is a wrap; a 64-bit one going back to 0 is a reset.
check_wrap() {
	local w=$OUT/watch-wrap.json pid rc
	move "rx_out_of_buffer 4294967290"
	# five intervals: under a loaded host the move below has come after a third one ended
	"$ND" counters -w 1 -c 5 -j nicsim0 >"$w" 2>"$OUT/watch-wrap.err" &
	pid=$!
	wait_for "$w" 'true' 30 || nd_vm_fail "no baseline from the watch"
	move "rx_out_of_buffer +10" "rx_discards_phy 0"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] && nd_vm_pass "watch -c 5 ended by itself, exit 0" ||
		nd_vm_fail "watch exit $rc"
	local all
	all=$(jq -s . "$w")
	jqt "baseline plus five intervals" "$all" 'length == 6'
	jqt "rx_out_of_buffer 4294967290 -> 4: delta 10, wrapped" "$all" '
		[.[1:][] | .[0].counters[] | select(.name == "rx_no_wqe_discards")]
		| length == 1 and .[0].delta == 10 and .[0].status == "wrapped" and .[0].value == 4'
	jqt "rx_discards_phy 7 -> 0: reset, no delta" "$all" '
		[.[1:][] | .[0].counters[] | select(.name == "rx_nobuf_discards")]
		| length == 1 and .[0].status == "reset" and .[0].delta == 0'
	jqt "intervals about a second apart" "$all" \
		'all(.[1:][]; .[0].interval_s > 0.5 and .[0].interval_s < 5)'
}

# PFC switched during one watch: names appear (new) and disappear (gone), the watch goes on.
check_pfc_toggle() {
	local w=$OUT/watch-pfc.json pid rc all
	"$ND" counters -w 1 -j nicsim0 >"$w" 2>"$OUT/watch-pfc.err" &
	pid=$!
	wait_for "$w" 'true' 30 || nd_vm_fail "no baseline from the watch"
	$DCB pfc set dev nicsim0 prio-pfc 4:on
	seen "PFC on priority 4: its pause counters appear as new" "$w" \
		'.name == "pfc_rx_frames" and .prio == 4 and .status == "new"'
	move "rx_prio4_pause +5"
	seen "priority 4 pause frames counted in the same watch (delta 5)" "$w" \
		'.name == "pfc_rx_frames" and .prio == 4 and .delta == 5 and .status == "ok"'
	$DCB pfc set dev nicsim0 prio-pfc 3:off
	seen "PFC off on priority 3: its counters are gone" "$w" \
		'.name == "pfc_rx_frames" and .prio == 3 and .status == "gone"'
	move "rx_prio4_pause_duration +250"
	seen "the sampler keeps working after the string set shrank" "$w" \
		'.name == "pfc_rx_duration_us" and .prio == 4 and .delta == 250'
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] && nd_vm_pass "^C ends the watch cleanly (exit 0)" ||
		nd_vm_fail "watch after SIGINT: exit $rc"
	all=$(jq -s . "$w" 2>&1)
	jqt "every watch document is whole JSON after ^C" "$all" 'length >= 4'
	all=$("$ND" counters -j nicsim0)
	jqt "one-shot now: prio 4 pause counters, none for prio 3" "$all" '
		any(.[0].counters[]; .name == "pfc_rx_frames" and .prio == 4)
		and (any(.[0].counters[]; .name == "pfc_rx_frames" and .prio == 3) | not)'
	$DCB pfc set dev nicsim0 prio-pfc all:off 3:on
}

# PFC moved from priority 3 to 4 in one write: the string set keeps its length (84) and changes
# its names, so a sampler that trusted its cached names would give priority 4's values to 3.
check_same_count_swap() {
	local w=$OUT/watch-swap.json pid
	move "rx_prio3_pause 333" "rx_prio4_pause 444"
	"$ND" counters -w 1 -j nicsim0 >"$w" 2>"$OUT/watch-swap.err" &
	pid=$!
	wait_for "$w" 'true' 30 || nd_vm_fail "no baseline from the watch"
	$DCB pfc set dev nicsim0 prio-pfc 3:off 4:on
	seen "same-count swap: priority 4 appears with its own value (444)" "$w" \
		'.name == "pfc_rx_frames" and .prio == 4 and .status == "new" and .value == 444'
	seen "same-count swap: priority 3 is gone, last seen at 333" "$w" \
		'.name == "pfc_rx_frames" and .prio == 3 and .status == "gone" and .value == 333'
	kill -INT "$pid"
	wait "$pid"
	$DCB pfc set dev nicsim0 prio-pfc all:off 3:on
}

rdma_stat() { $RDMA -j statistic show link rxe0/1; }

check_rxe() {
	local a b ra rb bad d
	a=$("$ND" counters -j veth0)
	ra=$(rdma_stat)
	nd_vm_write_bw "$OUT" && nd_vm_pass "RDMA WRITE traffic on rxe0" ||
		nd_vm_fail "ib_write_bw on rxe0"
	b=$("$ND" counters -j veth0)
	rb=$(rdma_stat)
	echo "$b" >"$OUT/counters-veth0.json"
	jqt "veth0 carries rxe0/1, read by RDMA netlink" "$b" \
		'.[0].rdma == {ibdev: "rxe0", port: 1, via: "netlink"}'
	jqt "every rxe counter under a canonical name" "$b" '
		[.[0].counters[] | select(.source == "rdma")] as $r
		| ($r | length) >= 15 and all($r[]; .mapped)'
	bad=$(jq -rn --argjson ours "$b" --argjson theirs "$rb" '
		$ours[0].counters[] | select(.source == "rdma")
		| select(.value != $theirs[0][.raw]) | "\(.raw): ours \(.value) rdma \($theirs[0][.raw])"')
	[ -z "$bad" ] && nd_vm_pass "values agree with rdma statistic show link" ||
		nd_vm_fail "rdma statistic disagrees: $bad"
	d=$(jq -n --argjson a "$ra" --argjson b "$rb" '$b[0].sent_pkts - $a[0].sent_pkts')
	jqt "rdma_tx_packets moved as rdma statistic's sent_pkts did ($d)" "$(jq -n \
		--argjson a "$a" --argjson b "$b" '[$a, $b] | map(.[0].counters[]
		| select(.name == "rdma_tx_packets") | .value)')" ".[1] - .[0] == $d and $d > 0"
	# independent of our own claim: strace sees the netlink socket and no hw_counters file
	if nd_vm_need strace strace; then
		local log=$OUT/strace-rxe.log
		strace -f -e trace=socket,openat -o "$log" "$ND" counters veth0 >/dev/null
		if grep -q NETLINK_RDMA "$log" && ! grep -q hw_counters "$log"; then
			nd_vm_pass "strace: RDMA netlink socket, no hw_counters file opened"
		else
			nd_vm_fail "strace: $(grep -E 'NETLINK_RDMA|hw_counters' "$log" | head -3)"
		fi
	fi
}

check_unprivileged() {
	local out
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ND" counters -j nicsim0 veth0 2>&1)
	jqt "unprivileged (uid 65534): driver strings, pause statistics and RDMA netlink" "$out" '
		any(.[0].counters[]; .name == "pfc_rx_frames" and .prio == 3)
		and any(.[0].counters[]; .source == "pause")
		and .[1].rdma.via == "netlink" and any(.[1].counters[]; .name == "rdma_tx_packets")'
}

# The exposition format, line by line: HELP, TYPE right after, then that family's samples only;
# each family once; names and labels well formed; no series twice.
prom_valid() {
	awk '
	function bad(why) { print NR ": " why ": " $0; err = 1; exit 1 }
	/^# HELP / { if (seen[$3]++) bad("family twice"); fam = $3; typed = 0; next }
	/^# TYPE / { if ($3 != fam || typed) bad("TYPE out of place")
		if ($4 != "counter" && $4 != "gauge" && $4 != "untyped") bad("type")
		if ($4 == "counter" && $3 !~ /_total$/) bad("counter without _total")
		typed = 1; next }
	{ if (!typed) bad("sample before TYPE")
		if ($0 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\[\\"n])*",?)*\})? [0-9.eE+-]+$/)
			bad("sample syntax")
		name = $0; sub(/[{ ].*/, "", name); if (name != fam) bad("sample outside its family")
		series = $0; sub(/ [^ ]*$/, "", series); if (dup[series]++) bad("duplicate series") }
	END { if (!err && NR < 10) { print "only " NR " lines"; exit 1 } }'
}

check_prometheus() {
	local out why
	out=$("$ND" counters --prometheus -a nicsim0 veth0)
	echo "$out" >"$OUT/nodrop.prom"
	if why=$(prom_valid <<<"$out"); then
		nd_vm_pass "Prometheus text format valid ($(grep -c '^nodrop_' <<<"$out") series)"
	else
		nd_vm_fail "Prometheus format: $why"
	fi
	grep -q '^nodrop_pfc_rx_frames_total{device="nicsim0",prio="3",source="ethtool"} [0-9]' <<<"$out" &&
		grep -q '^nodrop_rdma_tx_packets_total{device="veth0",source="rdma"} [1-9]' <<<"$out" &&
		nd_vm_pass "PFC and RDMA series carry device, prio and source labels" ||
		nd_vm_fail "series missing in: $(head -20 <<<"$out")"
	# Prometheus's own linter: base units (nicsim counts pause time in microseconds, as mlx5)
	nd_vm_need promtool prometheus
	if why=$(promtool check metrics <<<"$out" 2>&1) && [ -z "$why" ]; then
		nd_vm_pass "promtool check metrics: clean"
	else
		nd_vm_fail "promtool check metrics: $why"
	fi
	grep -q '^nodrop_pfc_rx_duration_seconds_total{device="nicsim0",prio="3",source="ethtool"} [0-9]*\.[0-9]\{6\}$' <<<"$out" &&
		! grep -q '_us_total' <<<"$out" &&
		nd_vm_pass "pause durations in seconds (nodrop_pfc_rx_duration_seconds_total)" ||
		nd_vm_fail "pause durations: $(grep duration <<<"$out" | head -5)"
	# PFC per priority against dcb (the setup turned 3 on); info series name the RDMA port
	local pfc want
	pfc=$(grep '^nodrop_pfc_enabled{device="nicsim0",' <<<"$out" | sed 's/.*prio="\([0-7]\)"} \([01]\)$/\1:\2/' | tr '\n' ' ')
	want=$($DCB -j pfc show dev nicsim0 prio-pfc | jq -r '.prio_pfc | to_entries |
		map("\(.key):\(if .value then 1 else 0 end)") | join(" ")')
	[ "${pfc% }" = "$want" ] && nd_vm_pass "nodrop_pfc_enabled matches dcb pfc show ($want)" ||
		nd_vm_fail "nodrop_pfc_enabled '$pfc' vs dcb '$want'"
	grep -q '^nodrop_port_info{device="veth0",driver="veth",rdma_device="rxe0",rdma_port="1",link_layer="Ethernet"} 1$' <<<"$out" &&
		grep -q '^nodrop_last_success_timestamp_seconds [0-9]*\.[0-9]*$' <<<"$out" &&
		nd_vm_pass "port info and last-success timestamp" ||
		nd_vm_fail "info/timestamp missing: $(grep -E 'info|timestamp' <<<"$out")"
}

check_errors() {
	local out rc
	out=$("$ND" counters nicsim0 nosuch0 2>&1); rc=$?
	[ "$rc" = 2 ] &&
		[ "$out" = "nodrop counters: no network device 'nosuch0' (see 'ip link' for the names)" ] &&
		nd_vm_pass "unknown device: exit 2, named, nothing printed" ||
		nd_vm_fail "unknown device: rc $rc: $out"
}

# What one more watch sample costs in system calls, from two watches of different lengths: a
# port is found out once, then a sample is its reads (ETHTOOL_GSTATS; the pause request and its
# reply; RDMA statistics likewise) and one poll of the netlink events, nothing from sysfs.
per_sample_calls() { # DEV...: "syscall calls-per-round" lines (a round samples every DEV)
	local short=$OUT/strace-${*// /-}-20 long=$OUT/strace-${*// /-}-60
	strace -f -c -o "$short" "$ND" counters -w 0.01 -c 20 -j "$@" >/dev/null 2>&1 &&
		strace -f -c -o "$long" "$ND" counters -w 0.01 -c 60 -j "$@" >/dev/null 2>&1 ||
		return 1
	awk 'FNR == NR { if ($4 ~ /^[0-9]+$/) a[$NF] = $4; next }
	     $4 ~ /^[0-9]+$/ && $NF != "total" { printf "%s %.2f\n", $NF, ($4 - a[$NF]) / 40 }' \
		"$short" "$long"
}

check_sample_syscalls() {
	local dev calls bad
	for dev in nicsim0 veth0; do
		calls=$(per_sample_calls $dev) || { nd_vm_fail "strace of a watch on $dev failed"; continue; }
		# output and the interval's sleep are the watch's, not the sample's
		bad=$(awk '$1 !~ /^(write|clock_nanosleep|ioctl|sendto|recvmsg|recvfrom|poll|brk|mmap|munmap)$/ && $2 > 0.05 ||
			   $1 == "ioctl" && $2 > 1.05 || $1 == "poll" && $2 > 1.05 ||
			   ($1 == "sendto" || $1 == "recvmsg") && $2 > 2.05' <<<"$calls")
		# nicsim0 has pause statistics: its pause request goes out every round
		[ "$dev" = nicsim0 ] && bad+=$(awk '$1 == "sendto" { s = $2 }
			END { if (s < 0.95) printf "sendto %.2f (no pause request a round)", s }' <<<"$calls")
		[ -z "$bad" ] && nd_vm_pass "$dev: a watch sample is its reads alone ($(tr '\n' ' ' <<<"$calls"))" ||
			nd_vm_fail "$dev: more than the reads per sample: $(tr '\n' ' ' <<<"$bad")"
	done
	# two ports a round: each one's GSTATS (nicsim0's pause request too), one poll for both
	calls=$(per_sample_calls nicsim0 veth0) || { nd_vm_fail "strace of a two-port watch failed"; return; }
	bad=$(awk '$1 == "ioctl" && $2 > 2.05 || $1 == "poll" && $2 > 1.05' <<<"$calls")
	[ -z "$bad" ] && nd_vm_pass "nicsim0 + veth0: one event poll a round ($(tr '\n' ' ' <<<"$calls"))" ||
		nd_vm_fail "nicsim0 + veth0: more than the reads and one poll a round: $(tr '\n' ' ' <<<"$bad")"
}

if ! setup; then
	nd_vm_fail "testbed setup"
	nd_vm_done
fi
check_deltas
check_wrap
check_pfc_toggle
check_same_count_swap
check_rxe
check_sample_syscalls
check_unprivileged
check_prometheus
check_errors
"$ND" counters nicsim0 veth0 >"$OUT/counters.txt" 2>&1
nd_vm_done
