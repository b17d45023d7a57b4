#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The property tier: nodrop apply / audit / rollback against the kernel's own view.

Run inside a test guest by tests/vm/oracle.sh. Seeded random valid profiles over every field
nicsim holds, applied to nicsim ports put in random starting states with iproute2 (dcb, ip).
The expected state of each case is computed here from the profile and the iproute2 / nicsim
semantics (dcb-*(8), nodrop-profile(5), nicsim_dcb.c's mlx5 rules), never from nodrop's plan code;
iproute2's JSON (and nicsim's debugfs trust file) is the oracle. Each case checks:
  - the start state made with dcb/ip reads back as set;
  - apply exits 0 and the ports read back as the profile says, the port not given untouched;
  - audit exits 0; a second apply is a no-op;
  - one random profile key changed behind nodrop's back makes audit exit 1 naming exactly it;
  - show -j agrees with dcb -j / ip -j on every key they share;
  - rollback restores the whole dcb -j / ip -j dump of the ports byte for byte.
Some cases first inject a driver fault (nicsim debugfs) into the apply, or kill -9 it part way
and roll back: either must leave the exact pre-state. Others run two applies at once, with the
same or different state directories: the result is one profile after the other, never a mix.
The ports as iproute2 and nicsim show and set them: oracle_port.py.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_port import (  # noqa: E402
	BATCH_READS, DBG, DCBX_BITS, EPROTO_RETRIES, OBJS, SET_RETRIES, model, read_bw, set_verified,
	sh, snap, snaps)

NPRIO = 8
CELL = 128			# nicsim stores buffer sizes in 128-byte cells (rounds down)
TOTAL = 262144			# nicsim's default buffer total_size
MAX_MTU = 9978
G100M = 100000			# kbit/s
G1 = 1000000
ERRNOS = ('EIO', 'EBUSY', 'ENOMEM', 'EINVAL', 'EPERM', 'ETIMEDOUT')


class Run:
	"""Counts and failures of one guest's run."""

	def __init__(self, args):
		self.args = args
		self.passed = 0
		self.failed = 0
		self.case = 0
		self.cur = {}
		self.stats = {'cases': 0, 'faults': 0, 'kills': 0, 'concurrent': 0, 'perturbed': 0}

	def check(self, ok, what, detail=''):
		if ok:
			self.passed += 1
			if self.args.verbose:
				print(f'ok - case {self.case}: {what}', flush=True)
		else:
			self.failed += 1
			print(f'not ok - case {self.case}: {what}' + (f': {detail}' if detail else ''),
			      flush=True)
		return ok


def nd_env(extra=None):
	env = dict(os.environ)
	env.pop('NODROP_STEP_DELAY_MS', None)
	if extra:
		env.update(extra)
	return env


# ---- random valid values ----

def rand_ets(rng):
	tsa = [rng.choice(('ets', 'ets', 'strict', 'vendor')) for _ in range(NPRIO)]
	ets = [i for i, t in enumerate(tsa) if t == 'ets']
	bw = [0] * NPRIO
	if ets:
		cuts = sorted(rng.sample(range(1, 100), len(ets) - 1)) if len(ets) > 1 else []
		parts = [b - a for a, b in zip([0] + cuts, cuts + [100])]
		for i, p in zip(ets, parts):
			bw[i] = p
	return [rng.randrange(NPRIO) for _ in range(NPRIO)], tsa, bw


def rand_buffers(rng, pfc_en):
	"""A mapping nodrop's pfc-buffer lint accepts and nicsim can hold: lossless priorities in
	buffers 1..3 of their own, the others in 0 or 4..7, every referenced buffer sized."""
	lossless = [i for i in range(NPRIO) if pfc_en[i]]
	p2b = [rng.choice((1, 2, 3)) if pfc_en[i] else rng.choice((0, 0, 4, 5, 6, 7))
	       for i in range(NPRIO)]
	if not lossless:
		p2b = [rng.randrange(NPRIO) for _ in range(NPRIO)]
	used = set(p2b)
	while True:
		cells = [rng.randint(1, 600) if b in used else rng.choice((0, 0, rng.randint(0, 200)))
			 for b in range(NPRIO)]
		if sum(cells) * CELL <= TOTAL:
			return p2b, [c * CELL for c in cells]


def rand_maxrate(rng):
	out = []
	for _ in range(NPRIO):
		r = rng.random()
		out.append(0 if r < 0.5 else rng.randint(1, 255) * G100M if r < 0.8 else
			   rng.randint(26, 255) * G1)
	return out


def rand_map(rng):
	if rng.random() < 0.15:
		return {d: d >> 3 for d in range(64)}, 'dscp>>3'
	return {d: rng.randrange(NPRIO) for d in rng.sample(range(64), rng.randint(1, 8))}, None


def lint_clean(m):
	"""No PFC priority shares a buffer with a lossy one or sits in a zero-sized buffer."""
	for p in range(NPRIO):
		if not m['pfc_en'][p]:
			continue
		b = m['p2b'][p]
		if not m['bsize'][b]:
			return False
		if any(m['p2b'][q] == b and not m['pfc_en'][q] for q in range(NPRIO)):
			return False
	return True


def rand_start(rng, cur):
	"""A random kernel-valid state from @cur: each part changed with probability 1/2."""
	w = json.loads(json.dumps(cur))
	w['app'] = dict(cur['app'])
	if rng.random() < 0.5:
		w['mtu'] = rng.choice((1500, 1500, 4200, 9000, rng.randint(1280, MAX_MTU)))
	if rng.random() < 0.5:
		w['dcbx'] = rng.choice((0x01, 0x09, 0x11, 0x19))
	if rng.random() < 0.5:
		w['pfc_en'] = [rng.random() < 0.25 for _ in range(NPRIO)]
		w['delay'] = rng.randint(1, 999)
	if rng.random() < 0.5 or not lint_clean(w):
		w['p2b'], w['bsize'] = rand_buffers(rng, w['pfc_en'])
	if rng.random() < 0.5:
		w['prio_tc'], w['tsa'], bw = rand_ets(rng)
		w['bw'] = read_bw(w['tsa'], bw)
	if rng.random() < 0.5:
		w['maxrate'] = rand_maxrate(rng)
	if rng.random() < 0.5:
		w['app'] = {} if rng.random() < 0.3 else rand_map(rng)[0]
	w['trust'] = 'dscp' if w['app'] else 'pcp'
	return w


# ---- profiles ----

def per_index(rng, vals, fmt=str):
	"""A PER-INDEX MAP as nodrop-profile(5) writes it: all indexes, or all: + overrides."""
	if rng.random() < 0.5:
		return '{' + ', '.join(f'{i}: {fmt(v)}' for i, v in enumerate(vals)) + '}'
	common = max(set(vals), key=vals.count)
	rest = [f'{i}: {fmt(v)}' for i, v in enumerate(vals) if v != common]
	return '{' + ', '.join([f'all: {fmt(common)}'] + rest) + '}'


def fmt_size(rng):
	def f(n):
		if n and n % 1024 == 0 and rng.random() < 0.5:
			return f'{n // 1024}' + rng.choice(('K', 'KiB'))
		return str(n)
	return f


def fmt_rate(rng):
	def f(k):
		if not k:
			return rng.choice(('0', 'unlimited'))
		forms = [f'{k}Kbit', f'{k // 1000}Mbit'] if k % 1000 == 0 else [f'{k}Kbit']
		if k % G1 == 0:
			forms.append(f'{k // G1}' + rng.choice(('Gbit', 'gbit', ' Gbit')))
		return rng.choice(forms)
	return f


def rand_profile(rng, pres, name, safe=False):
	"""A random valid profile for ports in states @pres: (YAML text, the set keys, the expected
	model of each port after apply). @safe: no PFC or buffer keys, so two such profiles apply
	cleanly in either order."""
	for _ in range(200):
		p = {}
		if rng.random() < 0.5:
			p['mtu'] = rng.choice((1500, 4200, 9000, MAX_MTU, rng.randint(1280, MAX_MTU)))
		if rng.random() < 0.4:
			p['dcbx'] = 'host'
		r = rng.random()
		if r < 0.15:
			p['trust'] = 'pcp'
		elif r < 0.55:
			p['dscp-map'] = rand_map(rng)
			if rng.random() < 0.5:
				p['trust'] = 'dscp'
		if not safe and rng.random() < 0.5:
			p['pfc.priorities'] = [i for i in range(NPRIO) if rng.random() < 0.3]
		if rng.random() < 0.4:
			p['pfc.cable-length'] = rng.randint(1, 999)
		if rng.random() < 0.5:
			prio_tc, tsa, bw = rand_ets(rng)
			p['ets.prio-tc'] = prio_tc
			if rng.random() < 0.7:
				p['ets.tsa'], p['ets.bandwidth'] = tsa, bw
		if rng.random() < 0.4:
			p['maxrate'] = rand_maxrate(rng)
		exps = [expect(m, p) for m in pres]
		if not safe and (rng.random() < 0.4 or not all(map(lint_clean, exps))):
			p['buffer.prio-buffer'], p['buffer.size'] = rand_buffers(rng, exps[0]['pfc_en'])
			exps = [expect(m, p) for m in pres]
		if p and all(map(lint_clean, exps)):
			return yaml(rng, name, p), p, exps
	raise RuntimeError('no valid profile in 200 tries')


def expect(pre, p):
	"""The port after applying profile @p to state @pre, by the kernel's and nicsim's rules."""
	m = json.loads(json.dumps(pre))
	m['app'] = dict(pre['app'])
	if 'mtu' in p:
		m['mtu'] = p['mtu']
	if 'dcbx' in p:
		m['dcbx'] = DCBX_BITS['host'] | DCBX_BITS['ieee']
	if 'dscp-map' in p:
		m['app'] = dict(p['dscp-map'][0])
	elif p.get('trust') == 'pcp':
		m['app'] = {}		# nicsim (mlx5): PCP trust is an APP table without DSCP entries
	if 'pfc.priorities' in p:
		m['pfc_en'] = [i in p['pfc.priorities'] for i in range(NPRIO)]
	if 'pfc.cable-length' in p:
		m['delay'] = p['pfc.cable-length']
	if 'ets.prio-tc' in p:
		m['prio_tc'] = list(p['ets.prio-tc'])
	if 'ets.tsa' in p:
		m['tsa'] = list(p['ets.tsa'])
		m['bw'] = read_bw(p['ets.tsa'], p['ets.bandwidth'])
	if 'buffer.prio-buffer' in p:
		m['p2b'], m['bsize'] = list(p['buffer.prio-buffer']), list(p['buffer.size'])
	if 'maxrate' in p:
		m['maxrate'] = list(p['maxrate'])
	m['trust'] = 'dscp' if m['app'] else 'pcp'
	return m


def yaml(rng, name, p):
	out = [f'name: {name}', 'ports:', '  names: ["nicsim*"]']
	for k in ('mtu', 'dcbx', 'trust'):
		if k in p:
			out.append(f'{k}: {p[k]}')
	if 'dscp-map' in p:
		m, word = p['dscp-map']
		out.append('dscp-map: ' + (word or '{' + ', '.join(f'{d}: {v}' for d, v in
								 sorted(m.items())) + '}'))
	sections = {
		'pfc': [('priorities', lambda v: '[' + ', '.join(map(str, v)) + ']'),
			('cable-length', str)],
		'ets': [('prio-tc', lambda v: per_index(rng, v)), ('tsa', lambda v: per_index(rng, v)),
			('bandwidth', lambda v: per_index(rng, v))],
		'buffer': [('prio-buffer', lambda v: per_index(rng, v)),
			   ('size', lambda v: per_index(rng, v, fmt_size(rng)))],
	}
	for sec, keys in sections.items():
		lines = [f'  {k}: {f(p[sec + "." + k])}' for k, f in keys if sec + '.' + k in p]
		if lines:
			out += [f'{sec}:'] + lines
	if 'maxrate' in p:
		out.append('maxrate: ' + per_index(rng, p['maxrate'], fmt_rate(rng)))
	return '\n'.join(out) + '\n'


# ---- one random key changed behind nodrop's back ----

def perturb(rng, dev, m, p, base):
	"""Change one profile key on the port with dcb/ip; returns (key, undo) or None. @base is
	the port's snapshot as @m."""
	keys = [k for k in p if k != 'ets.bandwidth' or sum(1 for t in m['tsa'] if t == 'ets') > 1]
	if 'ets.tsa' in keys and all(t == 'ets' for t in m['tsa']):
		keys.remove('ets.tsa')
	if 'trust' in keys and 'dscp-map' in p:
		keys.remove('trust')	# trust follows the map: change the map instead
	if not keys:
		return None
	key = rng.choice(sorted(keys))
	w = json.loads(json.dumps(m))
	w['app'] = dict(m['app'])
	if key == 'mtu':
		w['mtu'] = rng.choice([v for v in (1500, 4200, 9000, 9100) if v != m['mtu']])
	elif key == 'dcbx':
		w['dcbx'] = rng.choice((0x01, 0x19))
	elif key == 'trust':		# trust: pcp, the map not in the profile
		w['app'] = {rng.randrange(64): rng.randrange(NPRIO)}
	elif key == 'dscp-map':
		free = [d for d in range(64) if d not in m['app']]
		if free:
			w['app'][rng.choice(free)] = rng.randrange(NPRIO)
		else:
			d = rng.randrange(64)
			w['app'][d] = (m['app'][d] + 1) % NPRIO
	elif key == 'pfc.priorities':
		i = rng.randrange(NPRIO)
		w['pfc_en'][i] = not w['pfc_en'][i]
	elif key == 'pfc.cable-length':
		w['delay'] = m['delay'] % 999 + 1
	elif key == 'ets.prio-tc':
		i = rng.randrange(NPRIO)
		w['prio_tc'][i] = (m['prio_tc'][i] + 1) % NPRIO
	elif key == 'ets.tsa':
		i = rng.choice([i for i, t in enumerate(m['tsa']) if t != 'ets'])
		w['tsa'][i] = 'vendor' if m['tsa'][i] == 'strict' else 'strict'
	elif key == 'ets.bandwidth':
		a, b = rng.sample([i for i, t in enumerate(m['tsa']) if t == 'ets'], 2)
		if w['bw'][a] == 0:
			a, b = b, a
		w['bw'][a] -= 1
		w['bw'][b] += 1
	elif key == 'buffer.prio-buffer':
		i = rng.randrange(NPRIO)
		w['p2b'][i] = rng.choice([b for b in range(NPRIO) if b != m['p2b'][i] and m['bsize'][b]])
	elif key == 'buffer.size':
		used = set(m['p2b'])
		b = rng.randrange(NPRIO)
		w['bsize'][b] = m['bsize'][b] + CELL if sum(m['bsize']) + CELL <= TOTAL and \
			(b in used or rng.random() < 0.5) else max(m['bsize'][b] - CELL, 0)
		if w['bsize'][b] == m['bsize'][b] or (b in used and not w['bsize'][b]):
			return None
	elif key == 'maxrate':
		i = rng.randrange(NPRIO)
		w['maxrate'][i] = G100M if m['maxrate'][i] != G100M else 2 * G100M
	w['trust'] = 'dscp' if w['app'] else 'pcp'
	changed = set_verified(dev, m, w, base)
	if model(changed) != w:
		raise RuntimeError(f'{dev}: dcb/ip could not change {key}')
	return key, lambda: model(set_verified(dev, w, m, changed)) == m


# ---- checks ----

def drift_keys(out):
	j = json.loads(out)
	return sorted({d['field'] for port in j['ports'] for d in port['drift'] if not d.get('skipped')})


def show_agrees(run, dev, s):
	rc, out, err = sh([ND, 'show', '-j', dev])
	if not run.check(rc == 0, f'{dev}: show -j exits 0', err):
		return
	port = json.loads(out)[0]
	link = json.loads(s['link'])[0]
	bad = [k for k in set(port) & set(link) if port[k] != link[k]]
	for o in OBJS:
		kernel = json.loads(s[o])
		mine = port['dcb'].get(o, {})
		bad += [f'{o}.{k}' for k in set(kernel) & set(mine) if kernel[k] != mine[k]]
		bad += [f'{o}.{k} missing' for k in kernel if k not in mine and k in ('prio_pfc', 'delay',
			'prio_tc', 'tc_tsa', 'tc_bw', 'prio_buffer', 'buffer_size', 'tc_maxrate',
			'dscp_prio')]
	if port['dcb'].get('trust') != s['trust']:
		bad.append(f'trust {port["dcb"].get("trust")} vs nicsim {s["trust"]}')
	run.check(not bad and 'mtu' in port and 'prio_pfc' in port['dcb'].get('pfc', {}),
		  f'{dev}: show -j agrees with dcb -j / ip -j on every shared key', ', '.join(bad))


def diff_models(a, b):
	return ', '.join(f'{k}: {a[k]} vs {b[k]}' for k in a if a[k] != b[k])


class Case:
	def __init__(self, run, rng, devs, state):
		self.run, self.rng, self.devs, self.state = run, rng, devs, state
		self.path = f'/tmp/oracle-{run.case}.yaml'

	def snaps(self):
		return snaps(self.devs)

	def apply(self, *extra, env=None, state=None, path=None):
		cmd = [ND, 'apply', '-j', '--state-dir', state or self.state]
		for d in self.devs:
			cmd += ['--dev', d]
		return sh(cmd + list(extra) + [path or self.path], env=nd_env(env))

	def same(self, want, what):
		got = self.snaps()
		bad = [f'{d}.{k}' for d in want for k in want[d] if want[d][k] != got[d][k]]
		return self.run.check(not bad, what, '; '.join(
			f'{d}.{k}: want {want[d][k].strip()} got {got[d][k].strip()}' for d, k in
			(x.split('.') for x in bad)))


def case_start(run, rng, devs):
	"""Random start states with dcb/ip: their models and snapshots, read back. What the ports
	hold now is known from the case before (each case ends on a snapshot it has read back and
	compared), so only the parts set are read again."""
	pres, snaps = {}, {}
	for d in devs:
		base = run.cur.get(d) or snap(d)
		cur = model(base)
		want = rand_start(rng, cur)
		snaps[d] = set_verified(d, cur, want, base)
		pres[d] = model(snaps[d])
		run.check(pres[d] == want, f'{d}: the start state reads back as set with dcb/ip',
			  diff_models(want, pres[d]))
	return pres, snaps


def fault_ops(pre, exp):
	ops = []
	if pre['pfc_en'] != exp['pfc_en'] or pre['delay'] != exp['delay']:
		ops.append('setpfc')
	if (pre['prio_tc'], pre['tsa'], pre['bw']) != (exp['prio_tc'], exp['tsa'], exp['bw']):
		ops.append('setets')
	if (pre['p2b'], pre['bsize']) != (exp['p2b'], exp['bsize']):
		ops.append('setbuffer')
	if pre['maxrate'] != exp['maxrate']:
		ops.append('setmaxrate')
	if pre['dcbx'] != exp['dcbx']:
		ops.append('setdcbx')
	if any(exp['app'].get(d) != p for d, p in pre['app'].items()):
		ops.append('delapp')
	if any(pre['app'].get(d) != p for d, p in exp['app'].items()):
		ops.append('setapp')
	return ops


def with_fault(c, pre, pres, p, exps):
	"""An injected driver failure part way: exit 3 and every port exactly as before."""
	run, rng = c.run, c.rng
	cands = [(d, op) for d in c.devs for op in fault_ops(pres[d], exps[d])]
	# read faults stop the apply before it writes; write faults on the last port come after
	# the first port was written
	if not cands or rng.random() < 0.25:
		cands = [(d, op) for d in c.devs for op in ('getpfc', 'getets', 'getbuffer', 'getmaxrate')]
	dev, op = rng.choice(cands)
	err = rng.choice(ERRNOS)
	with open(f'{DBG}/{dev}/fault', 'w') as f:
		f.write(f'{op} {err} 1\n')
	rc, out, errtxt = c.apply()
	with open(f'{DBG}/{dev}/fault') as f:
		armed = f.read().strip()
	with open(f'{DBG}/{dev}/fault', 'w') as f:
		f.write('clear\n')
	reads = {'getpfc': 'pfc.', 'getets': 'ets.', 'getbuffer': 'buffer.', 'getmaxrate': 'maxrate'}
	needed = op not in reads or any(k.startswith(reads[op]) for k in p)
	if armed or not needed:
		# not called, or a failed read of a part the profile leaves alone (the kernel leaves
		# the attribute out of its reply, as when the driver lacks it): the apply either
		# goes on and does exactly the profile, or stops at once (exit 3) having changed nothing
		got = {d: model(x) for d, x in snaps(c.devs).items()}
		run.check((rc == 0 and got == exps) or (rc == 3 and not armed and dev in errtxt),
			  f'{op} on {dev} ({"not called" if armed else "a part not in the profile"}): '
			  'apply does the profile or stops before writing', f'exit {rc}: {errtxt}')
		if rc == 0:
			sh([ND, 'rollback', '--state-dir', c.state], env=nd_env())
		c.same(pre, f'{op} on {dev}: the pre-state again')
		return
	run.stats['faults'] += 1
	# a failed read of a part the profile sets: refused (1, "cannot read") or failed (3)
	run.check(rc == 3 or (op in reads and rc == 1), f'{op} {err} on {dev}: apply fails',
		  f'exit {rc}: {errtxt}')
	run.check(dev in errtxt, f'{op} on {dev}: the error names the port', errtxt)
	c.same(pre, f'{op} {err} on {dev}: every port is in its exact pre-state')


def with_kill(c, pre):
	"""kill -9 at a random moment of a slowed apply, then rollback: the exact pre-state."""
	run, rng = c.run, c.rng
	delay = rng.randint(20, 120)
	cmd = [ND, 'apply', '--state-dir', c.state] + sum((['--dev', d] for d in c.devs), []) + [c.path]
	p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
			     env=nd_env({'NODROP_STEP_DELAY_MS': str(delay)}))
	time.sleep(rng.uniform(0, 0.15 + delay * 8 / 1000))
	p.send_signal(signal.SIGKILL)
	p.wait()
	run.stats['kills'] += 1
	rc, out, err = sh([ND, 'rollback', '-j', '--state-dir', c.state], env=nd_env())
	run.check(rc == 0, f'rollback after kill -9 at a random point ({delay} ms steps) exits 0',
		  f'exit {rc}: {err}')
	c.same(pre, 'kill -9 + rollback: every port is in its exact pre-state')


def normal(c, pre, pres, text, p, exps):
	run, rng = c.run, c.rng
	rc, out, err = c.apply()
	if not run.check(rc == 0, 'apply exits 0', f'exit {rc}: {err}\n{text}'):
		return False
	post = c.snaps()
	for d in c.devs:
		got = model(post[d])
		run.check(got == exps[d], f'{d}: reads back as the profile says (dcb -j, ip -j)',
			  diff_models(exps[d], got) + '\n' + text)
	rc, out, err = c.audit()
	run.check(rc == 0 and not drift_keys(out), 'audit after apply exits 0, no drift',
		  f'exit {rc}: {err} {out[:400]}')
	rc, out, err = c.apply()
	run.check(rc == 0 and json.loads(out or '{}').get('outcome') == 'no-op',
		  'a second apply is a no-op', f'exit {rc}: {out[:300]} {err}')
	d = rng.choice(c.devs)
	show_agrees(run, d, post[d])
	pert = perturb(rng, d, exps[d], p, post[d])
	if pert:
		key, undo = pert
		run.stats['perturbed'] += 1
		rc, out, err = c.audit()
		got = drift_keys(out) if rc == 1 else []
		run.check(rc == 1 and got == [key], f'{key} changed behind nodrop\'s back on {d}: '
			  'audit exits 1 naming exactly it', f'exit {rc}, drift {got}: {err}')
		run.check(undo(), f'{key} set back on {d} with dcb/ip')
	rc, out, err = sh([ND, 'rollback', '-j', '--state-dir', c.state], env=nd_env())
	run.check(rc == 0, 'rollback exits 0', f'exit {rc}: {err}')
	return c.same(pre, 'rollback restores the whole dcb -j / ip -j dump byte for byte')


def lock_holder(procs):
	"""The index of the process that holds nodrop's host-wide lock (the abstract UNIX socket
	@nodrop/apply, nodrop-apply(8)), or None."""
	inode = None
	with open('/proc/net/unix') as f:
		for line in f:
			if line.rstrip().endswith(' @nodrop/apply'):
				inode = line.split()[6]
	if inode is None:
		return None
	for i, pr in enumerate(procs):
		try:
			fds = os.listdir(f'/proc/{pr.pid}/fd')
			if any(os.readlink(f'/proc/{pr.pid}/fd/{fd}') == f'socket:[{inode}]' for fd in fds):
				return i
		except OSError:
			continue	# gone meanwhile, or an fd closed while we looked
	return None


def concurrent(c, pre, pres):
	"""Two applies at once: one waits for the other; the ports hold one profile after the
	other, never a mix; rollback undoes the last one."""
	run, rng = c.run, c.rng
	same_dir = run.stats['concurrent'] % 2 == 0
	run.stats['concurrent'] += 1
	paths, sets, states, procs = [], [], [], []
	for i in range(2):
		text, p, _ = rand_profile(rng, [pres[d] for d in c.devs], f'oracle-{run.case}-{i}',
					  safe=True)
		paths.append(f'/tmp/oracle-{run.case}-{i}.yaml')
		with open(paths[-1], 'w') as f:
			f.write(text)
		sets.append(p)
		states.append(c.state if same_dir or i == 0 else c.state + '-other')
	for i in range(2):
		cmd = [ND, 'apply', '--wait', '60', '--state-dir', states[i]] + \
			sum((['--dev', d] for d in c.devs), []) + [paths[i]]
		procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
					      text=True, env=nd_env({'NODROP_STEP_DELAY_MS': '40'})))
		time.sleep(rng.uniform(0, 0.05))
	# Who ran first is who held the lock first: seen by its socket, as each apply holds the
	# lock at least NODROP_STEP_DELAY_MS. When both profiles lead to the same end state, the
	# order of the exits alone can mislead (both may be reaped in one poll).
	first = None
	while any(pr.poll() is None for pr in procs):
		if first is None:
			first = lock_holder(procs)
		time.sleep(0.005)
	for i, pr in enumerate(procs):
		run.check(pr.returncode == 0, f'concurrent apply {i} ({"same" if same_dir else "own"} '
			  'state dir) exits 0', pr.stderr.read())
	if not run.check(first is not None, 'the lock holder was seen'):
		return
	second = 1 - first
	mid = {d: expect(pres[d], sets[first]) for d in c.devs}
	want = {d: expect(mid[d], sets[second]) for d in c.devs}
	got = {d: model(x) for d, x in snaps(c.devs).items()}
	run.check(got == want, 'two applies at once: one profile after the other, not a mix',
		  '; '.join(diff_models(want[d], got[d]) for d in c.devs))
	# rollback acts on the last apply that wrote: when the second found nothing to do, that is
	# the first, and in a shared state dir its rollback goes back to the pre-state
	noop = all(want[d] == mid[d] for d in c.devs)
	after = pres if same_dir and noop else mid
	rc, out, err = sh([ND, 'rollback', '--state-dir', states[second]], env=nd_env())
	got = {d: model(x) for d, x in snaps(c.devs).items()}
	run.check(rc == 0 and got == after, 'rollback undoes the last apply that wrote',
		  f'exit {rc}: {err}; ' + '; '.join(diff_models(after[d], got[d]) for d in c.devs))
	rc, out, err = sh([ND, 'rollback', '-j', '--state-dir', states[first]], env=nd_env())
	if same_dir:
		now = c.snaps()
		got = {d: model(now[d]) for d in c.devs}
		if run.check(rc == 0 and json.loads(out).get('outcome') == 'no-op' and got == after,
			     'the superseded journal is not rolled back again', f'exit {rc}: {out} {err}'):
			run.cur = now
	else:
		run.check(rc == 0, 'rollback of the first apply (own state dir) exits 0', err)
		if c.same(pre, 'both rolled back: the exact pre-state'):
			run.cur = pre


def one_case(run, rng, ports):
	kind = run.case % 10
	devs = sorted(rng.sample(ports[:2], 2 if kind < 3 or rng.random() < 0.3 else 1))
	c = Case(run, rng, devs, run.args.state)
	c.audit = lambda: sh([ND, 'audit', '-j'] + sum((['--dev', d] for d in devs), []) + [c.path],
			     env=nd_env())
	pres, pre = case_start(run, rng, devs)
	run.stats['cases'] += 1
	run.cur = {}		# until the case ends on a state it has read back
	if kind == 5:
		concurrent(c, pre, pres)
		return
	text, p, exp_list = rand_profile(rng, [pres[d] for d in devs], f'oracle-{run.case}')
	exps = dict(zip(devs, exp_list))
	with open(c.path, 'w') as f:
		f.write(text)
	if kind < 3:
		with_fault(c, pre, pres, p, exps)
	elif kind < 5:
		with_kill(c, pre)
	if normal(c, pre, pres, text, p, exps):
		run.cur = pre
	os.unlink(c.path)


ND = os.environ.get('ND_NODROP', 'build/nodrop')


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	ap.add_argument('--seed', type=int, required=True)
	ap.add_argument('--cases', type=int, default=100)
	ap.add_argument('--state', default='/tmp/oracle-state')
	ap.add_argument('--rerun', default='')
	ap.add_argument('-v', '--verbose', action='store_true')
	args = ap.parse_args()
	run = Run(args)
	rng = random.Random(args.seed)
	ports = ['nicsim0', 'nicsim1', 'nicsim2']
	print(f'oracle: seed {args.seed}, {args.cases} cases; rerun: {args.rerun}', flush=True)
	bystander = snap(ports[2])
	t0 = time.time()
	for i in range(args.cases):
		run.case = i
		before = run.failed
		try:
			one_case(run, rng, ports)
		except (RuntimeError, ValueError, KeyError, IndexError) as ex:
			kmsg = sh(['dmesg'])[1].splitlines()[-3:]
			run.check(False, 'the case ran', f'{ex!r}; kernel: {kmsg}')
		if run.failed > before:
			print(f'# case {i} failed; seed {args.seed}; rerun: {args.rerun}', flush=True)
			if run.failed > 20:
				break
		if (i + 1) % 25 == 0:
			print(f'# {i + 1} cases, {time.time() - t0:.0f} s, {run.failed} failed', flush=True)
	run.case = 'end'
	now = snap(ports[2])
	run.check(now == bystander, 'the port no apply was given is untouched',
		  '; '.join(f'{k}: {bystander[k]!r} -> {now[k]!r}' for k in now if now[k] != bystander[k]))
	s = run.stats
	print(f'oracle: seed {args.seed}: {s["cases"]} cases ({s["faults"]} fault points, '
	      f'{s["kills"]} kills, {s["concurrent"]} concurrent pairs, {s["perturbed"]} '
	      f'perturbations) in {time.time() - t0:.0f} s; dcb retried {EPROTO_RETRIES[0]} writes '
	      f'after a netlink sequence mismatch, {SET_RETRIES[0]} after a read-back that differed; '
	      f'dcb reads: {BATCH_READS["batched"]} batched, {BATCH_READS["one by one"]} one by one')
	print(f'{run.passed} passed, {run.failed} failed')
	return 1 if run.failed else 0


if __name__ == '__main__':
	sys.exit(main())
