# shellcheck shell=bash
# Helpers for the host's side of a host-driven scenario (`tests/vm/vm.sh -H SCRIPT`); source it.
# The scenario runs on the host; what needs the guest's kernel (nicsim, dcb, nodrop on its
# ports) goes there through tests/vm/serve.sh. Also gives guest-lib.sh's TAP helpers
# (nd_vm_pass, nd_vm_fail, nd_vm_check, nd_vm_done, nd_vm_need).
#
#   nd_vm_g CMD [ARGS...]   run CMD in the guest (cwd: the repository; guest-lib.sh's functions
#                           too); its stdout and stderr come back as such, its status is ours
#
# vm.sh sets ND_VM_RELAY (OUTDIR/relay) and ND_OUT (OUTDIR, at the same path in the guest).

# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

# Requests are numbered in the order sent; several host processes (ansible's, the scenario's)
# may send at once, so a number is taken under a lock, and the server answers them in turn.
nd_vm_g() {
	local r=${ND_VM_RELAY:?not in a host-driven scenario} n rc
	{
		flock 8
		n=$(cat "$r/next" 2>/dev/null || echo 0)
		echo $((n + 1)) >"$r/next"
		printf '%q ' "$@" >"$r/$n.sh.tmp"
		echo >>"$r/$n.sh.tmp"
		mv "$r/$n.sh.tmp" "$r/$n.sh"
	} 8>>"$r/lock"
	until [ -e "$r/$n.rc" ]; do
		# the guest is gone (it crashed or timed out): vm.sh says why
		[ ! -e "$r/stop" ] || { echo "nd_vm_g: the guest stopped serving" >&2; return 125; }
		sleep 0.01
	done
	rc=$(cat "$r/$n.rc")
	cat "$r/$n.out"
	cat "$r/$n.err" >&2
	return "$rc"
}

# nd_vm_serving: wait (up to the run's time limit, which vm.sh enforces) for the guest's server.
nd_vm_serving() {
	until [ -e "$ND_VM_RELAY/ready" ]; do
		[ ! -e "$ND_VM_RELAY/stop" ] || return 1
		sleep 0.1
	done
}
