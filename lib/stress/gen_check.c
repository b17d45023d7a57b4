// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Payload validation at the receiver. SEND and WRITE with immediate give the receiver one
 * completion per message, checked as it lands. READ completes at the reader, which checks what
 * it read. Plain WRITE gives the receiver nothing per message, so after the run each target
 * slot is checked and the highest sequence number found is set against the number of writes
 * the sender saw complete: rank 0 calls data that never arrived missing. A run that failed
 * leaves its newest message per QP unjudged when it is incomplete (see check_slot()).
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

/* The sequence number in a WRITE target slot's intact header, or false. */
static bool slot_seq(struct nd_engine *en, struct nd_qp *q, uint32_t s, struct nd_pl_hdr *h)
{
	const uint8_t *p = nd_mem_view(en->mem, q->xbuf + (size_t)s * en->slot_size, ND_PL_HDR,
				       en->scratch);

	return p && nd_pl_header(p, ND_PL_HDR, h);
}

/*
 * A WRITE target slot after the run: intact, in its place, and how far the writes got. RC lands
 * a QP's packets in order, so when the run stopped mid-message (it failed: a peer gone, the
 * watchdog) the QP's newest message alone may be half there: that one is not judged.
 */
static void check_slot(struct nd_engine *en, struct nd_qp *q, uint32_t s, uint64_t newest)
{
	size_t off = q->xbuf + (size_t)s * en->slot_size;
	struct nd_pl_hdr h;
	const uint8_t *p;
	enum nd_pl_check r;
	uint16_t slotno;

	if (!slot_seq(en, q, s, &h)) {
		p = nd_mem_view(en->mem, off, ND_PL_HDR, en->scratch);
		/* never written (all zero), or its header is damaged */
		if (p && (p[0] || p[1] || p[2] || p[3]))
			en->res->corrupt++;
		return;
	}
	if (h.len > en->slot_size || h.len < ND_PL_HDR || h.seq % q->xslots != s) {
		en->res->corrupt++;
		return;
	}
	if (h.seq + 1 > q->max_seq)
		q->max_seq = h.seq + 1;
	/* the sender's slot (and so its body pattern) follows from the sequence number */
	slotno = (uint16_t)(h.seq % en->job->tx_depth);
	if (!(en->fatal && h.seq == newest))
		return nd_check_msg(en, q, off, h.len, slotno, h.seq, 0, false);
	p = nd_mem_view(en->mem, off, h.len, en->scratch);
	r = p ? nd_pl_check(p, h.len, q->flow->id, q->idx, slotno, h.seq, 0, false) :
	    ND_PL_CORRUPT;
	if (r != ND_PL_CORRUPT)
		count(en, r);
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
		if (q->sink && job->op == ND_OP_WRITE) {
			uint64_t newest = 0;
			struct nd_pl_hdr h;

			for (s = 0; s < q->xslots; s++)
				if (slot_seq(en, q, s, &h) && h.seq > newest)
					newest = h.seq;
			for (s = 0; s < q->xslots; s++)
				check_slot(en, q, s, newest);
		}
		c = &en->res->checks[en->res->n_checks++];
		c->flow = q->flow->id;
		c->qp = q->idx;
		c->sink = q->sink;
		c->value = !q->sink ? q->done : job->op == ND_OP_WRITE ? q->max_seq : q->rx_seq;
	}
}
