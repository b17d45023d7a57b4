#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest scenario: the nightly stress job under a real Slurm (tests/vm/vm.sh -n 2
# tests/vm/slurm.sh). Debian's munge, slurmctld and slurmd, configured here: guest 0
# (198.18.0.1) runs the controller, both guests a slurmd, each with soft-RoCE rxe0 on eth0.
# Guest 0 submits contrib/slurm/nodrop-stress.sbatch with sbatch --wait: srun starts a rank on
# each node through nodrop-nightly; the job's exit status is the verdict. A clean wire is
# LOSSLESS (exit 0) with the report, JUnit and page in the results directory; then a job of
# its own (srun on node 1) puts 1 % netem loss on guest 1's eth0, and the same submission comes
# out LOSSY (exit 1) naming the loss counters. Guest 1 only serves: it runs slurmd until
# guest 0 says the jobs are over.
# shellcheck disable=SC2317 # functions run through nd_vm_check
set -u
# shellcheck source-path=SCRIPTDIR source=guest-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

ND=${ND_NODROP:-build/nodrop}
OUT=$ND_OUT
ME=$ND_VM_INDEX
REPO=$(pwd)
RUN=/run/nd-slurm
export SLURM_CONF=$RUN/slurm.conf

# One key on both guests, derived from a fixed phrase: munge only needs the two to agree.
munge_up() {
	local i
	mkdir -p "$RUN/munge" /run/munge && chmod 0700 "$RUN/munge" || return 1
	for i in $(seq 16); do printf 'nodrop-slurm-test-key-%s' "$i" | sha512sum; done |
		cut -c1-128 | tr -d '\n' >"$RUN/munge/munge.key"
	chmod 0400 "$RUN/munge/munge.key"
	/usr/sbin/munged --force --key-file="$RUN/munge/munge.key" \
		--socket=/run/munge/munge.socket.2 --pid-file="$RUN/munge/munged.pid" \
		--log-file="$RUN/munge/munged.log" --seed-file="$RUN/munge/munged.seed" ||
		{ cat "$RUN/munge/munged.log" >&2; return 1; }
	nd_vm_retry 20 0.5 sh -c 'munge -n | unmunge >/dev/null'
}

# MinJobAge=5: sbatch --wait looks at its job after 2 s, then 8, then 32 (src/sbatch/sbatch.c,
# _job_wait), quadrupling only while the wait is below half of MinJobAge; at 5 it looks every
# 2 s, so a job of 12 s is seen done at 12-14 s instead of 42 (the record outlives the look).
slurm_conf() {
	mkdir -p "$RUN/state" "$RUN/spool/nd-vm$ME" || return 1
	cat >"$SLURM_CONF" <<EOF
ClusterName=nodrop
SlurmctldHost=nd-vm0(198.18.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$RUN/state
SlurmdSpoolDir=$RUN/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$RUN/slurmctld.log
SlurmdLogFile=$RUN/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/linear
MpiDefault=none
ReturnToService=2
SlurmdTimeout=120
SlurmctldTimeout=120
MessageTimeout=30
InactiveLimit=0
KillWait=10
MinJobAge=5
NodeName=nd-vm0 NodeAddr=198.18.0.1 CPUs=1 State=UNKNOWN
NodeName=nd-vm1 NodeAddr=198.18.0.2 CPUs=1 State=UNKNOWN
PartitionName=nodrop Nodes=nd-vm0,nd-vm1 Default=YES MaxTime=INFINITE State=UP
EOF
	# no systemd in the guest: slurmd makes its cgroup directories itself
	cat >"$RUN/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
EOF
}

slurm_up() {
	nd_vm_need slurmd slurmd && nd_vm_need munged munge || return 1
	munge_up && slurm_conf || return 1
	# slurmd sets up its cgroup plugin whatever the config: give it the unified hierarchy
	mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup || return 1
	echo "+cpu +memory +pids" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p /sys/fs/cgroup/system.slice
	if [ "$ME" = 0 ]; then
		/usr/sbin/slurmctld -f "$SLURM_CONF" ||
			{ cat "$RUN/slurmctld.log" >&2; return 1; }
	fi
	/usr/sbin/slurmd -f "$SLURM_CONF" -N "nd-vm$ME" ||
		{ cat "$RUN/slurmd.log" >&2; return 1; }
}

nodes_idle() {
	[ "$ME" = 1 ] && return 0
	nd_vm_retry 120 1 sh -c '[ "$(sinfo -h -N -o %T | sort -u)" = idle ]' ||
		{ sinfo -N >&2; tail -20 "$RUN/slurmctld.log" >&2; return 1; }
}

# submit NAME EXTRA: the sbatch script on both nodes, EXTRA stress options on top; its exit
# status in $OUT/NAME.rc. The job works in /tmp (each guest has its own /out). The clean run
# has the long ACK timeout that rides out a host stall of the emulated guest (see stress.sh);
# the lossy one the usual timeout, so a lost packet is resent before the watchdog (stress2.sh).
submit() {
	local name=$1 extra=$2 rc
	mkdir -p "$OUT/$name"
	(cd "$OUT/$name" && ND_NODROP="$REPO/$ND" ND_NIGHTLY="$REPO/contrib/nightly/nodrop-nightly" \
		ND_PATTERN=pair ND_SIZE=16K ND_DURATION=3 ND_DEV=rxe0 ND_PORT=18520 \
		ND_STRESS_EXTRA="--rate 0.1 $extra" ND_RESULTS="$OUT/results" \
		ND_COMPARE_ARGS="--skip latency,cpu --throughput 30" PATH="$REPO/build:$PATH" \
		timeout 400 sbatch --wait -N 2 -w nd-vm0,nd-vm1 --export=ALL -D /tmp \
		-o "$OUT/$name/slurm-%j.out" "$REPO/contrib/slurm/nodrop-stress.sbatch" \
		>"$OUT/$name/sbatch.out" 2>&1)
	rc=$?
	echo "$rc" >"$OUT/$name.rc"
	return 0
}

last_run() { ls -d "$OUT"/results/2*-* | sort | tail -n 1; }

clean_job() {
	[ "$ME" = 1 ] && return 0
	rm -rf "$OUT/results"
	submit clean "--qp-timeout 21"
	local rc dir
	rc=$(cat "$OUT/clean.rc")
	dir=$(last_run)
	[ "$rc" = 0 ] && grep -q "Submitted batch job" "$OUT/clean/sbatch.out" &&
		jq -e '.verdict == "lossless" and .nranks == 2 and
			([.ranks[].host] | sort) == ["nd-vm0", "nd-vm1"]' \
			"$dir/nodrop-stress.json" >/dev/null &&
		grep -q 'failures="0"' "$dir/nodrop-stress.xml" && [ -s "$OUT/results/index.html" ] ||
		{ echo "sbatch exit $rc" >&2; cat "$OUT"/clean/* >&2; return 1; }
}

# The job id is in the run's directory name; its slurm output names the run and the verdict.
clean_files() {
	[ "$ME" = 1 ] && return 0
	local id dir
	dir=$(last_run)
	id=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$OUT/clean/sbatch.out")
	[ -n "$id" ] && case $dir in *-"$id") true ;; *) false ;; esac &&
		grep -q "verdict lossless" "$OUT/clean/slurm-$id.out" &&
		[ -s "$dir/compare.json" ] ||
		{ echo "job $id, run $dir" >&2; ls -l "$OUT/clean" "$dir" >&2; return 1; }
}

# The hello rank 1 sent (from strace), played again on a new connection while rank 0's
# coordinator still listens: its credential is over another connection's nonce, and munged
# has decoded it once already. Refused either way, before the job's full ranks are counted.
replayed() { # PORT
	python3 - "$1" "$OUT/munge.strace" >"$OUT/munge.replay" 2>&1 <<'PY'
import re, socket, struct, sys, time
port, hello = int(sys.argv[1]), None
for _ in range(300):	# until rank 1's hello is in the trace, 30 s at most
    trace = open(sys.argv[2]).read()
    if re.search(r'"\\x4e\\x44\\x52\\x56\\x03\\x00\\x01\\x00', trace):
        break
    time.sleep(0.1)
for m in re.finditer(r'(?:sendto|write)\(\d+, "((?:\\x[0-9a-f]{2})+)"', trace):
    b = bytes.fromhex(m.group(1).replace('\\x', ''))
    if b[:4] == b'NDRV' and struct.unpack_from('<H', b, 6)[0] == 1:
        hello = b
        break
if hello is None:
    sys.exit('no hello in the trace')
s = socket.create_connection(('127.0.0.1', port), timeout=10)
def take(n):
    b = b''
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            sys.exit('the coordinator closed the connection')
        b += c
    return b
def frame():
    h = take(12)
    return struct.unpack_from('<H', h, 6)[0], take(struct.unpack_from('<I', h, 8)[0])
t, _ = frame()
assert t == 8, 'no challenge first'
s.sendall(hello)
t, p = frame()
assert t == 3, 'not refused: type %d' % t
n = struct.unpack_from('<H', p, 4)[0]
print('refused:', p[6:6 + n].decode())
PY
	grep -Eq "refused: its MUNGE credential( is for another challenge or job|: Replayed credential)" \
		"$OUT/munge.replay" || { cat "$OUT/munge.replay" >&2; return 1; }
}

# Who may join, with MUNGE (nodrop-stress(8), SECURITY). The sbatch script asks for it with
# --require-auth, so the clean job above already ran on MUNGE proofs. Here a job on node 0
# alone: a process of another uid with the job's token is refused by uid, named in rank 0's
# log, and the job's own rank (root's, as rank 0) joins and the run is LOSSLESS.
munge_attack() {
	[ "$ME" = 1 ] && return 0
	local port=18530 pid rc rc1 rc0 rank1 replay
	timeout 90 "$ND" stress -l -c "127.0.0.1:$port" -N 2 -k mungejob -d rxe0 -j --auth munge \
		--require-auth --auth-gid 0 -s 16K -D 6 --rate 0.1 --qp-timeout 21 >"$OUT/munge.json" \
		2>"$OUT/munge.err" &
	pid=$!
	timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$REPO/$ND" stress \
		-c "127.0.0.1:$port" -k mungejob -d rxe0 -s 16K -D 6 --rate 0.1 --qp-timeout 21 \
		>"$OUT/munge.stranger" 2>&1
	rc=$?
	# root's uid in another group, where the job admits group 0 alone (--auth-gid)
	timeout 30 setpriv --regid=65534 --clear-groups "$REPO/$ND" stress -c "127.0.0.1:$port" \
		-k mungejob -d rxe0 -s 16K -D 6 --rate 0.1 --qp-timeout 21 >"$OUT/munge.group" 2>&1
	grep -q "gid 65534's; the job admits gid 0 (--auth-gid)" "$OUT/munge.group" || rc=0
	# the job's own rank, its hello recorded on the way out (strace) to be played again
	timeout 60 strace -f -qq -e trace=sendto,write -xx -s 65536 -o "$OUT/munge.strace" \
		"$ND" stress -c "127.0.0.1:$port" -k mungejob -d rxe0 -s 16K -D 6 --rate 0.1 \
		--qp-timeout 21 >"$OUT/munge.out1" 2>&1 &
	rank1=$!
	replayed "$port"
	replay=$?
	wait "$rank1"
	rc1=$?
	wait "$pid"
	rc0=$?
	[ "$replay" = 0 ] && [ "$rc" != 0 ] && grep -q "uid 65534's; the job runs as uid 0" "$OUT/munge.stranger" &&
		[ "$rc1" = 0 ] && [ "$rc0" = 0 ] &&
		jq -e '.verdict == "lossless" and .nranks == 2' "$OUT/munge.json" >/dev/null &&
		grep -q "coordinator: refused 127.0.0.1:[0-9]* .*uid 65534's" "$OUT/munge.err" ||
		{ echo "stranger $rc, replay $replay, rank 1 $rc1, rank 0 $rc0" >&2;
		  cat "$OUT/munge.stranger" "$OUT/munge.group" "$OUT/munge.err" "$OUT/munge.out1" >&2
		  return 1; }
}

# Netem on node 1 through Slurm itself (the guests share no other channel).
netem() { # add|del
	[ "$ME" = 1 ] && return 0
	local cmd="/usr/sbin/tc qdisc del dev eth0 root"
	[ "$1" = add ] && cmd="/usr/sbin/modprobe -d $ND_VM_MODDIR sch_netem &&
		/usr/sbin/tc qdisc add dev eth0 root netem loss 1%"
	timeout 120 srun -N 1 -w nd-vm1 --export=ALL bash -c "$cmd" >"$OUT/netem-$1.out" 2>&1 ||
		{ cat "$OUT/netem-$1.out" >&2; return 1; }
}

lossy_job() {
	[ "$ME" = 1 ] && return 0
	submit lossy ""
	local rc dir
	rc=$(cat "$OUT/lossy.rc")
	dir=$(last_run)
	[ "$rc" = 1 ] && jq -e '.verdict == "lossy" and any(.evidence[]; .what == "seq_err_naks" or
		.what == "out_of_sequence" or .what == "transport_retries")' \
		"$dir/nodrop-stress.json" >/dev/null &&
		grep -q '<failure message="lossy' "$dir/nodrop-stress.xml" ||
		{ echo "sbatch exit $rc" >&2; cat "$OUT"/lossy/* >&2; return 1; }
}

# Guest 1 serves until guest 0 is done, told through Slurm: guest 0 drains node 1 with a
# reason, guest 1 answers by changing the reason, and only then does guest 0 finish (its
# controller must outlive guest 1's last look).
serve() {
	if [ "$ME" = 0 ]; then
		scontrol update nodename=nd-vm1 state=drain reason=nodrop-test-done &&
			nd_vm_retry 120 1 sh -c 'scontrol show node nd-vm1 |
				grep -q "Reason=nodrop-test-seen"'
		return
	fi
	# every 3 s: each look is a shell, scontrol and grep, most of a second of this guest's one
	# CPU under TCG, which rank 1 of the jobs needs meanwhile
	nd_vm_retry 200 3 sh -c 'scontrol show node nd-vm1 2>/dev/null |
		grep -q "Reason=nodrop-test-done"' &&
		scontrol update nodename=nd-vm1 reason=nodrop-test-seen
}

[ "${ND_VM_NGUESTS:-2}" -eq 2 ] || { echo "slurm: needs -n 2" >&2; exit 2; }
nd_vm_check "rxe0 up on eth0 (198.18.0.$((ME + 1)))" nd_vm_rxe_up eth0
nd_vm_check "munge, slurmd$([ "$ME" = 0 ] && echo ' and slurmctld') up" slurm_up
nd_vm_check "both nodes idle in sinfo" nodes_idle
nd_vm_check "sbatch --wait, clean wire: exit 0, LOSSLESS, two ranks by srun" clean_job
nd_vm_check "clean: the run's directory, slurm output and compare result" clean_files
nd_vm_check "MUNGE: another uid, another group (--auth-gid) and a recorded hello played again are refused; the job LOSSLESS" munge_attack
nd_vm_check "srun on node 1: netem 1% loss on its eth0" netem add
nd_vm_check "sbatch --wait, lossy wire: exit 1, LOSSY, the counters named" lossy_job
nd_vm_check "srun on node 1: netem removed" netem del
nd_vm_check "guest 1 serves until guest 0 is done" serve
nd_vm_done
