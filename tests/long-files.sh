#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The project's rule: no source file over 800 lines (split a longer one along a seam, a file per
# thing it owns). Lists every text source of the tree over MAX lines and fails; `make quick` and
# `make unit` run it.
#
# Usage: tests/long-files.sh [MAX]     (default 800)
#
# The tree: the files git sees (tracked, and new ones it does not ignore), else, in a tree without
# git (check-fresh's `git archive`), every file but build/. Counted: C and C++ (*.c, *.h, *.cc),
# Python, shell, Markdown, man pages (man/*.[1-8]), Makefile, Kbuild and *.mk, and any other file
# that starts with #! (bootstrap, debian/rules, .ci/run). Not counted, as data whose length is
# what it records rather than code to read: the fixture trees (tests/fixtures/) and fuzz seeds
# (tests/fuzz/seeds/), counter maps (data/counters/*.map), profiles, scenarios and other YAML,
# JSON, the reference simulator's results (*.ref, *.cdf), fuzz dictionaries; and symbolic links.
set -eu

max=${1:-800}
cd "$(dirname "$0")/.."

tree() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -co --exclude-standard -z
	else
		find . \( -path ./build -o -path ./.git \) -prune -o -type f -printf '%P\0'
	fi
}

counted() {
	local head=
	case $1 in
	tests/fixtures/* | tests/fuzz/seeds/*) return 1 ;;
	*.c | *.h | *.cc | *.py | *.sh | *.md | *.mk) return 0 ;;
	Makefile | */Makefile | Kbuild | */Kbuild) return 0 ;;
	man/*.[1-8]) return 0 ;;
	esac
	read -r -n 2 head <"$1" 2>/dev/null || true
	[ "$head" = "#!" ]
}

files=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] && [ ! -L "$f" ] && counted "$f" && files+=("$f")
done < <(tree)
[ ${#files[@]} -gt 0 ] || { echo "long-files: no source files found" >&2; exit 1; }

# one wc for all: its last line is the total (/dev/null: a total even for one file)
long=$(wc -l -- /dev/null "${files[@]}" | sed '$d' | awk -v max="$max" '$1 > max' | sort -rn)
if [ -n "$long" ]; then
	echo "long-files: over $max lines (split each along a seam, a file per thing it owns):"
	printf '%s\n' "$long" | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "  %5d %s\n", n, $0 }'
	exit 1
fi
echo "long-files: ${#files[@]} source files, none over $max lines"
