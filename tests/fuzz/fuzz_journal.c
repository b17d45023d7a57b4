// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for the apply journal's parser, from memory: no file, no lock, no port. Any
 * bytes must give 0 or a negative errno with a message that names the file, leave a refused
 * journal empty, and leak nothing (ASan's leak check runs at exit). A journal that loads must
 * hold only what nd_journal_load promises (apply/journal.h): rollback plans from it as it is.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"
#include "apply/journal.h"

#define NAME "fuzz.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static bool state_ok(const struct nd_profile *p)
{
	bool mode_set = p->set & 1u << ND_F_ROCE_MODE;
	size_t i, k;

	if (p->set >> ND_F_COUNT || p->mtu < 68 || p->mtu > INT_MAX || p->trust > ND_TRUST_DSCP ||
	    p->cnp_dscp >= ND_DSCP_MAX || p->cnp_prio >= ND_PRIO_MAX ||
	    p->n_dcqcn > ND_ECN_PARAM_MAX || !terminated(p->roce_mode, sizeof(p->roce_mode)))
		return false;
	if (strcmp(p->roce_mode, "RoCE v2") && strcmp(p->roce_mode, "IB/RoCE v1") &&
	    (mode_set || p->roce_mode[0]))
		return false;
	for (i = 0; i < ND_PRIO_MAX; i++)
		if (p->prio_tc[i] >= ND_PRIO_MAX || p->tc_bw[i] > 100 ||
		    p->prio2buffer[i] >= ND_PRIO_MAX || p->maxrate[i] > INT64_MAX)
			return false;
	for (i = 0; i < ND_DSCP_MAX; i++)
		if (p->dscp2prio[i] < -1 || p->dscp2prio[i] >= ND_PRIO_MAX)
			return false;
	for (i = 0; i < p->n_dcqcn; i++) {
		if (!terminated(p->dcqcn[i].name, sizeof(p->dcqcn[i].name)) ||
		    !nd_ecn_param_known(p->dcqcn[i].name))
			return false;
		for (k = 0; k < i; k++)
			if (!strcmp(p->dcqcn[k].name, p->dcqcn[i].name))
				return false;
	}
	return true;
}

static bool ifname_ok(const char *name, size_t size)
{
	size_t i;

	if (!terminated(name, size) || !name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; name[i]; i++)
		if ((unsigned char)name[i] <= ' ' || name[i] == 0x7f || name[i] == '/' ||
		    name[i] == ':')
			return false;
	return true;
}

static bool journal_ok(const struct nd_journal *j)
{
	bool live = !strcmp(j->status, "in-progress") || !strcmp(j->status, "applied");
	size_t i, k;

	if (!terminated(j->status, sizeof(j->status)) ||
	    (!live && strcmp(j->status, "started") && strcmp(j->status, "rolled-back")) ||
	    !terminated(j->profile, sizeof(j->profile)) || j->n > 4096 || (live && !j->n) ||
	    (j->n && !j->ports))
		return false;
	for (i = 0; i < j->n; i++) {
		const char *name = j->ports[i].ifname;

		if (!ifname_ok(name, sizeof(j->ports[i].ifname)) || !state_ok(&j->ports[i].pre) ||
		    !state_ok(&j->ports[i].post))
			return false;
		for (k = 0; k < i; k++)
			if (!strcmp(j->ports[k].ifname, name))
				return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct nd_journal zero;
	struct nd_journal j;
	struct nd_err e = { 0 };
	int ret;

	ret = nd_journal_parse((const char *)data, size, NAME, &j, &e);
	if (ret > 0)
		abort();
	/*
	 * refused: one sentence naming the file (out of memory aside) and never a profile's empty
	 * file:line:column (unless it quotes the input), and nothing kept
	 */
	if (ret < 0 && (e.code != ret || !e.msg[0] || memcmp(&j, &zero, sizeof(j)) ||
			(ret != -ENOMEM && strncmp(e.msg, NAME ": ", strlen(NAME ": "))) ||
			(strstr(e.msg, ":0:0:") && !memmem(data, size, ":0:0:", 5))))
		abort();
	if (!ret && !journal_ok(&j))
		abort();
	nd_journal_free(&j);
	return 0;
}
