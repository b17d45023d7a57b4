// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Payload validation at the receiver. SEND and WRITE with immediate give the receiver one
 * completion per message, checked as it lands. READ completes at the reader, which checks what
 * it read. Plain WRITE gives the receiver nothing per message, so after the run each target
 * slot is checked and the highest sequence number found is set against the number of writes
 * the sender saw complete: rank 0 calls data that never arrived missing.
 */
#include <stdlib.h>

#include "gen_rt.h"

static void count(struct nd_engine *en, enum nd_pl_check r)
{
	struct nd_gen_rank_result *res = en->res;

	switch (r) {
	case ND_PL_OK:
		res->validated++;
		break;
	case ND_PL_CORRUPT:
		res->corrupt++;
		break;
	case ND_PL_MISORDERED:
		res->misordered++;
		break;
	case ND_PL_OVERRUN:
		res->overrun++;
		break;
	}
}

void nd_check_msg(struct nd_engine *en, struct nd_qp *q, size_t off, uint32_t len,
		  uint16_t slot, uint64_t seq, uint32_t nslots, bool at_least)
{
	const uint8_t *p = nd_mem_view(en->mem, off, len, en->scratch);

	if (!p) {
		en->res->corrupt++;
		return;
	}
	count(en, nd_pl_check(p, len, q->flow->id, q->idx, slot, seq, nslots, at_least));
}

/* A WRITE target slot after the run: intact, in its place, and how far the writes got. */
static void check_slot(struct nd_engine *en, struct nd_qp *q, uint32_t s)
{
	size_t off = q->xbuf + (size_t)s * en->slot_size;
	struct nd_pl_hdr h;
	const uint8_t *p;

	p = nd_mem_view(en->mem, off, ND_PL_HDR, en->scratch);
	if (!p || !nd_pl_header(p, ND_PL_HDR, &h)) {
		/* never written (all zero), or its header is damaged */
		if (p && (p[0] || p[1] || p[2] || p[3]))
			en->res->corrupt++;
		return;
	}
	if (h.len > en->slot_size || h.len < ND_PL_HDR || h.seq % q->xslots != s) {
		en->res->corrupt++;
		return;
	}
	/* the sender's slot (and so its body pattern) follows from the sequence number */
	nd_check_msg(en, q, off, h.len, (uint16_t)(h.seq % en->job->tx_depth), h.seq, 0, false);
	if (h.seq + 1 > q->max_seq)
		q->max_seq = h.seq + 1;
}

void nd_engine_final_check(struct nd_engine *en)
{
	const struct nd_stress_job *job = en->job;
	struct nd_gen_qp_check *c;
	uint32_t s;
	size_t i;

	if (!job->validate || job->op == ND_OP_READ)
		return;
	en->res->checks = calloc(en->n_qps ? en->n_qps : 1, sizeof(*en->res->checks));
	if (!en->res->checks)
		return;
	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (q->probe)
			continue;
		if (q->sink && job->op == ND_OP_WRITE)
			for (s = 0; s < q->xslots; s++)
				check_slot(en, q, s);
		c = &en->res->checks[en->res->n_checks++];
		c->flow = q->flow->id;
		c->qp = q->idx;
		c->sink = q->sink;
		c->value = !q->sink ? q->done : job->op == ND_OP_WRITE ? q->max_seq : q->rx_seq;
	}
}
