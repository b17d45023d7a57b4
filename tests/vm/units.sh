#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop-apply@.service's sandbox is enough for apply, and no more: the guest has no systemd, so
# the unit's own CapabilityBoundingSet= and ReadWritePaths= are read from the unit file and
# enforced as systemd would (a mount namespace where /sys and its submounts are read-only but for
# those paths, the bounding set as the only capabilities, no new privileges; the guest's root is
# read-only already, as ProtectSystem=strict makes it, and StateDirectory= is the writable state
# directory). In it, apply and audit of two profiles (DCB by netlink, RoCE ToS by configfs)
# succeed with the unit's command line, checked with dcb and configfs; without CAP_NET_ADMIN apply fails and changes nothing;
# a sysfs file outside the writable paths cannot be written.
set -u
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-$ND_VM_REPO/build/nodrop}
UNIT=$ND_VM_REPO/contrib/systemd/nodrop-apply@.service
DCB_PROFILE=tests/vm/profiles/lossless.yaml	# nicsim0: DCB and MTU by netlink
ROCE_PROFILE=/run/vm-roce.yaml			# veth0's rxe0: ToS and mode by configfs
DCB=nd_vm_dcb
STATE=/run/nodrop-state

nd_vm_need setpriv util-linux
nd_vm_need unshare util-linux

key() { sed -n "s/^$1=//p" "$UNIT" | tail -1; }

# CAPS (setpriv's spelling: net_admin,...; "" none) CMD...: CMD in the unit's sandbox
sandboxed() {
	local caps=$1 bset=-all
	shift
	[ -n "$caps" ] && bset="-all,+$caps"
	unshare -m --propagation private /bin/bash -s -- "$bset" "$(key ReadWritePaths)" "$@" <<'EOS'
set -e
bset=$1 rw=$2
shift 2
# ProtectKernelTunables=: /sys and everything mounted under it read-only ...
for m in $(awk '$5 == "/sys" || index($5, "/sys/") == 1 {print $5}' /proc/self/mountinfo); do
	mount -o remount,bind,ro "$m"
done
# ... but ReadWritePaths= ("-": may be missing)
for p in $rw; do
	q=${p#-}
	if [ ! -e "$q" ]; then [ "$p" != "$q" ] && continue; echo "missing $q" >&2; exit 1; fi
	mount --bind "$q" "$q"
	mount -o remount,bind,rw "$q"
done
exec setpriv --bounding-set="$bset" --inh-caps=-all --ambient-caps=-all --no-new-privs -- "$@"
EOS
}

caps=$(key CapabilityBoundingSet | tr 'A-Z ' 'a-z,' | sed 's/cap_//g')

setup() {
	nd_vm_nicsim_load 1 && /usr/sbin/ip link set nicsim0 up && nd_vm_rxe_up &&
		nd_vm_configfs && mkdir -p "$STATE" &&
		printf '%s\n' 'name: vm-roce' 'ports: {names: [veth0]}' 'roce: {tos: 106, mode: v2}' \
			>"$ROCE_PROFILE"
}

pfc() { $DCB -j pfc show dev nicsim0 prio-pfc | jq -c .prio_pfc; }
tos() { cat /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos 2>/dev/null || echo none; }

if ! setup; then
	nd_vm_fail "testbed setup"
	nd_vm_done
fi
[ "$caps" = net_admin ] && nd_vm_pass "the unit grants $caps and writes $(key ReadWritePaths)" ||
	nd_vm_fail "unexpected grants: '$caps'"

# the sandbox bites: a sysfs file outside the writable paths, written with its own value
f=/sys/kernel/mm/ksm/run
[ -w $f ] || f=/sys/kernel/uevent_helper
if out=$(sandboxed "$caps" /bin/sh -c "cat $f > $f" 2>&1); then
	nd_vm_fail "$f was writable in the sandbox"
else
	grep -q 'Read-only file system' <<<"$out" && nd_vm_pass "outside ReadWritePaths sysfs is read-only ($f)" ||
		nd_vm_fail "writing $f failed otherwise: $out"
fi

# without CAP_NET_ADMIN: apply fails on the kernel's refusal, and nothing changed
before_pfc=$(pfc) before_tos=$(tos)
out=$(sandboxed "" "$ND" apply --state-dir "$STATE" "$DCB_PROFILE" 2>&1); rc=$?
if [ "$rc" = 3 ] && grep -q 'Operation not permitted; .* needs CAP_NET_ADMIN .*CapabilityBoundingSet=' <<<"$out" &&
	[ "$(pfc)" = "$before_pfc" ]; then
	nd_vm_pass "no CAP_NET_ADMIN: apply exits $rc, says why, leaves PFC as it was"
else
	nd_vm_fail "no CAP_NET_ADMIN: rc $rc, pfc $(pfc) (was $before_pfc): $out"
fi

# with the unit's grants and command lines (ExecStart, ExecStartPost): the kernel holds both
for p in "$DCB_PROFILE" "$ROCE_PROFILE"; do
	out=$(sandboxed "$caps" "$ND" apply --wait 120 --state-dir "$STATE" "$p" 2>&1); rc=$?
	[ "$rc" = 0 ] && nd_vm_pass "the unit's sandbox: apply $(basename "$p") exits 0" ||
		nd_vm_fail "sandboxed apply $p: rc $rc: $out"
	out=$(sandboxed "$caps" "$ND" audit "$p" 2>&1); rc=$?
	[ "$rc" = 0 ] && nd_vm_pass "the unit's sandbox: audit $(basename "$p") exits 0 (no drift)" ||
		nd_vm_fail "sandboxed audit $p: rc $rc: $out"
done
[ "$(pfc)" = '[false,false,false,true,false,false,false,false]' ] && [ "$(tos)" = 106 ] &&
	[ -n "$(ls "$STATE")" ] &&
	nd_vm_pass "dcb shows PFC on 3, configfs ToS 106, the journal is in the state directory" ||
	nd_vm_fail "after the sandboxed applies: pfc $(pfc), tos $(tos), state: $(ls "$STATE")"
ls "$STATE" >"$ND_OUT/state.txt" 2>&1
nd_vm_done
