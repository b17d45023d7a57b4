// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completions: a signalled bulk work request accounts for itself and every unsignalled one
 * before it (bytes, messages, time series, completion latency); a receive is validated and
 * reposted; probes bounce between the ends of a flow. A failed completion ends the run with
 * the verbs status and what it usually means.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_rt.h"

#define POLL_BATCH 32
#define SERIES_MAX (1u << 20)

static const char *status_hint(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_RETRY_EXC_ERR:
		return ": the peer stopped answering (it died, its link is down, or packets were "
		       "dropped past the retry limit)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return ": the receiver had no receive posted for too long";
	case IBV_WC_REM_ACCESS_ERR:
		return ": the peer refused the remote address or key";
	case IBV_WC_WR_FLUSH_ERR:
		return ": the QP had already failed";
	default:
		return "";
	}
}

static int wc_failed(struct nd_engine *en, const struct nd_qp *q, const struct ibv_wc *wc)
{
	return nd_err_set(&en->err, -EIO, "flow %u (rank %u -> rank %u) QP %u%s: completion "
			  "failed: %s (vendor error 0x%x)%s", q->flow->id, q->flow->src,
			  q->flow->dst, q->idx, q->probe ? " (probe)" : "",
			  ibv_wc_status_str(wc->status), wc->vendor_err, status_hint(wc->status));
}

static void series_add(struct nd_engine *en, struct nd_flow_rt *fr, uint64_t now,
		       uint64_t bytes)
{
	size_t i = (size_t)((now - en->t0) / en->interval_ns), cap;
	uint64_t *v;

	if (i >= SERIES_MAX)
		return;
	if (i >= fr->cap_series) {
		cap = fr->cap_series ? fr->cap_series : 64;
		while (cap <= i)
			cap *= 2;
		v = realloc(fr->st.series, cap * sizeof(*v));
		if (!v)
			return;
		memset(v + fr->cap_series, 0, (cap - fr->cap_series) * sizeof(*v));
		fr->st.series = v;
		fr->cap_series = cap;
	}
	fr->st.series[i] += bytes;
	if (i + 1 > fr->st.n_series)
		fr->st.n_series = i + 1;
}

/* READs land in the reader's slots: bring staged ones home and check what was read. */
static void read_landed(struct nd_engine *en, struct nd_qp *q, uint64_t from, uint64_t to)
{
	uint64_t seq;
	uint32_t slot, size;
	size_t off;

	for (seq = from; seq < to; seq++) {
		slot = (uint32_t)(seq % q->lslots);
		size = q->lsize ? q->lsize[slot] : en->slot_size;
		off = q->lbuf + (size_t)slot * en->slot_size;
		nd_mem_stage_in(en->mem, off, size);
		if (en->job->validate) {
			uint32_t rslot = (uint32_t)(seq % q->rslots);

			nd_check_msg(en, q, off, size, (uint16_t)rslot, rslot, 0, true);
		}
	}
}

static void on_data(struct nd_engine *en, struct nd_qp *q, const struct ibv_wc *wc, uint64_t now)
{
	const struct nd_sig *s = &q->sig[ND_WR_VAL(wc->wr_id) % q->nsig];
	struct nd_flow_rt *fr = &en->flows[q->fidx];
	struct nd_gen_step_stats *st = &en->res->steps[s->step];
	uint64_t msgs = s->msgs - q->done, bytes = s->bytes - q->done_bytes;

	if (en->job->op == ND_OP_READ)
		read_landed(en, q, q->done, s->msgs);
	q->done = s->msgs;
	q->done_bytes = s->bytes;
	q->nsig_done++;
	q->last_progress = now;
	fr->st.messages += msgs;
	fr->st.bytes += bytes;
	if (!fr->st.t_first_ns)
		fr->st.t_first_ns = s->t_ns - en->t0 ? s->t_ns - en->t0 : 1;
	fr->st.t_last_ns = now - en->t0;
	series_add(en, fr, now, bytes);
	st->messages += msgs;
	st->bytes += bytes;
	st->t_end_ns = now - en->t0;
	nd_hist_add(&en->res->completion, now - s->t_ns);
	if (en->job->op == ND_OP_READ)
		en->res->info.bytes_rx += bytes;
	else
		en->res->info.bytes_tx += bytes;
}

/* A bulk receive (SEND, or WRITE with immediate) at the sink. */
static int on_recv(struct nd_engine *en, struct nd_qp *q, const struct ibv_wc *wc)
{
	const struct nd_stress_job *job = en->job;
	uint32_t slot = (uint32_t)ND_WR_VAL(wc->wr_id), len = wc->byte_len;
	uint64_t seq = q->rx_seq;
	size_t off;

	if (job->op == ND_OP_WRITE_IMM) {
		uint32_t imm = ntohl(wc->imm_data);

		if ((uint32_t)seq != imm) {
			/* out of turn: count it, then follow the sender's numbering */
			en->res->misordered++;
			seq = (seq & ~0xffffffffull) | imm;
		}
		off = q->xbuf + (size_t)(seq % q->xslots) * en->slot_size;
	} else {
		off = q->rxbuf + (size_t)(slot % q->rxslots) * en->slot_size;
	}
	nd_mem_stage_in(en->mem, off, len);
	if (job->validate && len)
		nd_check_msg(en, q, off, len, (uint16_t)(seq % job->tx_depth), seq,
			     job->op == ND_OP_WRITE_IMM ? q->xslots : 0, false);
	q->rx_seq = seq + 1;
	en->res->info.bytes_rx += len;
	return nd_ep_repost(en, q, slot);
}

/* The probe's last byte in the memory at @off, which a WRITE probe lands in. */
static volatile uint8_t *probe_mark(struct nd_engine *en, size_t off)
{
	return (volatile uint8_t *)(en->mem->host + off + nd_gen_probe_size(en->job) - 1);
}

static bool lat_write(const struct nd_engine *en)
{
	return en->job->latency && en->job->op == ND_OP_WRITE;
}

/*
 * Only one probe in ND_PROBE_SIGNAL is signalled, to free the send queue: a completion per
 * probe would be work for the device and this rank inside every round trip.
 */
bool nd_probe_signalled(struct nd_qp *q)
{
	return !(++q->probes_sent % ND_PROBE_SIGNAL);
}

/*
 * A probe: a SEND the other end receives, or (WRITE latency) an RDMA WRITE into the other
 * end's probe buffer whose last byte says which one it is, since no completion will tell.
 */
static int send_probe(struct nd_engine *en, struct nd_qp *q)
{
	uint32_t size = nd_gen_probe_size(en->job);
	struct ibv_sge sge = {
		.addr = en->mem->nic_base + q->lbuf,
		.length = size,
		.lkey = en->mem->mr->lkey,
	};
	struct ibv_send_wr wr = { 0 }, *bad;

	wr.wr_id = ND_WR_ID(q - en->qps, ND_WR_PROBE_SEND, 0);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = nd_probe_signalled(q) ? IBV_SEND_SIGNALED : 0;
	if (lat_write(en)) {
		*probe_mark(en, q->lbuf) = q->lat_mark;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = q->raddr;
		wr.wr.rdma.rkey = q->rkey;
	}
	if (!en->mem->gpu && size <= en->inline_max)
		wr.send_flags |= IBV_SEND_INLINE;
	return ibv_post_send(q->qp, &wr, &bad) ? -errno : 0;
}

/* WRITE latency: marks run 1..255, so a fresh buffer (0) never looks answered */
static uint8_t next_mark(const struct nd_qp *q)
{
	return (uint8_t)(q->lat_mark % 255 + 1);
}

/* The pinger sends a probe, timed from @now. */
static int ping(struct nd_engine *en, struct nd_qp *q, uint64_t now)
{
	int ret;

	q->lat_mark = next_mark(q);
	q->probe_t = now;
	/* the stamp before the post, as perftest's */
	if (en->clk.ns_per_tick)
		q->probe_tsc = nd_tsc_read(&q->probe_cpu);
	ret = send_probe(en, q);
	if (ret)
		return nd_err_set(&en->err, ret, "flow %u: sending a probe failed: %s",
				  q->flow->id, strerror(-ret));
	q->probe_busy = true;
	return 0;
}

/*
 * The pinger's probe came back: half the round trip, as perftest reports latency. @now is the
 * clock when the answer was seen; on the counter (clk.ns_per_tick), the round's clock, and
 * the counter is read here. A round trip that began on another CPU is not timed by this
 * one's counter: the clock then, which gives it a round too long, never too short. Returns the
 * clock at the answer as the round trip puts it (as exact as the probe's start), which the
 * next probe of a burst starts from without reading the clock.
 */
static uint64_t probe_back(struct nd_engine *en, struct nd_qp *q, uint64_t now)
{
	uint64_t rtt = now - q->probe_t, t;
	uint32_t cpu;

	if (en->clk.ns_per_tick) {
		t = nd_tsc_read(&cpu);
		rtt = cpu == q->probe_cpu && t > q->probe_tsc ?
		      (uint64_t)((double)(t - q->probe_tsc) * en->clk.ns_per_tick) :
		      nd_gen_now_ns() - q->probe_t;
	}
	nd_hist_add(&en->res->probe, rtt / 2);
	q->probe_busy = false;
	q->probe_next = en->job->latency ? now : now + en->job->probe_interval_us * 1000ull;
	q->done++;
	return q->probe_t + rtt;
}

/*
 * --latency with --iters: the pinger sends its next probe as soon as one comes back, with the
 * clock it read for the last, instead of on the engine's next round (as ib_*_lat's loop does).
 * A run by duration keeps the engine's round: it decides when the step ends.
 */
static int ping_again(struct nd_engine *en, struct nd_qp *q, uint64_t now)
{
	if (!en->job->latency || !en->job->iters || q->done >= en->job->iters || en->stopping)
		return 0;
	return ping(en, q, now);
}

/* The other end answers the probe that arrived on @q. */
static int answer(struct nd_engine *en, struct nd_qp *q)
{
	int ret;

	q->lat_mark = next_mark(q);
	ret = send_probe(en, q);
	if (ret)
		return nd_err_set(&en->err, ret, "flow %u: answering a probe failed: %s",
				  q->flow->id, strerror(-ret));
	return 0;
}

/* A probe arrived on @q at @now: the pinger's round trip ends, or the other end answers. */
static int probe_landed(struct nd_engine *en, struct nd_qp *q, uint64_t now)
{
	return q->active ? ping_again(en, q, probe_back(en, q, now)) : answer(en, q);
}

/*
 * A probe arrived: the pinger has its round trip and sends the next probe, the other end
 * answers; each then gives its receive back, while the other end works (a probe's answer
 * lands in one of the other ND_PROBE_RX receives; 2-vCPU guest: SEND p50 -4 %).
 */
static int on_probe(struct nd_engine *en, struct nd_qp *q, const struct ibv_wc *wc, uint64_t now)
{
	int ret = probe_landed(en, q, now);

	return ret ? ret : nd_ep_repost(en, q, (uint32_t)ND_WR_VAL(wc->wr_id));
}

/* The mark WRITE latency waits for on @q: the answer to its probe, or the next probe; -1: none. */
static int lat_want(const struct nd_qp *q)
{
	if (q->active && !q->probe_busy)
		return -1;
	return q->active ? q->lat_mark : next_mark(q);
}

static bool lat_landed(struct nd_engine *en, const struct nd_qp *q)
{
	int want = lat_want(q);

	return want >= 0 && *probe_mark(en, q->xbuf) == want;
}

/*
 * A rank with one probe QP waits for its mark in a tight loop, a few thousand reads of one
 * byte, before going back to the engine's round (posting, housekeeping), as perftest waits.
 * Not longer: two ranks on one CPU must still reach the engine's yield (16 times this on a
 * 1-vCPU guest: p50 184 -> 563 us).
 */
#define LAT_SPIN_READS 4096
#define LAT_SPIN_POLLS 256
/* probes handled back to back before the engine's round (nd_poll_cq()) */
#define LAT_BURST 32

/* The rank's only probe QP, or NULL: none, or several (each then looked at in turn). */
static struct nd_qp *lat_one(struct nd_engine *en)
{
	struct nd_qp *one = NULL;
	size_t i;

	for (i = 0; i < en->n_qps; i++) {
		if (!en->qps[i].probe || !en->qps[i].connected)
			continue;
		if (one)
			return NULL;
		one = &en->qps[i];
	}
	return one;
}

/* Wait a turn for @q's mark; whether it landed. */
static bool lat_wait(struct nd_engine *en, const struct nd_qp *q)
{
	volatile uint8_t *mark = probe_mark(en, q->xbuf);
	int k, want = lat_want(q);

	if (want < 0)
		return false;
	/* one load a turn: a turn's length is how late a landed probe can be seen */
	for (k = 0; k < LAT_SPIN_READS && *mark != want; k++)
		;
	return *mark == want;
}

/* WRITE latency: a probe landed on @q; the pinger's clock is the round's on the counter. */
static int lat_landed_probe(struct nd_engine *en, struct nd_qp *q)
{
	return probe_landed(en, q, q->active && !en->clk.ns_per_tick ? nd_gen_now_ns() : en->now);
}

/* WRITE latency: handle what landed (@one: the rank's only probe QP, waited for); how many. */
static int lat_sweep(struct nd_engine *en, struct nd_qp *one)
{
	size_t i;
	int n = 0, ret;

	if (one) {
		if (!lat_wait(en, one))
			return 0;
		ret = lat_landed_probe(en, one);
		return ret ? ret : 1;
	}
	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (!q->probe || !q->connected || !lat_landed(en, q))
			continue;
		ret = lat_landed_probe(en, q);
		if (ret)
			return ret;
		n++;
	}
	return n;
}

/* --latency: when a burst moved, off the counter alone (a conversion per probe: +1 to +4 %) */
static uint64_t burst_moved(struct nd_engine *en, uint32_t *cpu)
{
	return en->clk.ns_per_tick ? nd_tsc_read(cpu) : nd_gen_now_ns();
}

/*
 * A burst that moved and then ended waiting has been idle since it last moved (@t, by
 * burst_moved()): when to yield the CPU counts from there (from the engine's round instead,
 * 1 vCPU: SEND p50 152 -> 162 us). Not waiting: 0.
 */
static void burst_end(struct nd_engine *en, bool waited, uint64_t t, uint32_t cpu)
{
	en->waited_since = 0;
	if (waited)
		en->waited_since = en->clk.ns_per_tick ? nd_tsc_clock_at(&en->clk, t, cpu) : t;
}

/*
 * WRITE latency: handle the probes landed in memory, and the next ones as they land (up to
 * LAT_BURST), as ib_write_lat's loop goes from its post straight back to the byte it
 * watches: the way back through the completion queue, the clock and the search for the QP
 * sat in every round trip (2-vCPU guest, both ways in one run: p50 -3 to -8 %). How many.
 */
static int lat_poll(struct nd_engine *en)
{
	struct nd_qp *one = lat_one(en);
	uint64_t moved = 0;
	uint32_t cpu = 0;
	int n = 0, k;

	do {
		k = lat_sweep(en, one);
		if (k < 0)
			return k;
		if (k)
			moved = burst_moved(en, &cpu);
		n += k;
	} while (k && n < LAT_BURST);
	burst_end(en, n && !k, moved, cpu);
	return n;
}

int nd_probe_tick(struct nd_engine *en, uint64_t now)
{
	size_t i;
	int ret;

	if (!nd_gen_probing(en->job) || en->posting_done || en->stopping)
		return 0;
	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (!q->probe || !q->active || q->probe_busy || q->finished || now < q->probe_next)
			continue;
		ret = ping(en, q, nd_gen_now_ns());
		if (ret)
			return ret;
	}
	return 0;
}

static int on_wc(struct nd_engine *en, const struct ibv_wc *wc, uint64_t now)
{
	size_t qi = ND_WR_QP(wc->wr_id);
	struct nd_qp *q;

	if (qi >= en->n_qps)
		return nd_err_set(&en->err, -EPROTO, "a completion for no QP of ours");
	q = &en->qps[qi];
	if (wc->status != IBV_WC_SUCCESS) {
		/* once the run is over, flushed work requests are expected */
		if (en->stopping && wc->status == IBV_WC_WR_FLUSH_ERR)
			return 0;
		return wc_failed(en, q, wc);
	}
	switch (ND_WR_KIND(wc->wr_id)) {
	case ND_WR_DATA:
		on_data(en, q, wc, now);
		return 0;
	case ND_WR_RECV:
		return on_recv(en, q, wc);
	case ND_WR_PROBE_RECV:
		return on_probe(en, q, wc, now);
	default:
		return 0;
	}
}

static int poll_once(struct nd_engine *en)
{
	struct ibv_wc wc[POLL_BATCH];
	uint64_t now;
	int n, i, ret, landed = 0;

	if (lat_write(en)) {
		landed = lat_poll(en);
		if (landed < 0)
			return landed;
	}
	n = ibv_poll_cq(en->dev->cq, POLL_BATCH, wc);
	/* SEND latency waits on the queue the way WRITE latency waits on memory (lat_wait()) */
	for (i = 0; !n && en->job->latency && !lat_write(en) && i < LAT_SPIN_POLLS; i++)
		n = ibv_poll_cq(en->dev->cq, POLL_BATCH, wc);
	if (n < 0)
		return nd_err_set(&en->err, -EIO, "%s: polling the completion queue failed",
				  en->dev->name);
	/*
	 * The time they were seen, not when this round began: latencies depend on it. Not read
	 * for a batch of sent probes alone: a clock read is not free in a guest, and it would
	 * sit in a SEND latency round trip.
	 */
	for (i = 0, now = 0; i < n && !now; i++)
		if (ND_WR_KIND(wc[i].wr_id) != ND_WR_PROBE_SEND &&
		    (!en->clk.ns_per_tick || ND_WR_KIND(wc[i].wr_id) != ND_WR_PROBE_RECV))
			now = nd_gen_now_ns();
	/* probes on the counter take their own time (probe_back()) */
	if (!now)
		now = en->now;
	for (i = 0; i < n; i++) {
		ret = on_wc(en, &wc[i], now);
		if (ret < 0)
			return ret;
	}
	return n + landed;
}

/*
 * Poll once; with --latency, again at once while probes move (up to LAT_BURST of them), as
 * ib_*_lat goes straight back to waiting: soft-RoCE runs the exchange inside the post's
 * system call, which returns about when the answer lands, so the engine's round after it sat
 * inside every round trip (2-vCPU guest: WRITE p50 0.99x -> 0.96x of ib_write_lat). WRITE
 * latency's bursts are lat_poll()'s. The engine's round still comes after every burst.
 */
int nd_poll_cq(struct nd_engine *en)
{
	uint64_t moved = 0;
	uint32_t cpu = 0;
	int n, total = 0;

	if (lat_write(en))
		return poll_once(en);
	do {
		n = poll_once(en);
		if (n < 0)
			return n;
		total += n;
		if (n && en->job->latency)
			moved = burst_moved(en, &cpu);
	} while (n && en->job->latency && !en->stopping && total < LAT_BURST);
	burst_end(en, en->job->latency && total && !n, moved, cpu);
	return total;
}
