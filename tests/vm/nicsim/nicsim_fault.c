// SPDX-License-Identifier: GPL-2.0
/* nicsim fault injection: the faults the ops ask about, and the debugfs file that arms them. */

#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

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

const struct file_operations nicsim_fault_fops = {
	.owner		= THIS_MODULE,
	.open		= nicsim_fault_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= nicsim_fault_write,
};
