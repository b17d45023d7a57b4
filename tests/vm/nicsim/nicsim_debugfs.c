// SPDX-License-Identifier: GPL-2.0
/*
 * nicsim's debugfs directory, a port's files in it (counters, rx, trust, dcbx, state; fault in
 * nicsim_fault.c, peer in nicsim_peer.c) and the parsing helpers their writes share.
 */

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/dcbnl.h>

#include "nicsim.h"

/* ------------------------------------------------------------------------ */
/* debugfs                                                                  */

static struct dentry *nicsim_dbg_root;

/* Copy a user buffer into a NUL-terminated kernel string. */
char *nicsim_copy_user(const char __user *ubuf, size_t count)
{
	if (count > NICSIM_WRITE_MAX)
		return ERR_PTR(-EFBIG);
	return memdup_user_nul(ubuf, count);
}

/* Split @s into whitespace-separated tokens; returns the token count. */
int nicsim_tokenize(char *s, char **tok, int max)
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
char *nicsim_next_line(char **cursor)
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

/*
 * Parse one line of a counters write into @op: 1 when it holds an op, 0 for
 * a blank or comment line, or a negative errno.
 */
static int nicsim_ctr_parse_line(char *line, struct nicsim_ctr_op *op)
{
	char *tok[3];
	const char *val;
	int ntok, id;

	line = skip_spaces(line);
	if (!*line || *line == '#')
		return 0;
	ntok = nicsim_tokenize(line, tok, ARRAY_SIZE(tok));
	if (ntok == 1 && !strcmp(tok[0], "reset")) {
		op->kind = CTR_RESET;
		return 1;
	}
	if (ntok != 2)
		return -EINVAL;
	id = nicsim_ctr_lookup(tok[0]);
	if (id < 0)
		return -ENOENT;
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
	if (kstrtou64(val, 0, &op->val))
		return -EINVAL;
	return 1;
}

static void nicsim_ctr_apply(struct nicsim_port *np,
			     const struct nicsim_ctr_op *ops, unsigned int nops)
{
	unsigned int i;

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
}

static ssize_t nicsim_counters_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	struct nicsim_ctr_op *ops;
	char *buf, *cursor, *line;
	unsigned int nops = 0, maxops;
	ssize_t ret = count;
	int err;

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
		err = nicsim_ctr_parse_line(line, &ops[nops]);
		if (err < 0) {
			ret = err;
			goto out;
		}
		nops += err;
	}
	nicsim_ctr_apply(np, ops, nops);
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

/* rx ---------------------------------------------------------------------- */

/*
 * A write is one frame the port receives, as from the wire (destination MAC first, no FCS):
 * the switch's LLDP frames for `nodrop show --peer` and `audit --peer` on a port with DCB.
 */
static ssize_t nicsim_rx_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	struct net_device *dev = np->netdev;
	struct sk_buff *skb;

	if (count < ETH_HLEN || count > ETH_HLEN + ETH_DATA_LEN + 9000)
		return -EINVAL;
	skb = netdev_alloc_skb(dev, count);
	if (!skb)
		return -ENOMEM;
	if (copy_from_user(skb_put(skb, count), ubuf, count)) {
		kfree_skb(skb);
		return -EFAULT;
	}
	skb->protocol = eth_type_trans(skb, dev);
	nicsim_rx_count(np, count);
	netif_rx(skb);
	return count;
}

static const struct file_operations nicsim_rx_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.write		= nicsim_rx_write,
	.llseek		= no_llseek,
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

void nicsim_debugfs_add(struct nicsim_port *np)
{
	struct dentry *d;

	d = debugfs_create_dir(np->netdev->name, nicsim_dbg_root);
	np->dbg = d;
	debugfs_create_file("counters", 0600, d, np, &nicsim_counters_fops);
	debugfs_create_file("fault", 0600, d, np, &nicsim_fault_fops);
	debugfs_create_u64("link_flaps", 0400, d, &np->link_flaps);
	debugfs_create_bool("flap_on_pfc", 0600, d, &np->flap_on_pfc);
	debugfs_create_bool("app_any", 0600, d, &np->app_any);
	debugfs_create_file("trust", 0400, d, np, &nicsim_trust_fops);
	debugfs_create_file("rx", 0200, d, np, &nicsim_rx_fops);
	debugfs_create_file("dcbx", 0600, d, np, &nicsim_dcbx_fops);
	debugfs_create_file("peer", 0600, d, np, &nicsim_peer_fops);
	debugfs_create_file("state", 0400, d, np, &nicsim_state_fops);
}

void nicsim_debugfs_del(struct nicsim_port *np)
{
	debugfs_remove_recursive(np->dbg);
	np->dbg = NULL;
}

/* <debugfs>/nicsim/, the parent of the port directories. */
void nicsim_debugfs_init(void)
{
	nicsim_dbg_root = debugfs_create_dir(NICSIM_DRV_NAME, NULL);
}

void nicsim_debugfs_exit(void)
{
	debugfs_remove_recursive(nicsim_dbg_root);
}
