#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Seeded random LLDP frames for tests/vm/peer.sh: what a switch might advertise.

Usage: lldp_gen.py SEED N OUT.pcap
       lldp_gen.py frame [pfc=BITS] [dscp=D:P,...] [mfs=BYTES] [tc3-bw=PCT] OUT.bin

The second form writes one switch's frame, named leaf12 Ethernet1/3: PFC on the priorities of
BITS (default 0x08), a DSCP application entry per D:P (default 26:3), maximum frame size BYTES
(default 9216), ETS with priority p in traffic class p and TC 3's share PCT (default 50).

Each frame has the mandatory chassis ID, port ID and TTL, then in a random order and each at
most once (a repeated DCB TLV is something nodrop drops on purpose, tshark shows twice): port
description, system name, 802.1Qaz ETS configuration and recommendation, PFC configuration,
application priority (DSCP, UDP 4791 and other selectors), 802.3 maximum frame size, CEE DCBX
(control, PG, PFC, App), with TLVs nobody here reads between them. The frames go to a pcap file
(the sender puts them on the wire, tshark decodes the same bytes as captured).
"""
import random
import struct
import sys

DST = bytes.fromhex('0180c200000e')


def tlv(t, v):
	return struct.pack('>H', t << 9 | len(v)) + v


def org(oui, sub, v):
	return tlv(127, bytes.fromhex(oui) + bytes([sub]) + v)


def text(r, lo, hi):
	return ''.join(r.choice('abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_/.:')
		       for _ in range(r.randint(lo, hi))).encode()


def ets(r, cfg):
	first = (r.randint(0, 1) << 7 | r.randint(0, 1) << 6 | r.randint(0, 7)) if cfg else 0
	prio_tc = [r.randint(0, 7) for _ in range(8)]
	b = bytes([first]) + bytes(prio_tc[i] << 4 | prio_tc[i + 1] for i in range(0, 8, 2))
	b += bytes(r.randint(0, 100) for _ in range(8))
	b += bytes(r.choice([0, 1, 2, 255]) for _ in range(8))	# strict, CBS, ETS, vendor
	return org('0080c2', 9 if cfg else 10, b)


def app(r):
	b = b'\x00'
	for _ in range(r.randint(0, 12)):
		sel = r.randint(1, 5)
		proto = (r.randint(0, 63) if sel == 5 else 4791 if sel == 3 and r.randint(0, 1)
			 else r.randint(0, 65535))
		b += bytes([r.randint(0, 7) << 5 | sel]) + struct.pack('>H', proto)
	return org('0080c2', 12, b)


def cee(r):
	def sub(t, v):
		return struct.pack('>H', t << 9 | len(v)) + v

	def hdr():
		return bytes([r.randint(0, 2), r.randint(0, 2),
			       r.randint(0, 1) << 7 | r.randint(0, 1) << 6 | r.randint(0, 1) << 5, 0])
	b = b''
	if r.randint(0, 3):
		b += sub(1, bytes([r.randint(0, 2), r.randint(0, 2)]) +
			 struct.pack('>II', r.getrandbits(32), r.getrandbits(32)))
	if r.randint(0, 3):
		pgid = [r.choice([0, 1, 2, 3, 4, 5, 6, 7, 15]) for _ in range(8)]
		b += sub(2, hdr() + bytes(pgid[i] << 4 | pgid[i + 1] for i in range(0, 8, 2)) +
			 bytes(r.randint(0, 100) for _ in range(8)) + bytes([r.randint(1, 8)]))
	if r.randint(0, 3):
		b += sub(3, hdr() + bytes([r.getrandbits(8), r.randint(1, 8)]))
	if r.randint(0, 3):
		apps = b''
		for _ in range(r.randint(0, 4)):
			sel = r.randint(0, 1)
			apps += struct.pack('>H', 4791 if sel else 0x8906) + bytes([sel, 0x1b, 0x21]) + \
				bytes([1 << r.randint(0, 7)])
		b += sub(4, hdr() + apps)
	return org('001b21', 2, b)


def noise(r):
	"""A TLV nodrop skips, well formed for tshark too (a malformed one stops its dissection)."""
	kind = r.randint(0, 2)
	if kind == 0:	# an organisation with the locally administered bit: no one's dissector
		return org('%06x' % (0x020000 | r.getrandbits(16)), r.randint(0, 255),
			   bytes(r.getrandbits(8) for _ in range(r.randint(0, 40))))
	if kind == 1:	# system description
		return tlv(6, text(r, 1, 60))
	return tlv(7, struct.pack('>HH', r.getrandbits(16), r.getrandbits(16)))	# capabilities


def frame(r, k):
	src = bytes([0x02, 0, 0, 0, k >> 8 & 0xff, k & 0xff])
	body = tlv(1, b'\x04' + bytes([0x0a, 0x88, 0xc2, r.getrandbits(8), k >> 8 & 0xff,
					    k & 0xff]))
	body += tlv(2, b'\x05' + text(r, 1, 30))
	body += tlv(3, struct.pack('>H', r.randint(1, 65535)))
	parts = [lambda: tlv(4, text(r, 1, 60)), lambda: tlv(5, text(r, 1, 40)),
		 lambda: ets(r, True), lambda: ets(r, False),
		 lambda: org('0080c2', 11, bytes([r.randint(0, 1) << 7 | r.randint(0, 1) << 6 |
						  r.randint(0, 15), r.getrandbits(8)])),
		 lambda: app(r), lambda: org('00120f', 4, struct.pack('>H', r.randint(1500, 9600))),
		 lambda: cee(r)]
	r.shuffle(parts)
	for make in parts:
		if r.randint(0, 2):
			body += noise(r)
		if r.randint(0, 3):
			body += make()
	body += tlv(0, b'')
	return DST + src + b'\x88\xcc' + body


def switch_frame(args):
	"""One switch's advertisement, from KEY=VALUE arguments (see the usage)."""
	opt = dict(a.split('=', 1) for a in args)
	body = tlv(1, b'\x04' + bytes.fromhex('a088c2010203')) + tlv(2, b'\x05Ethernet1/3')
	body += tlv(3, struct.pack('>H', 120)) + tlv(5, b'leaf12')
	body += org('0080c2', 11, bytes([8, int(opt.get('pfc', '0x08'), 0)]))
	app_b = b'\x00'
	for e in opt.get('dscp', '26:3').split(','):
		d, pr = (int(x) for x in e.split(':'))
		app_b += bytes([pr << 5 | 5]) + struct.pack('>H', d)
	body += org('0080c2', 12, app_b)
	bw = [10, 10, 10, int(opt.get('tc3-bw', '50')), 10, 10, 0, 0]
	bw[6] = 100 - sum(bw)
	body += org('0080c2', 9, bytes([0x08]) + bytes([0x01, 0x23, 0x45, 0x67]) + bytes(bw) +
		    bytes([2] * 8))
	body += org('00120f', 4, struct.pack('>H', int(opt.get('mfs', '9216'))))
	return DST + bytes.fromhex('a088c2010203') + b'\x88\xcc' + body + tlv(0, b'')


def main():
	if len(sys.argv) >= 3 and sys.argv[1] == 'frame':
		with open(sys.argv[-1], 'wb') as f:
			f.write(switch_frame(sys.argv[2:-1]))
		return
	if len(sys.argv) != 4:
		sys.exit('usage: lldp_gen.py SEED N OUT.pcap')
	seed, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	r = random.Random(seed)
	with open(out, 'wb') as f:
		f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
		for k in range(n):
			fr = frame(r, k)
			f.write(struct.pack('<IIII', k, 0, len(fr), len(fr)) + fr)


if __name__ == '__main__':
	main()
