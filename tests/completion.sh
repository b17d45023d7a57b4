#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Bash completion (nodrop --completion bash) held to --help, to the tool's own parsers and to
# the machine's devices. Drives the completion function the way bash does (COMP_WORDS split at
# ':' and '=' too), in a plain non-interactive bash: no bash-completion package involved.
set -u
NODROP=$(realpath "${1:-build/nodrop}")
# shellcheck source=tests/completion-lib.sh
. "$(dirname "$0")/completion-lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty" "$tmp/noroot" "$tmp/files/sub"

"$NODROP" --completion bash >"$tmp/nodrop.bash" && ok "--completion bash" ||
	bad "--completion bash: rc $?"
bash -n "$tmp/nodrop.bash" && ok "the script parses" || bad "the script does not parse"
"$NODROP" --completion tcsh >/dev/null 2>&1; rc=$?
[ "$rc" = 2 ] && ok "--completion of an unknown shell: exit 2" || bad "--completion tcsh: rc $rc"
declare -F _init_completion >/dev/null &&
	bad "bash-completion is loaded: the test proves nothing" || ok "no bash-completion loaded"
# shellcheck source=/dev/null
source "$tmp/nodrop.bash"
fn=$(complete -p nodrop 2>/dev/null | sed -n 's/^complete -F \([^ ]*\) nodrop$/\1/p')
[ -n "$fn" ] && ok "registered with complete -F $fn" ||
	{ bad "not registered: complete -p nodrop"; fn=false; }

# comp LINE: what completing at the end of LINE offers, one per line, sorted. COMP_WORDS as bash
# splits them: at blanks, and ':' and '=' are words of their own.
comp() {
	local line=$1 word= c i
	local -a COMP_WORDS=()
	local COMP_CWORD COMP_LINE=$1 COMP_POINT=${#1}

	for ((i = 0; i < ${#line}; i++)); do
		c=${line:i:1}
		case $c in
		' ') [ -n "$word" ] && COMP_WORDS+=("$word"); word= ;;
		[:=]) [ -n "$word" ] && COMP_WORDS+=("$word"); COMP_WORDS+=("$c"); word= ;;
		*) word+=$c ;;
		esac
	done
	if [ -n "$word" ] || [ "${line: -1}" = ' ' ]; then
		COMP_WORDS+=("$word")
	fi
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn" nodrop "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# check DESC LINE WANT: LINE completes to exactly the words WANT
check() {
	local got
	got=$(comp "$2")
	same "$got" "$3" && ok "$1" || bad "$1: '$2' gave [$(echo $got)], want [$3]"
}

# --- commands and nodrop's own options, against nodrop --help
help=$("$NODROP" --help)
cmds=$(help_cmds)
[ "$(echo $cmds | wc -w)" -ge 12 ] && ok "nodrop --help lists $(echo $cmds | wc -w) commands" ||
	bad "commands in --help: $cmds"
check "every command, and only commands" "nodrop " "$cmds"
check "a prefix narrows the commands" "nodrop st" "$(printf '%s\n' $cmds | grep '^st')"
check "nodrop's own long options are those of nodrop --help" "nodrop --" \
	"$(echo "$help" | grep -E '^(Usage: |       )nodrop' | grep -o -- '--[a-z-]*')"
for v in $(comp "nodrop --completion "); do
	"$NODROP" --completion "$v" >/dev/null && ok "--completion $v is accepted" ||
		bad "--completion $v is refused"
done
check "--completion offers bash and fish" "nodrop --completion " "bash fish"

# --- each command's options, against its --help: long after '--', short and long after '-';
# those --help shows with an argument take one (no options offered after them), the rest not
export NODROP_SYSROOT=$tmp/noroot	# no devices: every value offered below is an enumeration
cd "$tmp/empty" || exit 1
n_args=0
for c in $cmds; do
	help_opts "$c"
	[ -n "$longs" ] || { bad "$c --help: no options found"; continue; }
	check "$c: '--' completes to the long options of --help" "nodrop $c --" "$longs"
	check "$c: '-' completes to the short and long options of --help" "nodrop $c -" \
		"$shorts $longs"
	for o in $longs; do
		got=$(comp "nodrop $c $o -")
		if echo "$args" | grep -qx -- "$o"; then
			n_args=$((n_args + 1))
			echo "$got" | grep -q -- '^--' &&
				bad "$c $o takes an argument, yet options follow" ||
				ok "$c $o takes an argument"
		else
			same "$got" "$shorts $longs" && ok "$c $o is a flag: options follow" ||
				bad "$c $o is a flag, yet offers [$(echo $got)]"
		fi
	done
	# every value offered for any option is one the command's parser accepts
	for o in $args; do
		for v in $(comp "nodrop $c $o "); do
			err=$("$NODROP" "$c" "$o" "$v" --help 2>&1 >/dev/null); rc=$?
			[ "$rc" = 0 ] && ok "$c $o $v is accepted" || bad "$c $o $v: rc $rc: $err"
		done
	done
done
[ "$n_args" -ge 40 ] && ok "$n_args options with an argument checked" || bad "only $n_args options"

# --- the enumerations, as the library's tables and the man pages name them
enum() {
	local c=$1 o=$2 s=$3 want=$4 v err rc
	check "$c $o completes to its values" "nodrop $c $o " "$want"
	[ -z "$s" ] || check "$c $s completes like $o" "nodrop $c $s " "$want"
	check "$c $o=VALUE completes" "nodrop $c $o=" "$(printf '=%s\n' $want)"
	# the probe above (OPTION VALUE --help) does reject: a bad value is refused by name
	err=$("$NODROP" "$c" "$o" nosuchvalue --help 2>&1 >/dev/null); rc=$?
	[ "$rc" = 2 ] && echo "$err" | grep -q nosuchvalue && ok "$c $o nosuchvalue is refused" ||
		bad "$c $o nosuchvalue: rc $rc: $err"
}
enum headroom --model -M "basic ieee spectrum all"
enum headroom --asic "" "spc1 spc2 spc3 spc4 spc5"
enum stress --pattern -P "pair bidir incast outcast all-to-all victim"
enum stress --op -o "write write-imm send read"
enum sim --compare -c "roce ib"
enum compare --skip "" "throughput latency cpu fairness loss verdict"
check "stress --mem completes to host, hugepages and a GPU (values with ':')" \
	"nodrop stress --mem " \
	"host host:huge cuda:0 cuda:0,dmabuf cuda:0,peermem cuda:0,staged"
check "a prefix narrows the values" "nodrop headroom --model s" "spectrum"
check "a prefix in --opt=VALUE" "nodrop headroom --model=sp" "spectrum"
check "a prefix narrows stress --pattern" "nodrop stress -P a" "all-to-all"
# bash replaces only its word after the ':': the rest of the value is what is offered
check "host: completes past the ':'" "nodrop stress --mem host:" ":huge"
check "host:h completes past the ':'" "nodrop stress --mem host:h" "huge"
check "a list completes its next item, each once" "nodrop sim --compare roce," "roce,ib"
check "a list item's prefix" "nodrop compare --skip latency,c" "latency,cpu"
all=$(comp "nodrop compare --skip " | paste -sd,)
"$NODROP" compare --skip "$all" --help >/dev/null && ok "compare --skip $all is accepted" ||
	bad "compare --skip $all is refused"
"$NODROP" sim --compare roce,ib --help >/dev/null && ok "sim --compare roce,ib is accepted" ||
	bad "sim --compare roce,ib is refused"

# --- devices: /sys/class/net and /sys/class/infiniband, below NODROP_SYSROOT as nodrop reads them
unset NODROP_SYSROOT
net=$(ls /sys/class/net)
echo "$net" | grep -qx lo && ok "the host has lo" || bad "no lo in /sys/class/net"
for l in "show" "counters" "triage" "apply --dev" "audit -d" "show lo"; do
	check "nodrop $l completes to /sys/class/net" "nodrop $l " "$net"
done
check "a prefix narrows the network devices" "nodrop show l" "$(echo "$net" | grep '^l')"
check "options after a device" "nodrop show lo --j" "--json"
check "after '--' only operands" "nodrop show -- --" ""
check "RDMA devices from /sys/class/infiniband" "nodrop stress --dev " \
	"$(ls /sys/class/infiniband 2>/dev/null)"
root=$tmp/root
mkdir -p "$root/sys/class/net/eth9" "$root/sys/class/net/ens1f0np0" \
	"$root/sys/class/infiniband/mlx5_0/ports/1" "$root/sys/class/infiniband/rxe0/ports/1"
export NODROP_SYSROOT=$root/
check "NODROP_SYSROOT: network devices below it" "nodrop counters " "eth9 ens1f0np0"
check "NODROP_SYSROOT: RDMA devices below it" "nodrop stress -d " "mlx5_0 rxe0"
check "RDMA DEV:PORT after a ':'" "nodrop stress -d mlx5_0:" ":1"
"$NODROP" stress -d mlx5_0:1 --help >/dev/null && ok "stress -d mlx5_0:1 is accepted" ||
	bad "stress -d mlx5_0:1 is refused"
unset NODROP_SYSROOT

# --- files: profiles and scenarios (*.yaml), reports (*.json), directories
cd "$tmp/files" || exit 1
touch p.yaml q.json notes.txt
check "apply PROFILE: *.yaml and directories" "nodrop apply " "p.yaml sub"
check "audit PROFILE" "nodrop audit " "p.yaml sub"
check "sim SCENARIO.yaml" "nodrop sim " "p.yaml sub"
check "a prefix narrows the files" "nodrop apply p" "p.yaml"
check "report RUN.json: *.json and directories" "nodrop report " "q.json sub"
check "compare RUN.json" "nodrop compare -j " "q.json sub"
check "compare --history DIR: directories" "nodrop compare --history " "sub"
check "counters --maps DIR" "nodrop counters --maps " "sub"
check "rollback --journal: *.json" "nodrop rollback --journal " "q.json sub"
check "stress --profile: *.yaml" "nodrop stress --profile " "p.yaml sub"
check "triage --profile: *.yaml" "nodrop triage --profile " "p.yaml sub"
check "audit --junit FILE: any file" "nodrop audit --junit " "notes.txt p.yaml q.json sub"
check "headroom takes no operand" "nodrop headroom " ""

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
