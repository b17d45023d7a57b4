#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop triage against the real kernel: a nicsim port with PFC on priority 3 and counter
# patterns written through its debugfs while triage samples (ethtool ioctl path, the driver map):
# a PFC storm, a normal lossless load, the NIC's storm guard, drops on the lossless priority, a
# counter reset. Run inside the guest by `tests/vm/vm.sh tests/vm/triage.sh`.
# shellcheck disable=SC2317 # functions run through nd_vm_check
# shellcheck disable=SC2016 # $names inside single quotes are jq's
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
DCB=nd_vm_dcb
IP=/usr/sbin/ip
CTR=/sys/kernel/debug/nicsim/nicsim0/counters
log=$ND_OUT/triage.log

# A sleep without a fork (read on a FIFO nobody writes), so that the writers below keep up
# under TCG: a fork there costs milliseconds, and each is error in the pause share.
mkfifo /tmp/nap.fifo
exec {nap_fd}<>/tmp/nap.fifo
nap() { read -r -t "$1" -u "$nap_fd" || true; }

# Pause pattern on priority 3 until killed: rx_prio3_pause_duration follows @pct % of the real
# time gone by (so a late wake-up loses nothing), rx_prio3_pause counts a frame per write, and
# tx_prio3_packets moves by @tx per write (0: the priority is stuck).
pause_writer() { # PCT TX
	local pct=$1 tx=$2 t0 now dur0
	t0=${EPOCHREALTIME/./}
	dur0=$(awk '$1 == "rx_prio3_pause_duration" {print $2}' "$CTR")
	while :; do
		now=${EPOCHREALTIME/./}
		printf 'rx_prio3_pause_duration %d\nrx_prio3_pause +1\ntx_prio3_packets +%d\n' \
			$((dur0 + (now - t0) * pct / 100)) "$tx" >"$CTR"
		nap 0.002
	done
}

# Add @delta to each named counter every 100 ms until killed, so that any interval sees it move.
ticker() { # DELTA NAME...
	local delta=$1 name lines
	shift
	while :; do
		lines=
		for name in "$@"; do lines+="$name +$delta"$'\n'; done
		printf '%s' "$lines" >"$CTR"
		nap 0.1
	done
}

# triage with a background pattern running the whole time; stdout in $out, status in $rc.
run_with() { # PATTERN-FUNCTION ARGS... -- TRIAGE-ARGS...
	local pat=() bg
	while [ "$1" != -- ]; do pat+=("$1"); shift; done
	shift
	"${pat[@]}" &
	bg=$!
	nap 0.3
	out=$("$ND" triage "$@" 2>>"$log")
	rc=$?
	kill "$bg"
	wait "$bg" 2>/dev/null
	{ echo "== triage $* with ${pat[*]}: rc $rc"; echo "$out"; } >>"$log"
}

# (jq 1.6 -e passes on empty input: an empty $out must fail on its own)
jqt() { # DESC EXPR: EXPR over the last triage JSON
	if [ -n "$out" ] && jq -e "$2" >/dev/null 2>&1 <<<"$out"; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: $2 on $out"
	fi
}

rc_is() { # DESC WANT
	if [ "$rc" = "$2" ]; then nd_vm_pass "$1"; else nd_vm_fail "$1: exit $rc, want $2"; fi
}

setup() {
	nd_vm_nicsim_load 1 && $IP link set nicsim0 up &&
		$DCB pfc set dev nicsim0 prio-pfc 3:on delay 30 &&
		[ "$($DCB -j pfc show dev nicsim0 | jq -c '.prio_pfc')" = \
			'[false,false,false,true,false,false,false,false]' ]
}

: >"$log"
nd_vm_check "nicsim0 up with PFC on priority 3" setup

# 1. a PFC storm: paused the whole time, nothing leaves on priority 3. The writer lags real time
# by a few ms, so the share measured lands within about +-0.3 % of 100 %: 4 s keep it clear of
# the default 99 %.
run_with pause_writer 100 0 -- -j -d 4 nicsim0
rc_is "storm: exit 1 (a finding at error severity)" 1
jqt "storm: pfc-storm on nicsim0 priority 3, error" \
	'[.findings[] | select(.id == "pfc-storm")] | length == 1 and
	 (.[0] | .severity == "error" and .ifname == "nicsim0" and .prio == 3)'
jqt "storm: evidence pfc_rx_duration_us[3] ~ the interval, tx_prio_packets[3] +0" \
	'.findings[] | select(.id == "pfc-storm") | .interval_s as $t |
	 (.evidence[] | select(.name == "pfc_rx_duration_us" and .prio == 3) |
	  .delta >= 0.99 * $t * 1e6 and .rate > 0.99e6) and
	 (.evidence[] | select(.name == "tx_prio_packets" and .prio == 3) | .delta == 0)'
jqt "storm: pfc_rx_frames[3] moved as evidence too" \
	'.findings[] | select(.id == "pfc-storm") | .evidence[] |
	 select(.name == "pfc_rx_frames" and .prio == 3) | .delta > 0'
jqt "storm: not also pause-heavy; interval_s is the asked 4 s" \
	'([.findings[] | select(.id == "pause-heavy")] | length == 0) and .interval_s == 4'
jqt "storm: the port line says what was sampled" \
	'.ports | length == 1 and .[0].ifname == "nicsim0" and .[0].driver == "nicsim" and
	 .[0].counters > 50 and .[0].moved >= 2 and (.[0].interval_s - 4 | fabs) < 0.5'

# 2. a normal lossless load: a little pause, traffic flowing
run_with pause_writer 5 50 -- -j -d 2 nicsim0
rc_is "normal: exit 0" 0
jqt "normal: no finding at all" '.findings == []'

# 3. heavy pause that is no storm: traffic still leaves
run_with pause_writer 80 50 -- -j -d 2 nicsim0
rc_is "heavy pause: exit 0 (a warning)" 0
jqt "heavy pause: pause-heavy warning on priority 3, no storm" \
	'[.findings[].id] == ["pause-heavy"] and .findings[0].severity == "warning" and
	 .findings[0].prio == 3'

# 4. the NIC's storm guard (mlx5 tx_pause_storm_*), this host being the source
run_with ticker 1 tx_pause_storm_warning_events -- -j -d 1 nicsim0
jqt "storm warning events: pfc-storm warning for the port" \
	'[.findings[] | select(.id == "pfc-storm")] | length == 1 and
	 (.[0] | .severity == "warning" and .prio == null and
	  (.evidence[0] | .name == "pause_storm_warnings" and .delta > 0))'
rc_is "storm warning events: exit 0" 0
run_with ticker 1 tx_pause_storm_error_events -- -j -d 1 nicsim0
jqt "storm error events: pfc-storm error for the port" \
	'[.findings[] | select(.id == "pfc-storm")] | length == 1 and
	 (.[0] | .severity == "error" and (.evidence[0].name == "pause_storm_errors"))'
rc_is "storm error events: exit 1" 1

# 5. drops on the lossless priority; drops on priority 1 (no PFC) are lossy by design
run_with ticker 3 rx_prio3_buf_discard rx_prio1_buf_discard -- -j -d 1 nicsim0
rc_is "prio-3 discards: exit 1" 1
jqt "prio-3 discards: lossless-drops error on priority 3 only" \
	'[.findings[] | select(.id == "lossless-drops")] | length == 1 and
	 (.[0] | .severity == "error" and .prio == 3 and
	  (.evidence[0] | .name == "rx_buf_discards" and .prio == 3 and .delta > 0))'
run_with ticker 2 rx_discards_phy -- -j -d 1 nicsim0
jqt "port discards: lossless-drops warning with the PFC priorities" \
	'[.findings[].id] == ["lossless-drops"] and .findings[0].severity == "warning" and
	 (.findings[0].summary | test("PFC is on priorities 3"))'
rc_is "port discards: exit 0" 0

# 6. a counter reset (driver reload) between the samples
printf 'rx_prio3_pause 1000\nrx_packets 5000\n' >"$CTR"
"$ND" triage -j -d 3 nicsim0 >/tmp/reset.json 2>>"$log" &
bg=$!
nap 1.5
echo reset >"$CTR"
wait "$bg"
rc=$?
out=$(cat /tmp/reset.json)
echo "== reset: rc $rc"$'\n'"$out" >>"$log"
rc_is "reset: exit 0" 0
jqt "reset: counter-reset info naming pfc_rx_frames[3]" \
	'.findings[] | select(.id == "counter-reset") | .severity == "info" and
	 any(.evidence[]; .name == "pfc_rx_frames" and .prio == 3 and .status == "reset")'

# 7. the text form: one block per finding with its evidence and a do: line (a shorter interval,
# so a lower storm fraction)
run_with pause_writer 100 0 -- --storm-fraction 0.95 -d 2 nicsim0
text=$out
nd_vm_check "text: 'error pfc-storm nicsim0 prio 3' heads the block" \
	grep -q '^error pfc-storm nicsim0 prio 3$' <<<"$text"
nd_vm_check "text: an evidence line for pfc_rx_duration_us[3]" \
	grep -Eq '^    pfc_rx_duration_us\[3\] \+[0-9]+ \([0-9.]+/s\)$' <<<"$text"
do_and_tally() { grep -q '^    do: ' <<<"$text" && grep -q '^1 finding: 1 error' <<<"$text"; }
nd_vm_check "text: a do: line and the tally" do_and_tally

# 8. bad input
out=$("$ND" triage -d 0 nicsim0 2>&1); rc=$?
rc_is "-d 0 is bad usage" 2
out=$("$ND" triage nosuchdev0 2>&1); rc=$?
rc_is "an unknown device is bad input" 2
nd_vm_done
