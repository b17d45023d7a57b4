// SPDX-License-Identifier: GPL-2.0
/*
 * nicsim dcbnl ops: IEEE ETS, maxrate, PFC, DSCP APP, DCBX and buffers; the link partner's
 * DCB as a NIC whose firmware (or host agent) runs DCBX reports it (peer ops); with cee=1,
 * the CEE registers lldpad's CEE DCBX drives.
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/dcbnl.h>

#include "nicsim.h"

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

/*
 * With debugfs app_any set, the other IEEE selectors (ethertype, TCP, UDP, any) go into the
 * kernel's table as they come, as for a driver without mlx5's DSCP-only rule: a switch port
 * whose LLDP agent (lldpad) advertises its APP TLV from that table.
 */
static bool nicsim_app_other(struct nicsim_port *np, const struct dcb_app *app)
{
	return np->app_any && app->selector >= IEEE_8021QAZ_APP_SEL_ETHERTYPE &&
	       app->selector <= IEEE_8021QAZ_APP_SEL_ANY;
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

	if (nicsim_app_other(np, app))
		return app->priority < NICSIM_NUM_PRIO ? dcb_ieee_setapp(dev, app) : -EINVAL;
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

	if (nicsim_app_other(np, app))
		return dcb_ieee_delapp(dev, app);
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
 * A mode with VER_CEE is refused unless the module has its CEE ops (cee=1).
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
	if ((mode & DCB_CAP_DCBX_VER_CEE) && !nicsim_cee)
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

/*
 * The peer ops: what the link partner advertised, as debugfs `peer` set it. -ENODATA until
 * then, which makes dcbnl leave the attribute out of its reply (as drivers do before DCBX has
 * heard the peer).
 */
static int nicsim_peer_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (!(np->peer.have & NICSIM_PEER_ETS))
		return -ENODATA;
	*ets = np->peer.ets;
	return 0;
}

static int nicsim_peer_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (!(np->peer.have & NICSIM_PEER_PFC))
		return -ENODATA;
	*pfc = np->peer.pfc;
	return 0;
}

/* dcbnl asks for the count first and then for a table of that size, both under RTNL. */
static int nicsim_peer_getappinfo(struct net_device *dev, struct dcb_peer_app_info *info,
				  u16 *app_count)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (!(np->peer.have & NICSIM_PEER_APP_INFO) && !np->peer.app_cnt)
		return -ENODATA;
	*info = np->peer.app_info;
	*app_count = np->peer.app_cnt;
	return 0;
}

static int nicsim_peer_getapptable(struct net_device *dev, struct dcb_app *table)
{
	struct nicsim_port *np = netdev_priv(dev);

	memcpy(table, np->peer.app, np->peer.app_cnt * sizeof(*table));
	return 0;
}

static int nicsim_cee_peer_getpg(struct net_device *dev, struct cee_pg *pg)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (!(np->peer.have & NICSIM_PEER_CEE_PG))
		return -ENODATA;
	*pg = np->peer.cee_pg;
	return 0;
}

static int nicsim_cee_peer_getpfc(struct net_device *dev, struct cee_pfc *pfc)
{
	struct nicsim_port *np = netdev_priv(dev);

	if (!(np->peer.have & NICSIM_PEER_CEE_PFC))
		return -ENODATA;
	*pfc = np->peer.cee_pfc;
	return 0;
}

/*
 * CEE ops (module parameter cee): the registers lldpad's CEE DCBX reads and writes, stored and
 * read back (tx side) through CEE_GET. mlx5 folds them into its ETS and PFC at setall; nicsim
 * keeps them apart from its IEEE state, which setall leaves as it is.
 */
static struct nicsim_cee *nicsim_cee_of(struct net_device *dev)
{
	return &((struct nicsim_port *)netdev_priv(dev))->cee;
}

static u8 nicsim_getstate(struct net_device *dev)
{
	return nicsim_cee_of(dev)->state;
}

static u8 nicsim_setstate(struct net_device *dev, u8 state)
{
	nicsim_cee_of(dev)->state = !!state;
	return 0;
}

/* as mlx5e_dcbnl_getcap: PG and PFC, 8 TCs (bit 7), no UP2TC, GSP or BCN */
static u8 nicsim_getcap(struct net_device *dev, int capid, u8 *cap)
{
	switch (capid) {
	case DCB_CAP_ATTR_PG:
	case DCB_CAP_ATTR_PFC:
		*cap = true;
		return 0;
	case DCB_CAP_ATTR_UP2TC:
	case DCB_CAP_ATTR_GSP:
	case DCB_CAP_ATTR_BCN:
		*cap = false;
		return 0;
	case DCB_CAP_ATTR_PG_TCS:
	case DCB_CAP_ATTR_PFC_TCS:
		*cap = BIT(NICSIM_NUM_TC - 1);
		return 0;
	case DCB_CAP_ATTR_DCBX:
		*cap = ((struct nicsim_port *)netdev_priv(dev))->dcbx_cap;
		return 0;
	default:
		*cap = 0;
		return 1;
	}
}

static int nicsim_getnumtcs(struct net_device *dev, int tcid, u8 *num)
{
	if (tcid != DCB_NUMTCS_ATTR_PG && tcid != DCB_NUMTCS_ATTR_PFC)
		return -EINVAL;
	*num = NICSIM_NUM_TC;
	return 0;
}

static void nicsim_cee_settc(struct net_device *dev, int dir, int prio, u8 prio_type, u8 pgid,
			     u8 bw_pct, u8 up_map)
{
	if (prio >= 0 && prio < NICSIM_NUM_PRIO)
		nicsim_cee_of(dev)->tc[dir][prio] = (struct nicsim_cee_tc){ prio_type, pgid,
									    bw_pct, up_map };
}

static void nicsim_setpgtccfgtx(struct net_device *dev, int prio, u8 prio_type, u8 pgid,
				u8 bw_pct, u8 up_map)
{
	nicsim_cee_settc(dev, 0, prio, prio_type, pgid, bw_pct, up_map);
}

/* dcbnl takes a PG set only from a driver with both directions' setters */
static void nicsim_setpgtccfgrx(struct net_device *dev, int prio, u8 prio_type, u8 pgid,
				u8 bw_pct, u8 up_map)
{
	nicsim_cee_settc(dev, 1, prio, prio_type, pgid, bw_pct, up_map);
}

static void nicsim_getpgtccfgtx(struct net_device *dev, int prio, u8 *prio_type, u8 *pgid,
				u8 *bw_pct, u8 *up_map)
{
	const struct nicsim_cee_tc *tc;

	if (prio < 0 || prio >= NICSIM_NUM_PRIO)
		return;
	tc = &nicsim_cee_of(dev)->tc[0][prio];
	*prio_type = tc->prio_type;
	*pgid = tc->pgid;
	*bw_pct = tc->bw_pct;
	*up_map = tc->up_map;
}

static void nicsim_setpgbwgcfgtx(struct net_device *dev, int pgid, u8 bw_pct)
{
	if (pgid >= 0 && pgid < CEE_DCBX_MAX_PGS)
		nicsim_cee_of(dev)->bwg_pct[0][pgid] = bw_pct;
}

static void nicsim_setpgbwgcfgrx(struct net_device *dev, int pgid, u8 bw_pct)
{
	if (pgid >= 0 && pgid < CEE_DCBX_MAX_PGS)
		nicsim_cee_of(dev)->bwg_pct[1][pgid] = bw_pct;
}

static void nicsim_getpgbwgcfgtx(struct net_device *dev, int pgid, u8 *bw_pct)
{
	if (pgid >= 0 && pgid < CEE_DCBX_MAX_PGS)
		*bw_pct = nicsim_cee_of(dev)->bwg_pct[0][pgid];
}

static void nicsim_setpfccfg(struct net_device *dev, int prio, u8 setting)
{
	if (prio >= 0 && prio < NICSIM_NUM_PRIO)
		nicsim_cee_of(dev)->pfc_cfg[prio] = setting;
}

static void nicsim_getpfccfg(struct net_device *dev, int prio, u8 *setting)
{
	if (prio >= 0 && prio < NICSIM_NUM_PRIO)
		*setting = nicsim_cee_of(dev)->pfc_cfg[prio];
}

static u8 nicsim_getpfcstate(struct net_device *dev)
{
	return nicsim_cee_of(dev)->pfc_state;
}

static void nicsim_setpfcstate(struct net_device *dev, u8 state)
{
	nicsim_cee_of(dev)->pfc_state = !!state;
}

/* 1: "no hardware change was needed" (0 would have lldpad wait for a link reset) */
static u8 nicsim_setall(struct net_device *dev)
{
	return 1;
}

#define NICSIM_IEEE_OPS							\
	.ieee_getets		= nicsim_ieee_getets,			\
	.ieee_setets		= nicsim_ieee_setets,			\
	.ieee_getmaxrate	= nicsim_ieee_getmaxrate,		\
	.ieee_setmaxrate	= nicsim_ieee_setmaxrate,		\
	.ieee_getpfc		= nicsim_ieee_getpfc,			\
	.ieee_setpfc		= nicsim_ieee_setpfc,			\
	.ieee_setapp		= nicsim_ieee_setapp,			\
	.ieee_delapp		= nicsim_ieee_delapp,			\
	.getdcbx		= nicsim_getdcbx,			\
	.setdcbx		= nicsim_setdcbx,			\
	.dcbnl_getbuffer	= nicsim_getbuffer,			\
	.dcbnl_setbuffer	= nicsim_setbuffer,			\
	.ieee_peer_getets	= nicsim_peer_getets,			\
	.ieee_peer_getpfc	= nicsim_peer_getpfc,			\
	.peer_getappinfo	= nicsim_peer_getappinfo,		\
	.peer_getapptable	= nicsim_peer_getapptable,		\
	.cee_peer_getpg		= nicsim_cee_peer_getpg,		\
	.cee_peer_getpfc	= nicsim_cee_peer_getpfc

const struct dcbnl_rtnl_ops nicsim_dcbnl_ops = {
	NICSIM_IEEE_OPS,
};

const struct dcbnl_rtnl_ops nicsim_dcbnl_cee_ops = {
	NICSIM_IEEE_OPS,
	.getstate		= nicsim_getstate,
	.setstate		= nicsim_setstate,
	.getcap			= nicsim_getcap,
	.getnumtcs		= nicsim_getnumtcs,
	.setpgtccfgtx		= nicsim_setpgtccfgtx,
	.setpgbwgcfgtx		= nicsim_setpgbwgcfgtx,
	.setpgtccfgrx		= nicsim_setpgtccfgrx,
	.setpgbwgcfgrx		= nicsim_setpgbwgcfgrx,
	.getpgtccfgtx		= nicsim_getpgtccfgtx,
	.getpgbwgcfgtx		= nicsim_getpgbwgcfgtx,
	.setpfccfg		= nicsim_setpfccfg,
	.getpfccfg		= nicsim_getpfccfg,
	.getpfcstate		= nicsim_getpfcstate,
	.setpfcstate		= nicsim_setpfcstate,
	.setall			= nicsim_setall,
};
