#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The link partner's DCB as the kernel's dcbnl reports it (nicsim's peer ops), in the syntax of
nicsim's debugfs `peer` file, so that a test compares the two (tests/vm/nicsim/selftest.sh).

Usage: dcb_peer.py IFNAME

Sends RTM_GETDCB DCB_CMD_IEEE_GET and DCB_CMD_CEE_GET and prints, one line per attribute the
kernel put in its replies: DCB_ATTR_IEEE_PEER_ETS as `ets ...`, _PEER_PFC as `pfc ...` (struct
ieee_pfc has no willing bit: the line has none), _PEER_APP as `app ...` lines, and from the CEE
reply DCB_ATTR_CEE_PEER_APP_INFO as `app_info ...`, _PEER_PG as `cee_pg ...`, _PEER_PFC as
`cee_pfc ...`. Nothing set, nothing printed: each op said -ENODATA and dcbnl left it out. What
the two replies do not agree on (the CEE peer APP table against the IEEE one, ETS rx bandwidth
against tx) is printed as a `mismatch ...` line. Exit 1 when the kernel refused a request.
"""
import socket
import struct
import sys

RTM_GETDCB = 78
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
DCB_CMD_IEEE_GET, DCB_CMD_CEE_GET = 21, 26
DCB_ATTR_IFNAME, DCB_ATTR_IEEE, DCB_ATTR_CEE = 1, 13, 16
IEEE_PEER_ETS, IEEE_PEER_PFC, IEEE_PEER_APP = 4, 5, 6
IEEE_APP = 1
CEE_PEER_PG, CEE_PEER_PFC, CEE_PEER_APP_TABLE = 1, 2, 3
CEE_PEER_APP_INFO, CEE_PEER_APP = 1, 2


def attrs(data):
	"""{type: [payload, ...]} of a run of netlink attributes (nesting bit dropped)"""
	out, off = {}, 0
	while off + 4 <= len(data):
		ln, typ = struct.unpack_from('=HH', data, off)
		if ln < 4:
			break
		out.setdefault(typ & 0x3fff, []).append(data[off + 4:off + ln])
		off += (ln + 3) & ~3
	return out


def nla(typ, payload):
	n = 4 + len(payload)
	return struct.pack('=HH', n, typ) + payload + b'\0' * ((4 - n % 4) % 4)


def dcb_get(sock, ifname, cmd, seq):
	"""The top-level attributes of the reply to @cmd"""
	body = struct.pack('=BBH', 0, cmd, 0) + nla(DCB_ATTR_IFNAME, ifname.encode() + b'\0')
	sock.send(struct.pack('=IHHII', 16 + len(body), RTM_GETDCB, NLM_F_REQUEST, seq, 0) + body)
	data = sock.recv(65536)
	ln, typ = struct.unpack_from('=IH', data, 0)
	if typ == NLMSG_ERROR:
		sys.exit(f'dcb_peer.py: {ifname}: command {cmd}: error {struct.unpack_from("=i", data, 16)[0]}')
	return attrs(data[20:ln])


def eight(b):
	return ','.join(str(x) for x in b)


def app_lines(entries):
	out = []
	for e in entries:
		sel, prio, proto = struct.unpack_from('=BBH', e, 0)
		out.append(f'app sel={sel} proto={proto} prio={prio}')
	return out


def main():
	if len(sys.argv) != 2:
		sys.exit('usage: dcb_peer.py IFNAME')
	ifname = sys.argv[1]
	sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
	sock.bind((0, 0))
	ieee = attrs(dcb_get(sock, ifname, DCB_CMD_IEEE_GET, 1).get(DCB_ATTR_IEEE, [b''])[0])
	cee = attrs(dcb_get(sock, ifname, DCB_CMD_CEE_GET, 2).get(DCB_ATTR_CEE, [b''])[0])
	lines = []
	if IEEE_PEER_ETS in ieee:	# struct ieee_ets
		e = ieee[IEEE_PEER_ETS][0]
		willing, cap, cbs = e[0], e[1], e[2]
		tx, rx, tsa, prio_tc = e[3:11], e[11:19], e[19:27], e[27:35]
		lines.append(f'ets willing={willing} cbs={cbs} maxtc={cap} prio_tc={eight(prio_tc)} '
			     f'tc_bw={eight(tx)} tsa={eight(tsa)}')
		if rx != tx:
			lines.append(f'mismatch ets tc_rx_bw={eight(rx)}')
	if IEEE_PEER_PFC in ieee:	# struct ieee_pfc: cap, en, mbc, delay
		cap, en, mbc = struct.unpack_from('=BBB', ieee[IEEE_PEER_PFC][0], 0)
		lines.append(f'pfc en=0x{en:02x} cap={cap} mbc={mbc}')
	ieee_apps = []
	if IEEE_PEER_APP in ieee:
		ieee_apps = app_lines(attrs(ieee[IEEE_PEER_APP][0]).get(IEEE_APP, []))
		lines += ieee_apps
	if CEE_PEER_APP_TABLE in cee:
		t = attrs(cee[CEE_PEER_APP_TABLE][0])
		if CEE_PEER_APP_INFO in t:
			w, err = t[CEE_PEER_APP_INFO][0][:2]
			lines.append(f'app_info willing={w} error={err}')
		cee_apps = app_lines(t.get(CEE_PEER_APP, []))
		if cee_apps != ieee_apps:
			lines.append(f'mismatch cee app table {cee_apps}')
	if CEE_PEER_PG in cee:		# struct cee_pg
		g = cee[CEE_PEER_PG][0]
		lines.append(f'cee_pg willing={g[0]} error={g[1]} pg_en={g[2]} tcs={g[3]} '
			     f'pg_bw={eight(g[4:12])} prio_pg={eight(g[12:20])}')
	if CEE_PEER_PFC in cee:		# struct cee_pfc
		w, err, en, tcs = cee[CEE_PEER_PFC][0][:4]
		lines.append(f'cee_pfc willing={w} error={err} en=0x{en:02x} tcs={tcs}')
	for line in lines:
		print(line)


if __name__ == '__main__':
	main()
