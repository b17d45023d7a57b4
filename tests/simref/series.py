#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The receiver port's series from the reference simulator's stdout (tests/simref/incast.sh):
its per-interval "ToR 0 Port 0 ... txBytes B qlen Q time T" lines summed into WINDOW-second
windows from START (the flows' start): Gb/s on the wire (headers included) and the largest
queue seen in each. Usage: series.py STDOUT [WINDOW_S] [START_S]"""
import sys


def main():
	path = sys.argv[1]
	win = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-3
	start = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
	tx, qmax = {}, {}
	with open(path) as f:
		for line in f:
			w = line.split()
			if w[:4] != ['ToR', '0', 'Port', '0'] or len(w) < 12:
				continue
			t = float(w[11])
			if t <= start:
				continue
			k = int((t - start) / win - 1e-9)
			tx[k] = tx.get(k, 0) + int(w[7])
			qmax[k] = max(qmax.get(k, 0), int(w[9]))
	if not tx:
		sys.exit(f'{path}: no "ToR 0 Port 0" lines after {start} s')
	print('window gbps queue_max_bytes')
	for k in range(max(tx) + 1):
		print(k, f'{tx.get(k, 0) * 8 / win / 1e9:.1f}', qmax.get(k, 0))
	n = max(tx) + 1
	print(f'# mean {sum(tx.values()) * 8 / (n * win) / 1e9:.1f} Gb/s over {n} windows')


if __name__ == '__main__':
	main()
