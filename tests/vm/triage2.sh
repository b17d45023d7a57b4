#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop triage around real RDMA traffic across a wire: soft-RoCE (rxe0 on eth0) in two guests,
# guest 0 serving ib_write_bw, guest 1 driving it. Each guest triages eth0 over the whole run.
# Without loss: no rdma-loss. With netem loss on guest 1's eth0: rdma-loss on both ends, its
# evidence the rxe counters under their canonical names, the deltas equal to what hw_counters
# moved. Run on the host with `tests/vm/vm.sh -n 2 tests/vm/triage2.sh`.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
me=198.18.0.$((ND_VM_INDEX + 1))
peer=198.18.0.$((2 - ND_VM_INDEX))
hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
role=$([ "$ND_VM_INDEX" -eq 0 ] && echo server || echo client)
log=$ND_OUT/triage2.log
# Long enough for the peer to come to the same phase and for the traffic to end inside it.
window=14

ping_peer() { /bin/busybox ping -c 1 -W 1 "$peer" >/dev/null; }

# RDMA WRITE for 3 s. QP timeout 4.096 us * 2^18 ~ 1 s under loss (perftest's default, 2^14 ~
# 67 ms, lets a slow TCG guest time out and resend without any loss); on the clean wire 2^21 ~
# 8.6 s, as the stress tier uses: a host that deschedules a guest's vCPU for over a second (seen
# in make check) made a real ACK timeout there, which triage rightly called loss.
write_bw() { # PHASE
	local gid args
	gid=$(nd_vm_rxe_gid rxe0 "$me") || return 1
	args=(-d rxe0 -x "$gid" -D 3 -s 4096 -u "$([ "$1" = clean ] && echo 21 || echo 18)")
	if [ "$role" = server ]; then
		# Under 2 % loss perftest itself may give up (retries exceeded) after the run has
		# moved data: the loss evidence is what the lossy phase checks, so the server only has
		# to have served a client there.
		timeout 60 ib_write_bw "${args[@]}" >"$ND_OUT/write_bw-$1.log" 2>&1 ||
			{ [ "$1" = lossy ] && grep -q 'remote address' "$ND_OUT/write_bw-$1.log"; } ||
			nd_vm_perftest_uncalibrated "$ND_OUT/write_bw-$1.log"
	else
		# Retry only until the server listens: once a run has connected (both sides print
		# the remote address) the server is gone, and under loss perftest may give up after
		# moving data, as on the server side; retrying then only knocks on a closed port
		# through 2 % loss until the guest times out.
		local i
		for ((i = 0; i < 100; i++)); do
			timeout 30 ib_write_bw "${args[@]}" 198.18.0.1 >"$ND_OUT/write_bw-$1.log" 2>&1 &&
				return 0
			if grep -q 'remote address' "$ND_OUT/write_bw-$1.log"; then
				[ "$1" = lossy ] ||
					nd_vm_perftest_uncalibrated "$ND_OUT/write_bw-$1.log"
				return
			fi
			sleep 0.3
		done
		return 1
	fi
}

# hw_counters as "name value" lines, for the oracle.
hw_snap() { for f in "$hw"/*; do echo "${f##*/} $(cat "$f")"; done; }

# Triage eth0 across one traffic run; JSON in $out, status in $rc, hw_counters deltas in $moved.
phase() { # NAME
	local bg
	hw_snap | sort >/tmp/hw-before
	"$ND" triage -j -d "$window" eth0 >"$ND_OUT/triage-$1.json" 2>>"$log" &
	bg=$!
	nd_vm_check "$1: ib_write_bw across the wire ($role)" write_bw "$1"
	wait "$bg"
	rc=$?
	hw_snap | sort >/tmp/hw-after
	out=$(cat "$ND_OUT/triage-$1.json")
	# (files, not <(...): the guest has no /dev/fd)
	moved=$(join /tmp/hw-before /tmp/hw-after | awk '$3 != $2 {print $1, $3 - $2}')
	printf '== %s (%s): triage rc %s\n%s\nhw_counters moved:\n%s\n' "$1" "$role" "$rc" "$out" \
		"$moved" >>"$log"
}

# (jq 1.6 -e passes on empty input: an empty $out must fail on its own)
jqt() { # DESC EXPR
	if [ -n "$out" ] && jq -e "$2" >/dev/null 2>&1 <<<"$out"; then
		nd_vm_pass "$1"
	else
		nd_vm_fail "$1: $2 on $out"
	fi
}

add_loss() { nd_vm_modprobe sch_netem && /usr/sbin/tc qdisc add dev eth0 root netem loss 2%; }

# The hw_counters delta of @raw during the phase (0 when it did not move).
hw_moved() { awk -v n="$1" '$1 == n {print $2; f = 1} END {if (!f) print 0}' <<<"$moved"; }

# Each moved rxe loss counter is evidence under its canonical name, with the same delta (and
# at least one moved: loss on the wire must show in hw_counters).
evidence_matches() {
	local raw canon d ok=1
	[ -n "$out" ] || return 1
	for pair in rcvd_seq_err:seq_err_naks out_of_seq_request:out_of_sequence \
		duplicate_request:duplicate_requests completer_retry_err:transport_retries \
		retry_exceeded_err:retry_exceeded send_err:send_errors; do
		raw=${pair%%:*} canon=${pair#*:}
		d=$(hw_moved "$raw")
		[ "$d" -gt 0 ] || continue
		[ "$ok" = 1 ] && ok=0
		jq -e --arg n "$canon" --argjson d "$d" \
			'.findings[] | select(.id == "rdma-loss") | .evidence[] |
			 select(.name == $n and .prio == null) | .delta == $d' >/dev/null <<<"$out" ||
			{ echo "$raw moved $d, evidence $canon does not say so" >>"$log"; ok=2; }
	done
	return "$ok"
}

[ "${ND_VM_NGUESTS:-2}" -eq 2 ] || { echo "triage2: needs -n 2" >&2; exit 2; }
: >"$log"
nd_vm_check "rxe0 up on eth0 with $me" nd_vm_rxe_up eth0
nd_vm_check "ping $peer over eth0" nd_vm_retry 40 0.25 ping_peer

phase clean
jqt "clean: eth0 sampled with its RDMA counters" \
	'.ports[0] | .ifname == "eth0" and .counters > 0 and .moved > 0'
jqt "clean: no rdma-loss finding" '[.findings[] | select(.id == "rdma-loss")] == []'
nd_vm_check "clean: exit 0" test "$rc" = 0

[ "$role" = server ] || nd_vm_check "netem loss 2% on eth0" add_loss
phase lossy
jqt "lossy: rdma-loss, error, on eth0" \
	'[.findings[] | select(.id == "rdma-loss")] | length == 1 and
	 (.[0] | .severity == "error" and .ifname == "eth0" and .prio == null)'
if [ "$role" = client ]; then
	jqt "lossy: the requester's evidence has seq_err_naks" \
		'.findings[] | select(.id == "rdma-loss") |
		 any(.evidence[]; .name == "seq_err_naks" and .delta > 0)'
else
	jqt "lossy: the responder's evidence has out_of_sequence" \
		'.findings[] | select(.id == "rdma-loss") |
		 any(.evidence[]; .name == "out_of_sequence" and .delta > 0)'
fi
nd_vm_check "lossy: evidence deltas equal the hw_counters deltas" evidence_matches
nd_vm_check "lossy: exit 1" test "$rc" = 1
nd_vm_done
