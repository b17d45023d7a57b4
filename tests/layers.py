#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""libnodrop's modules and the one rule between them, written down once (FLOORS below).

A module is a folder of lib/. A file may include the internal headers of its own module and of
modules on lower floors only, and (checked on the objects when a build directory is given) call
or reference only those. No files use each other round a circle, inside a module or across,
read as a reader from outside reads them: a header and the .c file of the same base name are one
node (sim.h with sim.c), and an include is a use as much as a call is.
Run by `make unit`:  tests/layers.py [BUILD_DIR]. The module graph: --graph (DOT), --text (the
picture in HACKING.md, which this check keeps current).
"""
import collections
import glob
import os
import re
import subprocess
import sys

# Lowest first. A module uses only modules on floors below its own.
FLOORS = [
	['core'],					# netlink, dcbnl, sysfs, links, RDMA, ports
	['profile', 'headroom', 'counters', 'doctor', 'report', 'peer'],
	['apply', 'model', 'path'],				# lint, plan, transaction, journal, lock; datapath model
	['triage', 'sim', 'stress'],
]
FLOOR = {m: i for i, row in enumerate(FLOORS) for m in row}
# Modules whose files still use each other round a circle, read as one node a header and its .c
# (found when that reading came in; lib/sim was untangled then, the rest since): said, not
# failed, until whoever works there next breaks it. One listed here with no circle left is a
# problem: take it off. None is left.
CIRCLES_LEFT = set()
GENERATED = {'datadir.h', 'ctr_maps_builtin.h'}	# written into the build directory by make


def module_of(path):
	return path.split('/')[1]


def node_of(path):
	"""A header and the .c file of the same base name are one node: lib/sim/sim.h, sim.c."""
	return os.path.splitext(path)[0]


def include_edges(problems):
	"""(from file, header included, where) for every include of a header in lib/."""
	headers = {}
	for h in glob.glob('lib/*/*.h'):
		headers.setdefault(os.path.basename(h), module_of(h))
	edges = []
	for f in sorted(glob.glob('lib/*/*.[ch]')):
		for n, line in enumerate(open(f), 1):
			m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
			if not m:
				continue
			inc = m.group(1)
			if os.path.exists(f'include/{inc}') or inc in GENERATED:
				continue	# the public API (include/) or made by make: no module
			if '/' in inc:
				to = f'lib/{inc}'
				if not os.path.exists(to):
					problems.append(f'{f}:{n}: includes "{inc}", which is not in lib/')
					continue
			elif os.path.exists(os.path.join(os.path.dirname(f), inc)):
				to = os.path.join(os.path.dirname(f), inc)
			else:
				problems.append(f'{f}:{n}: includes "{inc}": name another module\'s header '
						f'as "MODULE/{inc}"' if inc in headers else
						f'{f}:{n}: includes "{inc}", which is not in lib/')
				continue
			edges.append((f, to, f'{f}:{n}'))
	return edges


def symbol_edges(build):
	"""(from file, to file, symbol) for every reference between objects of lib/."""
	defs, undef = {}, {}
	for o in sorted(glob.glob(f'{build}/lib/*/*.o')):
		src = o[len(build) + 1:-2] + '.c'
		if not os.path.exists(src):
			continue		# left over from a file since moved or removed
		out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
		for line in out.splitlines():
			p = line.split()
			if len(p) == 3 and p[1] in 'TDBRCVW':
				defs[p[2]] = src
			elif len(p) == 2 and p[0] == 'U':
				undef.setdefault(src, set()).add(p[1])
	return [(f, defs[s], s) for f, syms in undef.items() for s in sorted(syms)
		if s in defs and defs[s] != f]


def circles(nodes, edges):
	"""Strongly connected components of more than one node (Tarjan, iterative)."""
	out = collections.defaultdict(set)
	for a, b in edges:
		out[a].add(b)
	index, low, stack, on, found, n = {}, {}, [], set(), [], 0
	for root in sorted(nodes):
		if root in index:
			continue
		work = [(root, iter(sorted(out[root])))]
		index[root] = low[root] = n
		n += 1
		stack.append(root)
		on.add(root)
		while work:
			v, it = work[-1]
			w = next(it, None)
			if w is not None:
				if w not in index:
					index[w] = low[w] = n
					n += 1
					stack.append(w)
					on.add(w)
					work.append((w, iter(sorted(out[w]))))
				elif w in on:
					low[v] = min(low[v], index[w])
				continue
			work.pop()
			if work:
				low[work[-1][0]] = min(low[work[-1][0]], low[v])
			if low[v] == index[v]:
				comp = []
				while True:
					w = stack.pop()
					on.discard(w)
					comp.append(w)
					if w == v:
						break
				if len(comp) > 1:
					found.append(sorted(comp))
	return found


def picture(why):
	"""Floors top down, then each module's arrows: the text HACKING.md shows."""
	uses = collections.defaultdict(set)
	for a, b in why:
		if a != b:
			uses[a].add(b)
	out = [f'floor {i}   ' + '  '.join(row) for i, row in reversed(list(enumerate(FLOORS)))]
	out.append('')
	for row in reversed(FLOORS):
		for m in row:
			out.append(f'{m:<9} -> ' + (' '.join(sorted(uses[m], key=lambda x: (-FLOOR.get(x, 0), x)))
						   or '(nothing)'))
	return '\n'.join(out) + '\n'


def main():
	args = [a for a in sys.argv[1:] if not a.startswith('--')]
	problems = []
	folders = {os.path.basename(d) for d in glob.glob('lib/*') if os.path.isdir(d)}
	for m in sorted(folders - set(FLOOR)):
		problems.append(f'lib/{m}/ is on no floor: add it to FLOORS in {sys.argv[0]}')
	for m in sorted(set(FLOOR) - folders):
		problems.append(f'FLOORS names {m}, which is not a folder of lib/')
	inc = include_edges(problems)
	edges = [(module_of(a), module_of(b), where) for a, b, where in inc
		 if module_of(a) != module_of(b)]
	why = collections.defaultdict(list)
	for a, b, where in edges:
		why[(a, b)].append(f'includes in {where}')
	uses = [(node_of(a), node_of(b)) for a, b, _ in inc]
	n_sym = 0
	if args:
		sym = symbol_edges(args[0])
		n_sym = len(sym)
		for a, b, s in sym:
			why[(module_of(a), module_of(b))].append(f'{a} uses {s} of {b}')
		uses += [(node_of(a), node_of(b)) for a, b, _ in sym]
	uses = [(a, b) for a, b in uses if a != b]
	left, notes = set(), []
	for c in circles({a for a, _ in uses} | {b for _, b in uses}, uses):
		mods = {module_of(n) for n in c}
		if len(mods) == 1 and mods <= CIRCLES_LEFT:
			left |= mods
			notes.append(f'a circle left in {module_of(c[0])} (CIRCLES_LEFT): ' + ' '.join(c))
			continue
		problems.append('files use each other round a circle (a header and its .c one node; '
				'includes and calls): ' + ' '.join(c))
	if args:
		for m in sorted(CIRCLES_LEFT - left):
			problems.append(f'{m} has no circle left: take it off CIRCLES_LEFT')
	for (a, b), w in sorted(why.items()):
		if a == b:
			continue
		if a in FLOOR and b in FLOOR and FLOOR[b] >= FLOOR[a]:
			problems.append(f'{a} (floor {FLOOR[a]}) uses {b} (floor {FLOOR[b]}), which is not '
					f'below it: {w[0]}' + (f' (and {len(w) - 1} more)' if len(w) > 1 else ''))
	text = picture(why)
	hacking = open('HACKING.md').read() if os.path.exists('HACKING.md') else ''
	m = re.search(r'<!-- layers -->\n```\n(.*?)```\n', hacking, re.S)
	if args and (not m or m.group(1) != text):
		problems.append('HACKING.md\'s module picture is not the graph now: paste in the output '
				'of tests/layers.py --text BUILD_DIR between its <!-- layers --> fences')
	if '--text' in sys.argv:
		print(text, end='')
		return 0
	if '--graph' in sys.argv:
		print('digraph nodrop {\n\trankdir=BT;')
		for i, row in enumerate(FLOORS):
			print('\t{ rank=same; ' + ' '.join(row) + '; }')
		for a, b in sorted(k for k in why if k[0] != k[1]):
			print(f'\t{a} -> {b};')
		print('}')
		return 0
	for p in notes + problems:
		print(f'layers: {p}')
	mods = {k for k in why if k[0] != k[1]}
	print(f'layers: {len(folders)} modules on {len(FLOORS)} floors, {len(mods)} module arrows '
	      f'(from {len(edges)} includes' + (f' and {n_sym} symbol references' if args else '') +
	      f'), {len(problems)} problems')
	return 1 if problems else 0


if __name__ == '__main__':
	sys.exit(main())
