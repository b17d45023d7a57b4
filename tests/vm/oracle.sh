#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The property tier's guest (tests/vm/oracle.py says what it checks): three nicsim ports, then
# CASES seeded random cases. Each guest of `vm.sh -n N` runs its share with seed SEED + its
# index, so `make oracle SEED=S N=CASES` reruns a failing run exactly. INDEX runs share INDEX of
# GUESTS in a guest of its own (make check runs the two shares in its two lanes): the same cases.
# Usage (in the guest): tests/vm/oracle.sh SEED CASES GUESTS [INDEX]
set -u
. tests/vm/guest-lib.sh

seed=${1:?seed} total=${2:?cases} guests=${3:-1} me=${4:-$ND_VM_INDEX}
nd_vm_need python3 python3 || nd_vm_done
nd_vm_need /usr/sbin/dcb iproute2 || nd_vm_done
nd_vm_nicsim_load 3 || { nd_vm_fail "nicsim"; nd_vm_done; }
for dev in nicsim0 nicsim1 nicsim2; do /usr/sbin/ip link set "$dev" up; done
# the first guests take the remainder
n=$((total / guests + (me < total % guests ? 1 : 0)))
exec python3 tests/vm/oracle.py --seed $((seed + me)) --cases "$n" \
	--rerun "make oracle SEED=$seed N=$total"
