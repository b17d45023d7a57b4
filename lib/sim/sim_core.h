/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The simulator's core, at the bottom of lib/sim/: its types and its event queue (sim_core.c,
 * with the random numbers), for every file of the module and the unit tests. Everything is an
 * index into a flat array (nodes, ports, flows, packets) so the event loop never allocates per
 * event and the working set stays small. Time is integer picoseconds: exact for every Ethernet
 * and InfiniBand rate in use (a byte at 800G is 10 ps) and good for 200 days. After the types
 * come the functions of the parts above the core, in the order they call; the run loop on top
 * of them all has a header of its own, sim.h, which none of them includes.
 */
#ifndef ND_SIM_CORE_H
#define ND_SIM_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "nodrop.h"

#define SIM_PS_PER_S 1000000000000ULL
#define SIM_PS_PER_NS 1000ULL
#define SIM_NONE UINT32_MAX

/* RoCEv2 headers on a payload: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 */
#define SIM_ROCE_HDR 62
/* preamble, SFD and inter-frame gap: take wire time, never buffer space */
#define SIM_ETH_GAP 20
/* InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
#define SIM_IB_HDR 26
/* ACK/NAK (AETH) and CNP payloads */
#define SIM_CTRL_PAYLOAD 16
#define SIM_IB_BLOCK 64		/* one credit */
#define SIM_IB_CREDIT_MAX 2048	/* 12-bit counters: at most half the space outstanding */

/* The credits a packet of @bytes takes (here, not in sim_ib.c: scenario checks need it too). */
static inline unsigned int sim_ib_blocks(unsigned int bytes)
{
	return (bytes + SIM_IB_BLOCK - 1) / SIM_IB_BLOCK;
}

/* Data on the lossless priority; ACK/NAK/CNP on a strict-priority class that PFC never stops. */
enum sim_class {
	SIM_DATA,
	SIM_CTRL,
	SIM_CLASSES
};

enum sim_ev_kind {
	EV_TX_DONE,		/* ref port: its transmitter is free */
	EV_ARRIVE,		/* ref packet: it reached the node past its in_port */
	EV_WAKE,		/* ref host: a paced flow may send */
	EV_PFC,			/* ref port: a PFC frame for the data priority, arg quanta */
	EV_PAUSE_END,		/* ref port: a pause may have run out, arg generation */
	EV_XOFF_REFRESH,	/* ref port: re-send XOFF while its PG is over, arg generation */
	EV_CREDIT,		/* ref port: an InfiniBand flow-control update, arg FCCL */
	EV_RATE_TIMER,		/* ref flow: DCQCN timer T, arg generation */
	EV_ALPHA_TIMER,		/* ref flow: DCQCN timer K, arg generation */
	EV_RATE_CHECK,		/* ref flow: ConnectX's DCQCN cut check */
	EV_RTO,			/* ref flow: retransmission timer */
	EV_START,		/* ref flow: it begins */
	EV_KIND_COUNT
};

/* 16 bytes, so four fit a cache line. */
struct sim_ev {
	uint64_t t;
	uint32_t ref;
	uint16_t arg;
	uint8_t kind;
	uint8_t spare;
};

/* A 4-ary min-heap on time: two levels fewer than a binary one, children in one cache line. */
struct sim_heap {
	struct sim_ev *ev;
	size_t n, cap;
};

int sim_heap_init(struct sim_heap *h, size_t cap);
void sim_heap_free(struct sim_heap *h);
/* 0, or -ENOMEM when it had to grow and could not. */
int sim_heap_push(struct sim_heap *h, uint64_t t, uint8_t kind, uint32_t ref, uint16_t arg);
bool sim_heap_pop(struct sim_heap *h, struct sim_ev *out);
/* Entry k lives at ev[k + SIM_HEAP_PAD] (sim_core.c says why). */
#define SIM_HEAP_PAD 3

/* The earliest event, NULL when empty. */
static inline const struct sim_ev *sim_heap_top(const struct sim_heap *h)
{
	return h->n ? &h->ev[SIM_HEAP_PAD] : NULL;
}

/*
 * The event queue: a timing wheel of 4.096 ns buckets covering the next 67 us (where packets,
 * PFC frames, credit updates and DCQCN timers land) and the heap for what lies further. A
 * bucket is a list of chunks, each a few events side by side, so that a bucket of a big fabric
 * (a hundred events at 4096 hosts) is read a cache line at a time, not an event at a time. A
 * bucket of one chunk is kept in order as events come (a sparse fabric's case); one that grows
 * past that takes events in the order they come, and is sorted once when the clock reaches it
 * (by time, stably, so equal times keep push order) into the drain; what is pushed into a
 * bucket already drained goes into a small heap beside it. So the cost per event does not grow
 * with the events that share a bucket, that is with the fabric. Equal times pop in push order
 * among events pushed within the wheel's reach; one that waited in the far heap (ordered by
 * time alone) pops after the wheel's events of its time, and far ties in heap order: fixed for
 * a seed, not push order (the queue before the wheel did the same; results are pinned to it).
 */
#define SIM_WHEEL_SHIFT 12
#define SIM_WHEEL_SLOTS 16384
/* events per chunk: with the link, two cache lines (one line of three was slower at 4096 hosts) */
#define SIM_CHUNK 7

/* Events ev[lo..hi) of a bucket, and the chunk after them (first: a lone event's one line). */
struct sim_wchunk {
	uint32_t next;
	uint16_t lo, hi;
	struct sim_ev ev[SIM_CHUNK];
} __attribute__((aligned(64)));

/* An event pushed into the drained buckets, with its place among equal times. */
struct sim_lev {
	struct sim_ev ev;
	uint64_t seq;
};

struct sim_evq {
	uint64_t cur;				/* the bucket of the last event popped */
	uint32_t head[SIM_WHEEL_SLOTS], tail[SIM_WHEEL_SLOTS];	/* chunks */
	uint64_t bits[SIM_WHEEL_SLOTS / 64];	/* non-empty buckets */
	uint64_t unsorted[SIM_WHEEL_SLOTS / 64];	/* appended out of order: sorted on loading */
	struct sim_wchunk *pool;
	uint32_t n_pool, cap_pool, free;
	size_t n_wheel;				/* events in the buckets */
	/* the drain: every event of a bucket up to @drained, in (time, push) order */
	bool draining;
	uint64_t drained;
	struct sim_ev *run, *tmp;		/* a sorted bucket, and the sort's scratch */
	uint32_t run_i, run_n, run_cap;
	struct sim_lev *late;			/* a binary heap on (time, seq) */
	uint32_t n_late, cap_late;
	uint64_t seq;
	struct sim_heap far;
};

int sim_evq_init(struct sim_evq *q);
void sim_evq_free(struct sim_evq *q);
int sim_evq_push_slow(struct sim_evq *q, const struct sim_ev *e);
bool sim_evq_pop_slow(struct sim_evq *q, uint64_t until, struct sim_ev *out);

/* Bucket @slot took events out of order: it is sorted when the clock reaches it. */
static inline bool sim_evq_unsorted(const struct sim_evq *q, uint32_t slot)
{
	return q->unsorted[slot / 64] & (1ULL << (slot % 64));
}

/*
 * Push and pop are most of the loop's own work: their common cases (an append to a bucket's
 * last chunk; the next event of a sorted bucket, nothing earlier beside it) are inline, the
 * rest is the _slow functions' (4096 hosts: 15 % fewer instructions a run).
 */
static inline int sim_evq_push(struct sim_evq *q, uint64_t t, uint8_t kind, uint32_t ref,
			       uint16_t arg)
{
	struct sim_ev e = { .t = t, .ref = ref, .arg = arg, .kind = kind };
	uint64_t b = t >> SIM_WHEEL_SHIFT;
	uint32_t slot = (uint32_t)(b & (SIM_WHEEL_SLOTS - 1));
	struct sim_wchunk *ch;

	if (b < q->cur + SIM_WHEEL_SLOTS && !(q->draining && b <= q->drained) &&
	    q->head[slot] != SIM_NONE) {
		ch = &q->pool[q->tail[slot]];
		if (ch->hi < SIM_CHUNK &&
		    (ch->ev[ch->hi - 1].t <= t || sim_evq_unsorted(q, slot))) {
			ch->ev[ch->hi++] = e;
			q->n_wheel++;
			return 0;
		}
	}
	return sim_evq_push_slow(q, &e);
}

/* The next event, if there is one due at or before @until. */
static inline bool sim_evq_pop(struct sim_evq *q, uint64_t until, struct sim_ev *out)
{
	const struct sim_ev *w;

	if (q->draining && q->run_i < q->run_n) {
		w = &q->run[q->run_i];
		/*
		 * The run wins equal times: it was pushed before the heaps beside it. The far
		 * heap's top read in place: through sim_heap_top()'s pointer, +1.5 % instructions.
		 */
		if (w->t <= until && (!q->n_late || q->late[0].ev.t >= w->t) &&
		    (!q->far.n || q->far.ev[SIM_HEAP_PAD].t >= w->t)) {
			*out = *w;
			if (++q->run_i == q->run_n && !q->n_late)
				q->draining = false;
			q->cur = out->t >> SIM_WHEEL_SHIFT;
			return true;
		}
	}
	return sim_evq_pop_slow(q, until, out);
}

enum sim_pkt_type {
	PKT_DATA,
	PKT_ACK,
	PKT_NACK,
	PKT_CNP,
};

struct sim_pkt {
	uint32_t flow;
	uint32_t psn;		/* DATA: its sequence; ACK/NACK: the next one expected */
	uint32_t next;		/* queue link, or free list */
	uint32_t in_port;	/* the port it arrived through at the current node */
	uint16_t bytes;		/* frame: payload + headers, what a buffer holds */
	uint8_t type;
	uint8_t ce;		/* ECN congestion experienced */
};

struct sim_q {
	uint32_t head, tail, n;
	uint64_t bytes;
};

/* A switch's accounting of what arrived through one port (a priority group). */
struct sim_pg {
	uint64_t shared, hdrm;	/* bytes charged to the shared pool and to the headroom */
	bool xoff;		/* PAUSE sent, no resume yet */
	uint16_t gen;
};

struct sim_port {
	uint32_t node, peer;		/* owner, and the port at the link's other end */
	uint64_t speed_bps, delay_ps;
	uint64_t busy_until;		/* its transmitter is serialising until then */
	bool busy;
	bool sw, peer_sw;		/* its node and the peer's are switches (else hosts) */
	struct sim_q q[SIM_CLASSES];	/* switch egress queues (hosts queue control only) */
	/* as a transmitter told to PAUSE */
	bool paused;
	uint16_t pause_gen;
	uint64_t pause_until, pause_start, paused_ps;
	uint64_t response_ps;		/* how long it takes to act on a PFC frame */
	/* as a switch's receiver: the priority groups and PFC sent */
	struct sim_pg pg[SIM_CLASSES];
	uint64_t hdrm_limit;
	/* InfiniBand, as a transmitter: last FCCL received, blocks sent; as a receiver */
	uint16_t fccl, fctbs;
	uint16_t abr;
	uint32_t free_blocks;
	/* waiting for credits with something to send */
	bool waiting;
	uint64_t wait_start, wait_ps;
	/* counters */
	uint64_t pause_rx, pause_tx, ecn_marked, drops, cnp_sent, cnp_handled, tx_bytes;
	/* a switch port's data queue depth over time (sim_qdepth.c) */
	uint64_t *qd_ps;		/* ps spent at each depth, SIM_QD_UNIT a bucket */
	size_t n_qd;
	uint64_t qd_since, qd_max;
};

/* A switch port whose peer is a host: the host always has room and sends no PFC. */
static inline bool sim_to_host(const struct sim_port *port)
{
	return port->sw && !port->peer_sw;
}

struct sim;

/*
 * What the core asks of a node, by its kind (host or switch), as the kernel's net_device_ops:
 * the files below the node kinds reach a node only through these.
 */
struct sim_node_ops {
	/* @port, one of the node's, may start a transmission: it is free, resumed or credited */
	void (*kick)(struct sim *s, uint32_t port);
	/* Packet @p has crossed the link into the node through its in_port. */
	void (*rx)(struct sim *s, uint32_t p);
};

struct sim_node {
	const struct sim_node_ops *ops;
	bool sw;
	uint32_t port0, n_ports;
	uint32_t index;			/* host number, or switch number */
	uint32_t tier;			/* switches: 0 single or leaf, 1 spine */
	uint64_t shared_size, shared_used;	/* switches, RoCE */
};

struct sim_host {
	uint32_t port;
	uint32_t active;		/* a ring of flows with something to send, by next_active */
	uint32_t n_active;
	uint64_t wake_at;		/* an EV_WAKE is pending for then; 0 none */
};

/* DCQCN reaction point state of one flow (rates in bit/s). */
struct sim_dcqcn {
	double rc, rt, alpha, line;
	unsigned int it, ib;		/* stages counted by the timer and the byte counter */
	uint64_t bytes;			/* sent since the byte counter last fired */
	uint16_t t_gen, k_gen;
	bool cut;			/* below line rate: timers run */
	/* ConnectX's reaction point (dcqcn.reduce_period_ps): its periods start at the first CNP */
	bool seen, cnp_alpha, cnp_cut, tick_pending;
	uint64_t anchor;		/* the first CNP */
	uint64_t alpha_k;		/* alpha periods applied since then */
};

struct sim_flow {
	uint32_t src, dst;		/* hosts */
	uint32_t hash;			/* ECMP */
	uint64_t size;			/* bytes, 0: until the end */
	uint32_t npkts;			/* 0: until the end */
	uint64_t start, done_at;	/* done_at: the sender saw the last ACK */
	/* sender */
	uint32_t snd_nxt, snd_una, rto_una;
	uint64_t next_tx;		/* pacing: not before */
	bool rto_armed, active, done;
	uint32_t next_active, prev_active;
	struct sim_dcqcn cc;
	uint64_t retransmits;
	/* receiver */
	uint32_t rcv_nxt, since_ack;
	bool nack_sent, rx_done, cnp_ever;
	uint64_t last_cnp, rx_bytes, rx_pkts, rx_done_at;
};

/* xoshiro256**, seeded by splitmix64: fast, small, and ours (never rand()). */
struct sim_rng {
	uint64_t s[4];
};

void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_unit(struct sim_rng *r);
uint64_t sim_mix64(uint64_t x);

struct sim {
	const struct nd_scenario *sc;
	enum nd_fabric fabric;
	uint64_t now, end;
	struct sim_evq *evq;
	struct sim_pkt *pkt;
	uint32_t n_pkt, cap_pkt, free_pkt;
	struct sim_node *nodes;
	uint32_t n_nodes, n_hosts;
	struct sim_port *ports;
	uint32_t n_ports;
	struct sim_host *hosts;
	struct sim_flow *flows;
	uint32_t n_flows;
	double *series;			/* bytes per flow per interval: flows x n_series */
	size_t n_series;
	struct sim_rng rng_ecn;
	unsigned int hdr, gap;		/* per packet: header bytes, wire-only bytes */
	unsigned int data_bytes;	/* frame of a full data packet */
	uint64_t events, packets, retransmits, drops;
	int err;			/* the first -errno in the loop; it stops there */
};

/* The parts, in the order they call: each only the ones before it (see sim.c). */

/* sim_cdf.c: flow-size CDF files, and reading a small file */
/* A whole small regular file into memory; the message in @e when not. */
int sim_slurp(const char *path, size_t max, char **out, size_t *len, struct nd_err *e);
/* nd_cdf_load() on @len bytes already read; @name stands for the file in messages. */
int sim_cdf_parse(const char *name, const char *data, size_t len, struct nd_cdf_point **pts,
		  size_t *n, struct nd_err *e);
/* A size drawn from the CDF by its percentile @u in [0, 1). */
double sim_cdf_sample(const struct nd_cdf_point *pts, size_t n, double u);

/* sim_scenario_check.c: defaults, checks across keys, names (public), and: */
/* The host count of a topology. */
unsigned int sim_topo_hosts(const struct nd_sim_topo *t);

/*
 * sim_tx.c: events, packets, queues, transmitters; nodes only through their ops. The queue
 * and wire-time helpers are here, inline (as the kernel's skb queue ones): they run per packet
 * in every file above, and calls to them cost 1.5 % of a run.
 */
static inline void sim_q_push(struct sim *s, struct sim_q *q, uint32_t p)
{
	s->pkt[p].next = SIM_NONE;
	if (q->n)
		s->pkt[q->tail].next = p;
	else
		q->head = p;
	q->tail = p;
	q->n++;
	q->bytes += s->pkt[p].bytes;
}

static inline uint32_t sim_q_pop(struct sim *s, struct sim_q *q)
{
	uint32_t p = q->head;

	q->head = s->pkt[p].next;
	q->n--;
	q->bytes -= s->pkt[p].bytes;
	return p;
}

static inline uint64_t sim_ser_ps(const struct sim_port *port, unsigned int bytes)
{
	return (uint64_t)bytes * 8 * SIM_PS_PER_S / port->speed_bps;
}

void sim_push(struct sim *s, uint64_t t, uint8_t kind, uint32_t ref, uint16_t arg);
uint32_t sim_pkt_alloc(struct sim *s);
void sim_pkt_free(struct sim *s, uint32_t p);
/* Put packet @p on the wire of @port now (the port is free). */
void sim_transmit(struct sim *s, uint32_t port, uint32_t p);
/* Start the next transmission of @port if it is free and may send: its node's ops->kick. */
void sim_kick(struct sim *s, uint32_t port);

/* sim_pfc.c: per-PG admission with static or dynamic thresholds, headroom, PAUSE */
bool sim_pfc_admit(struct sim *s, uint32_t in_port, unsigned int bytes);
void sim_pfc_release(struct sim *s, uint32_t in_port, unsigned int bytes);
void sim_on_pfc(struct sim *s, uint32_t port, uint16_t quanta);
void sim_on_pause_end(struct sim *s, uint32_t port, uint16_t gen);
void sim_on_xoff_refresh(struct sim *s, uint32_t port, uint16_t gen);
/* Close an open pause at the end of the run. */
void sim_pfc_finish(struct sim *s, uint32_t port);
/* The PG threshold in force on @node now. */
uint64_t sim_pfc_threshold(const struct sim *s, const struct sim_node *node);

/* sim_ib.c: credit-based flow control per VL, 64-byte blocks, 12-bit counters */
bool sim_ib_can_send(uint16_t fccl, uint16_t fctbs, unsigned int blocks);
/* May @port send @bytes now? Starts its credit wait when not. */
bool sim_ib_tx_ok(struct sim *s, uint32_t port, unsigned int bytes);
void sim_ib_sent(struct sim *s, uint32_t port, unsigned int bytes);
/* A switch receiver takes @bytes into its VL buffer; false on overflow (never, by design). */
bool sim_ib_rx(struct sim *s, uint32_t in_port, unsigned int bytes);
/* ...and frees them when they leave: a flow-control update goes back upstream. */
void sim_ib_release(struct sim *s, uint32_t in_port, unsigned int bytes);
void sim_on_credit(struct sim *s, uint32_t port, uint16_t fccl);
void sim_ib_init_port(struct sim *s, uint32_t port);
void sim_wait_start(struct sim *s, struct sim_port *port);
void sim_wait_stop(struct sim *s, struct sim_port *port);

/* sim_ecn.c: RED at the egress (dequeue), and the notification point at receivers */
bool sim_ecn_mark(struct sim *s, uint64_t queue_bytes);
/* A CE-marked packet of @flow arrived: true when a CNP is due now (counted as sent). */
bool sim_np_on_ce(struct sim *s, uint32_t flow);

/* sim_dcqcn.c: the reaction point (pure, so the unit tests drive it step by step) */
void sim_dcqcn_init(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, double line_bps);
void sim_dcqcn_cnp(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p);
/* ConnectX's reaction point: a CNP at @now is noted; true when a cut check must be scheduled */
bool sim_dcqcn_note(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t now);
/* ...and the check at @now: the cut if a CNP came since the last; true if it cut */
bool sim_dcqcn_check(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t now);
void sim_dcqcn_alpha_timer(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p);
void sim_dcqcn_rate_timer(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p);
/* Count @bytes sent; true when the byte counter fired (a rate increase was applied). */
bool sim_dcqcn_sent(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t bytes);
/* ...and their wiring into the event loop */
void sim_dcqcn_on_cnp(struct sim *s, uint32_t flow);
void sim_on_rate_timer(struct sim *s, uint32_t flow, uint16_t gen);
void sim_on_alpha_timer(struct sim *s, uint32_t flow, uint16_t gen);
void sim_on_rate_check(struct sim *s, uint32_t flow);

/* sim_host.c: the NIC: paced flows, go-back-N, ACK/NAK, CNP generation */
extern const struct sim_node_ops sim_host_ops;
void sim_host_kick(struct sim *s, uint32_t port);
void sim_host_rx(struct sim *s, uint32_t p);
void sim_on_wake(struct sim *s, uint32_t host);
void sim_on_start(struct sim *s, uint32_t flow);
void sim_on_rto(struct sim *s, uint32_t flow);

/* sim_qdepth.c: time-weighted egress queue depth per switch port, for the report */
#define SIM_QD_UNIT 1024
void sim_qdepth_note(struct sim *s, uint32_t port);
void sim_qdepth_result(const struct sim *s, uint32_t port, uint64_t *p50, uint64_t *p99,
		       uint64_t *max);
void sim_qdepth_free(struct sim *s);

/* sim_switch.c: ingress accounting, routing, egress queues, ECN marking */
extern const struct sim_node_ops sim_switch_ops;
void sim_switch_kick(struct sim *s, uint32_t port);
uint32_t sim_switch_route(const struct sim *s, const struct sim_node *n, uint32_t flow,
			  bool data);
void sim_switch_rx(struct sim *s, uint32_t p);

/*
 * A call through @f, made direct when @f is @f2 or @f1, as the kernel's INDIRECT_CALL_2: for
 * the hot paths of files above the node kinds.
 */
#define SIM_INDIRECT_CALL_2(f, f2, f1, ...) \
	((f) == (f2) ? (f2)(__VA_ARGS__) : (f) == (f1) ? (f1)(__VA_ARGS__) : (f)(__VA_ARGS__))

/* sim_net.c: the topology, and the link's events */
void sim_on_tx_done(struct sim *s, uint32_t port);
void sim_on_arrive(struct sim *s, uint32_t p, bool sw);
int sim_net_build(struct sim *s, struct nd_err *e);
void sim_net_free(struct sim *s);
/* "h3", "sw0/h3", "leaf1/spine0": for the report. */
void sim_port_name(const struct sim *s, uint32_t port, char *buf, size_t size);
void sim_flow_path(const struct sim *s, uint32_t flow, char *buf, size_t size);

/* sim_workload.c: the flows of a pattern, or Poisson arrivals from a CDF */
int sim_workload_build(struct sim *s, struct nd_err *e);

/* sim_report.c */
int sim_report(struct sim *s, struct nd_run_report *r, struct nd_sim_stats *st,
	       struct nd_err *e);
/* The FCT of @flow on an idle fabric: base RTT plus its bytes at the sender's line rate. */
double sim_ideal_fct_ps(const struct sim *s, const struct sim_flow *f);

#endif
