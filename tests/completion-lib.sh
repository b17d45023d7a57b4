# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What tests/completion.sh (bash) and tests/completion-fish.sh hold the scripts to: the tally,
# and the commands and options as `nodrop --help` and `nodrop CMD --help` print them. Source it.
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }
# same LIST1 LIST2: the same words, whatever their order and spacing
same() { [ "$(printf '%s\n' $1 | sort -u)" = "$(printf '%s\n' $2 | sort -u)" ]; }

# help_cmds: the commands `nodrop --help` lists
help_cmds() {
	"$NODROP" --help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} /^$/ {on = 0}'
}

# help_opts CMD: the command's options as its --help shows them, in longs, shorts and args (the
# long options shown with an argument)
help_opts() {
	local h
	h=$("$NODROP" "$1" --help)
	longs=$(echo "$h" | sed -nE 's/^  (-[[:alnum:]], |    )--([a-z0-9-]+).*/--\2/p')
	shorts=$(echo "$h" | sed -nE 's/^  (-[[:alnum:]]), --.*/\1/p')
	args=$(echo "$h" | sed -nE 's/^  (-[[:alnum:]], |    )--([a-z0-9-]+) [A-Z].*/--\2/p')
}
