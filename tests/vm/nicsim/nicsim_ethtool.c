// SPDX-License-Identifier: GPL-2.0
/* nicsim ethtool ops and the counter names and order they report. */

#include <linux/bitops.h>
#include <linux/ethtool.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "nicsim.h"

/* ------------------------------------------------------------------------ */
/* Counters                                                                 */

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

char nicsim_ctr_names[NICSIM_NUM_CTRS][ETH_GSTRING_LEN];

/* Fill nicsim_ctr_names[] (per-priority names from their formats). */
void nicsim_ctr_names_init(void)
{
	unsigned int i, p, c;

	for (i = 0; i < NS_NUM_PORT_CTRS; i++)
		strscpy(nicsim_ctr_names[i], nicsim_port_ctr_names[i],
			ETH_GSTRING_LEN);
	for (p = 0; p < NICSIM_NUM_PRIO; p++)
		for (c = 0; c < NP_NUM; c++)
			snprintf(nicsim_ctr_names[NICSIM_PRIO_CTR(p, c)],
				 ETH_GSTRING_LEN, nicsim_prio_ctr_fmt[c], p);
}

/*
 * Counter ids in ethtool order (mlx5 group order: sw, q counters, 802.3,
 * RFC 2863, per-prio traffic, per-prio PFC, global pause, stall, per-prio
 * buffer congestion).  With @all, the PFC and global-pause counters are
 * listed for every priority regardless of the configuration.  Returns the
 * number of ids; @ids may be NULL to count only.  Called under RTNL unless
 * @all is set.
 */
unsigned int nicsim_stat_ids(const struct nicsim_port *np, u16 *ids,
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

	switch (nicsim_speed) {
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
		ks->base.speed = nicsim_speed;
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

const struct ethtool_ops nicsim_ethtool_ops = {
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
