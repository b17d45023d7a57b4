#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# tests/vm/summary.sh LOG NAME: the line the Makefile prints for a VM scenario that passed: its
# tally (guest 0's where there are several), and whether it passed only on a second run after
# the emulated wire stalled (vm.sh says so) or a check inside ran twice, so a rerun is never
# silent.
set -u
log=$1 name=$2
tally=$(grep -E '^(\[g0\] )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
printf '  VM     %s: %s\n' "$name" "${tally:-passed}"
grep -h '^nd-vm: the emulated wire stalled' "$log" | while IFS= read -r line; do
	printf '  VM     %s: first run: %s\n' "$name" "${line#nd-vm: }"
done
# a check that ran twice inside the guest (nd_vm_rerun: stress2's lossy wire, stress's jobs)
grep -hE '^(\[g0\] )?nd_vm: rerun: ' "$log" | while IFS= read -r line; do
	printf '  VM     %s: %s\n' "$name" "${line#*nd_vm: }"
done
exit 0
