/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What libnodrop's files share with each other and not with users. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include "nodrop.h"
#include "nl.h"
#include "str.h"

struct nd_ctx {
	struct nd_nl rtnl;		/* dcbnl requests */
	struct nd_link *links;		/* the last RTM_GETLINK dump (no driver, bus or speed) */
	size_t n_links;
	int ioctl_fd;			/* ethtool ioctls */
};

#define ND_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* link.c: netdevs through an rtnetlink dump, driver through the ethtool ioctl */
int nd_link_open(struct nd_ctx *ctx, struct nd_err *e);
void nd_link_close(struct nd_ctx *ctx);
int nd_link_refresh(struct nd_ctx *ctx, struct nd_err *e);
/* Fill @link for @name from the cache; -ENODEV when there is no such netdev. */
int nd_link_get(struct nd_ctx *ctx, const char *name, struct nd_link *link, struct nd_err *e);
/* Change the MTU (RTM_NEWLINK on the nd_nl socket, for the kernel's extended ack). */
int nd_link_set_mtu(struct nd_ctx *ctx, const char *name, unsigned int mtu, struct nd_err *e);
/* Call @fn with the name of every netdev but loopback, in ifindex order. */
int nd_link_each(struct nd_ctx *ctx, int (*fn)(const char *name, void *data), void *data);

/* rdma.c: which RDMA device ports sit on a netdev */
/* nd_rdma_ports_of() flags */
#define ND_RDMA_NO_VERBS 0x1	/* skip the verbs MTU query: it loads every provider library */

int nd_rdma_ports_of(const char *ifname, struct nd_rdma_port *ports, size_t max, size_t *count,
		     unsigned int flags, struct nd_err *e);

/*
 * rdma_dl.c: libibverbs and librdmacm are opened on first use. NULL while they load (or were
 * never needed), else why they cannot: "cannot load libibverbs.so.1 (...): apt-get install ...".
 */
const char *nd_rdma_lib_error(void);

/* roce.c: rdma_cm defaults from configfs */
int nd_roce_read(const char *ibdev, unsigned int port, struct nd_roce *roce, struct nd_err *e);
/* Set default ToS and mode, creating the device's configfs group if needed. */
int nd_roce_write(const char *ibdev, unsigned int port, uint8_t tos, const char *mode,
		  struct nd_err *e);
/* Remove the device's configfs group: the kernel defaults apply again. */
int nd_roce_reset(const char *ibdev, struct nd_err *e);

/*
 * RoCE headers inside the netdev MTU as the kernel counts them (iboe_get_mtu()): GRH 40 + UDP 8 +
 * BTH 12 + XRC ETH 4 + AtomicETH 28 + ICRC 4. mlx5 reports active_mtu = min(max_mtu, the largest
 * IB MTU <= netdev MTU - 96), so 4096 needs 4192; vendors round that up to 4200.
 */
#define ND_ROCE_HDR_BYTES 96
#define ND_ROCE_HDR_TEXT "GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4"

/* The IB MTU the kernel picks for a netdev MTU (lint, doctor, model); 0 when none fits. */
unsigned int nd_roce_mtu_for(unsigned int netdev_mtu);

/* An LLDP agent process that may own DCB (lint.c; doctor reports it too). */
struct nd_lldp_agent {
	const char *comm;	/* "lldpad", "lldpd" */
	const char *does;	/* what it does to DCB, for evidence */
	char pid[16];
};

/* The first LLDP agent in /proc: 1 (and @agent filled), 0 none, -errno when /proc is unreadable. */
int nd_lldp_agent_find(struct nd_lldp_agent *agent);

struct stat;

/*
 * Read the whole regular file @path of at most @max bytes into a new NUL-terminated buffer
 * (*@out, *@len; @st, when given, gets its fstat()). -EISDIR or -EINVAL for what is not a
 * regular file, -E2BIG when over @max (also when it grew past it while read), else open's or
 * read's -errno. Callers name the file and say what to do.
 */
int nd_file_read(const char *path, size_t max, char **out, size_t *len, struct stat *st);
/* The same, @path relative to the directory @dirfd (AT_FDCWD: as nd_file_read()). */
int nd_file_readat(int dirfd, const char *path, size_t max, char **out, size_t *len,
		   struct stat *st);

/* Strip the "4: " prefix the IB sysfs files put before state names. */
const char *nd_strip_state_prefix(const char *s);

/*
 * libm_dl.c: log() from libm, opened on first use (the nodrop command does not link libm).
 * fmin()/fmax() without libm: NaN gives way to a number, as theirs do.
 */
double nd_log(double x);

static inline double nd_fmin(double a, double b)
{
	return a != a ? b : b != b ? a : a < b ? a : b;
}

static inline double nd_fmax(double a, double b)
{
	return a != a ? b : b != b ? a : a > b ? a : b;
}

#endif
