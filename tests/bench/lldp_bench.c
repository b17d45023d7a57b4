// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LLDP decoder's throughput for `make bench` (tests/bench/peer.sh): every frame of a pcap
 * (tests/vm/lldp_gen.py writes one) decoded over and over for about a second; prints the
 * frames decoded per second. A frame that does not decode stops it: the bench decodes what a
 * switch sends, not errors.
 * Usage: lldp_bench FRAMES.pcap
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodrop.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static uint8_t data[1 << 24];
	static struct nd_peer p;
	size_t len, off, n = 0, *at, *sz, i;
	struct nd_err e = { 0 };
	uint64_t decoded = 0;
	double t0, t;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: lldp_bench FRAMES.pcap\n");
		return 2;
	}
	len = fread(data, 1, sizeof(data), f);
	fclose(f);
	at = calloc(len / 16 + 1, sizeof(*at));
	sz = calloc(len / 16 + 1, sizeof(*sz));
	if (!at || !sz)
		return 3;
	for (off = 24; off + 16 <= len; n++) {
		uint32_t incl;

		memcpy(&incl, data + off + 8, 4);
		if (incl > len - off - 16)
			break;
		at[n] = off + 16;
		sz[n] = incl;
		off += 16 + incl;
	}
	if (!n) {
		fprintf(stderr, "lldp_bench: %s: no frames\n", argv[1]);
		return 2;
	}
	t0 = now_s();
	do {
		for (i = 0; i < n; i++, decoded++)
			if (nd_lldp_decode(data + at[i], sz[i], &p, &e)) {
				fprintf(stderr, "lldp_bench: frame %zu: %s\n", i, e.msg);
				return 1;
			}
		t = now_s() - t0;
	} while (t < 1);
	printf("%.0f\n", (double)decoded / t);
	free(at);
	free(sz);
	return 0;
}
