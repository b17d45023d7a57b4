/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: counters under canonical names (nodrop-counters(8)). */
#ifndef NODROP_COUNTERS_H
#define NODROP_COUNTERS_H

#include <nodrop/port.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One meaning, one name, for every driver: "pfc_rx_frames" prio 3 is mlx5's rx_prio3_pause,
 * bnxt's rx_pfc_ena_frames_pri3 and ice's rx_priority_3_xon.nic + rx_priority_3_xoff.nic. The
 * meanings are code (nd_counter_info); which driver calls them what is data (driver map files:
 * the shipped ones built into the library, a site's read from SYSCONFDIR/nodrop/counters, so a
 * new driver needs a file and no rebuild).
 */
enum nd_ctr_source {
	ND_CTR_ETHTOOL,		/* ethtool ioctl string set / stats (driver counters) */
	ND_CTR_PAUSE,		/* ethtool netlink standard pause stats (802.3x) */
	ND_CTR_RDMA,		/* RDMA netlink statistics, sysfs hw_counters as fallback */
	ND_CTR_PMA,		/* IB PMA: /sys/class/infiniband/DEV/ports/N/counters */
};

#define ND_CTR_NAME_MAX 64

/* "ethtool", "pause", "rdma", "pma" */
const char *nd_ctr_source_name(enum nd_ctr_source source);

struct nd_counter {
	char name[ND_CTR_NAME_MAX];	/* canonical name, or the raw name when no map knows it */
	int prio;			/* 0..7 for per-priority counters, -1 otherwise */
	bool mapped;			/* false: unmapped raw counter, kept under its own name */
	enum nd_ctr_source source;
	char raw[ND_CTR_NAME_MAX];	/* the driver's name (the first of several that add up) */
	uint64_t value;
	uint8_t width;			/* bits before it wraps: 64, 32, or a PMA field's width */
	bool saturates;			/* IB PMA error counters stick at their maximum */
};

/* What a canonical counter means (NULL for names no map defines). */
struct nd_counter_info {
	const char *name;
	bool per_prio;
	const char *unit;		/* "frames", "us", "packets", "bytes", "events", "ticks" */
	bool loss;			/* a loss indicator: moves only when data was lost or resent */
	const char *help;		/* one line, for --prometheus HELP and the man page */
};

const struct nd_counter_info *nd_counter_info(const char *name);
/* Every canonical counter, NULL-terminated by name. */
const struct nd_counter_info *nd_counter_infos(size_t *n);

/* All sources of one port read together: a consistent snapshot with one monotonic timestamp. */
struct nd_sample {
	char ifname[ND_IFNAMSIZ];
	char driver[32];
	char ibdev[64];			/* the RDMA device whose counters are in it, "" none */
	unsigned int ibport;
	bool rdma_netlink;		/* RDMA counters came by netlink (false: sysfs fallback) */
	uint64_t t_ns;			/* CLOCK_MONOTONIC when the snapshot was taken */
	struct nd_counter *c;
	size_t n;
};

struct nd_sampler;

/*
 * @maps: the directory of driver map files, read alone; NULL for env NODROP_COUNTER_MAPS's, else
 * the maps built into the library (data/counters when it was built) with the site's
 * SYSCONFDIR/nodrop/counters laid over them (nodrop-counters(8), MAP FILES). A bad map file
 * fails with -EINVAL and "FILE:LINE: ...".
 */
int nd_sampler_new(struct nd_sampler **s, const char *maps, struct nd_err *e);
void nd_sampler_free(struct nd_sampler *s);
/* Take one sample of @ifname (its ethtool counters, pause stats, RDMA and PMA counters). */
int nd_sample_port(struct nd_sampler *s, const char *ifname, struct nd_sample *out,
		   struct nd_err *e);
/*
 * One sample of each of @n ports into @out[0..n-1], as nd_sample_port() each; a watch of many
 * ports pays less (the sampler's event sockets are looked at once for all). On failure none is
 * kept and @e names the port.
 */
int nd_sample_ports(struct nd_sampler *s, const char *const *ifnames, size_t n,
		    struct nd_sample *out, struct nd_err *e);
void nd_sample_free(struct nd_sample *smp);
/*
 * The counter @name (canonical or raw) for @prio (-1: not per priority), NULL when absent. A
 * canonical name wins over a raw one; of two sources the first of ethtool, pause, rdma, pma.
 */
const struct nd_counter *nd_sample_find(const struct nd_sample *smp, const char *name, int prio);

enum nd_delta_status {
	ND_DELTA_OK,
	ND_DELTA_WRAPPED,	/* passed its width once: delta computed modulo 2^width */
	ND_DELTA_SATURATED,	/* a saturating counter at its maximum: at least this much */
	ND_DELTA_RESET,		/* went backwards without wrapping (driver reload): no delta */
	ND_DELTA_NEW,		/* not in the first sample (a PFC priority enabled meanwhile) */
	ND_DELTA_GONE,		/* not in the second sample */
};

struct nd_delta {
	char name[ND_CTR_NAME_MAX];
	int prio;
	bool mapped;
	enum nd_ctr_source source;	/* one name can come from two sources (pause frames) */
	uint64_t value;			/* in the second sample (GONE: the last value seen) */
	uint64_t delta;			/* 0 unless status OK, WRAPPED or SATURATED */
	double rate;			/* delta per second of the samples' time apart */
	enum nd_delta_status status;
};

/* "ok", "wrapped", "saturated", "reset", "new", "gone" */
const char *nd_delta_status_name(enum nd_delta_status status);

/* Deltas from @a to @b (same port, @b later): one per counter in either sample. */
int nd_sample_diff(const struct nd_sample *a, const struct nd_sample *b, struct nd_delta **out,
		   size_t *n, struct nd_err *e);
/* The delta of @name/@prio in @d (NULL when absent); the same preference as nd_sample_find. */
const struct nd_delta *nd_delta_find(const struct nd_delta *d, size_t n, const char *name,
				     int prio);

#ifdef __cplusplus
}
#endif

#endif
