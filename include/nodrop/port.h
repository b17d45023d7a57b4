/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: one port: netdev, DCB, RDMA device/port and rdma_cm defaults. */
#ifndef NODROP_PORT_H
#define NODROP_PORT_H

#include <nodrop/dcb.h>
#include <nodrop/ecn.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nd_roce {
	bool configured;	/* rdma_cm configfs group exists; else kernel defaults apply */
	int tos;		/* full ToS byte: DSCP << 2 | ECN */
	char mode[16];		/* "RoCE v2", "IB/RoCE v1" */
};

struct nd_rdma_port {
	char ibdev[64];
	unsigned int port;
	char link_layer[16];	/* "Ethernet", "InfiniBand" */
	char state[24];		/* "ACTIVE", "DOWN", ... */
	char phys_state[24];
	char rate[48];
	unsigned int active_mtu;	/* bytes, 0 unknown */
	unsigned int max_mtu;		/* bytes, 0 unknown */
	struct nd_roce roce;
};

#define ND_RDMA_PER_NETDEV 4

struct nd_link {
	int ifindex;
	char name[ND_IFNAMSIZ];
	unsigned int mtu;
	unsigned int min_mtu, max_mtu;	/* 0 unknown */
	char operstate[16];
	char kind[16];		/* rtnl link kind ("veth"), "" for physical devices */
	char driver[32];
	char bus_info[32];
	int64_t speed_mbps;	/* -1 unknown */
	unsigned int arptype;
};

struct nd_port {
	struct nd_link link;
	int dcb_status;		/* 0, or the negative errno of reading DCB (-EOPNOTSUPP: no DCB) */
	char dcb_error[ND_ERR_MSG_MAX];
	struct nd_dcb dcb;
	struct nd_rdma_port rdma[ND_RDMA_PER_NETDEV];
	size_t n_rdma;
	struct nd_ecn ecn;
};

enum nd_gid_type {
	ND_GID_EMPTY,		/* no GID at this index */
	ND_GID_IB,
	ND_GID_ROCE_V1,		/* Ethernet only (EtherType 0x8915): no IP header */
	ND_GID_ROCE_V2,		/* UDP/IP, port 4791 */
};

const char *nd_gid_type_name(enum nd_gid_type t);

/* One entry of an RDMA port's GID table, as sysfs shows it. */
struct nd_gid {
	unsigned int index;
	enum nd_gid_type type;
	uint8_t raw[16];
	bool ipv4;		/* an IPv4-mapped address (::ffff:a.b.c.d) */
	char addr[48];		/* a.b.c.d for IPv4, else the IPv6 text */
	char ndev[ND_IFNAMSIZ];	/* the netdev it belongs to, "" for InfiniBand */
	char lower[ND_IFNAMSIZ];	/* the netdev under a VLAN device, else ndev */
	int vlan;		/* VLAN ID, -1 untagged */
	int8_t egress_qos[8];	/* a VLAN's skb priority -> PCP map, -1 unmapped */
};

/*
 * The GID table of @ibdev port @port, every index up to the table's length (empty ones as
 * ND_GID_EMPTY), with each RoCE GID's netdev and VLAN. The caller frees *@gids.
 */
int nd_gids_read(const char *ibdev, unsigned int port, struct nd_gid **gids, size_t *n,
		 struct nd_err *e);

struct nd_ctx;

int nd_ctx_new(struct nd_ctx **ctx, struct nd_err *e);
void nd_ctx_free(struct nd_ctx *ctx);

/*
 * Read the whole lossless picture of the named netdevs (all of them when @n is 0) into a new array.
 * A port whose driver lacks DCB is still returned (dcb_status says why). An unknown name fails the
 * call with -ENODEV before anything else is read.
 */
int nd_ports_read(struct nd_ctx *ctx, const char *const *names, size_t n,
		  struct nd_port **ports, size_t *count, struct nd_err *e);
void nd_ports_free(struct nd_port *ports, size_t count);

#ifdef __cplusplus
}
#endif

#endif
