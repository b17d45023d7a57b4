#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Put the frames of a pcap on veth wires and let `nodrop show --peer` hear them (tests/vm/peer.sh).

Usage: lldp_wire.py NODROP FRAMES.pcap PORTS OUT.json

PORTS veth pairs paN/pbN are up. Round r sends frames r*PORTS .. r*PORTS+PORTS-1, frame k out of
pb(k % PORTS), over and over every 50 ms as a switch's agent would, while one
`nodrop show --peer -j` listens on the pa ports of that round; OUT.json gets, in frame order, the
"peer" object nodrop printed for each frame's port, and the rounds' wall times.
"""
import json
import socket
import struct
import subprocess
import sys
import time


def frames_of(path):
	with open(path, 'rb') as f:
		data = f.read()
	out, off = [], 24
	while off + 16 <= len(data):
		n = struct.unpack_from('<I', data, off + 8)[0]
		out.append(data[off + 16:off + 16 + n])
		off += 16 + n
	return out


def main():
	if len(sys.argv) != 5:
		sys.exit('usage: lldp_wire.py NODROP FRAMES.pcap PORTS OUT.json')
	nodrop, pcap, ports, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
	frames = frames_of(pcap)
	socks = []
	for i in range(ports):
		s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
		s.bind((f'pb{i}', 0))
		socks.append(s)
	peers, walls = [], []
	for r in range(0, len(frames), ports):
		batch = frames[r:r + ports]
		names = [f'pa{i}' for i in range(len(batch))]
		t0 = time.monotonic()
		nd = subprocess.Popen([nodrop, 'show', '--peer-wait', '30', '-j'] + names,
				      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
		while nd.poll() is None:
			for i, fr in enumerate(batch):
				socks[i].send(fr)
			time.sleep(0.05)
		stdout, stderr = nd.communicate()
		walls.append(time.monotonic() - t0)
		if nd.returncode:
			sys.exit(f'round {r // ports}: nodrop exited {nd.returncode}: {stderr.strip()}')
		shown = json.loads(stdout)
		peers += [p.get('peer', {}) for p in shown]
	with open(out, 'w') as f:
		json.dump({'peers': peers, 'round_s': walls}, f)


if __name__ == '__main__':
	main()
