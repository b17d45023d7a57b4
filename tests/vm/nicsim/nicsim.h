/* SPDX-License-Identifier: GPL-2.0 */
/* nicsim internals shared by its files: ids, the port struct, prototypes. */
#ifndef _NICSIM_H
#define _NICSIM_H

#include <linux/bits.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <net/dcbnl.h>

#define NICSIM_DRV_NAME		"nicsim"
#define NICSIM_MAX_PORTS	64	/* the apply benchmark drives 64 */
#define NICSIM_NUM_PRIO		IEEE_8021QAZ_MAX_TCS	/* 8 */
#define NICSIM_NUM_TC		IEEE_8021QAZ_MAX_TCS	/* 8 */
#define NICSIM_NUM_BUFFERS	DCBX_MAX_BUFFERS	/* 8 */
#define NICSIM_MAX_DSCP		64
#define NICSIM_NUM_TXQ		8
#define NICSIM_MAX_BW		100
#define NICSIM_BUFFER_CELL	128	/* port buffer granularity, bytes */
#define NICSIM_DEFAULT_CABLE_LEN 7	/* metres, as mlx5 */
#define NICSIM_MAX_CABLE_LEN	1000	/* metres, exclusive, as mlx5 */
#define NICSIM_100MB		100000ULL	/* kbit/s */
#define NICSIM_1GB		1000000ULL	/* kbit/s */
#define NICSIM_MIN_MTU		68
#define NICSIM_MAX_MTU		9978
#define NICSIM_WRITE_MAX	65536	/* bytes accepted by one debugfs write */
#define NICSIM_PEER_APP_MAX	64	/* entries in the link partner's APP table */

/* ------------------------------------------------------------------------ */
/* Counters                                                                 */

/* Port-wide counters, in ethtool order. */
enum {
	NS_RX_PACKETS,
	NS_RX_BYTES,
	NS_TX_PACKETS,
	NS_TX_BYTES,
	NS_RX_OUT_OF_BUFFER,		/* 32 bit, wraps */
	NS_RX_PAUSE_CTRL_PHY,
	NS_TX_PAUSE_CTRL_PHY,
	NS_RX_DISCARDS_PHY,
	NS_RX_GLOBAL_PAUSE,
	NS_RX_GLOBAL_PAUSE_DURATION,
	NS_TX_GLOBAL_PAUSE,
	NS_TX_GLOBAL_PAUSE_DURATION,
	NS_RX_GLOBAL_PAUSE_TRANSITION,
	NS_TX_PAUSE_STORM_WARNING,
	NS_TX_PAUSE_STORM_ERROR,
	NS_NUM_PORT_CTRS,
};

/* Per-priority counters. */
enum {
	NP_RX_BYTES,
	NP_RX_PACKETS,
	NP_RX_DISCARDS,
	NP_TX_BYTES,
	NP_TX_PACKETS,
	NP_RX_PAUSE,
	NP_RX_PAUSE_DURATION,
	NP_TX_PAUSE,
	NP_TX_PAUSE_DURATION,
	NP_RX_PAUSE_TRANSITION,
	NP_BUF_DISCARD,
	NP_CONG_DISCARD,
	NP_MARKED,
	NP_NUM,
};

#define NICSIM_PRIO_CTR(p, c)	(NS_NUM_PORT_CTRS + (p) * NP_NUM + (c))
#define NICSIM_NUM_CTRS		(NS_NUM_PORT_CTRS + NICSIM_NUM_PRIO * NP_NUM)

/* ------------------------------------------------------------------------ */
/* Fault injection                                                          */

enum nicsim_op {
	OP_SETETS,
	OP_SETPFC,
	OP_SETAPP,
	OP_DELAPP,
	OP_SETMAXRATE,
	OP_SETBUFFER,
	OP_SETDCBX,
	OP_SETPAUSE,
	OP_GETETS,
	OP_GETPFC,
	OP_GETMAXRATE,
	OP_GETBUFFER,
	OP_NUM,
};

struct nicsim_fault {
	int ret;	/* value the op returns: -errno, or a positive code */
	int remaining;	/* 0: not armed, -1: until cleared, N: next N calls */
};

/* ------------------------------------------------------------------------ */
/* Link partner's DCB (the dcbnl peer ops), set through debugfs `peer`      */

enum {
	NICSIM_PEER_ETS		= BIT(0),
	NICSIM_PEER_PFC		= BIT(1),
	NICSIM_PEER_APP_INFO	= BIT(2),
	NICSIM_PEER_CEE_PG	= BIT(3),
	NICSIM_PEER_CEE_PFC	= BIT(4),
};

struct nicsim_peer {
	u32 have;			/* NICSIM_PEER_*; APP entries count themselves */
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	u8 pfc_willing;			/* advertised, but struct ieee_pfc has no field for it */
	struct dcb_peer_app_info app_info;
	u16 app_cnt;
	struct dcb_app app[NICSIM_PEER_APP_MAX];
	struct cee_pg cee_pg;
	struct cee_pfc cee_pfc;
};

/* CEE registers (module parameter cee): what the CEE ops store and read back. */
struct nicsim_cee_tc {
	u8 prio_type;
	u8 pgid;
	u8 bw_pct;
	u8 up_map;
};

struct nicsim_cee {
	u8 state;				/* DCB on (getstate/setstate) */
	u8 pfc_state;
	u8 pfc_cfg[NICSIM_NUM_PRIO];		/* per priority, as setpfccfg gave it */
	struct nicsim_cee_tc tc[2][NICSIM_NUM_PRIO];	/* [0] tx, [1] rx, per priority */
	u8 bwg_pct[2][CEE_DCBX_MAX_PGS];		/* per priority group */
};

/* ------------------------------------------------------------------------ */
/* Port                                                                     */

struct nicsim_port {
	struct net_device *netdev;
	unsigned int index;
	struct dentry *dbg;

	spinlock_t lock;			/* ctr[], fault[] */
	u64 ctr[NICSIM_NUM_CTRS];
	struct nicsim_fault fault[OP_NUM];

	/* Configuration, protected by RTNL. */
	u8 prio_tc[NICSIM_NUM_PRIO];
	u8 tc_tsa[NICSIM_NUM_TC];
	u8 tc_bw[NICSIM_NUM_TC];
	u64 maxrate[NICSIM_NUM_TC];		/* kbit/s, after rounding */
	u8 pfc_en;
	u32 cable_len;
	u8 dcbx_cap;
	u8 trust_dscp;				/* read locklessly by debugfs */
	u8 dscp2prio[NICSIM_MAX_DSCP];
	unsigned int dscp_app_cnt;
	u8 prio2buffer[NICSIM_NUM_PRIO];
	u32 buffer_size[NICSIM_NUM_BUFFERS];
	u32 buffer_total;
	bool rx_pause;
	bool tx_pause;
	u64 link_flaps;
	bool flap_on_pfc;
	bool app_any;		/* APP entries of every selector, not DSCP only (debugfs) */
	struct nicsim_peer peer;
	struct nicsim_cee cee;

	/* The other end of the cable (module parameter wire), NULL before pairing and
	 * from teardown on; read by the transmit path under RCU.
	 */
	struct nicsim_port __rcu *partner;
};

/* nicsim_main.c */
extern unsigned int nicsim_speed;
void nicsim_toggle_link(struct nicsim_port *np);
void nicsim_rx_count(struct nicsim_port *np, unsigned int len);

/* nicsim_dcb.c */
extern const struct dcbnl_rtnl_ops nicsim_dcbnl_ops;
extern const struct dcbnl_rtnl_ops nicsim_dcbnl_cee_ops;
extern bool nicsim_cee;

/* nicsim_ethtool.c */
extern const struct ethtool_ops nicsim_ethtool_ops;
extern char nicsim_ctr_names[NICSIM_NUM_CTRS][ETH_GSTRING_LEN];
void nicsim_ctr_names_init(void);
unsigned int nicsim_stat_ids(const struct nicsim_port *np, u16 *ids,
			     bool all);

/* nicsim_debugfs.c */
void nicsim_debugfs_init(void);
void nicsim_debugfs_exit(void);
void nicsim_debugfs_add(struct nicsim_port *np);
void nicsim_debugfs_del(struct nicsim_port *np);
char *nicsim_copy_user(const char __user *ubuf, size_t count);
int nicsim_tokenize(char *s, char **tok, int max);
char *nicsim_next_line(char **cursor);

/* nicsim_fault.c */
struct file_operations;
int nicsim_fault_check(struct nicsim_port *np, enum nicsim_op op);
extern const struct file_operations nicsim_fault_fops;

/* nicsim_peer.c */
extern const struct file_operations nicsim_peer_fops;

#endif /* _NICSIM_H */
