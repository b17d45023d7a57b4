#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Run a nodrop scenario in the reference simulator and store what it measured.

Usage: ref.py NODROP REFBIN SCENARIO.yaml OUT.ref [--seeds 1,2,..] [--commit C] [--work DIR]
       ref.py NODROP REFBIN SCENARIO.yaml OUT.conf --config-only

NODROP is build/nodrop; REFBIN the nodrop-ref program tests/simref/build.sh builds inside the
reference tree (ns3-datacenter). The scenario's flows (hosts, sizes, start times) come from
`nodrop sim -j --flows`, so both simulators carry the same flows; its topology, links, buffer,
ECN and DCQCN become nodrop-ref's config. Only what both model is mapped, and every key that
is mapped must be spelled out in the scenario: a default of one simulator is not assumed to be
the other's. OUT.ref holds, per line: the flows' payload Gb/s per series window (long-flow
scenarios), each switch port's queue p50/p99/max and PAUSE frames and paused share, the CNPs,
and FCT slowdown percentiles per size bucket, with where they came from.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

BUCKETS = [0, 10000, 100000, 1000000, 10000000]
EPOCH_S = 0.001		# the reference's flows start this late: nothing runs before


def die(msg):
	sys.exit(f'simref: {msg}')


def need(d, path, scen):
	cur = d
	for key in path.split('.'):
		if not isinstance(cur, dict) or key not in cur:
			die(f'{scen}: {path} is not set; spell it out, the reference does not share '
			    f"nodrop's defaults")
		cur = cur[key]
	return cur


def size_bytes(v):
	m = re.fullmatch(r'(\d+)\s*(K|KiB|M|MiB)?', str(v))
	if not m:
		die(f'size {v!r}')
	return int(m.group(1)) * {None: 1, 'K': 1024, 'KiB': 1024, 'M': 1 << 20,
				  'MiB': 1 << 20}[m.group(2)]


def time_s(v):
	m = re.fullmatch(r'([\d.]+)\s*(ps|ns|us|ms|s)', str(v))
	if m:
		return float(m.group(1)) * {'ps': 1e-12, 'ns': 1e-9, 'us': 1e-6, 'ms': 1e-3,
					    's': 1}[m.group(2)]
	if str(v) == '0':
		return 0.0
	die(f'duration {v!r}')


def real(v):
	s = str(v)
	if s.endswith('%'):
		return float(s[:-1]) / 100
	if '/' in s:
		a, b = s.split('/')
		return float(a) / float(b)
	return float(s)


def speed_bps(v):
	m = re.fullmatch(r'([\d.]+)\s*([KMGT])?(bit|b/s|bps)?', str(v))
	if not m:
		die(f'speed {v!r}')
	return float(m.group(1)) * {None: 1, 'K': 1e3, 'M': 1e6, 'G': 1e9, 'T': 1e12}[m.group(2)]


def link_delay_s(link):
	if 'delay' in link:
		return time_s(link['delay'])
	m = re.fullmatch(r'([\d.]+)\s*m', str(link['length']))
	if not m:
		die(f'length {link["length"]!r}')
	return float(m.group(1)) * 5e-9


class Fabric:
	"""The reference's nodes and links, and nodrop's name for each port."""

	def __init__(self, sc, name):
		topo = need(sc, 'topology.kind', name)
		host = need(sc, 'links.host', name)
		self.links = []
		self.names = {}
		hl = (speed_bps(need(sc, 'links.host.speed', name)), link_delay_s(host))
		if topo == 'single-switch':
			self.hosts = int(need(sc, 'topology.hosts', name))
			self.switches = 1
			sw = self.hosts
			for h in range(self.hosts):
				self.add(h, sw, hl, f'h{h}', f'sw0/h{h}')
		elif topo == 'leaf-spine':
			leaves = int(need(sc, 'topology.leaves', name))
			spines = int(need(sc, 'topology.spines', name))
			hpl = int(need(sc, 'topology.hosts-per-leaf', name))
			fab = need(sc, 'links.fabric', name)
			fl = (speed_bps(need(sc, 'links.fabric.speed', name)), link_delay_s(fab))
			self.hosts = leaves * hpl
			self.leaves = leaves
			self.switches = leaves + spines
			for h in range(self.hosts):
				self.add(h, self.hosts + h // hpl, hl, f'h{h}', f'leaf{h // hpl}/h{h}')
			for lf in range(leaves):
				for sp in range(spines):
					self.add(self.hosts + lf, self.hosts + leaves + sp, fl,
						 f'leaf{lf}/spine{sp}', f'spine{sp}/leaf{lf}')
		else:
			die(f'{name}: topology {topo} has no reference mapping')

	def node_of(self, name):
		"""The reference's node id of nodrop's spineK."""
		return self.hosts + self.leaves + int(name[len('spine'):])

	def add(self, a, b, link, name_a, name_b):
		self.links.append((a, b, link))
		for node, name in ((a, name_a), (b, name_b)):
			n = sum(1 for x, y, _ in self.links if node in (x, y))
			self.names[(node, n)] = name


def config(sc, name, fabric, flows, window_s):
	if sc.get('fabric', 'roce') != 'roce' or not need(sc, 'pfc.enabled', name):
		die(f'{name}: the reference runs RoCE with PFC')
	if not need(sc, 'dcqcn.enabled', name) or not need(sc, 'ecn.enabled', name):
		die(f'{name}: the reference runs DCQCN with ECN')
	if size_bytes(need(sc, 'dcqcn.byte-counter', name)) != 0:
		die(f'{name}: the reference has no byte counter: set dcqcn.byte-counter: 0')
	if time_s(need(sc, 'dcqcn.cnp-interval', name)) != 0:
		die(f'{name}: the reference sends a CNP per marked packet: set cnp-interval: 0us')
	dur = time_s(need(sc, 'duration', name))
	out = [f'# {name}: written by tests/simref/ref.py',
	       f'hosts {fabric.hosts}', f'switches {fabric.switches}',
	       f'mtu {int(need(sc, "mtu", name))}',
	       f'buffer {size_bytes(need(sc, "switch.buffer", name))}',
	       f'alpha {real(need(sc, "switch.alpha", name))}',
	       f'ecn {size_bytes(need(sc, "ecn.kmin", name))} '
	       f'{size_bytes(need(sc, "ecn.kmax", name))} {real(need(sc, "ecn.pmax", name))}',
	       f'epoch_s {EPOCH_S}', f'stop_s {EPOCH_S + dur:.9f}', f'series_s {window_s}',
	       'sample_ns 1000',
	       # nodrop's switches and NICs send control (ACK, NACK, CNP) ahead of data
	       'ack_high_prio 1']
	us = lambda k: time_s(need(sc, f'dcqcn.{k}', name)) * 1e6
	mbps = lambda k: f'{speed_bps(need(sc, "dcqcn." + k, name)) / 1e6:g}Mb/s'
	hw = [('EwmaGain', real(need(sc, 'dcqcn.g', name))),
	      ('RPTimer', us('timer')), ('AlphaResumInterval', us('alpha-timer')),
	      ('RateDecreaseInterval', us('rate-reduce-period')),
	      ('FastRecoveryTimes', int(need(sc, 'dcqcn.fast-recovery', name))),
	      ('RateAI', mbps('ai')), ('RateHAI', mbps('hai')), ('MinRate', mbps('min-rate')),
	      ('ClampTargetRate', 'true' if need(sc, 'dcqcn.clamp-target-rate', name) else 'false'),
	      ('L2ChunkSize', 4000), ('L2AckInterval', 1), ('L2BackToZero', 'false')]
	out += [f'hw {k} {v}' for k, v in hw]
	for a, b, (bps, delay) in fabric.links:
		out.append(f'link {a} {b} {bps / 1e9:g}Gbps {delay * 1e9:g}ns')
	for f in flows:
		size = f['size'] or 10 ** 12
		via = fabric.node_of(f['spine']) if f['spine'] else -1
		out.append(f'flow {f["src"]} {f["dst"]} {size} {EPOCH_S + f["start_s"]:.12f} {via}')
	return '\n'.join(out) + '\n'


def nearest_rank(v, q):
	k = int(q * len(v))
	if k < q * len(v):
		k += 1
	return v[k - 1 if k else 0]


def spine_of(flow):
	"""The spine nodrop's ECMP chose: the reference's switches are made to choose it too."""
	return next((n for n in flow.get('path', '').split() if n.startswith('spine')), None)


def drawn(nodrop, scen, seed):
	"""nodrop sim's run of @scen with @seed, and the flows it drew as the reference takes them."""
	run = json.loads(subprocess.run([nodrop, 'sim', '-j', '--flows', '-s', str(seed), scen],
					check=True, capture_output=True, text=True).stdout)
	return run, [{'src': int(f['src'][1:]), 'dst': int(f['dst'][1:]), 'size': f['size'],
		      'start_s': f['start_s'], 'spine': spine_of(f)} for f in run['flows']]


def run_seed(nodrop, refbin, scen, sc, name, fabric, seed, work):
	"""One seed in the reference: its measurements, and the flows nodrop drew for it."""
	run, flows = drawn(nodrop, scen, seed)
	series = time_s(sc.get('series', '100us'))
	window_s = series if series else time_s(need(sc, 'duration', name))
	cfg = os.path.join(work, f'{name}-{seed}.conf')
	res = os.path.join(work, f'{name}-{seed}.out')
	with open(cfg, 'w') as fh:
		fh.write(config(sc, name, fabric, flows, window_s))
	p = subprocess.run([refbin, cfg, res], capture_output=True, text=True)
	if p.returncode:
		die(f'{refbin} failed ({p.returncode}): {p.stderr.strip()[-400:]}')
	m = {'flows': run['flows'], 'fct': [], 'ser': {}, 'ports': {}, 'cnp': 0, 'frame_ns': 0}
	with open(res) as fh:
		for line in fh:
			w = line.split()
			if w[0] == 'fct':
				m['fct'].append((int(w[2]), max(1.0, int(w[4]) / int(w[5]))))
			elif w[0] == 'series':
				m['ser'][int(w[1])] = [int(x) for x in w[2:]]
			elif w[0] in ('queue', 'pfc'):
				m['ports'].setdefault((int(w[1]), int(w[2])), {})[w[0]] = \
					[int(x) for x in w[3:6]]
			elif w[0] == 'cnp':
				m['cnp'] += int(w[2])
			elif w[0] == 'header':
				m['frame_ns'] = int(w[2])
	return m


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	ap.add_argument('nodrop')
	ap.add_argument('refbin')
	ap.add_argument('scenario')
	ap.add_argument('out')
	ap.add_argument('--seeds', help='comma-separated (default: the scenario\'s seed)')
	ap.add_argument('--commit', default='(commit not given)')
	ap.add_argument('--work', help='keep the configs and raw results here')
	ap.add_argument('--config-only', action='store_true',
			help='write the first seed\'s reference config to OUT, run nothing')
	a = ap.parse_args()
	nodrop, refbin, scen, outpath = a.nodrop, a.refbin, a.scenario, a.out
	with open(scen) as fh:
		sc = yaml.safe_load(fh)
	name = sc.get('name') or os.path.basename(scen).rsplit('.', 1)[0]
	fabric = Fabric(sc, name)
	seeds = [int(x) for x in (a.seeds or str(sc.get('seed', 1))).split(',')]
	series = time_s(sc.get('series', '100us'))
	dur = time_s(need(sc, 'duration', name))
	window_s = series if series else dur
	mtu = int(need(sc, 'mtu', name))
	work = a.work or tempfile.mkdtemp(prefix='nd-simref-')
	os.makedirs(work, exist_ok=True)
	if a.config_only:
		# the reference's config for the first seed, run nothing (tests/bench/simref.sh)
		_, flows = drawn(nodrop, scen, seeds[0])
		with open(outpath, 'w') as fh:
			fh.write(config(sc, name, fabric, flows, window_s))
		return
	runs = [run_seed(nodrop, refbin, scen, sc, name, fabric, seed, work) for seed in seeds]
	line = mtu * 8 / runs[0]['frame_ns']
	lines = [f'# tests/simref/ref.py: {name} in the HPCC simulator\'s model (inet-tub/ns3-datacenter',
		 f'# {a.commit}) run by tests/simref/nodrop-ref.cc, '
		 f'with the flows nodrop sim drew for each seed;',
		 '# flow NAME SIZE GBPS...: payload delivered per window; port NAME QUEUE-P50 P99 MAX '
		 '(bytes, sampled',
		 '# each us) PAUSE-FRAMES-RECEIVED PAUSED-SHARE; cnp TOTAL; fct LO HI COUNT '
		 'SLOWDOWN-P50 P95 P99 over all',
		 '# seeds, the reference\'s own ideal FCT; line_gbps: payload at a host link\'s '
		 'line rate, as the model',
		 '# runs it (whole-ns frame times)',
		 f'scenario {name} seeds {",".join(map(str, seeds))} duration_s {dur:g} '
		 f'window_s {window_s:g} line_gbps {line:.3f}']
	for seed, m in zip(seeds, runs):
		lines.append(f'seed {seed} flows {len(m["flows"])}')
		if series:
			for i, f in enumerate(m['flows']):
				gbps = [b * 8 / window_s / 1e9 for b in m['ser'].get(i, [])]
				lines.append(f'flow {f["name"].split()[-1]} {f["size"]} ' +
					     ' '.join(f'{g:.3f}' for g in gbps))
		for key in sorted(m['ports']):
			p = m['ports'][key]
			q = p.get('queue', [0, 0, 0])
			sent, got, paused = p.get('pfc', [0, 0, 0])
			if not any(q) and not got:
				continue
			lines.append(f'port {fabric.names[key]} {q[0]} {q[1]} {q[2]} {got} '
				     f'{paused / (dur * 1e9):.6f}')
		lines.append(f'cnp {m["cnp"]}')
	fct = [x for m in runs for x in m['fct']]
	for b, lo in enumerate(BUCKETS):
		hi = BUCKETS[b + 1] if b + 1 < len(BUCKETS) else 0
		sd = sorted(s for size, s in fct if size >= lo and (not hi or size < hi))
		if sd:
			lines.append(f'fct {lo} {hi} {len(sd)} {nearest_rank(sd, .5):.4f} '
				     f'{nearest_rank(sd, .95):.4f} {nearest_rank(sd, .99):.4f}')
		else:
			lines.append(f'fct {lo} {hi} 0 0 0 0')
	with open(outpath, 'w') as fh:
		fh.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
	main()
