# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The property tier's ports (tests/vm/oracle.py): nicsim ports as iproute2 (dcb, ip) and nicsim's
debugfs show them, the oracle's model of a port read from that, and a state set with dcb and ip."""
import json
import os
import re
import selectors
import signal

DCB = '/usr/sbin/dcb'
IP = '/usr/sbin/ip'
DBG = '/sys/kernel/debug/nicsim'
OBJS = ('pfc', 'ets', 'app', 'buffer', 'maxrate', 'dcbx')
DCBX_BITS = {'host': 0x01, 'lld_managed': 0x02, 'cee': 0x04, 'ieee': 0x08, 'static': 0x10}


def sh(cmd, env=None, check=False):
	"""Run @cmd, its stdout and stderr as text. posix_spawn rather than subprocess.run: under
	TCG the guest pays subprocess's Python for every one of the tier's ~15,000 runs (a dcb
	show 39 -> 34 ms)."""
	pipes = [os.pipe(), os.pipe()]
	acts = [(os.POSIX_SPAWN_DUP2, w, fd) for fd, (r, w) in zip((1, 2), pipes)]
	acts += [(os.POSIX_SPAWN_CLOSE, x) for pair in pipes for x in pair]
	try:
		pid = os.posix_spawnp(cmd[0], cmd, os.environ if env is None else env,
				      file_actions=acts, setsigdef=(signal.SIGPIPE,))
	except OSError:
		for r, _ in pipes:
			os.close(r)
		raise
	finally:
		for r, w in pipes:
			os.close(w)
	got = {r: [] for r, _ in pipes}
	with selectors.DefaultSelector() as sel:
		for r in got:
			sel.register(r, selectors.EVENT_READ)
		while sel.get_map():
			for key, _ in sel.select():
				b = os.read(key.fd, 65536)
				if b:
					got[key.fd].append(b)
				else:
					sel.unregister(key.fd)
					os.close(key.fd)
	rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
	out, err = (b''.join(got[r]).decode(errors='replace') for r, _ in pipes)
	if check and rc:
		raise RuntimeError(f'{" ".join(cmd)}: exit {rc}: {err.strip()}')
	return rc, out, err


EPROTO_RETRIES = [0]


def dcb(*args):
	"""dcb ... set; once more when dcb lost its place in the netlink conversation. iproute2
	6.1's dcb leaves the ACK of its own read-before-write in its socket and reads it as the
	write's answer: when a second turns between the two (its sequence numbers are time(NULL)),
	"Attribute write: Protocol error" (fixed in 6.2 by d0e02f35; guest-lib.sh). The write was
	sent either way and is the same again; the read-back after decides."""
	for _ in range(2):
		rc, out, err = sh([DCB] + list(args))
		if rc == 0 or 'Protocol error' not in err:
			break
		EPROTO_RETRIES[0] += 1
	if rc:
		raise RuntimeError(f'{DCB} {" ".join(args)}: exit {rc}: {err.strip()}')


# ---- the kernel's view ----

PARTS = OBJS + ('link',)
# which part of a snapshot holds each key of the model (trust is read every time: nicsim's app
# table sets it)
PART_OF = {'mtu': 'link', 'dcbx': 'dcbx', 'pfc_en': 'pfc', 'delay': 'pfc', 'prio_tc': 'ets',
	   'tsa': 'ets', 'bw': 'ets', 'app': 'app', 'p2b': 'buffer', 'bsize': 'buffer',
	   'maxrate': 'maxrate'}


def json_docs(text):
	"""The JSON documents printed one after another in @text, each as the text it was (dcb -b
	-j puts a comma between two)."""
	dec, docs, i = json.JSONDecoder(), [], 0
	while True:
		while i < len(text) and (text[i].isspace() or text[i] == ','):
			i += 1
		if i == len(text):
			return docs
		end = dec.raw_decode(text, i)[1]
		docs.append(text[i:end])
		i = end


BATCH = '/tmp/oracle-dcb.batch'
KEY_OF = {'pfc': 'pfc_cap', 'ets': 'ets_cap', 'buffer': 'prio_buffer', 'maxrate': 'tc_maxrate'}
BATCH_READS = {'batched': 0, 'one by one': 0}


def own_keys(objs, docs):
	"""Each answer has its object's own key."""
	return all(KEY_OF[o] in json.loads(t) for o, t in zip(objs, docs) if o in KEY_OF)


def dcb_show(dev, objs):
	"""The dcb -j text of each of @objs on port @dev, from one `dcb -b` run: under TCG a dcb run
	costs 35 ms, a batch of all six little more than one. iproute2 6.1's dcb stops reading at
	the answer and leaves the kernel's ACK in its socket (fixed in 6.2, d0e02f35), so in a
	batch each command reads what the ones before left: the second of two reads the first's
	ACK and fails ("Attribute not found"), the third reads the answer the second left, and so
	on (line 2k+1 prints from the answer to line k+1). So each read is asked twice, the batch
	asks about one port only and dcbx last: every answer an odd line can read is then dcbnl's
	IEEE get of this port, which holds all six objects, taken with nothing written between.
	With a fixed dcb both of each pair answer and must agree. Anything else (a second that
	turns between two commands gives them different sequence numbers: "Protocol error"), and
	each object is read on its own."""
	objs = sorted(objs, key=OBJS.index)
	with open(BATCH, 'w') as f:
		f.write(''.join(f'{o} show dev {dev}\n' * 2 for o in objs))
	rc, out, err = sh([DCB, '-j', '-f', '-b', BATCH])
	docs, n = json_docs(out), len(objs)
	lost = re.findall(rf'^Command failed {re.escape(BATCH)}:(\d+)$', err, re.M)
	quiet = all(ln in ('Attribute not found: Success', '') or ln.startswith('Command failed ')
		    for ln in err.split('\n'))
	if quiet and lost == [str(2 * i + 2) for i in range(n)] and len(docs) == n:
		answers = docs
	elif not err and rc == 0 and len(docs) == 2 * n and docs[::2] == docs[1::2]:
		answers = docs[::2]
	else:
		answers = None
	if answers and own_keys(objs, answers):
		BATCH_READS['batched'] += 1
		return dict(zip(objs, answers))
	BATCH_READS['one by one'] += 1
	return {o: json_docs(sh([DCB, '-j', o, 'show', 'dev', dev], check=True)[1])[0]
		for o in objs}


def snaps(devs, bases=None, parts=None):
	"""The whole observable state of each port of @devs: raw dcb -j text, its ip -j link
	entry, and nicsim's trust; a dcb run for each port, one ip run for all. With @bases
	(a snapshot of each port), only @parts are read again: nicsim's parts never change one
	another, and nothing but the oracle writes them between two reads."""
	want = parts if bases else PARTS
	got = {d: dict(bases[d]) if bases else {} for d in devs}
	objs = [o for o in want if o != 'link']
	if objs:
		for d in devs:
			got[d].update(dcb_show(d, objs))
	if 'link' in want:
		links = json.loads(sh([IP, '-j', 'link', 'show'], check=True)[1])
		for e in links:
			if e['ifname'] in got:
				got[e['ifname']]['link'] = json.dumps([e])
	for d in devs:
		with open(f'{DBG}/{d}/trust') as f:
			got[d]['trust'] = f.read().strip()
	return got


def snap(dev, base=None, parts=PARTS):
	"""snaps() of one port."""
	return snaps([dev], base and {dev: base}, parts)[dev]


def changed_parts(a, b):
	"""The snapshot parts in which models @a and @b differ."""
	return sorted({PART_OF[k] for k in PART_OF if a[k] != b[k]})


def model(s):
	"""A snapshot as the oracle's model of a port (what a profile can set)."""
	j = {o: json.loads(s[o]) for o in OBJS}
	link = json.loads(s['link'])[0]
	return {
		'mtu': link['mtu'],
		'dcbx': sum(b for k, b in DCBX_BITS.items() if j['dcbx'].get(k)),
		'pfc_en': [bool(x) for x in j['pfc']['prio_pfc']],
		'delay': j['pfc']['delay'],
		'prio_tc': j['ets']['prio_tc'],
		'tsa': j['ets']['tc_tsa'],
		'bw': j['ets']['tc_bw'],
		'app': {d: p for d, p in j['app'].get('dscp_prio', [])},
		'p2b': j['buffer']['prio_buffer'],
		'bsize': j['buffer']['buffer_size'],
		'maxrate': j['maxrate']['tc_maxrate'],
		'trust': s['trust'],
	}


def read_bw(tsa, bw):
	"""nicsim (as mlx5 firmware) reads strict and vendor TCs back as 100 %."""
	return [b if t == 'ets' else 100 for t, b in zip(tsa, bw)]


# ---- start states with iproute2 ----

def set_state(dev, cur, want):
	"""Make the port hold @want (a model) with dcb and ip, touching only what differs."""
	if want['mtu'] != cur['mtu']:
		sh([IP, 'link', 'set', 'dev', dev, 'mtu', str(want['mtu'])], check=True)
	if want['dcbx'] != cur['dcbx']:
		dcb('dcbx', 'set', 'dev', dev, *[k for k, b in DCBX_BITS.items() if want['dcbx'] & b])
	if want['p2b'] != cur['p2b'] or want['bsize'] != cur['bsize']:
		dcb('buffer', 'set', 'dev', dev,
		    'prio-buffer', *[f'{i}:{b}' for i, b in enumerate(want['p2b'])],
		    'buffer-size', *[f'{i}:{b}' for i, b in enumerate(want['bsize'])])
	if want['pfc_en'] != cur['pfc_en'] or want['delay'] != cur['delay']:
		dcb('pfc', 'set', 'dev', dev,
		    'prio-pfc', *[f'{i}:{"on" if on else "off"}' for i, on in enumerate(want['pfc_en'])],
		    'delay', str(want['delay']))
	if (want['prio_tc'], want['tsa'], read_bw(want['tsa'], want['bw'])) != \
	   (cur['prio_tc'], cur['tsa'], cur['bw']):
		set_ets(dev, want['prio_tc'], want['tsa'], want['bw'])
	if want['maxrate'] != cur['maxrate']:
		set_maxrate(dev, want['maxrate'])
	if want['app'] != cur['app']:
		if cur['app']:
			dcb('app', 'flush', 'dev', dev, 'dscp-prio')
		if want['app']:
			dcb('app', 'add', 'dev', dev, 'dscp-prio',
			    *[f'{d}:{p}' for d, p in sorted(want['app'].items())])


SET_RETRIES = [0]


def set_verified(dev, cur, want, base=None):
	"""set_state, then read back; again (at most 3 times) from what the port holds when dcb
	failed or exited 0 without the change (under load it sometimes does either). Returns the
	snapshot read last; the caller compares its model with @want. With @base, the snapshot
	of the port as @cur, only the parts set are read back."""
	for attempt in range(3):
		try:
			set_state(dev, cur, want)
		except RuntimeError:
			if attempt == 2:
				raise
		base = snap(dev, base, changed_parts(cur, want))
		cur = model(base)
		if cur == want:
			return base
		SET_RETRIES[0] += 1
	return base


def set_ets(dev, prio_tc, tsa, bw):
	# dcb checks the tc-bw it sends: the shares of the non-ETS TCs must be given as 0
	dcb('ets', 'set', 'dev', dev, 'prio-tc', *[f'{i}:{t}' for i, t in enumerate(prio_tc)],
	    'tc-tsa', *[f'{i}:{t}' for i, t in enumerate(tsa)],
	    'tc-bw', *[f'{i}:{b if t == "ets" else 0}' for i, (t, b) in enumerate(zip(tsa, bw))])


def set_maxrate(dev, rates):
	# dcb-maxrate(8) takes a tc(8) rate and sends it in bytes/s; the kernel field is kbit/s:
	# N bit/s sends N/8, so 8*K "bit" puts K kbit/s in the kernel (checked by the start state).
	dcb('maxrate', 'set', 'dev', dev, 'tc-maxrate', *[f'{i}:{r * 8}bit' for i, r in enumerate(rates)])
