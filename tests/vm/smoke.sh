#!/bin/bash
# Guest scenario that proves the one-guest testbed (run it on the host with
# `tests/vm/vm.sh tests/vm/smoke.sh`): soft-RoCE comes up on a veth pair,
# verbs sees it, rdma_cm's configfs answers, and an RDMA WRITE run moves
# rxe0's hw_counters. The scenarios' jq, which runs on the host
# (tests/vm/guest-bin/jq), answers as jq in the guest does.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

hw=/sys/class/infiniband/rxe0/ports/1/hw_counters
cm=/sys/kernel/config/rdma_cm/rxe0

has_rxe0() { ibv_devices | grep -qw rxe0; }

roce_tos_readable() {
	mkdir -p "$cm" && [[ "$(cat "$cm/ports/1/default_roce_tos")" =~ ^[0-9]+$ ]]
}

counter_moved() { # NAME BEFORE
	[ "$(cat "$hw/$1")" -gt "$2" ]
}

# jq ARGS through the host and /usr/bin/jq here: the same stdout, stderr and status (stdin is
# $jq_in; an error that names an input file names the request's copy of it)
same_jq() {
	local a b
	a=$(jq "$@" <"$jq_in" 2>&1; echo "rc $?")
	b=$(/usr/bin/jq "$@" <"$jq_in" 2>&1; echo "rc $?")
	[ "$a" = "$b" ] || { echo "host: $a; guest: $b" >&2; return 1; }
}

jq_via_host() {
	[ "$(command -v jq)" = "$ND_VM_REPO/tests/vm/guest-bin/jq" ] && [ -e "$ND_OUT/jq/ready" ]
}

# shellcheck disable=SC2016 # $v, $a, $s and $ARGS are jq's
jq_status() { same_jq -e '.b == "x"' && same_jq -e '.b == 1' && same_jq -e empty; }
# shellcheck disable=SC2016
jq_options() { same_jq -rn '"hi"' && same_jq --arg v -n '$v' && same_jq -n --argjson a 7 '$a + 1'; }
# shellcheck disable=SC2016
jq_files() {
	same_jq -sc . /tmp/jq-lines.json "$jq_in" &&
		same_jq -n --slurpfile s /tmp/jq-lines.json '$s | length' &&
		same_jq -n -c --args '$ARGS.positional' a b
}
jq_errors() { same_jq '.[' && same_jq . /tmp/no-such.json; }

jq_in=/tmp/jq-in.json
echo '{"a": [1, 2, 3], "b": "x"}' >"$jq_in"
printf '%s\n' '{"n": 1}' '{"n": 2}' >/tmp/jq-lines.json
nd_vm_check "jq is the host's (guest-bin/jq first in PATH, its server ready)" jq_via_host
nd_vm_check "jq via the host: stdin, -c" same_jq -c .a
nd_vm_check "jq via the host: -e true / false / empty" jq_status
nd_vm_check "jq via the host: -rn, --arg whose value is -n, --argjson" jq_options
nd_vm_check "jq via the host: files, -s, --slurpfile, --args" jq_files
nd_vm_check "jq via the host: a syntax error; a missing file (jq in the guest says so)" jq_errors
nd_vm_check "rxe0/rxe1 up on veth0/veth1" nd_vm_rxe_up
nd_vm_check "ibv_devices lists rxe0" has_rxe0
nd_vm_check "configfs and rdma_cm loaded" nd_vm_configfs
nd_vm_check "rdma_cm/rxe0/ports/1/default_roce_tos readable" roce_tos_readable
sent=$(cat "$hw/sent_pkts" 2>/dev/null || echo 0)
nd_vm_check "ib_write_bw server and client on rxe0" nd_vm_write_bw "$ND_OUT"
grep -A1 '#bytes' "$ND_OUT/write_bw-client.log"
nd_vm_check "rxe0 sent_pkts moved (was $sent)" counter_moved sent_pkts "$sent"
nd_vm_done
