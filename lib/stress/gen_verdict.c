// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verdict. Every rank sampled its port's counters before and after; ranks on one host
 * share a port, so each port counts once (its lowest rank's samples span everyone's traffic).
 * LOSSLESS needs counters that could have shown loss and did not, and data that validated;
 * LOSSY names what moved; FAILED says why the run itself did not hold (QP error, watchdog, a
 * peer gone, counters unreadable). Congestion signals are reported beside it, not judged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

enum sig {
	SIG_RETX,		/* a resend: part of report.retransmits */
	SIG_DROP,		/* a packet dropped: part of drops */
	SIG_PAUSE_US,		/* time paused */
	SIG_PAUSE_FRAMES,
	SIG_ECN,
	SIG_CNP_SENT,
	SIG_CNP_HANDLED,
	SIG_XMIT_WAIT,		/* InfiniBand ticks without credits */
	SIG_PACKETS_TX,
	SIG_PACKETS_RX,
};

/* What each canonical counter adds to a port's congestion signals (names: nd_counter_infos). */
static const struct {
	const char *name;
	enum sig sig;
} signals[] = {
	{ "transport_retries", SIG_RETX },
	{ "seq_err_naks", SIG_RETX },
	{ "rx_nobuf_discards", SIG_DROP },
	{ "rx_prio_discards", SIG_DROP },
	{ "rx_buf_discards", SIG_DROP },
	{ "rx_cong_discards", SIG_DROP },
	{ "rx_no_wqe_discards", SIG_DROP },
	{ "out_of_sequence", SIG_DROP },
	{ "ib_xmit_discards", SIG_DROP },
	{ "pfc_rx_duration_us", SIG_PAUSE_US },
	{ "pause_rx_duration_us", SIG_PAUSE_US },
	{ "pfc_rx_frames", SIG_PAUSE_FRAMES },
	{ "pfc_tx_frames", SIG_PAUSE_FRAMES },
	{ "pause_rx_frames", SIG_PAUSE_FRAMES },
	{ "pause_tx_frames", SIG_PAUSE_FRAMES },
	{ "rx_ecn_marked", SIG_ECN },
	{ "roce_rx_ecn_marked", SIG_ECN },
	{ "cnp_sent", SIG_CNP_SENT },
	{ "cnp_handled", SIG_CNP_HANDLED },
	{ "ib_xmit_wait", SIG_XMIT_WAIT },
	{ "rdma_tx_packets", SIG_PACKETS_TX },
	{ "rdma_rx_packets", SIG_PACKETS_RX },
};

/*
 * Can @c show this run's loss? Not one that appeared or went away mid-run, nor one that
 * stood at its maximum throughout (a saturated PMA counter's delta 0 says nothing); one
 * that reached it did move. A port watched by none of its loss counters gets no verdict.
 */
static bool watches(const struct nd_gen_ctr *c)
{
	return c->status == ND_DELTA_OK || c->status == ND_DELTA_WRAPPED ||
	       (c->status == ND_DELTA_SATURATED && c->delta);
}

/*
 * Is @res the first (lowest) rank with its port? The same host (boot id), netdev, RDMA device
 * and port: containers on one host share the boot id and often the netdev's name (each pod's
 * VF is net1), not the device.
 */
static bool owns_port(struct nd_gen_rank_result *const *res, uint32_t rank)
{
	const struct nd_stress_rank *me = &res[rank]->info;
	uint32_t i;

	for (i = 0; i < rank; i++)
		if (res[i] && !strcmp(res[i]->boot_id, res[rank]->boot_id) &&
		    !strcmp(res[i]->info.ifname, me->ifname) &&
		    !strcmp(res[i]->info.dev, me->dev) && res[i]->info.port == me->port)
			return false;
	return true;
}

static int add_evidence(struct nd_run_report *rep, const char *where, const char *what,
			int prio, uint64_t delta)
{
	struct nd_evidence *v = nd_push((void **)&rep->evidence, &rep->n_evidence, sizeof(*v));

	if (!v)
		return -ENOMEM;
	/* a long name is cut to fit on purpose; gcc would flag snprintf for it */
	nd_strlcpy(v->where, where, sizeof(v->where));
	nd_strlcpy(v->what, what, sizeof(v->what));
	v->prio = prio;
	v->delta = delta;
	return 0;
}

static void add_signal(struct nd_port_result *pr, struct nd_stress_port *sp,
		       const struct nd_gen_ctr *c, struct nd_run_report *rep, double *pause_us,
		       uint64_t *xmit_wait)
{
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(signals); i++) {
		if (strcmp(signals[i].name, c->name))
			continue;
		switch (signals[i].sig) {
		case SIG_RETX: rep->retransmits += c->delta; break;
		case SIG_DROP: pr->drops += c->delta; break;
		case SIG_PAUSE_US:
			if ((double)c->delta > *pause_us)
				*pause_us = (double)c->delta;
			break;
		case SIG_PAUSE_FRAMES: pr->pause_frames += c->delta; break;
		case SIG_ECN: pr->ecn_marked += c->delta; break;
		case SIG_CNP_SENT: pr->cnp_sent += c->delta; break;
		case SIG_CNP_HANDLED: pr->cnp_handled += c->delta; break;
		case SIG_XMIT_WAIT: *xmit_wait += c->delta; break;
		case SIG_PACKETS_TX: sp->tx_packets += c->delta; break;
		case SIG_PACKETS_RX: sp->rx_packets += c->delta; break;
		}
	}
}

/* One sampled port: its evidence entry, its congestion signals, and loss that moved. */
static int judge_port(const struct nd_gen_rank_result *res, struct nd_stress_result *r,
		      char *failed, size_t flen)
{
	struct nd_run_report *rep = r->report;
	struct nd_stress_port *sp = &r->sampled[r->n_sampled++];
	struct nd_port_result *pr = &rep->ports[rep->n_ports++];
	double pause_us = 0, secs = res->ctr_interval_s;
	uint64_t xmit_wait = 0;
	size_t i;

	snprintf(sp->where, sizeof(sp->where), "%s/%s", res->info.host, res->info.ifname);
	nd_strlcpy(pr->name, sp->where, sizeof(pr->name));
	sp->interval_s = secs;
	sp->status = res->ctr_status;
	nd_strlcpy(sp->error, res->ctr_error, sizeof(sp->error));
	sp->n_counters = res->ctr_total;
	if (res->ctr_status) {
		if (!failed[0])
			snprintf(failed, flen, "counters of %.95s could not be sampled: %.380s",
				 sp->where, res->ctr_error);
		return 0;
	}
	for (i = 0; i < res->n_ctrs; i++) {
		const struct nd_gen_ctr *c = &res->ctrs[i];

		add_signal(pr, sp, c, rep, &pause_us, &xmit_wait);
		if (!c->loss)
			continue;
		if (c->status == ND_DELTA_RESET && !failed[0])
			snprintf(failed, flen, "%s on %s went backwards mid-run (driver reload?): "
				 "no verdict on loss", c->name, sp->where);
		if (!watches(c))
			continue;
		sp->n_loss++;
		if (!c->delta)
			continue;
		sp->n_loss_moved++;
		if (add_evidence(rep, sp->where, c->name, c->prio, c->delta))
			return -ENOMEM;
	}
	rep->drops += pr->drops;
	if (secs > 0) {
		pr->pause_fraction = pause_us / (secs * 1e6);
		/* a PortXmitWait tick is taken as 8 bytes of line time (Quantum's tick 7) */
		if (res->info.link_gbps > 0)
			pr->credit_wait_fraction = (double)xmit_wait * 64 /
						   (res->info.link_gbps * 1e9 * secs);
	}
	if (!sp->n_loss && !failed[0])
		snprintf(failed, flen, "%s has no readable loss counter (%zu counters: no loss "
			 "indicator, or each new, gone or stuck at its maximum): no verdict on loss "
			 "without them", sp->where, sp->n_counters);
	return 0;
}

static int judge_payload(struct nd_stress_result *r, struct nd_gen_rank_result *const *res,
			 uint32_t nranks)
{
	static const char *const what[] = { "payload_corrupt", "payload_misordered" };
	char where[64];
	uint64_t v[2];
	uint32_t i, k;

	for (i = 0; i < nranks; i++) {
		if (!res[i])
			continue;
		v[0] = res[i]->corrupt;
		v[1] = res[i]->misordered;
		snprintf(where, sizeof(where), "rank %u (%.40s)", i, res[i]->info.host);
		for (k = 0; k < 2; k++)
			if (v[k] && add_evidence(r->report, where, what[k], -1, v[k]))
				return -ENOMEM;
	}
	if (r->missing)
		return add_evidence(r->report, "receivers", "payload_missing", -1, r->missing);
	return 0;
}

/* The first failure of the run itself: a rank's own error before the echoes of it. */
static void first_failure(struct nd_gen_rank_result *const *res, uint32_t nranks, char *out,
			  size_t len)
{
	uint32_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nranks; i++) {
			if (!res[i] && !pass)
				continue;
			if (!res[i]) {
				snprintf(out, len, "rank %u sent no results (it went away)", i);
				return;
			}
			if (!res[i]->info.status)
				continue;
			/* pass 0 skips "another rank gave up": the origin says more */
			if (!pass && (res[i]->info.status == -ECONNABORTED ||
				      res[i]->info.status == -EINTR))
				continue;
			snprintf(out, len, "rank %u on %.63s: %.400s", i, res[i]->info.host,
				 res[i]->info.error);
			return;
		}
	}
}

int nd_gen_verdict(const struct nd_stress_job *job, struct nd_gen_rank_result *const *res,
		   uint32_t nranks, struct nd_stress_result *r)
{
	struct nd_run_report *rep = r->report;
	char failed[ND_ERR_MSG_MAX] = "", lossy[200] = "";
	size_t i, loss = 0;
	uint32_t k;

	first_failure(res, nranks, failed, sizeof(failed));
	rep->ports = calloc(nranks, sizeof(*rep->ports));
	r->sampled = calloc(nranks, sizeof(*r->sampled));
	if (!rep->ports || !r->sampled)
		return -ENOMEM;
	/* a rank that stopped before traffic (ENODATA) sampled nothing: no port to show */
	for (k = 0; k < nranks; k++)
		if (res[k] && res[k]->ctr_status != -ENODATA && owns_port(res, k) &&
		    judge_port(res[k], r, failed, sizeof(failed)))
			return -ENOMEM;
	if (judge_payload(r, res, nranks))
		return -ENOMEM;
	for (i = 0; i < r->n_sampled; i++)
		loss += r->sampled[i].n_loss;
	if (failed[0]) {
		rep->verdict = ND_VERDICT_FAILED;
		nd_strlcpy(rep->reason, failed, sizeof(rep->reason));
		return 0;
	}
	for (i = 0; i < rep->n_evidence; i++)
		snprintf(lossy + strlen(lossy), sizeof(lossy) - strlen(lossy), "%s%s +%llu",
			 i ? ", " : "", rep->evidence[i].what,
			 (unsigned long long)rep->evidence[i].delta);
	if (rep->n_evidence) {
		rep->verdict = ND_VERDICT_LOSSY;
		nd_strlcpy(rep->reason, lossy, sizeof(rep->reason));
		return 0;
	}
	rep->verdict = ND_VERDICT_LOSSLESS;
	snprintf(rep->reason, sizeof(rep->reason), "no loss counter moved (%zu watched on %zu "
		 "port%s)", loss, r->n_sampled, r->n_sampled == 1 ? "" : "s");
	if (job->validate)
		snprintf(rep->reason + strlen(rep->reason),
			 sizeof(rep->reason) - strlen(rep->reason), "; %llu messages validated, "
			 "none corrupt, out of order or missing", (unsigned long long)r->validated);
	return 0;
}
