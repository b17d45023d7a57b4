// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's RDMA transport family: loss and retransmission events on a fabric meant to be
 * lossless, and RNR NAKs from receivers that post their buffers too late.
 */
#include <inttypes.h>

#include "triage_int.h"

#define C_RNR_RCVD		"rnr_naks_rcvd"
#define C_RNR_SENT		"rnr_naks_sent"
#define C_RNR_EXCEEDED		"rnr_retry_exceeded"

/*
 * RDMA transport counters that move only when a packet was lost, reordered or resent; X(name)
 * for each, so the rule's list and the family's counters are one list:
 * - seq_err_naks: NAK-sequence-error received: the responder saw a PSN gap
 * - out_of_sequence: the responder received a PSN beyond the expected one
 * - duplicate_requests: the responder received a PSN it had already acknowledged
 * - transport_retries: ACK timeouts after which the requester resent
 * - retry_exceeded: resends ran out: the QP went to error, the job saw it
 * - send_errors: the device failed to transmit: the requester must resend
 */
#define LOSS_COUNTERS(X)								\
	X("seq_err_naks") X("out_of_sequence") X("duplicate_requests")			\
	X("transport_retries") X("retry_exceeded") X("send_errors")

#define NAME_OF(name) name,

static const char *const loss_counters[] = { LOSS_COUNTERS(NAME_OF) };

/*
 * rdma-loss, error: the transport's loss counters (sequence errors, out-of-sequence and duplicate
 * requests, ACK timeouts, retries) together moved by at least loss_events: a fabric that should
 * be lossless lost or delayed packets. Every counter that moved is evidence.
 */
static void check_rdma_loss(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *hit[ND_ARRAY_SIZE(loss_counters)];
	struct nd_finding *f;
	uint64_t sum = 0;
	size_t i, k = 0;

	for (i = 0; i < ND_ARRAY_SIZE(loss_counters); i++) {
		const struct nd_delta *d = nd_tri_moved(c, loss_counters[i], -1);

		if (d) {
			hit[k++] = d;
			sum += d->delta;
		}
	}
	if (!k || sum < c->o->loss_events)
		return;
	f = nd_tri_add(c, r, r->severity, -1);
	if (!f)
		return;
	for (i = 0; i < k; i++)
		nd_tri_add_ev(f, hit[i]);
	SUMMARY(f, "the RDMA transport counted %" PRIu64 " loss and retransmission events in "
		"%.2f s: packets were dropped or resent on a fabric meant to be lossless", sum,
		c->t);
	ACTION(f, "find the drop: nodrop triage on the peer and the switch ports between "
	       "(discards, PFC on the RoCE priority); check RoCE rides a PFC priority (nodrop "
	       "triage --profile: roce-prio-not-lossless); ACK timeouts without sequence errors "
	       "mean a QP timeout too short for the path");
}

/*
 * rnr-storm: RNR NAKs (received or sent) at rnr_rate per second or more, warning: a receiver
 * posts its buffers too late and senders wait min_rnr_timer each time. error when RNR retries ran
 * out: a QP went to error.
 */
static void check_rnr(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *rx = nd_tri_moved(c, C_RNR_RCVD, -1);
	const struct nd_delta *tx = nd_tri_moved(c, C_RNR_SENT, -1);
	const struct nd_delta *ex = nd_tri_moved(c, C_RNR_EXCEEDED, -1);
	double rate = (rx ? rx->rate : 0) + (tx ? tx->rate : 0);
	struct nd_finding *f;

	if (!ex && (rate < c->o->rnr_rate || (!rx && !tx)))
		return;
	f = nd_tri_add(c, r, ex ? ND_SEV_ERROR : r->severity, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, ex);
	nd_tri_add_ev(f, rx);
	nd_tri_add_ev(f, tx);
	if (ex)
		SUMMARY(f, "RNR retries ran out %" PRIu64 " time%s (%.0f RNR NAKs/s): a receiver "
			"never posted a buffer in time and its peer's QP went to error", ex->delta,
			ex->delta == 1 ? "" : "s", rate);
	else
		SUMMARY(f, "%.0f RNR NAKs per second (threshold %.0f): receivers had no receive "
			"WQE posted and senders waited min_rnr_timer each time", rate,
			c->o->rnr_rate);
	ACTION(f, "post receive WQEs ahead of the sender (deeper receive queues or an SRQ, "
	       "re-post before processing); raising min_rnr_timer or rnr_retry only hides it");
}

static const struct nd_tri_rule rules[] = {
	{ "rdma-loss", ND_SEV_ERROR, check_rdma_loss },
	{ "rnr-storm", ND_SEV_WARN, check_rnr },
};

static const char *const counters[] = {
	LOSS_COUNTERS(NAME_OF) C_RNR_RCVD, C_RNR_SENT, C_RNR_EXCEEDED,
};

ND_TRI_FAMILY(loss);
