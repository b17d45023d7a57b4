// SPDX-License-Identifier: GPL-2.0
/*
 * nicsim - a simulated DCB-capable Ethernet NIC for the nodrop test suite.
 *
 * Registers N Ethernet netdevs (nicsim0..N-1) that behave, from user space,
 * like an mlx5 (ConnectX) port: IEEE 802.1Qaz dcbnl ops with mlx5 semantics
 * (ETS, maxrate, PFC with cable length in ieee_pfc.delay, DSCP APP entries
 * with implicit trust switching, DCBX mode, port buffers), ethtool counters
 * with mlx5 names (per-priority PFC counters only for PFC-enabled
 * priorities), pause parameters and pause statistics.  Nothing is ever
 * received and transmitted frames are dropped.
 *
 * A debugfs interface under <debugfs>/nicsim/<ifname>/ lets tests set and
 * move counters, inject failures into the dcbnl/ethtool set operations and
 * observe link flaps and the trust state.  See README.md next to this file.
 *
 * Locking: dcbnl and ethtool ops run under RTNL, which also protects the
 * configuration fields of struct nicsim_port.  Counters and armed faults are
 * protected by nicsim_port.lock (taken with BH disabled, as the transmit
 * path updates counters too).
 */

#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
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

/* ------------------------------------------------------------------------ */
/* Module parameters                                                        */

static unsigned int nports = 2;
module_param(nports, uint, 0444);
MODULE_PARM_DESC(nports, "Number of ports (netdevs nicsim0..N-1), 1..64 (default 2)");

static unsigned int speed = 100000;
module_param(speed, uint, 0444);
MODULE_PARM_DESC(speed, "Link speed reported by ethtool in Mb/s (default 100000)");

static bool global_pause = true;
module_param(global_pause, bool, 0444);
MODULE_PARM_DESC(global_pause, "Initial 802.3x rx/tx pause state (default 1, as ConnectX firmware)");

static char *trust = "pcp";
module_param(trust, charp, 0444);
MODULE_PARM_DESC(trust, "Initial trust state: pcp (default) or dscp (installs 64 DSCP APP entries, dscp d -> prio d>>3)");

static unsigned int buffer_total = 262144;
module_param(buffer_total, uint, 0444);
MODULE_PARM_DESC(buffer_total, "Port buffer total_size in bytes (default 262144)");

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

static const char * const nicsim_port_ctr_names[NS_NUM_PORT_CTRS] = {
	[NS_RX_PACKETS]			= "rx_packets",
	[NS_RX_BYTES]			= "rx_bytes",
	[NS_TX_PACKETS]			= "tx_packets",
	[NS_TX_BYTES]			= "tx_bytes",
	[NS_RX_OUT_OF_BUFFER]		= "rx_out_of_buffer",
	[NS_RX_PAUSE_CTRL_PHY]		= "rx_pause_ctrl_phy",
	[NS_TX_PAUSE_CTRL_PHY]		= "tx_pause_ctrl_phy",
	[NS_RX_DISCARDS_PHY]		= "rx_discards_phy",
	[NS_RX_GLOBAL_PAUSE]		= "rx_global_pause",
	[NS_RX_GLOBAL_PAUSE_DURATION]	= "rx_global_pause_duration",
	[NS_TX_GLOBAL_PAUSE]		= "tx_global_pause",
	[NS_TX_GLOBAL_PAUSE_DURATION]	= "tx_global_pause_duration",
	[NS_RX_GLOBAL_PAUSE_TRANSITION]	= "rx_global_pause_transition",
	[NS_TX_PAUSE_STORM_WARNING]	= "tx_pause_storm_warning_events",
	[NS_TX_PAUSE_STORM_ERROR]	= "tx_pause_storm_error_events",
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

static const char * const nicsim_prio_ctr_fmt[NP_NUM] = {
	[NP_RX_BYTES]		 = "rx_prio%u_bytes",
	[NP_RX_PACKETS]		 = "rx_prio%u_packets",
	[NP_RX_DISCARDS]	 = "rx_prio%u_discards",
	[NP_TX_BYTES]		 = "tx_prio%u_bytes",
	[NP_TX_PACKETS]		 = "tx_prio%u_packets",
	[NP_RX_PAUSE]		 = "rx_prio%u_pause",
	[NP_RX_PAUSE_DURATION]	 = "rx_prio%u_pause_duration",
	[NP_TX_PAUSE]		 = "tx_prio%u_pause",
	[NP_TX_PAUSE_DURATION]	 = "tx_prio%u_pause_duration",
	[NP_RX_PAUSE_TRANSITION] = "rx_prio%u_pause_transition",
	[NP_BUF_DISCARD]	 = "rx_prio%u_buf_discard",
	[NP_CONG_DISCARD]	 = "rx_prio%u_cong_discard",
	[NP_MARKED]		 = "rx_prio%u_marked",
};

#define NICSIM_PRIO_CTR(p, c)	(NS_NUM_PORT_CTRS + (p) * NP_NUM + (c))
#define NICSIM_NUM_CTRS		(NS_NUM_PORT_CTRS + NICSIM_NUM_PRIO * NP_NUM)

static char nicsim_ctr_names[NICSIM_NUM_CTRS][ETH_GSTRING_LEN];

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

static const char * const nicsim_op_names[OP_NUM] = {
	[OP_SETETS]	= "setets",
	[OP_SETPFC]	= "setpfc",
	[OP_SETAPP]	= "setapp",
	[OP_DELAPP]	= "delapp",
	[OP_SETMAXRATE]	= "setmaxrate",
	[OP_SETBUFFER]	= "setbuffer",
	[OP_SETDCBX]	= "setdcbx",
	[OP_SETPAUSE]	= "setpause",
	[OP_GETETS]	= "getets",
	[OP_GETPFC]	= "getpfc",
	[OP_GETMAXRATE]	= "getmaxrate",
	[OP_GETBUFFER]	= "getbuffer",
};

static const struct {
	const char *name;
	int err;
} nicsim_errnos[] = {
	{ "EPERM", EPERM },	{ "ENOENT", ENOENT },	{ "EINTR", EINTR },
	{ "EIO", EIO },		{ "ENXIO", ENXIO },	{ "E2BIG", E2BIG },
	{ "EAGAIN", EAGAIN },	{ "ENOMEM", ENOMEM },	{ "EACCES", EACCES },
	{ "EFAULT", EFAULT },	{ "EBUSY", EBUSY },	{ "EEXIST", EEXIST },
	{ "ENODEV", ENODEV },	{ "EINVAL", EINVAL },	{ "ENOSPC", ENOSPC },
	{ "ERANGE", ERANGE },	{ "ENODATA", ENODATA },	{ "EPROTO", EPROTO },
	{ "EMSGSIZE", EMSGSIZE }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "ENOBUFS", ENOBUFS },	{ "ETIMEDOUT", ETIMEDOUT },
	{ "ENOTSUPP", ENOTSUPP },
};

struct nicsim_fault {
	int ret;	/* value the op returns: -errno, or a positive code */
	int remaining;	/* 0: not armed, -1: until cleared, N: next N calls */
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
};

static struct net_device *nicsim_devs[NICSIM_MAX_PORTS];
static struct dentry *nicsim_dbg_root;

static int nicsim_fault_check(struct nicsim_port *np, enum nicsim_op op)
{
	struct nicsim_fault *f = &np->fault[op];
	int ret = 0;

	spin_lock_bh(&np->lock);
	if (f->remaining) {
		ret = f->ret;
		if (f->remaining > 0)
			f->remaining--;
	}
	spin_unlock_bh(&np->lock);
	if (ret)
		netdev_dbg(np->netdev, "injected fault: %s returns %d\n",
			   nicsim_op_names[op], ret);
	return ret;
}

/*
 * Counter ids in ethtool order (mlx5 group order: sw, q counters, 802.3,
 * RFC 2863, per-prio traffic, per-prio PFC, global pause, stall, per-prio
 * buffer congestion).  With @all, the PFC and global-pause counters are
 * listed for every priority regardless of the configuration.  Returns the
 * number of ids; @ids may be NULL to count only.  Called under RTNL unless
 * @all is set.
 */
static unsigned int nicsim_stat_ids(const struct nicsim_port *np, u16 *ids,
				    bool all)
{
	static const u8 head[] = {
		NS_RX_PACKETS, NS_RX_BYTES, NS_TX_PACKETS, NS_TX_BYTES,
		NS_RX_OUT_OF_BUFFER, NS_RX_PAUSE_CTRL_PHY,
		NS_TX_PAUSE_CTRL_PHY, NS_RX_DISCARDS_PHY,
	};
	unsigned int n = 0, p, c, i;

#define NICSIM_ADD(id) do { if (ids) ids[n] = (id); n++; } while (0)
	for (i = 0; i < ARRAY_SIZE(head); i++)
		NICSIM_ADD(head[i]);
	for (p = 0; p < NICSIM_NUM_PRIO; p++)
		for (c = NP_RX_BYTES; c <= NP_TX_PACKETS; c++)
			NICSIM_ADD(NICSIM_PRIO_CTR(p, c));
	for (p = 0; p < NICSIM_NUM_PRIO; p++) {
		if (!all && !(np->pfc_en & BIT(p)))
			continue;
		for (c = NP_RX_PAUSE; c <= NP_RX_PAUSE_TRANSITION; c++)
			NICSIM_ADD(NICSIM_PRIO_CTR(p, c));
	}
	if (all || np->rx_pause || np->tx_pause)
		for (c = NS_RX_GLOBAL_PAUSE; c <= NS_RX_GLOBAL_PAUSE_TRANSITION; c++)
			NICSIM_ADD(c);
	NICSIM_ADD(NS_TX_PAUSE_STORM_WARNING);
	NICSIM_ADD(NS_TX_PAUSE_STORM_ERROR);
	for (p = 0; p < NICSIM_NUM_PRIO; p++)
		for (c = NP_BUF_DISCARD; c <= NP_MARKED; c++)
			NICSIM_ADD(NICSIM_PRIO_CTR(p, c));
#undef NICSIM_ADD
	return n;
}

/* ------------------------------------------------------------------------ */
/* Link                                                                     */

/* Toggle the link as mlx5_toggle_port_link() does: only an up port. */
static void nicsim_toggle_link(struct nicsim_port *np)
{
	struct net_device *dev = np->netdev;

	if (!np->flap_on_pfc || !netif_running(dev))
		return;
	netif_carrier_off(dev);
	netif_carrier_on(dev);
	np->link_flaps++;
	netdev_info(dev, "link toggled (PFC change), flaps=%llu\n",
		    np->link_flaps);
}

/* ------------------------------------------------------------------------ */
/* dcbnl                                                                    */

static int nicsim_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err, i;

	err = nicsim_fault_check(np, OP_GETETS);
	if (err)
		return err;

	ets->ets_cap = NICSIM_NUM_TC;
	for (i = 0; i < NICSIM_NUM_TC; i++) {
		ets->prio_tc[i] = np->prio_tc[i];
		ets->tc_tsa[i] = np->tc_tsa[i];
		/* strict and vendor TCs read back as 100% like mlx5 firmware */
		ets->tc_tx_bw[i] = np->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS ?
				   np->tc_bw[i] : NICSIM_MAX_BW;
	}
	return 0;
}

static int nicsim_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct nicsim_port *np = netdev_priv(dev);
	bool have_ets_tc = false;
	int bw_sum = 0;
	int err, i;

	err = nicsim_fault_check(np, OP_SETETS);
	if (err)
		return err;

	for (i = 0; i < NICSIM_NUM_PRIO; i++) {
		if (ets->prio_tc[i] >= NICSIM_NUM_TC) {
			netdev_err(dev, "Failed to validate ETS: priority value greater than max(%d)\n",
				   NICSIM_NUM_TC);
			return -EINVAL;
		}
	}
	for (i = 0; i < NICSIM_NUM_TC; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			have_ets_tc = true;
			bw_sum += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			netdev_err(dev, "Failed to validate ETS: unsupported TSA %u on TC %d\n",
				   ets->tc_tsa[i], i);
			return -EINVAL;
		}
	}
	if (have_ets_tc && bw_sum != NICSIM_MAX_BW) {
		netdev_err(dev, "Failed to validate ETS: BW sum is illegal\n");
		return -EINVAL;
	}

	for (i = 0; i < NICSIM_NUM_TC; i++) {
		np->prio_tc[i] = ets->prio_tc[i];
		np->tc_tsa[i] = ets->tc_tsa[i];
		np->tc_bw[i] = ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS ?
			       ets->tc_tx_bw[i] : NICSIM_MAX_BW;
	}
	return 0;
}

static int nicsim_ieee_getmaxrate(struct net_device *dev,
				  struct ieee_maxrate *maxrate)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err;

	err = nicsim_fault_check(np, OP_GETMAXRATE);
	if (err)
		return err;

	memcpy(maxrate->tc_maxrate, np->maxrate, sizeof(maxrate->tc_maxrate));
	return 0;
}

/*
 * mlx5: the firmware holds an 8-bit value per TC in 100 Mb/s units (up to
 * 25.5 Gb/s) or 1 Gb/s units (up to 255 Gb/s); 0 means unlimited.  Values
 * round down; a non-zero rate below 100 Mb/s becomes 100 Mb/s.  Rates above
 * 255 Gb/s are rejected (as mlx5 does since the 8-bit overflow fix).
 */
static int nicsim_ieee_setmaxrate(struct net_device *dev,
				  struct ieee_maxrate *maxrate)
{
	struct nicsim_port *np = netdev_priv(dev);
	u64 rate[NICSIM_NUM_TC];
	int err, i;

	err = nicsim_fault_check(np, OP_SETMAXRATE);
	if (err)
		return err;

	for (i = 0; i < NICSIM_NUM_TC; i++) {
		u64 r = maxrate->tc_maxrate[i];

		if (!r) {
			rate[i] = 0;
		} else if (r <= 255 * NICSIM_100MB) {
			u64 units = div_u64(r, NICSIM_100MB);

			rate[i] = (units ? units : 1) * NICSIM_100MB;
		} else if (r <= 255 * NICSIM_1GB) {
			rate[i] = div_u64(r, NICSIM_1GB) * NICSIM_1GB;
		} else {
			netdev_err(dev, "TC %d: rate %llu kbit/s exceeds 255 Gbps\n",
				   i, r);
			return -EINVAL;
		}
	}
	memcpy(np->maxrate, rate, sizeof(rate));
	return 0;
}

static int nicsim_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err, i;

	err = nicsim_fault_check(np, OP_GETPFC);
	if (err)
		return err;

	pfc->pfc_cap = NICSIM_NUM_PRIO;
	pfc->pfc_en = np->pfc_en;
	pfc->mbc = 0;
	pfc->delay = np->cable_len;
	spin_lock_bh(&np->lock);
	for (i = 0; i < NICSIM_NUM_PRIO; i++) {
		pfc->requests[i] = np->ctr[NICSIM_PRIO_CTR(i, NP_TX_PAUSE)];
		pfc->indications[i] = np->ctr[NICSIM_PRIO_CTR(i, NP_RX_PAUSE)];
	}
	spin_unlock_bh(&np->lock);
	return 0;
}

static int nicsim_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err;

	err = nicsim_fault_check(np, OP_SETPFC);
	if (err)
		return err;

	if (pfc->pfc_en != np->pfc_en) {
		np->pfc_en = pfc->pfc_en;
		nicsim_toggle_link(np);
	}
	/* mlx5 silently ignores 0 and out-of-range cable lengths. */
	if (pfc->delay && pfc->delay < NICSIM_MAX_CABLE_LEN &&
	    pfc->delay != np->cable_len)
		np->cable_len = pfc->delay;
	return 0;
}

static void nicsim_set_trust(struct nicsim_port *np, bool dscp)
{
	if (np->trust_dscp != dscp)
		netdev_info(np->netdev, "trust state %s\n", dscp ? "dscp" : "pcp");
	WRITE_ONCE(np->trust_dscp, dscp);
}

static int nicsim_ieee_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct nicsim_port *np = netdev_priv(dev);
	struct dcb_app old;
	bool is_new;
	int err;

	err = nicsim_fault_check(np, OP_SETAPP);
	if (err)
		return err;

	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP ||
	    app->protocol >= NICSIM_MAX_DSCP ||
	    app->priority >= NICSIM_NUM_PRIO)
		return -EINVAL;

	old.selector = IEEE_8021QAZ_APP_SEL_DSCP;
	old.protocol = app->protocol;
	old.priority = np->dscp2prio[app->protocol];

	/* The first DSCP entry switches the port to DSCP trust. */
	if (!np->dscp_app_cnt)
		nicsim_set_trust(np, true);

	np->dscp2prio[app->protocol] = app->priority;

	/* One priority per DSCP: the new entry replaces the old one. */
	is_new = dcb_ieee_delapp(dev, &old) != 0;

	err = dcb_ieee_setapp(dev, app);
	if (err)
		return err;
	if (is_new)
		np->dscp_app_cnt++;
	return 0;
}

static int nicsim_ieee_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err;

	err = nicsim_fault_check(np, OP_DELAPP);
	if (err)
		return err;

	if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP ||
	    app->protocol >= NICSIM_MAX_DSCP)
		return -EINVAL;
	if (!np->dscp_app_cnt)
		return -ENOENT;
	if (app->priority != np->dscp2prio[app->protocol])
		return -ENOENT;

	err = dcb_ieee_delapp(dev, app);
	if (err)
		return err;

	/* mlx5 resets the mapping of a deleted DSCP to priority 0. */
	np->dscp2prio[app->protocol] = 0;
	np->dscp_app_cnt--;
	/* Deleting the last DSCP entry returns the port to PCP trust. */
	if (!np->dscp_app_cnt)
		nicsim_set_trust(np, false);
	return 0;
}

static u8 nicsim_getdcbx(struct net_device *dev)
{
	struct nicsim_port *np = netdev_priv(dev);

	return np->dcbx_cap;
}

/*
 * mlx5 semantics, returning 0 on success and 1 on failure:
 *  - LLD_MANAGED is refused;
 *  - mode 0 switches DCBX to firmware ("auto") control: HOST is cleared;
 *  - any mode without HOST is refused, otherwise the mode is stored.
 * nicsim implements no CEE ops, so a mode with VER_CEE is refused too.
 */
static u8 nicsim_setdcbx(struct net_device *dev, u8 mode)
{
	struct nicsim_port *np = netdev_priv(dev);
	int ret;

	ret = nicsim_fault_check(np, OP_SETDCBX);
	if (ret)
		return ret > 0 ? (u8)ret : 1;

	if (mode & DCB_CAP_DCBX_LLD_MANAGED)
		return 1;
	if (mode & DCB_CAP_DCBX_VER_CEE)
		return 1;
	if (!mode) {
		np->dcbx_cap &= ~DCB_CAP_DCBX_HOST;
		return 0;
	}
	if (!(mode & DCB_CAP_DCBX_HOST))
		return 1;
	np->dcbx_cap = mode;
	return 0;
}

static int nicsim_getbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err;

	err = nicsim_fault_check(np, OP_GETBUFFER);
	if (err)
		return err;

	memcpy(buf->prio2buffer, np->prio2buffer, sizeof(buf->prio2buffer));
	memcpy(buf->buffer_size, np->buffer_size, sizeof(buf->buffer_size));
	buf->total_size = np->buffer_total;
	return 0;
}

/*
 * Buffer sizes are in bytes and are stored in 128-byte cells (rounded
 * down), as mlx5 does.  Their sum must not exceed total_size (which is
 * read-only), every prio2buffer entry must be < 8, and a buffer that holds
 * a PFC-enabled (lossless) priority must not be sized 0.
 */
static int nicsim_setbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	struct nicsim_port *np = netdev_priv(dev);
	u64 total = 0;
	u8 lossless = 0;
	int err, i;

	err = nicsim_fault_check(np, OP_SETBUFFER);
	if (err)
		return err;

	for (i = 0; i < NICSIM_NUM_PRIO; i++) {
		if (buf->prio2buffer[i] >= NICSIM_NUM_BUFFERS)
			return -EINVAL;
		if (np->pfc_en & BIT(i))
			lossless |= BIT(buf->prio2buffer[i]);
	}
	for (i = 0; i < NICSIM_NUM_BUFFERS; i++) {
		total += buf->buffer_size[i];
		if ((lossless & BIT(i)) && !buf->buffer_size[i]) {
			netdev_err(dev, "lossless buffer %d size must not be zero\n",
				   i);
			return -EINVAL;
		}
	}
	if (total > np->buffer_total) {
		netdev_err(dev, "buffer sizes sum %llu exceeds total %u\n",
			   total, np->buffer_total);
		return -EINVAL;
	}

	memcpy(np->prio2buffer, buf->prio2buffer, sizeof(np->prio2buffer));
	for (i = 0; i < NICSIM_NUM_BUFFERS; i++)
		np->buffer_size[i] = rounddown(buf->buffer_size[i],
					       NICSIM_BUFFER_CELL);
	return 0;
}

static const struct dcbnl_rtnl_ops nicsim_dcbnl_ops = {
	.ieee_getets		= nicsim_ieee_getets,
	.ieee_setets		= nicsim_ieee_setets,
	.ieee_getmaxrate	= nicsim_ieee_getmaxrate,
	.ieee_setmaxrate	= nicsim_ieee_setmaxrate,
	.ieee_getpfc		= nicsim_ieee_getpfc,
	.ieee_setpfc		= nicsim_ieee_setpfc,
	.ieee_setapp		= nicsim_ieee_setapp,
	.ieee_delapp		= nicsim_ieee_delapp,
	.getdcbx		= nicsim_getdcbx,
	.setdcbx		= nicsim_setdcbx,
	.dcbnl_getbuffer	= nicsim_getbuffer,
	.dcbnl_setbuffer	= nicsim_setbuffer,
};

/* ------------------------------------------------------------------------ */
/* ethtool                                                                  */

static void nicsim_get_drvinfo(struct net_device *dev,
			       struct ethtool_drvinfo *info)
{
	struct nicsim_port *np = netdev_priv(dev);

	strscpy(info->driver, NICSIM_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, "16.35.1012 (NICSIM0001)",
		sizeof(info->fw_version));
	/* eight functions per device, as PCI has them: port 9 is 0000:5e:01.1 */
	snprintf(info->bus_info, sizeof(info->bus_info), "0000:5e:%02x.%u",
		 np->index / 8, np->index % 8);
}

static int nicsim_get_sset_count(struct net_device *dev, int sset)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return nicsim_stat_ids(np, NULL, false);
}

static void nicsim_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct nicsim_port *np = netdev_priv(dev);
	u16 ids[NICSIM_NUM_CTRS];
	unsigned int n, i;

	if (sset != ETH_SS_STATS)
		return;
	n = nicsim_stat_ids(np, ids, false);
	for (i = 0; i < n; i++)
		memcpy(data + i * ETH_GSTRING_LEN, nicsim_ctr_names[ids[i]],
		       ETH_GSTRING_LEN);
}

static void nicsim_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct nicsim_port *np = netdev_priv(dev);
	u16 ids[NICSIM_NUM_CTRS];
	unsigned int n, i;

	n = nicsim_stat_ids(np, ids, false);
	spin_lock_bh(&np->lock);
	for (i = 0; i < n; i++)
		data[i] = np->ctr[ids[i]];
	spin_unlock_bh(&np->lock);
}

static int nicsim_get_link_ksettings(struct net_device *dev,
				     struct ethtool_link_ksettings *ks)
{
	int mode = -1;

	switch (speed) {
	case SPEED_10000:
		mode = ETHTOOL_LINK_MODE_10000baseCR_Full_BIT;
		break;
	case SPEED_25000:
		mode = ETHTOOL_LINK_MODE_25000baseCR_Full_BIT;
		break;
	case SPEED_40000:
		mode = ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT;
		break;
	case SPEED_50000:
		mode = ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT;
		break;
	case SPEED_100000:
		mode = ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT;
		break;
	case SPEED_200000:
		mode = ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT;
		break;
	case SPEED_400000:
		mode = ETHTOOL_LINK_MODE_400000baseCR8_Full_BIT;
		break;
	}

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ethtool_link_ksettings_add_link_mode(ks, supported, FIBRE);
	ethtool_link_ksettings_add_link_mode(ks, supported, Pause);
	if (mode >= 0) {
		__set_bit(mode, ks->link_modes.supported);
		__set_bit(mode, ks->link_modes.advertising);
	}
	/* Like mlx5: speed and duplex are unknown while the link is down. */
	if (netif_carrier_ok(dev)) {
		ks->base.speed = speed;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	ks->base.port = PORT_DA;
	ks->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static void nicsim_get_pauseparam(struct net_device *dev,
				  struct ethtool_pauseparam *pause)
{
	struct nicsim_port *np = netdev_priv(dev);

	pause->autoneg = AUTONEG_DISABLE;
	pause->rx_pause = np->rx_pause;
	pause->tx_pause = np->tx_pause;
}

static int nicsim_set_pauseparam(struct net_device *dev,
				 struct ethtool_pauseparam *pause)
{
	struct nicsim_port *np = netdev_priv(dev);
	int err;

	err = nicsim_fault_check(np, OP_SETPAUSE);
	if (err)
		return err;
	if (pause->autoneg)
		return -EINVAL;	/* as mlx5 */
	np->rx_pause = !!pause->rx_pause;
	np->tx_pause = !!pause->tx_pause;
	return 0;
}

static void nicsim_get_pause_stats(struct net_device *dev,
				   struct ethtool_pause_stats *stats)
{
	struct nicsim_port *np = netdev_priv(dev);

	spin_lock_bh(&np->lock);
	stats->tx_pause_frames = np->ctr[NS_TX_PAUSE_CTRL_PHY];
	stats->rx_pause_frames = np->ctr[NS_RX_PAUSE_CTRL_PHY];
	spin_unlock_bh(&np->lock);
}

static const struct ethtool_ops nicsim_ethtool_ops = {
	.get_drvinfo		= nicsim_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= nicsim_get_link_ksettings,
	.get_sset_count		= nicsim_get_sset_count,
	.get_strings		= nicsim_get_strings,
	.get_ethtool_stats	= nicsim_get_ethtool_stats,
	.get_pauseparam		= nicsim_get_pauseparam,
	.set_pauseparam		= nicsim_set_pauseparam,
	.get_pause_stats	= nicsim_get_pause_stats,
};

/* ------------------------------------------------------------------------ */
/* netdev                                                                   */

static int nicsim_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	netif_tx_start_all_queues(dev);
	return 0;
}

static int nicsim_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	netif_carrier_off(dev);
	return 0;
}

static netdev_tx_t nicsim_start_xmit(struct sk_buff *skb,
				     struct net_device *dev)
{
	struct nicsim_port *np = netdev_priv(dev);

	spin_lock(&np->lock);
	np->ctr[NS_TX_PACKETS]++;
	np->ctr[NS_TX_BYTES] += skb->len;
	spin_unlock(&np->lock);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

static void nicsim_get_stats64(struct net_device *dev,
			       struct rtnl_link_stats64 *stats)
{
	struct nicsim_port *np = netdev_priv(dev);

	spin_lock_bh(&np->lock);
	stats->rx_packets = np->ctr[NS_RX_PACKETS];
	stats->rx_bytes = np->ctr[NS_RX_BYTES];
	stats->tx_packets = np->ctr[NS_TX_PACKETS];
	stats->tx_bytes = np->ctr[NS_TX_BYTES];
	stats->rx_dropped = np->ctr[NS_RX_OUT_OF_BUFFER];
	spin_unlock_bh(&np->lock);
}

static const struct net_device_ops nicsim_netdev_ops = {
	.ndo_open		= nicsim_open,
	.ndo_stop		= nicsim_stop,
	.ndo_start_xmit		= nicsim_start_xmit,
	.ndo_get_stats64	= nicsim_get_stats64,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

/* ------------------------------------------------------------------------ */
/* debugfs                                                                  */

/* Copy a user buffer into a NUL-terminated kernel string. */
static char *nicsim_copy_user(const char __user *ubuf, size_t count)
{
	if (count > NICSIM_WRITE_MAX)
		return ERR_PTR(-EFBIG);
	return memdup_user_nul(ubuf, count);
}

/* Split @s into whitespace-separated tokens; returns the token count. */
static int nicsim_tokenize(char *s, char **tok, int max)
{
	int n = 0;

	while (*s) {
		while (*s && isspace(*s))
			s++;
		if (!*s)
			break;
		if (n == max)
			return -E2BIG;
		tok[n++] = s;
		while (*s && !isspace(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* Return the next line of *@cursor (without the newline), or NULL. */
static char *nicsim_next_line(char **cursor)
{
	char *line = *cursor, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = line + strlen(line);
	}
	return line;
}

static int nicsim_ctr_lookup(const char *name)
{
	int i;

	for (i = 0; i < NICSIM_NUM_CTRS; i++)
		if (!strcmp(name, nicsim_ctr_names[i]))
			return i;
	return -1;
}

static void nicsim_ctr_fixup(struct nicsim_port *np)
{
	np->ctr[NS_RX_OUT_OF_BUFFER] &= U32_MAX;	/* 32-bit Q counter */
}

/* counters ---------------------------------------------------------------- */

static int nicsim_counters_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;
	u16 ids[NICSIM_NUM_CTRS];
	u64 vals[NICSIM_NUM_CTRS];
	unsigned int n, i;

	n = nicsim_stat_ids(np, ids, true);
	spin_lock_bh(&np->lock);
	for (i = 0; i < n; i++)
		vals[i] = np->ctr[ids[i]];
	spin_unlock_bh(&np->lock);
	for (i = 0; i < n; i++)
		seq_printf(m, "%s %llu\n", nicsim_ctr_names[ids[i]], vals[i]);
	return 0;
}

static int nicsim_counters_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_counters_show, inode->i_private);
}

enum { CTR_SET, CTR_ADD, CTR_SUB, CTR_RESET };

struct nicsim_ctr_op {
	u8 kind;
	u16 id;
	u64 val;
};

static ssize_t nicsim_counters_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	struct nicsim_ctr_op *ops;
	char *buf, *cursor, *line, *tok[3];
	unsigned int nops = 0, maxops, i;
	ssize_t ret = count;
	int ntok, id;

	buf = nicsim_copy_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	maxops = count / 2 + 1;
	ops = kvcalloc(maxops, sizeof(*ops), GFP_KERNEL);
	if (!ops) {
		kfree(buf);
		return -ENOMEM;
	}

	/* Parse everything first: a bad line applies nothing. */
	cursor = buf;
	while ((line = nicsim_next_line(&cursor))) {
		struct nicsim_ctr_op *op = &ops[nops];
		const char *val;

		line = skip_spaces(line);
		if (!*line || *line == '#')
			continue;
		ntok = nicsim_tokenize(line, tok, ARRAY_SIZE(tok));
		if (ntok == 1 && !strcmp(tok[0], "reset")) {
			op->kind = CTR_RESET;
			nops++;
			continue;
		}
		if (ntok != 2) {
			ret = -EINVAL;
			goto out;
		}
		id = nicsim_ctr_lookup(tok[0]);
		if (id < 0) {
			ret = -ENOENT;
			goto out;
		}
		op->id = id;
		val = tok[1];
		if (*val == '+') {
			op->kind = CTR_ADD;
			val++;
		} else if (*val == '-') {
			op->kind = CTR_SUB;
			val++;
		} else {
			op->kind = CTR_SET;
		}
		if (kstrtou64(val, 0, &op->val)) {
			ret = -EINVAL;
			goto out;
		}
		nops++;
	}

	spin_lock_bh(&np->lock);
	for (i = 0; i < nops; i++) {
		switch (ops[i].kind) {
		case CTR_SET:
			np->ctr[ops[i].id] = ops[i].val;
			break;
		case CTR_ADD:
			np->ctr[ops[i].id] += ops[i].val;
			break;
		case CTR_SUB:
			np->ctr[ops[i].id] -= ops[i].val;
			break;
		case CTR_RESET:
			memset(np->ctr, 0, sizeof(np->ctr));
			break;
		}
		nicsim_ctr_fixup(np);
	}
	spin_unlock_bh(&np->lock);
out:
	kvfree(ops);
	kfree(buf);
	return ret;
}

static const struct file_operations nicsim_counters_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_counters_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_counters_write,
};

/* fault ------------------------------------------------------------------- */

static const char *nicsim_errno_name(int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nicsim_errnos); i++)
		if (nicsim_errnos[i].err == err)
			return nicsim_errnos[i].name;
	return NULL;
}

/* "EIO", "5", "-5" -> -5; "+1" -> 1 (positive driver status); "0" -> 0. */
static int nicsim_parse_ret(const char *s, int *ret)
{
	unsigned int i;
	int v;

	for (i = 0; i < ARRAY_SIZE(nicsim_errnos); i++) {
		if (!strcasecmp(s, nicsim_errnos[i].name)) {
			*ret = -nicsim_errnos[i].err;
			return 0;
		}
	}
	if (*s == '+') {
		if (kstrtoint(s + 1, 0, &v) || v < 1 || v > 255)
			return -EINVAL;
		*ret = v;
		return 0;
	}
	if (kstrtoint(s, 0, &v))
		return -EINVAL;
	if (v < 0)
		v = -v;
	if (v > MAX_ERRNO)
		return -EINVAL;
	*ret = -v;
	return 0;
}

static int nicsim_fault_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;
	struct nicsim_fault f[OP_NUM];
	unsigned int i;

	spin_lock_bh(&np->lock);
	memcpy(f, np->fault, sizeof(f));
	spin_unlock_bh(&np->lock);

	for (i = 0; i < OP_NUM; i++) {
		const char *name;

		if (!f[i].remaining)
			continue;
		seq_printf(m, "%s ", nicsim_op_names[i]);
		name = f[i].ret < 0 ? nicsim_errno_name(-f[i].ret) : NULL;
		if (name)
			seq_puts(m, name);
		else if (f[i].ret > 0)
			seq_printf(m, "+%d", f[i].ret);
		else
			seq_printf(m, "%d", -f[i].ret);
		if (f[i].remaining < 0)
			seq_puts(m, " inf\n");
		else
			seq_printf(m, " %d\n", f[i].remaining);
	}
	return 0;
}

static int nicsim_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_fault_show, inode->i_private);
}

static ssize_t nicsim_fault_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	struct nicsim_fault f[OP_NUM];
	char *buf, *cursor, *line, *tok[4];
	ssize_t ret = count;
	int ntok, op, i;

	buf = nicsim_copy_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	/* Work on a copy and commit only if every line parses. */
	spin_lock_bh(&np->lock);
	memcpy(f, np->fault, sizeof(f));
	spin_unlock_bh(&np->lock);

	cursor = buf;
	while ((line = nicsim_next_line(&cursor))) {
		int fret, remaining = -1;

		line = skip_spaces(line);
		if (!*line || *line == '#')
			continue;
		ntok = nicsim_tokenize(line, tok, ARRAY_SIZE(tok));
		if (ntok == 1 && !strcmp(tok[0], "clear")) {
			memset(f, 0, sizeof(f));
			continue;
		}
		if (ntok < 2 || ntok > 3) {
			ret = -EINVAL;
			goto out;
		}
		op = -1;
		for (i = 0; i < OP_NUM; i++)
			if (!strcmp(tok[0], nicsim_op_names[i]))
				op = i;
		if (op < 0) {
			ret = -ENOENT;
			goto out;
		}
		if (ntok == 2 && !strcmp(tok[1], "clear")) {
			f[op].ret = 0;
			f[op].remaining = 0;
			continue;
		}
		if (nicsim_parse_ret(tok[1], &fret)) {
			ret = -EINVAL;
			goto out;
		}
		if (ntok == 3) {
			if (kstrtoint(tok[2], 0, &remaining) || remaining < 0) {
				ret = -EINVAL;
				goto out;
			}
		}
		if (!fret || !remaining) {
			f[op].ret = 0;
			f[op].remaining = 0;
		} else {
			f[op].ret = fret;
			f[op].remaining = remaining;
		}
	}

	spin_lock_bh(&np->lock);
	memcpy(np->fault, f, sizeof(f));
	spin_unlock_bh(&np->lock);
out:
	kfree(buf);
	return ret;
}

static const struct file_operations nicsim_fault_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_fault_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_fault_write,
};

/* trust ------------------------------------------------------------------- */

static int nicsim_trust_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;

	seq_printf(m, "%s\n", READ_ONCE(np->trust_dscp) ? "dscp" : "pcp");
	return 0;
}

static int nicsim_trust_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_trust_show, inode->i_private);
}

static const struct file_operations nicsim_trust_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_trust_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* dcbx -------------------------------------------------------------------- */

static int nicsim_dcbx_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;

	seq_printf(m, "0x%02x\n", READ_ONCE(np->dcbx_cap));
	return 0;
}

static int nicsim_dcbx_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_dcbx_show, inode->i_private);
}

static ssize_t nicsim_dcbx_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	u8 val;
	int err;

	err = kstrtou8_from_user(ubuf, count, 0, &val);
	if (err)
		return err;
	rtnl_lock();
	WRITE_ONCE(np->dcbx_cap, val);
	rtnl_unlock();
	return count;
}

static const struct file_operations nicsim_dcbx_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_dcbx_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_dcbx_write,
};

/* state ------------------------------------------------------------------- */

static const char *nicsim_tsa_name(u8 tsa)
{
	switch (tsa) {
	case IEEE_8021QAZ_TSA_STRICT:
		return "strict";
	case IEEE_8021QAZ_TSA_ETS:
		return "ets";
	case IEEE_8021QAZ_TSA_VENDOR:
		return "vendor";
	default:
		return "?";
	}
}

static int nicsim_state_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;
	int i;

	rtnl_lock();
	seq_printf(m, "ifname %s\n", np->netdev->name);
	seq_printf(m, "pfc_en 0x%02x\n", np->pfc_en);
	seq_printf(m, "cable_len %u\n", np->cable_len);
	seq_printf(m, "trust %s\n", np->trust_dscp ? "dscp" : "pcp");
	seq_printf(m, "dscp_app_cnt %u\n", np->dscp_app_cnt);
	seq_printf(m, "dcbx 0x%02x\n", np->dcbx_cap);
	seq_printf(m, "rx_pause %d\n", np->rx_pause);
	seq_printf(m, "tx_pause %d\n", np->tx_pause);
	seq_puts(m, "prio_tc");
	for (i = 0; i < NICSIM_NUM_PRIO; i++)
		seq_printf(m, " %u", np->prio_tc[i]);
	seq_puts(m, "\ntc_tsa");
	for (i = 0; i < NICSIM_NUM_TC; i++)
		seq_printf(m, " %s", nicsim_tsa_name(np->tc_tsa[i]));
	seq_puts(m, "\ntc_bw");
	for (i = 0; i < NICSIM_NUM_TC; i++)
		seq_printf(m, " %u", np->tc_bw[i]);
	seq_puts(m, "\nmaxrate");
	for (i = 0; i < NICSIM_NUM_TC; i++)
		seq_printf(m, " %llu", np->maxrate[i]);
	seq_puts(m, "\nprio2buffer");
	for (i = 0; i < NICSIM_NUM_PRIO; i++)
		seq_printf(m, " %u", np->prio2buffer[i]);
	seq_puts(m, "\nbuffer_size");
	for (i = 0; i < NICSIM_NUM_BUFFERS; i++)
		seq_printf(m, " %u", np->buffer_size[i]);
	seq_printf(m, "\nbuffer_total %u\n", np->buffer_total);
	seq_puts(m, "dscp2prio");
	for (i = 0; i < NICSIM_MAX_DSCP; i++)
		seq_printf(m, " %u", np->dscp2prio[i]);
	seq_printf(m, "\nlink_flaps %llu\n", np->link_flaps);
	rtnl_unlock();
	return 0;
}

static int nicsim_state_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_state_show, inode->i_private);
}

static const struct file_operations nicsim_state_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_state_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static void nicsim_debugfs_add(struct nicsim_port *np)
{
	struct dentry *d;

	d = debugfs_create_dir(np->netdev->name, nicsim_dbg_root);
	np->dbg = d;
	debugfs_create_file("counters", 0600, d, np, &nicsim_counters_fops);
	debugfs_create_file("fault", 0600, d, np, &nicsim_fault_fops);
	debugfs_create_u64("link_flaps", 0400, d, &np->link_flaps);
	debugfs_create_bool("flap_on_pfc", 0600, d, &np->flap_on_pfc);
	debugfs_create_file("trust", 0400, d, np, &nicsim_trust_fops);
	debugfs_create_file("dcbx", 0600, d, np, &nicsim_dcbx_fops);
	debugfs_create_file("state", 0400, d, np, &nicsim_state_fops);
}

/* ------------------------------------------------------------------------ */
/* Setup and teardown                                                       */

static void nicsim_port_init(struct nicsim_port *np, unsigned int index)
{
	int i;

	np->index = index;
	spin_lock_init(&np->lock);

	/* mlx5e_ets_init(): vendor TSA everywhere, prio 0 <-> TC 1 swapped. */
	for (i = 0; i < NICSIM_NUM_TC; i++) {
		np->prio_tc[i] = i;
		np->tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
		np->tc_bw[i] = NICSIM_MAX_BW;
	}
	np->prio_tc[0] = 1;
	np->prio_tc[1] = 0;

	np->cable_len = NICSIM_DEFAULT_CABLE_LEN;
	np->dcbx_cap = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	/* Firmware default DSCP map: dscp d -> priority d >> 3. */
	for (i = 0; i < NICSIM_MAX_DSCP; i++)
		np->dscp2prio[i] = i >> 3;
	np->buffer_total = rounddown(buffer_total, NICSIM_BUFFER_CELL);
	np->buffer_size[0] = rounddown(np->buffer_total / 2,
				       NICSIM_BUFFER_CELL);
	np->rx_pause = global_pause;
	np->tx_pause = global_pause;
	np->flap_on_pfc = true;
}

/* mlx5e_dcbnl_dscp_app(INIT): list all 64 DSCP entries in DSCP trust. */
static void nicsim_init_dscp_trust(struct nicsim_port *np)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	int i;

	for (i = 0; i < NICSIM_MAX_DSCP; i++) {
		app.protocol = i;
		app.priority = np->dscp2prio[i];
		dcb_ieee_setapp(np->netdev, &app);
	}
	np->dscp_app_cnt = NICSIM_MAX_DSCP;
	np->trust_dscp = true;
}

/* Remove this port's entries from the kernel's DCB APP table. */
static void nicsim_flush_apps(struct nicsim_port *np)
{
	struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP };
	int i;

	if (!np->dscp_app_cnt)
		return;
	for (i = 0; i < NICSIM_MAX_DSCP; i++) {
		app.protocol = i;
		app.priority = np->dscp2prio[i];
		dcb_ieee_delapp(np->netdev, &app);
	}
	np->dscp_app_cnt = 0;
}

static void nicsim_destroy(unsigned int i)
{
	struct net_device *dev = nicsim_devs[i];
	struct nicsim_port *np;

	if (!dev)
		return;
	np = netdev_priv(dev);
	/* debugfs first: the state file takes RTNL. */
	debugfs_remove_recursive(np->dbg);
	np->dbg = NULL;
	nicsim_flush_apps(np);
	unregister_netdev(dev);
	free_netdev(dev);
	nicsim_devs[i] = NULL;
}

static int nicsim_create(unsigned int i, bool dscp)
{
	struct net_device *dev;
	struct nicsim_port *np;
	int err;

	dev = alloc_etherdev_mqs(sizeof(*np), NICSIM_NUM_TXQ, 1);
	if (!dev)
		return -ENOMEM;
	np = netdev_priv(dev);
	np->netdev = dev;
	nicsim_port_init(np, i);

	snprintf(dev->name, IFNAMSIZ, NICSIM_DRV_NAME "%u", i);
	dev->netdev_ops = &nicsim_netdev_ops;
	dev->ethtool_ops = &nicsim_ethtool_ops;
	dev->dcbnl_ops = &nicsim_dcbnl_ops;
	dev->min_mtu = NICSIM_MIN_MTU;
	dev->max_mtu = NICSIM_MAX_MTU;
	eth_hw_addr_random(dev);
	netif_carrier_off(dev);

	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	nicsim_devs[i] = dev;
	if (dscp)
		nicsim_init_dscp_trust(np);
	nicsim_debugfs_add(np);
	return 0;
}

static int __init nicsim_init(void)
{
	unsigned int i, p, c;
	bool dscp;
	int err;

	if (nports < 1 || nports > NICSIM_MAX_PORTS) {
		pr_err(NICSIM_DRV_NAME ": nports must be 1..%d\n",
		       NICSIM_MAX_PORTS);
		return -EINVAL;
	}
	if (!strcmp(trust, "dscp")) {
		dscp = true;
	} else if (!strcmp(trust, "pcp")) {
		dscp = false;
	} else {
		pr_err(NICSIM_DRV_NAME ": trust must be pcp or dscp\n");
		return -EINVAL;
	}

	for (i = 0; i < NS_NUM_PORT_CTRS; i++)
		strscpy(nicsim_ctr_names[i], nicsim_port_ctr_names[i],
			ETH_GSTRING_LEN);
	for (p = 0; p < NICSIM_NUM_PRIO; p++)
		for (c = 0; c < NP_NUM; c++)
			snprintf(nicsim_ctr_names[NICSIM_PRIO_CTR(p, c)],
				 ETH_GSTRING_LEN, nicsim_prio_ctr_fmt[c], p);

	nicsim_dbg_root = debugfs_create_dir(NICSIM_DRV_NAME, NULL);

	for (i = 0; i < nports; i++) {
		err = nicsim_create(i, dscp);
		if (err) {
			pr_err(NICSIM_DRV_NAME ": creating port %u failed: %d\n",
			       i, err);
			goto fail;
		}
	}
	return 0;

fail:
	while (i--)
		nicsim_destroy(i);
	debugfs_remove_recursive(nicsim_dbg_root);
	return err;
}

static void __exit nicsim_exit(void)
{
	unsigned int i;

	for (i = 0; i < NICSIM_MAX_PORTS; i++)
		nicsim_destroy(i);
	debugfs_remove_recursive(nicsim_dbg_root);
}

module_init(nicsim_init);
module_exit(nicsim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated DCB-capable Ethernet NIC with mlx5-like semantics (nodrop tests)");
MODULE_AUTHOR("nodrop project");
