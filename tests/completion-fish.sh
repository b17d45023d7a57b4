#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fish completion (nodrop --completion fish) held to --help, to the tool's own parsers and to the
# machine's devices, with fish itself as the oracle: `complete -C LINE` says what fish offers.
# Usage: tests/completion-fish.sh BUILD/nodrop        (fish: apt-get install fish)
set -u
NODROP=$(realpath "${1:-build/nodrop}")
# shellcheck source=tests/completion-lib.sh
. "$(dirname "$0")/completion-lib.sh"

command -v fish >/dev/null || { echo "not ok - fish is missing: apt-get install fish"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty" "$tmp/noroot" "$tmp/files/sub"
export XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data HOME=$tmp	# no user's fish setup

"$NODROP" --completion fish >"$tmp/nodrop.fish" && ok "--completion fish" ||
	bad "--completion fish: rc $?"
fish --no-execute "$tmp/nodrop.fish" && ok "the script parses" || bad "the script does not parse"

# comp LINE...: for each LINE, what fish offers (candidates without descriptions), sorted, as
# "@@ LINE" then one per line; one fish for all of them
comp_all() {
	printf '%s\n' "$@" | fish -c "source $tmp/nodrop.fish
		while read -l q
			echo \"@@ \$q\"
			complete -C \$q | string replace -r '\t.*' '' | sort -u
		end"
}
# comp LINE: the candidates for one line
comp() { comp_all "$1" | sed 1d; }
check() { # DESC LINE WANT
	local got
	got=$(comp "$2")
	same "$got" "$3" && ok "$1" || bad "$1: '$2' gave [$(echo $got)], want [$3]"
}

help=$("$NODROP" --help)
cmds=$(help_cmds)
check "every command, and only commands" "nodrop " "$cmds"
check "nodrop's own long options" "nodrop --" \
	"$(echo "$help" | grep -E '^(Usage: |       )nodrop' | grep -o -- '--[a-z-]*')"
check "--completion offers bash and fish" "nodrop --completion " "bash fish"

# each command's options against its --help; every value offered for an option with an
# argument is accepted by the command's parser
export NODROP_SYSROOT=$tmp/noroot	# no devices: every value offered is an enumeration
cd "$tmp/empty" || exit 1
n_vals=0
for c in $cmds; do
	help_opts "$c"
	check "$c: '--' completes to the long options of --help" "nodrop $c --" "$longs"
	got=$(comp "nodrop $c -")
	miss=$(for s in $shorts; do echo "$got" | grep -qx -- "$s" || echo "$s"; done)
	[ -z "$miss" ] && ok "$c: '-' offers every short option of --help" ||
		bad "$c: '-' lacks $(echo $miss)"
	[ -n "$args" ] || continue
	lines=()
	for o in $args; do lines+=("nodrop $c $o "); done
	cur=
	while IFS= read -r l; do
		case $l in
		'@@ '*) cur=${l#@@ nodrop $c }; cur=${cur% } ;;
		*)
			n_vals=$((n_vals + 1))
			err=$("$NODROP" "$c" "$cur" "$l" --help 2>&1 >/dev/null) &&
				ok "$c $cur $l is accepted" || bad "$c $cur $l: $err"
			;;
		esac
	done < <(comp_all "${lines[@]}")
done
[ "$n_vals" -ge 25 ] && ok "$n_vals offered values checked" || bad "only $n_vals values offered"
check "stress --pattern" "nodrop stress --pattern " "pair bidir incast outcast all-to-all victim"
check "stress -P (short)" "nodrop stress -P " "pair bidir incast outcast all-to-all victim"
check "headroom --model=" "nodrop headroom --model=sp" "--model=spectrum"
check "a list completes its next item, each once" "nodrop sim --compare roce," "roce,ib"
check "a list item's prefix" "nodrop compare --skip latency,c" "latency,cpu"
check "stress --mem" "nodrop stress --mem host" "host host:huge"
check "a flag's value is not asked for" "nodrop apply --force " ""

# devices, below NODROP_SYSROOT as nodrop reads them
unset NODROP_SYSROOT
net=$(ls /sys/class/net)
check "show: /sys/class/net" "nodrop show " "$net"
check "apply --dev: /sys/class/net" "nodrop apply --dev " "$net"
root=$tmp/root
mkdir -p "$root/sys/class/net/eth9" "$root/sys/class/infiniband/mlx5_0/ports/1"
export NODROP_SYSROOT=$root
check "NODROP_SYSROOT: network devices below it" "nodrop counters " "eth9"
check "NODROP_SYSROOT: RDMA devices and DEV:PORT" "nodrop stress -d " "mlx5_0 mlx5_0:1"
unset NODROP_SYSROOT

# files
cd "$tmp/files" || exit 1
touch p.yaml q.json notes.txt
check "apply PROFILE: *.yaml and directories" "nodrop apply " "p.yaml sub/"
check "report RUN.json: *.json and directories" "nodrop report " "q.json sub/"
check "stress --profile: *.yaml and directories" "nodrop stress --profile " "p.yaml sub/"
check "rollback --journal: *.json and directories" "nodrop rollback --journal " "q.json sub/"
check "compare --history DIR: directories" "nodrop compare --history " "sub/"
check "audit --junit FILE: any file" "nodrop audit --junit " "notes.txt p.yaml q.json sub/"
check "headroom takes no operand" "nodrop headroom " ""

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
