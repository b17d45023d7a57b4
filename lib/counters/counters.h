/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Counters inside libnodrop: driver map files, the mapper that turns raw (source, name, value)
 * triples into a sample, and the readers of each kernel source. The mapper takes triples, not
 * kernel replies, so every map is testable without the kernel that would produce the names.
 */
#ifndef ND_COUNTERS_H
#define ND_COUNTERS_H

#include <linux/netlink.h>

#include "core/internal.h"

#define ND_CTR_SOURCES 4
#define ND_CTR_FILE_MAX 256
/* Maps one port can draw on: its netdev driver's, its RDMA device's and the generic ones. */
#define ND_CTR_SEL_MAX 16

/* The source called @name in map files and output ("ethtool", "pause", "rdma", "pma"). */
int nd_ctr_source_parse(const char *name, enum nd_ctr_source *src);
/* Position of @info in the canonical table (display and sort order). */
size_t nd_ctr_info_index(const struct nd_counter_info *info);

/* One line of a map file: a raw name (or pattern around {p}) and what it means. */
struct nd_ctr_rule {
	enum nd_ctr_source source;
	char prefix[ND_CTR_NAME_MAX];	/* the raw name, or the part before {p} */
	char suffix[ND_CTR_NAME_MAX];	/* the part after {p} */
	bool per_prio;			/* the raw name holds {p} */
	uint8_t prefix_len, suffix_len;	/* a lookup compares lengths before bytes */
	uint16_t info;			/* index in nd_counter_infos(): tables hold no pointer */
	uint8_t width;
	bool saturates;
	bool sum;			/* adds up with the other lines of its name and priority */
	uint32_t scale;			/* units per raw count (PMA data: 4 octets) */
	unsigned int line;
	unsigned long order;		/* file order over all maps: the earlier alias wins */
	uint32_t key;			/* hash of source and raw name: the duplicate check */
};

/* The canonical counter a rule gives. */
static inline const struct nd_counter_info *nd_ctr_rule_info(const struct nd_ctr_rule *r)
{
	return nd_counter_infos(NULL) + r->info;
}

struct nd_ctr_map {
	char file[ND_CTR_FILE_MAX];
	char **drivers;			/* kernel driver names; "*" for every port */
	size_t n_drivers;
	char **ibdevs;			/* RDMA device name prefixes */
	size_t n_ibdevs;
	bool any;			/* drivers holds "*" */
	unsigned int sources;		/* ND_CTR_SRC(source) of each source its rules read */
	struct nd_ctr_rule *rules;
	size_t n_rules;
	bool builtin;			/* rules are the binary's tables (not freed) */
	char *text;			/* lazily opened: the rules' text, until a port selects it */
	unsigned long base;		/* order of line 0 (its place among the maps) */
};

struct nd_ctr_maps {
	struct nd_ctr_map *v;
	size_t n;
};

/* Parse one map file's text and append it to @maps; errors say "FILE:LINE: what; fix". */
int nd_ctr_map_parse(struct nd_ctr_maps *maps, const char *file, const char *text,
		     struct nd_err *e);
/* Load every *.map file of @dir in name order. A directory with no map is an error. */
int nd_ctr_maps_load(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e);
/*
 * The same, but only each map's drivers and ibdevs lines are read now; its rules are parsed
 * when nd_ctr_select() first picks it, so a command pays for the maps of the ports it reads.
 */
int nd_ctr_maps_open(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e);
void nd_ctr_maps_free(struct nd_ctr_maps *maps);
/*
 * The maps nodrop was built with (data/counters, parsed at build time: no file read, no line
 * parsed), each named as its file. nd_ctr_maps_overlay() then lays the *.map files of @dir over
 * @maps: one named as a map there replaces it in its place, any other is added after them in
 * name order, all opened lazily; a @dir that does not exist adds nothing.
 */
int nd_ctr_maps_builtin(struct nd_ctr_maps *maps, struct nd_err *e);
int nd_ctr_maps_overlay(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e);
/*
 * The maps when nobody names a directory: NODROP_COUNTER_MAPS's directory alone if set, else
 * the built-in maps with @site's laid over them (NULL: SYSCONFDIR/nodrop/counters).
 */
int nd_ctr_maps_default(struct nd_ctr_maps *maps, const char *site, struct nd_err *e);

/* A source as a bit of a set, for a map's sources and a port's. */
#define ND_CTR_SRC(source)	(1u << (source))
#define ND_CTR_SRC_ALL		(ND_CTR_SRC(ND_CTR_SOURCES) - 1)

/* The maps that apply to a port, specific ones first, "*" ones last. */
struct nd_ctr_sel {
	const struct nd_ctr_map *map[ND_CTR_SEL_MAX];
	size_t n;
};

/*
 * Select by the port's driver names (netdev driver, RDMA device's parent driver; NULL or ""
 * entries are skipped) and its RDMA device name (may be NULL), among the maps with a rule for
 * one of @sources (ND_CTR_SRC bits: what the port can be read by): a "*" map of pause and PMA
 * rules is not even parsed for a port with neither.
 */
int nd_ctr_select(struct nd_ctr_maps *maps, const char *const *drivers, size_t n_drivers,
		  const char *ibdev, unsigned int sources, struct nd_ctr_sel *sel,
		  struct nd_err *e);
/* The rule that maps @raw from @src, NULL when none does; *@prio is its priority or -1. */
const struct nd_ctr_rule *nd_ctr_lookup(const struct nd_ctr_sel *sel, enum nd_ctr_source src,
					const char *raw, int *prio);

/* One add of a recorded build: what it was and what it did to which counter of the sample. */
struct nd_ctr_step {
	const struct nd_ctr_rule *rule;
	uint32_t raw;			/* the raw name's offset in the scratch's pool */
	uint32_t dst;			/* the counter it wrote, in the finished sample's order */
	int8_t prio;
	uint8_t source;
	uint8_t op;			/* ND_CTR_STEP_* */
};

enum { ND_CTR_STEP_SET, ND_CTR_STEP_ADD, ND_CTR_STEP_SKIP };

/*
 * What a long-lived caller keeps between the builds of one port's samples: the slot table
 * (allocated once, cleared after each build) and the last sample's order, which the next build
 * only checks (n comparisons) instead of sorting again when the driver lists the same counters.
 * From the second build on, a build also records its layout: each add in turn and what it did,
 * and the sample it made. A build whose adds are the last one's, in the same order under the
 * same rules, is that sample with new values: it replays the steps (a comparison and a store
 * each); at the first add that differs it redoes the adds so far as a build of its own.
 */
struct nd_ctr_scratch {
	int *slot;
	size_t *perm;
	size_t n_perm, cap_perm;
	unsigned long builds;
	bool layout;			/* steps, pool and tmpl describe the last build */
	struct nd_ctr_step *step;
	size_t n_step, cap_step;
	char *pool;			/* the steps' raw names, each NUL-terminated */
	size_t n_pool, cap_pool;
	uint64_t *val;			/* a replay's values so far, for the adds to redo */
	struct nd_counter *tmpl;	/* the last build's counters, in order */
	size_t n_tmpl;
};

void nd_ctr_scratch_free(struct nd_ctr_scratch *sc);

/* Turns raw triples into the counters of one sample. */
struct nd_ctr_build {
	struct nd_sample *smp;
	const struct nd_ctr_sel *sel;
	const struct nd_ctr_rule **rule;	/* per counter: the rule that set it, NULL raw */
	size_t cap;
	int *slot;			/* (source, canonical, prio) -> counter index + 1 */
	size_t n_slots;
	struct nd_ctr_scratch *scratch;	/* NULL: the slots are the build's own */
	bool record;			/* write the layout into the scratch */
	bool replay;			/* the sample is the scratch's layout; adds so far match */
	size_t adds;			/* adds so far, whatever each did: a reader's "gave any" */
};

/* @scratch may be NULL (a one-off build). */
int nd_ctr_build_start(struct nd_ctr_build *b, struct nd_sample *smp,
		       const struct nd_ctr_sel *sel, struct nd_ctr_scratch *scratch);
/* Add one raw counter, mapped through the selection; -ENOMEM is the only failure. */
int nd_ctr_add(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw, uint64_t value);
/* The same with the lookup already done (the ethtool reader caches it per string set). */
int nd_ctr_add_rule(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw,
		    uint64_t value, const struct nd_ctr_rule *rule, int prio);
/*
 * Put mapped counters first in canonical order, raw ones after in the order read. -ENOMEM (the
 * sample freed) only when a replay had to be made again as a build of its own.
 */
int nd_ctr_build_finish(struct nd_ctr_build *b);
/* Free the scratch (and, on failure, the sample's counters). */
void nd_ctr_build_abort(struct nd_ctr_build *b);

/* sysfs readers: RDMA hw_counters and the IB PMA counters/ of one port; absent dirs are 0. */
int nd_ctr_read_hw_counters(struct nd_ctr_build *b, const char *ibdev, unsigned int port);
int nd_ctr_read_pma(struct nd_ctr_build *b, const char *ibdev, unsigned int port);

/* Netlink reply parsers, separate from the sockets so tests can feed them bytes. */
typedef int (*nd_ctr_raw_fn)(void *data, const char *name, uint64_t value);
/* CTRL_CMD_GETFAMILY reply -> family id (0 when absent). */
int nd_ctr_parse_family(const struct nlmsghdr *nlh, uint16_t *id);
/* ETHTOOL_MSG_PAUSE_GET reply: calls @fn for "rx_pause_frames" / "tx_pause_frames" present. */
int nd_ctr_parse_pause(const struct nlmsghdr *nlh, nd_ctr_raw_fn fn, void *data,
		       struct nd_err *e);
/* RDMA_NLDEV_CMD_GET reply: device index and name. */
int nd_ctr_parse_rdma_dev(const struct nlmsghdr *nlh, uint32_t *index, char *name, size_t len);
/* RDMA_NLDEV_CMD_STAT_GET reply: @fn for each hw counter entry. */
int nd_ctr_parse_rdma_stat(const struct nlmsghdr *nlh, nd_ctr_raw_fn fn, void *data,
			   struct nd_err *e);

/* The requests behind those replies. */
/* The family's id and, when @group is not NULL, the id of its multicast group @group_name. */
int nd_ctr_genl_family(struct nd_nl *nl, const char *name, uint16_t *id, const char *group_name,
		       uint32_t *group, struct nd_err *e);
/* A CTRL_CMD_GETFAMILY reply -> the id of multicast group @name (0 when absent). */
uint32_t nd_ctr_parse_family_group(const struct nlmsghdr *nlh, const char *name);
int nd_ctr_pause_read(struct nd_nl *nl, uint16_t family, const char *ifname, nd_ctr_raw_fn fn,
		      void *data, struct nd_err *e);
/* The RDMA netlink index of @ibdev (a dump of every device; indexes change on re-creation). */
int nd_ctr_rdma_index(struct nd_nl *nl, const char *ibdev, uint32_t *index, struct nd_err *e);
int nd_ctr_rdma_stat(struct nd_nl *nl, uint32_t index, unsigned int port, nd_ctr_raw_fn fn,
		     void *data, struct nd_err *e);

/* One SIOCETHTOOL request (@data starts with its ETHTOOL_* command) on @ifname; 0 or -errno. */
int nd_ctr_ethtool_ioctl(int fd, const char *ifname, void *data);

/* ethtool ioctl: the driver's statistics string set and values, consistent with each other. */
struct nd_ctr_ethtool;
struct nd_ctr_ethtool *nd_ctr_ethtool_new(void);
void nd_ctr_ethtool_free(struct nd_ctr_ethtool *et);
/*
 * Read @ifname's statistics with the socket @fd into @b; strings are re-read around the values
 * so a string set that changed meanwhile (mlx5 PFC) is never paired with the wrong values.
 * -EOPNOTSUPP: the driver has no statistics; -ENODEV: no such device.
 */
int nd_ctr_ethtool_read(struct nd_ctr_ethtool *et, int fd, const char *ifname,
			struct nd_ctr_build *b, struct nd_err *e);
/* How many statistics the last consistent read found (0: none, or never read). */
size_t nd_ctr_ethtool_count(const struct nd_ctr_ethtool *et);
/*
 * One ETHTOOL_GSTATS under the names of the last consistent read, for a caller that learns of
 * string-set changes otherwise (netlink events, see counters_events.c). -ESTALE when nothing is
 * known yet, @b's maps differ, or the driver now has another count: do a full read. Other
 * errors are the ioctl's (negative errno, @e untouched).
 */
int nd_ctr_ethtool_values(struct nd_ctr_ethtool *et, int fd, const char *ifname,
			  struct nd_ctr_build *b, struct nd_err *e);

/*
 * Netlink events that may change what a sampler knows of a port: rtnetlink link and DCB
 * messages (a netdev added, removed, renamed, its PFC changed: mlx5 changes its statistics
 * strings with PFC) and ethtool's monitor group (pause, channels, private flags). The kernel
 * sends each under the RTNL lock it holds while the driver changes, and the ethtool ioctl
 * takes that lock too: a read that saw a changed string set finds the event already queued.
 */
struct nd_ctr_events {
	struct mnl_socket *sk[2];
	int n;
};

/* Subscribe; @ethtool_group is the ethtool family's "monitor" group, 0 when unknown. */
int nd_ctr_events_open(struct nd_ctr_events *ev, uint32_t ethtool_group);
void nd_ctr_events_close(struct nd_ctr_events *ev);
/* Drain what came; true when anything did (a lost event, an overrun, counts too). */
bool nd_ctr_events_pending(struct nd_ctr_events *ev);

#endif
