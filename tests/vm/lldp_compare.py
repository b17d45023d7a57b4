#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""What nodrop heard on the wire against tshark's decode of the same frames, field by field.

Usage: lldp_compare.py FRAMES.pdml PEERS.json

FRAMES.pdml is `tshark -T pdml` of the frames tests/vm/peer.sh sent (frame k in order); PEERS.json
is tests/vm/lldp_wire.py's: "peers"[k] the "peer" object `nodrop show --peer -j` printed for the
port frame k went out on. Both are brought to one shape (the selectors and TSAs as numbers, absent
parts absent) and compared; a line per frame, "ok" or what differs. Exit 1 if any differ.
"""
import json
import sys
import xml.etree.ElementTree as ET

TSA = {'strict': 0, 'cbs': 1, 'ets': 2, 'vendor': 255}
IEEE_SEL = {'ethertype': 1, 'tcp': 2, 'udp': 3, 'port': 4, 'dscp': 5}
CEE_SEL = {'ethertype': 0, 'port': 1}


def fields(e):
	"""The direct child fields of @e by name (a list each: TLVs repeat names)."""
	out = {}
	for c in e:
		if c.tag == 'field' and c.get('name'):
			out.setdefault(c.get('name'), []).append(c)
	return out


def num(f, name, i=0):
	return int(f[name][i].get('show'), 0)


def eight(f, prefix):
	return [num(f, f'{prefix}{i}') for i in range(8)]


def apps(e, prio, sel, proto):
	out = []
	for c in e:
		if c.tag != 'field' or c.get('name'):
			continue
		f = fields(c)
		if proto in f:
			out.append((num(f, sel), num(f, proto), num(f, prio)))
	return sorted(out)


def cee_of(e):
	c = {}
	for sub in e:
		if sub.tag != 'field' or sub.get('name'):
			continue
		f = fields(sub)
		if 'lldp.dcbx.type' not in f:
			continue
		t = num(f, 'lldp.dcbx.type')
		if t == 1:
			c['version'] = (num(f, 'lldp.dcbx.version'), num(f, 'lldp.dcbx.max_version'))
		elif t == 2:
			c['pg'] = (num(f, 'lldp.dcbx.feature.willing'),
				   eight(f, 'lldp.dcbx.feature.pg.pgid_prio'),
				   eight(f, 'lldp.dcbx.feature.pg.per'))
		elif t == 3:
			c['pfc'] = (num(f, 'lldp.dcbx.feature.enabled'), num(f, 'lldp.dcbx.feature.willing'),
				    eight(f, 'lldp.dcbx.feature.pfc.prio'))
		elif t == 4:
			c['app'] = apps(sub, 'lldp.dcbx.feature.app.prio', 'lldp.dcbx.feature.app.sf',
					'lldp.dcbx.feature.app.proto')
	return c


def ets_of(f, cfg):
	d = {'prio_tc': eight(f, 'lldp.dcbx.feature.pg.pgid_prio'),
	     'tc_bw': eight(f, 'lldp.dcbx.feature.pg.per'),
	     'tsa': eight(f, 'lldp.dcbx.ieee.ets.tsa')}
	if cfg:
		d['willing'] = num(f, 'lldp.dcbx.ieee.willing')
		d['cbs'] = num(f, 'lldp.dcbx.ieee.ets.cbs')
		d['max_tcs'] = num(f, 'lldp.dcbx.ieee.ets.maxtcs') or 8	# the wire's 0 is 8
	return d


def from_tshark(packet):
	lldp = next(p for p in packet.findall('proto') if p.get('name') == 'lldp')
	d = {}
	if any(p.get('name') == '_ws.malformed' for p in packet.findall('proto')):
		raise ValueError('tshark found the frame malformed')
	for tlv in lldp:
		if tlv.tag != 'field':
			continue
		f = fields(tlv)
		if 'lldp.tlv.type' not in f:
			continue
		t = num(f, 'lldp.tlv.type')
		if t == 1:
			d['chassis_id'] = f['lldp.chassis.id.mac'][0].get('show')
		elif t == 2:	# a MAC address (lldpad's subtype) has a field of its own
			d['port_id'] = (f.get('lldp.port.id.mac') or f['lldp.port.id'])[0].get('show')
		elif t == 3:
			d['ttl'] = num(f, 'lldp.time_to_live')
		elif t == 4:
			d['port_description'] = f['lldp.port.desc'][0].get('show')
		elif t == 5:
			d['system_name'] = f['lldp.tlv.system.name'][0].get('show')
		elif t == 127:
			oui = num(f, 'lldp.orgtlv.oui')
			if oui == 0x0080c2:
				sub = num(f, 'lldp.ieee.802_1.subtype')
				if sub == 9:
					d['ets'] = ets_of(f, True)
				elif sub == 10:
					d['ets_reco'] = ets_of(f, False)
				elif sub == 11:
					d['pfc'] = (num(f, 'lldp.dcbx.ieee.willing'),
						    num(f, 'lldp.dcbx.ieee.pfc.mbc'),
						    num(f, 'lldp.dcbx.ieee.pfc.numtcs'),
						    eight(f, 'lldp.dcbx.feature.pfc.prio'))
				elif sub == 12:
					d['app'] = apps(tlv, 'lldp.dcbx.ieee.app.prio',
							'lldp.dcbx.iee.app.sf', 'lldp.dcbx.feature.app.proto')
			elif oui == 0x00120f and num(f, 'lldp.ieee.802_3.subtype') == 4:
				d['max_frame'] = num(f, 'lldp.ieee.802_3.max_frame_size')
			elif oui == 0x001b21 and num(f, 'lldp.dcbx.proto') == 2:
				d['cee'] = cee_of(tlv)
	return d


def from_nodrop(p):
	if not p.get('heard'):
		return {'error': p.get('error')}
	d = {'chassis_id': p['chassis_id'], 'port_id': p['port_id'], 'ttl': p['ttl']}
	for k in ('port_description', 'system_name'):
		if p[k]:
			d[k] = p[k]
	bits = lambda v: [int(x) for x in v]
	for key, cfg in (('ets', True), ('ets_reco', False)):
		if key in p:
			e = p[key]
			d[key] = {'prio_tc': e['prio_tc'], 'tc_bw': e['tc_bw'],
				  'tsa': [TSA.get(t, -1) for t in e['tc_tsa']]}
			if cfg:
				d[key].update(willing=int(e['willing']), cbs=int(e['cbs']),
					      max_tcs=e['max_tcs'])
	if 'pfc' in p:
		x = p['pfc']
		d['pfc'] = (int(x['willing']), int(x['macsec_bypass']), x['pfc_cap'],
			    bits(x['prio_pfc']))
	if 'app' in p:
		d['app'] = sorted((IEEE_SEL[a['selector']], a['protocol'], a['prio']) for a in p['app'])
	if 'max_frame' in p:
		d['max_frame'] = p['max_frame']
	if 'cee' in p:
		x, c = p['cee'], {}
		if 'oper_version' in x:
			c['version'] = (x['oper_version'], x['max_version'])
		if 'pgid' in x:
			c['pg'] = (int(x['pg_willing']), x['pgid'], x['pg_bw'])
		if 'prio_pfc' in x:
			c['pfc'] = (int(x['pfc_enabled']), int(x['pfc_willing']), bits(x['prio_pfc']))
		if 'app' in x:
			c['app'] = sorted((CEE_SEL[a['selector']], a['protocol'], a['prio'])
					  for a in x['app'])
		d['cee'] = c
	return d


def normal(d):
	"""tuples and lists alike, for the comparison and the message"""
	return json.loads(json.dumps(d))


def main():
	if len(sys.argv) != 3:
		sys.exit('usage: lldp_compare.py FRAMES.pdml PEERS.json')
	packets = ET.parse(sys.argv[1]).getroot().findall('packet')
	with open(sys.argv[2]) as f:
		peers = json.load(f)['peers']
	if len(packets) != len(peers):
		sys.exit(f'{len(packets)} frames decoded by tshark, {len(peers)} heard by nodrop')
	bad = 0
	for k, (pkt, peer) in enumerate(zip(packets, peers)):
		try:
			want, got = normal(from_tshark(pkt)), normal(from_nodrop(peer))
		except (KeyError, ValueError, StopIteration) as e:
			bad += 1
			print(f'not ok {k}: cannot read {e!r} (tshark: malformed?)')
			continue
		if want == got:
			print(f'ok {k}')
			continue
		bad += 1
		keys = sorted(set(want) | set(got))
		diff = {key: (want.get(key), got.get(key)) for key in keys if want.get(key) != got.get(key)}
		print(f'not ok {k}: tshark/nodrop {json.dumps(diff)}')
	print(f'# {len(peers) - bad} of {len(peers)} frames alike')
	sys.exit(1 if bad else 0)


if __name__ == '__main__':
	main()
