// SPDX-License-Identifier: GPL-2.0
/*
 * nicsim - a simulated DCB-capable Ethernet NIC for the nodrop test suite.
 *
 * Registers N Ethernet netdevs (nicsim0..N-1) that behave, from user space,
 * like an mlx5 (ConnectX) port: IEEE 802.1Qaz dcbnl ops with mlx5 semantics
 * (ETS, maxrate, PFC with cable length in ieee_pfc.delay, DSCP APP entries
 * with implicit trust switching, DCBX mode, port buffers), ethtool counters
 * with mlx5 names (per-priority PFC counters only for PFC-enabled
 * priorities), pause parameters and pause statistics.  Transmitted frames
 * are dropped, or with the module parameter wire handed to the paired port
 * (0<->1, 2<->3, ...) as if a cable joined the two.
 *
 * A debugfs interface under <debugfs>/nicsim/<ifname>/ lets tests set and
 * move counters, inject failures into the dcbnl/ethtool set operations and
 * observe link flaps and the trust state.  See README.md next to this file.
 *
 * Locking: dcbnl and ethtool ops run under RTNL, which also protects the
 * configuration fields of struct nicsim_port.  Counters and armed faults are
 * protected by nicsim_port.lock (taken with BH disabled, as the transmit
 * path updates counters too).  The wire partner is an RCU pointer: set once
 * after every port is registered, cleared (and waited for) before teardown.
 *
 * Files: nicsim_main.c (module parameters, setup and teardown, netdev ops,
 * link), nicsim_dcb.c (dcbnl ops), nicsim_ethtool.c (ethtool ops, counter
 * names and order), nicsim_debugfs.c (the debugfs directory, the counters,
 * rx, trust, dcbx and state files), nicsim_fault.c (fault injection and its
 * debugfs file), nicsim_peer.c (the link partner's DCB, debugfs file peer)
 * and nicsim.h (what they share).
 */

#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/dcbnl.h>

#include "nicsim.h"

/* ------------------------------------------------------------------------ */
/* Module parameters                                                        */

static unsigned int nports = 2;
module_param(nports, uint, 0444);
MODULE_PARM_DESC(nports, "Number of ports (netdevs nicsim0..N-1), 1..64 (default 2)");

unsigned int nicsim_speed = 100000;
module_param_named(speed, nicsim_speed, uint, 0444);
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

static bool wire;
module_param(wire, bool, 0444);
MODULE_PARM_DESC(wire, "Cable port pairs 0<->1, 2<->3, ...: what one sends the other receives (default 0)");

bool nicsim_cee;
module_param_named(cee, nicsim_cee, bool, 0444);
MODULE_PARM_DESC(cee, "CEE dcbnl ops (registers for lldpad's CEE DCBX), DCBX cee modes (default 0)");

static struct net_device *nicsim_devs[NICSIM_MAX_PORTS];

/* ------------------------------------------------------------------------ */
/* Link                                                                     */

/* The cable's other end, under RTNL (it changes only at load and unload, both under it). */
static struct nicsim_port *nicsim_partner(struct nicsim_port *np)
{
	return rtnl_dereference(np->partner);
}

/* Carrier: an up port without a cable has it; a cabled one while the other end is up too. */
static bool nicsim_link_ok(struct nicsim_port *np)
{
	struct nicsim_port *other = nicsim_partner(np);

	return netif_running(np->netdev) && (!other || netif_running(other->netdev));
}

/* Toggle the link as mlx5_toggle_port_link() does: only an up port. */
void nicsim_toggle_link(struct nicsim_port *np)
{
	struct net_device *dev = np->netdev;

	if (!np->flap_on_pfc || !netif_running(dev))
		return;
	netif_carrier_off(dev);
	if (nicsim_link_ok(np))
		netif_carrier_on(dev);
	np->link_flaps++;
	netdev_info(dev, "link toggled (PFC change), flaps=%llu\n",
		    np->link_flaps);
}

/* ------------------------------------------------------------------------ */
/* netdev                                                                   */

static int nicsim_open(struct net_device *dev)
{
	struct nicsim_port *np = netdev_priv(dev);
	struct nicsim_port *other = nicsim_partner(np);

	/* the cable carries a signal once both ends are up */
	if (!other || netif_running(other->netdev)) {
		netif_carrier_on(dev);
		if (other)
			netif_carrier_on(other->netdev);
	}
	netif_tx_start_all_queues(dev);
	return 0;
}

static int nicsim_stop(struct net_device *dev)
{
	struct nicsim_port *np = netdev_priv(dev);
	struct nicsim_port *other = nicsim_partner(np);

	netif_tx_stop_all_queues(dev);
	netif_carrier_off(dev);
	if (other)
		netif_carrier_off(other->netdev);
	return 0;
}

/* A frame arrived from the wire or the rx file: count it as the NIC would. */
void nicsim_rx_count(struct nicsim_port *np, unsigned int len)
{
	spin_lock_bh(&np->lock);
	np->ctr[NS_RX_PACKETS]++;
	np->ctr[NS_RX_BYTES] += len;
	spin_unlock_bh(&np->lock);
}

static netdev_tx_t nicsim_start_xmit(struct sk_buff *skb,
				     struct net_device *dev)
{
	struct nicsim_port *np = netdev_priv(dev);
	struct nicsim_port *other;
	unsigned int len = skb->len;

	spin_lock(&np->lock);
	np->ctr[NS_TX_PACKETS]++;
	np->ctr[NS_TX_BYTES] += len;
	spin_unlock(&np->lock);

	/* dev_queue_xmit holds rcu_read_lock_bh, which keeps the partner */
	other = rcu_dereference_bh(np->partner);
	if (!other || !netif_running(other->netdev)) {
		dev_consume_skb_any(skb);
		return NETDEV_TX_OK;
	}
	/* as veth: scrubbed, eth_type_trans and netif_rx on the other end; a frame over its
	 * MTU is dropped there
	 */
	if (dev_forward_skb(other->netdev, skb) == NET_RX_SUCCESS)
		nicsim_rx_count(other, len);
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

/* Cable port 2k to 2k+1 (an odd last port stays alone). */
static void nicsim_pair(unsigned int nports)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i + 1 < nports; i += 2) {
		struct nicsim_port *a = netdev_priv(nicsim_devs[i]);
		struct nicsim_port *b = netdev_priv(nicsim_devs[i + 1]);

		rcu_assign_pointer(a->partner, b);
		rcu_assign_pointer(b->partner, a);
	}
	rtnl_unlock();
}

/* Cut the cable before a port goes: no transmit may still hand the other end a frame. */
static void nicsim_unpair(struct nicsim_port *np)
{
	struct nicsim_port *other;

	rtnl_lock();
	other = nicsim_partner(np);
	if (other) {
		RCU_INIT_POINTER(other->partner, NULL);
		RCU_INIT_POINTER(np->partner, NULL);
	}
	rtnl_unlock();
	if (other)
		synchronize_net();
}

static void nicsim_destroy(unsigned int i)
{
	struct net_device *dev = nicsim_devs[i];
	struct nicsim_port *np;

	if (!dev)
		return;
	np = netdev_priv(dev);
	/* debugfs first: the state file takes RTNL. */
	nicsim_debugfs_del(np);
	nicsim_unpair(np);
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
	dev->dcbnl_ops = nicsim_cee ? &nicsim_dcbnl_cee_ops : &nicsim_dcbnl_ops;
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
	unsigned int i;
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

	nicsim_ctr_names_init();
	nicsim_debugfs_init();

	for (i = 0; i < nports; i++) {
		err = nicsim_create(i, dscp);
		if (err) {
			pr_err(NICSIM_DRV_NAME ": creating port %u failed: %d\n",
			       i, err);
			goto fail;
		}
	}
	if (wire)
		nicsim_pair(nports);
	return 0;

fail:
	while (i--)
		nicsim_destroy(i);
	nicsim_debugfs_exit();
	return err;
}

static void __exit nicsim_exit(void)
{
	unsigned int i;

	for (i = 0; i < NICSIM_MAX_PORTS; i++)
		nicsim_destroy(i);
	nicsim_debugfs_exit();
}

module_init(nicsim_init);
module_exit(nicsim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Simulated DCB-capable Ethernet NIC with mlx5-like semantics (nodrop tests)");
MODULE_AUTHOR("nodrop project");
