// SPDX-License-Identifier: GPL-2.0
/* nicsim's link partner: the DCB the peer ops report, as the debugfs file peer writes it. */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <net/dcbnl.h>

#include "nicsim.h"

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

const struct file_operations nicsim_peer_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_peer_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_peer_write,
};
