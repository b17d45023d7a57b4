// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Payload validation. Every message starts with a 32-byte header (flow, QP, slot, sequence,
 * length, and a checksum over them); the body is a pattern generated from (flow, QP, slot), so
 * the sender fills a slot once and rewrites only the header per message, while the receiver
 * regenerates the body and compares every byte: corruption anywhere is caught, and a sequence
 * number out of turn is misordering.
 */
#include <string.h>
#include <time.h>

#include "gen.h"

uint64_t nd_gen_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t nd_gen_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t seed_of(uint32_t flow, uint16_t qp, uint16_t slotno)
{
	return nd_gen_mix64((uint64_t)flow << 32 | (uint64_t)qp << 16 | slotno);
}

/* The body's word at byte offset @off (a multiple of 8) of a slot. */
static uint64_t body_word(uint64_t seed, uint32_t off)
{
	return nd_gen_mix64(seed ^ off);
}

/* The header's 28 bytes before the checksum, FNV-1a. */
static uint32_t hdr_csum(const uint8_t *h)
{
	uint32_t c = 2166136261u;
	size_t i;

	for (i = 0; i < ND_PL_HDR - 4; i++)
		c = (c ^ h[i]) * 16777619u;
	return c;
}

void nd_pl_stamp(uint8_t *slot, uint32_t flow, uint16_t qp, uint16_t slotno, uint64_t seq,
		 uint32_t len)
{
	le32(slot, ND_PL_MAGIC);
	le32(slot + 4, flow);
	le32(slot + 8, (uint32_t)seq);
	le32(slot + 12, (uint32_t)(seq >> 32));
	le32(slot + 16, len);
	le32(slot + 20, (uint32_t)qp | (uint32_t)slotno << 16);
	le32(slot + 24, 0);
	le32(slot + 28, hdr_csum(slot));
}

void nd_pl_fill(uint8_t *slot, uint32_t slot_size, uint32_t flow, uint16_t qp, uint16_t slotno,
		uint64_t seq, uint32_t len)
{
	uint64_t seed = seed_of(flow, qp, slotno), w;
	uint32_t off;

	for (off = ND_PL_HDR; off < slot_size; off += 8) {
		w = body_word(seed, off);
		memcpy(slot + off, &w, slot_size - off < 8 ? slot_size - off : 8);
	}
	nd_pl_stamp(slot, flow, qp, slotno, seq, len);
}

bool nd_pl_header(const uint8_t *msg, uint32_t len, struct nd_pl_hdr *h)
{
	if (len < ND_PL_HDR || rd32(msg) != ND_PL_MAGIC || rd32(msg + 28) != hdr_csum(msg))
		return false;
	h->magic = ND_PL_MAGIC;
	h->flow = rd32(msg + 4);
	h->seq = rd32(msg + 8) | (uint64_t)rd32(msg + 12) << 32;
	h->len = rd32(msg + 16);
	h->qp = (uint16_t)rd32(msg + 20);
	h->slot = (uint16_t)(rd32(msg + 20) >> 16);
	h->pad = rd32(msg + 24);
	h->csum = rd32(msg + 28);
	return true;
}

static bool body_ok(const uint8_t *msg, uint32_t len, uint64_t seed)
{
	uint32_t off;
	uint64_t w;

	for (off = ND_PL_HDR; off < len; off += 8) {
		w = body_word(seed, off);
		if (memcmp(msg + off, &w, len - off < 8 ? len - off : 8))
			return false;
	}
	return true;
}

enum nd_pl_check nd_pl_check(const uint8_t *msg, uint32_t len, uint32_t flow, uint16_t qp,
			     uint16_t slotno, uint64_t seq, uint32_t nslots, bool len_at_least)
{
	struct nd_pl_hdr h;

	if (!nd_pl_header(msg, len, &h) || h.flow != flow || h.qp != qp || h.slot != slotno)
		return ND_PL_CORRUPT;
	if (len_at_least ? h.len < len : h.len != len)
		return ND_PL_CORRUPT;
	if (!body_ok(msg, len, seed_of(flow, qp, slotno)))
		return ND_PL_CORRUPT;
	if (h.seq == seq)
		return ND_PL_OK;
	if (h.seq > seq && nslots && (h.seq - seq) % nslots == 0)
		return ND_PL_OVERRUN;
	return ND_PL_MISORDERED;
}
