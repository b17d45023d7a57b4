// SPDX-License-Identifier: GPL-2.0
/* nicsim debugfs files (counters, fault, rx, trust, dcbx, peer, state) and faults. */

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
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/dcbnl.h>

#include "nicsim.h"

/* ------------------------------------------------------------------------ */
/* Fault injection                                                          */

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

int nicsim_fault_check(struct nicsim_port *np, enum nicsim_op op)
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

/* ------------------------------------------------------------------------ */
/* debugfs                                                                  */

static struct dentry *nicsim_dbg_root;

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

/* peer -------------------------------------------------------------------- */

/*
 * The link partner's DCB the peer ops report, one feature a line:
 *   ets willing=0|1 cbs=0|1 maxtc=N prio_tc=L tc_bw=L tsa=L
 *   pfc en=N cap=N willing=0|1 mbc=0|1
 *   app sel=N proto=N prio=N	(appends an entry)
 *   app_info willing=0|1 error=0|1
 *   cee_pg willing=0|1 error=0|1 pg_en=0|1 tcs=N pg_bw=L prio_pg=L
 *   cee_pfc willing=0|1 error=0|1 en=N tcs=N
 *   clear
 * where L is exactly 8 comma-separated numbers. A line sets its feature afresh: keys left
 * out are 0. The table below serves the parser and the reader alike.
 */
#define PO(field)	offsetof(struct nicsim_peer, field)

static const struct nicsim_peer_feature {
	const char *name;
	u32 bit;
} nicsim_peer_features[] = {
	{ "ets", NICSIM_PEER_ETS },
	{ "pfc", NICSIM_PEER_PFC },
	{ "app_info", NICSIM_PEER_APP_INFO },
	{ "cee_pg", NICSIM_PEER_CEE_PG },
	{ "cee_pfc", NICSIM_PEER_CEE_PFC },
};

static const struct nicsim_peer_key {
	u32 bit;		/* the feature */
	const char *name;
	size_t off;		/* of a u8, or of u8[8] for a list */
	u8 list;		/* 8 comma-separated numbers */
	u8 hex;			/* read back as 0x%02x */
	u8 max;
} nicsim_peer_keys[] = {
	{ NICSIM_PEER_ETS, "willing", PO(ets.willing), 0, 0, 1 },
	{ NICSIM_PEER_ETS, "cbs", PO(ets.cbs), 0, 0, 1 },
	{ NICSIM_PEER_ETS, "maxtc", PO(ets.ets_cap), 0, 0, IEEE_8021QAZ_MAX_TCS },
	{ NICSIM_PEER_ETS, "prio_tc", PO(ets.prio_tc), 1, 0, IEEE_8021QAZ_MAX_TCS - 1 },
	{ NICSIM_PEER_ETS, "tc_bw", PO(ets.tc_tx_bw), 1, 0, 100 },
	{ NICSIM_PEER_ETS, "tsa", PO(ets.tc_tsa), 1, 0, U8_MAX },
	{ NICSIM_PEER_PFC, "en", PO(pfc.pfc_en), 0, 1, U8_MAX },
	{ NICSIM_PEER_PFC, "cap", PO(pfc.pfc_cap), 0, 0, IEEE_8021QAZ_MAX_TCS },
	{ NICSIM_PEER_PFC, "willing", PO(pfc_willing), 0, 0, 1 },
	{ NICSIM_PEER_PFC, "mbc", PO(pfc.mbc), 0, 0, 1 },
	{ NICSIM_PEER_APP_INFO, "willing", PO(app_info.willing), 0, 0, 1 },
	{ NICSIM_PEER_APP_INFO, "error", PO(app_info.error), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PG, "willing", PO(cee_pg.willing), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PG, "error", PO(cee_pg.error), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PG, "pg_en", PO(cee_pg.pg_en), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PG, "tcs", PO(cee_pg.tcs_supported), 0, 0, CEE_DCBX_MAX_PGS },
	{ NICSIM_PEER_CEE_PG, "pg_bw", PO(cee_pg.pg_bw), 1, 0, 100 },
	{ NICSIM_PEER_CEE_PG, "prio_pg", PO(cee_pg.prio_pg), 1, 0, 15 },	/* 15: strict */
	{ NICSIM_PEER_CEE_PFC, "willing", PO(cee_pfc.willing), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PFC, "error", PO(cee_pfc.error), 0, 0, 1 },
	{ NICSIM_PEER_CEE_PFC, "en", PO(cee_pfc.pfc_en), 0, 1, U8_MAX },
	{ NICSIM_PEER_CEE_PFC, "tcs", PO(cee_pfc.tcs_supported), 0, 0, CEE_DCBX_MAX_PRIO },
};

/* A number no larger than @max, decimal or 0x hex. */
static int nicsim_peer_num(const char *s, unsigned int max, unsigned int *v)
{
	if (kstrtouint(s, 0, v) || *v > max)
		return -EINVAL;
	return 0;
}

static int nicsim_peer_value(const struct nicsim_peer_key *k, char *val, u8 *dst)
{
	unsigned int v, i;
	char *num;

	if (!k->list) {
		if (nicsim_peer_num(val, k->max, &v))
			return -EINVAL;
		*dst = v;
		return 0;
	}
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		num = strsep(&val, ",");
		if (!num || nicsim_peer_num(num, k->max, &v))
			return -EINVAL;
		dst[i] = v;
	}
	return val ? -EINVAL : 0;	/* more than eight */
}

/* "app sel=N proto=N prio=N": one more entry of the partner's APP table */
static int nicsim_peer_app(struct nicsim_peer *p, char **tok, int ntok)
{
	struct dcb_app app = {};
	unsigned int v;
	char *val;
	int i;

	for (i = 1; i < ntok; i++) {
		val = tok[i];
		strsep(&val, "=");
		if (!val)
			return -EINVAL;
		if (!strcmp(tok[i], "sel") && !nicsim_peer_num(val, U8_MAX, &v))
			app.selector = v;
		else if (!strcmp(tok[i], "proto") && !nicsim_peer_num(val, U16_MAX, &v))
			app.protocol = v;
		else if (!strcmp(tok[i], "prio") && !nicsim_peer_num(val, 7, &v))
			app.priority = v;
		else
			return -EINVAL;
	}
	if (p->app_cnt == NICSIM_PEER_APP_MAX)
		return -ENOSPC;
	p->app[p->app_cnt++] = app;
	return 0;
}

static int nicsim_peer_parse_line(struct nicsim_peer *p, char *line)
{
	const struct nicsim_peer_feature *f = NULL;
	const struct nicsim_peer_key *k;
	char *tok[8], *val;
	unsigned int i;
	int ntok, j;

	line = skip_spaces(line);
	if (*line == '#')
		return 0;
	ntok = nicsim_tokenize(line, tok, ARRAY_SIZE(tok));
	if (ntok <= 0)
		return ntok ? -EINVAL : 0;
	if (!strcmp(tok[0], "clear")) {
		if (ntok != 1)
			return -EINVAL;
		memset(p, 0, sizeof(*p));
		return 0;
	}
	if (!strcmp(tok[0], "app"))
		return nicsim_peer_app(p, tok, ntok);
	for (i = 0; i < ARRAY_SIZE(nicsim_peer_features); i++)
		if (!strcmp(tok[0], nicsim_peer_features[i].name))
			f = &nicsim_peer_features[i];
	if (!f)
		return -EINVAL;

	/* the feature afresh */
	switch (f->bit) {
	case NICSIM_PEER_ETS:
		memset(&p->ets, 0, sizeof(p->ets));
		break;
	case NICSIM_PEER_PFC:
		memset(&p->pfc, 0, sizeof(p->pfc));
		p->pfc_willing = 0;
		break;
	case NICSIM_PEER_APP_INFO:
		memset(&p->app_info, 0, sizeof(p->app_info));
		break;
	case NICSIM_PEER_CEE_PG:
		memset(&p->cee_pg, 0, sizeof(p->cee_pg));
		break;
	case NICSIM_PEER_CEE_PFC:
		memset(&p->cee_pfc, 0, sizeof(p->cee_pfc));
		break;
	}
	for (j = 1; j < ntok; j++) {
		val = tok[j];
		strsep(&val, "=");
		if (!val)
			return -EINVAL;
		for (k = NULL, i = 0; i < ARRAY_SIZE(nicsim_peer_keys); i++)
			if (nicsim_peer_keys[i].bit == f->bit &&
			    !strcmp(tok[j], nicsim_peer_keys[i].name))
				k = &nicsim_peer_keys[i];
		if (!k || nicsim_peer_value(k, val, (u8 *)p + k->off))
			return -EINVAL;
	}
	/* the receive side as the transmit side: one bandwidth table on the wire */
	if (f->bit == NICSIM_PEER_ETS)
		memcpy(p->ets.tc_rx_bw, p->ets.tc_tx_bw, sizeof(p->ets.tc_rx_bw));
	p->have |= f->bit;
	return 0;
}

static int nicsim_peer_show(struct seq_file *m, void *v)
{
	struct nicsim_port *np = m->private;
	struct nicsim_peer *p;
	unsigned int i, j, n;

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	rtnl_lock();
	*p = np->peer;
	rtnl_unlock();

	for (i = 0; i < ARRAY_SIZE(nicsim_peer_features); i++) {
		const struct nicsim_peer_feature *f = &nicsim_peer_features[i];

		if (f->bit == NICSIM_PEER_APP_INFO) {	/* the table first, as it was written */
			for (j = 0; j < p->app_cnt; j++)
				seq_printf(m, "app sel=%u proto=%u prio=%u\n", p->app[j].selector,
					   p->app[j].protocol, p->app[j].priority);
		}
		if (!(p->have & f->bit))
			continue;
		seq_puts(m, f->name);
		for (j = 0; j < ARRAY_SIZE(nicsim_peer_keys); j++) {
			const struct nicsim_peer_key *k = &nicsim_peer_keys[j];
			const u8 *val = (const u8 *)p + k->off;

			if (k->bit != f->bit)
				continue;
			seq_printf(m, " %s=", k->name);
			if (k->hex)
				seq_printf(m, "0x%02x", *val);
			for (n = 0; !k->hex && n < (k->list ? IEEE_8021QAZ_MAX_TCS : 1); n++)
				seq_printf(m, "%s%u", n ? "," : "", val[n]);
		}
		seq_putc(m, '\n');
	}
	kfree(p);
	return 0;
}

static int nicsim_peer_open(struct inode *inode, struct file *file)
{
	return single_open(file, nicsim_peer_show, inode->i_private);
}

/* All lines of a write are parsed into a copy and committed together, or none. */
static ssize_t nicsim_peer_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	struct nicsim_port *np = file_inode(file)->i_private;
	char *buf, *cursor, *line;
	struct nicsim_peer *p;
	ssize_t ret = count;
	int err;

	buf = nicsim_copy_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kfree(buf);
		return -ENOMEM;
	}
	/* the peer ops read np->peer under RTNL */
	rtnl_lock();
	*p = np->peer;
	cursor = buf;
	while ((line = nicsim_next_line(&cursor))) {
		err = nicsim_peer_parse_line(p, line);
		if (err) {
			ret = err;
			goto out;
		}
	}
	np->peer = *p;
out:
	rtnl_unlock();
	kfree(p);
	kfree(buf);
	return ret;
}

static const struct file_operations nicsim_peer_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_peer_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_peer_write,
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
