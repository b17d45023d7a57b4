// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver counters through the ethtool ioctl: ETHTOOL_GSSET_INFO (or GDRVINFO's n_stats) for the
 * count, ETHTOOL_GSTRINGS for the names, ETHTOOL_GSTATS for the values. None needs a
 * capability. The string set is the driver's to change at any time (mlx5 adds and removes
 * per-priority pause strings with PFC, possibly keeping the count), so the names are read again
 * after the values and a sample is used only when both reads agree; the names of the last
 * sample are kept to spare the first read and the name-to-rule mapping while nothing changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>

#include "counters.h"

/*
 * The kernel writes as many strings and values as the driver has at the time of the call,
 * whatever length we passed, so the buffers leave room for a string set that grows between the
 * count and the read. mlx5 moves by at most 45 strings (8 priorities and global pause).
 */
#define ETH_SLACK 256
#define ETH_TRIES 4

struct nd_ctr_ethtool {
	char *names;			/* n * ETH_GSTRING_LEN, as the driver last listed */
	size_t n;
	const struct nd_ctr_rule **rule;	/* per name, under sel */
	int8_t *prio;
	struct nd_ctr_sel sel;
	bool mapped;
	struct ethtool_gstrings *gs;
	struct ethtool_stats *st;
	size_t cap;
};

struct nd_ctr_ethtool *nd_ctr_ethtool_new(void)
{
	return calloc(1, sizeof(struct nd_ctr_ethtool));
}

void nd_ctr_ethtool_free(struct nd_ctr_ethtool *et)
{
	if (!et)
		return;
	free(et->names);
	free(et->rule);
	free(et->prio);
	free(et->gs);
	free(et->st);
	free(et);
}

int nd_ctr_ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	nd_strlcpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static int stats_count(int fd, const char *ifname, size_t *n)
{
	union {
		struct ethtool_sset_info info;
		char room[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} req;
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	int ret;

	memset(&req, 0, sizeof(req));
	req.info.cmd = ETHTOOL_GSSET_INFO;
	req.info.sset_mask = UINT64_C(1) << ETH_SS_STATS;
	ret = nd_ctr_ethtool_ioctl(fd, ifname, &req);
	if (!ret) {
		*n = req.info.sset_mask & (UINT64_C(1) << ETH_SS_STATS) ? req.info.data[0] : 0;
		return 0;
	}
	if (ret != -EOPNOTSUPP)
		return ret;
	/* drivers from before string-set info report the count in the driver info */
	ret = nd_ctr_ethtool_ioctl(fd, ifname, &drv);
	if (!ret)
		*n = drv.n_stats;
	return ret;
}

static int reserve(struct nd_ctr_ethtool *et, size_t n)
{
	size_t cap = n + ETH_SLACK;
	void *gs, *st;

	if (cap <= et->cap)
		return 0;
	gs = realloc(et->gs, sizeof(*et->gs) + cap * ETH_GSTRING_LEN);
	if (gs)
		et->gs = gs;
	st = realloc(et->st, sizeof(*et->st) + cap * sizeof(uint64_t));
	if (st)
		et->st = st;
	if (!gs || !st)
		return -ENOMEM;
	et->cap = cap;
	return 0;
}

/*
 * The buffers are cleared before each call: the kernel fills them, but checkers such as
 * valgrind cannot see through ETHTOOL_* and would take every name and value as uninitialised.
 */
static int read_strings(struct nd_ctr_ethtool *et, int fd, const char *ifname, size_t n)
{
	memset(et->gs, 0, sizeof(*et->gs) + n * ETH_GSTRING_LEN);
	et->gs->cmd = ETHTOOL_GSTRINGS;
	et->gs->string_set = ETH_SS_STATS;
	et->gs->len = (uint32_t)n;
	return nd_ctr_ethtool_ioctl(fd, ifname, et->gs);
}

/* Keep the string set just read as the current one; the mapping must be redone. */
static int adopt(struct nd_ctr_ethtool *et, size_t n)
{
	char *names = realloc(et->names, n * ETH_GSTRING_LEN);
	const struct nd_ctr_rule **rule = realloc(et->rule, n * sizeof(*rule));
	int8_t *prio = realloc(et->prio, n);

	if (names)
		et->names = names;
	if (rule)
		et->rule = rule;
	if (prio)
		et->prio = prio;
	if (!names || !rule || !prio)
		return -ENOMEM;
	memcpy(et->names, et->gs->data, n * ETH_GSTRING_LEN);
	et->n = n;
	et->mapped = false;
	return 0;
}

/* One consistent read; 1 when the string set moved under it and it must be done again. */
static int read_once(struct nd_ctr_ethtool *et, int fd, const char *ifname, size_t *n)
{
	int ret;

	ret = stats_count(fd, ifname, n);
	if (ret || !*n)
		return ret;
	if (reserve(et, *n))
		return -ENOMEM;
	if (et->n != *n) {
		ret = read_strings(et, fd, ifname, *n);
		if (ret)
			return ret;
		if (et->gs->len != *n)
			return 1;
		if (adopt(et, *n))
			return -ENOMEM;
	}
	memset(et->st, 0, sizeof(*et->st) + *n * sizeof(uint64_t));
	et->st->cmd = ETHTOOL_GSTATS;
	et->st->n_stats = (uint32_t)*n;
	ret = nd_ctr_ethtool_ioctl(fd, ifname, et->st);
	if (ret)
		return ret;
	if (et->st->n_stats != *n)
		return 1;
	ret = read_strings(et, fd, ifname, *n);
	if (ret)
		return ret;
	if (et->gs->len == *n && !memcmp(et->gs->data, et->names, *n * ETH_GSTRING_LEN))
		return 0;
	/* the values belong to a set we did not see in full: take the new names, read again */
	if (et->gs->len > et->cap)
		return -EOVERFLOW;
	if (et->gs->len == *n && adopt(et, *n))
		return -ENOMEM;
	if (et->gs->len != *n)
		et->n = 0;
	return 1;
}

static void map_names(struct nd_ctr_ethtool *et, const struct nd_ctr_sel *sel)
{
	char name[ETH_GSTRING_LEN + 1];
	size_t i;
	int prio;

	if (et->mapped && !memcmp(&et->sel, sel, sizeof(*sel)))
		return;
	for (i = 0; i < et->n; i++) {
		memcpy(name, et->names + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		et->rule[i] = nd_ctr_lookup(sel, ND_CTR_ETHTOOL, name, &prio);
		et->prio[i] = (int8_t)prio;
	}
	et->sel = *sel;
	et->mapped = true;
}

/* The values just read, under the names (and rules) of the set they were read with. */
static int add_values(struct nd_ctr_ethtool *et, size_t n, const char *ifname,
		      struct nd_ctr_build *b, struct nd_err *e)
{
	char name[ETH_GSTRING_LEN + 1];
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(name, et->names + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (nd_ctr_add_rule(b, ND_CTR_ETHTOOL, name, et->st->data[i], et->rule[i],
				    et->prio[i]))
			return nd_err_set(e, -ENOMEM, "%s: out of memory for driver counters",
					  ifname);
	}
	return 0;
}

int nd_ctr_ethtool_read(struct nd_ctr_ethtool *et, int fd, const char *ifname,
			struct nd_ctr_build *b, struct nd_err *e)
{
	size_t n = 0;
	int ret = 1, try;

	for (try = 0; try < ETH_TRIES && ret == 1; try++)
		ret = read_once(et, fd, ifname, &n);
	if (ret == 1)
		return nd_err_set(e, -EAGAIN, "%s: the driver's counter names changed on every one "
				  "of %d reads; try again", ifname, ETH_TRIES);
	if (ret == -EOVERFLOW)
		return nd_err_set(e, ret, "%s: the driver's counter set grew by more than %d "
				  "during a read", ifname, ETH_SLACK);
	if (ret == -ENOMEM)
		return nd_err_set(e, ret, "%s: out of memory for %zu driver counters", ifname, n);
	if (ret)
		return nd_err_set(e, ret, "%s: read driver counters (ethtool ioctl): %s", ifname,
				  strerror(-ret));
	if (!n)
		return 0;
	map_names(et, b->sel);
	return add_values(et, n, ifname, b, e);
}

size_t nd_ctr_ethtool_count(const struct nd_ctr_ethtool *et)
{
	return et->n;
}

int nd_ctr_ethtool_values(struct nd_ctr_ethtool *et, int fd, const char *ifname,
			  struct nd_ctr_build *b, struct nd_err *e)
{
	int ret;

	if (!et->n || !et->mapped || memcmp(&et->sel, b->sel, sizeof(et->sel)))
		return -ESTALE;
	memset(et->st, 0, sizeof(*et->st) + et->n * sizeof(uint64_t));
	et->st->cmd = ETHTOOL_GSTATS;
	et->st->n_stats = (uint32_t)et->n;
	ret = nd_ctr_ethtool_ioctl(fd, ifname, et->st);
	if (ret)
		return ret;
	/* the kernel wrote as many values as the driver has now: another set */
	if (et->st->n_stats != et->n)
		return -ESTALE;
	return add_values(et, et->n, ifname, b, e);
}
