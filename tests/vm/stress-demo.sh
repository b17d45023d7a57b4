#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `make demo`, the stress part, inside a guest: a 3:1 incast on soft-RoCE through the built-in
# coordinator (four processes on rxe0, 198.18.0.1), with payload validation and latency
# probes, and the report and verdict rank 0 prints. Brings rxe0 up unless it is up already
# (tests/vm/demo.sh does that), so it runs on its own too: tests/vm/vm.sh tests/vm/stress-demo.sh
set -u
# shellcheck source=tests/vm/guest-lib.sh
. tests/vm/guest-lib.sh

ND=${ND_NODROP:-build/nodrop}
ARGS=(-P incast -o write-imm -s 16K -D 3 --validate --probes --rate 0.05 --qp-timeout 21
      -d rxe0 -k demo)

[ -e /sys/class/infiniband/rxe0 ] || nd_vm_rxe_up >/dev/null || {
	echo "stress-demo: soft-RoCE set-up failed" >&2
	exit 3
}
echo
echo "== nodrop stress: 3:1 incast on rxe0, four processes, rank 0 hosts the coordinator"
echo "\$ nodrop stress ${ARGS[*]} -c 127.0.0.1:18515 -l -N 4     # rank 0"
echo "\$ nodrop stress ${ARGS[*]} -c 127.0.0.1:18515              # ranks 1..3"
for _ in 1 2 3; do
	"$ND" stress "${ARGS[@]}" -c 127.0.0.1:18515 >/dev/null 2>&1 &
done
"$ND" stress "${ARGS[@]}" -c 127.0.0.1:18515 -l -N 4
rc=$?
wait
echo "exit status $rc (0: lossless, 1: lossy or failed)"
exit "$rc"
