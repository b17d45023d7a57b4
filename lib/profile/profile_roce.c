// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile's roce section: the ToS byte RoCE traffic carries by default, and the RoCE mode
 * (v1 or v2), stored as configfs spells it.
 */
#include <stddef.h>

#include "core/internal.h"
#include "profile_int.h"

static const struct pnum num_tos = {
	"ToS", 0, 255, "the ToS byte is 0..255 (DSCP 26 with ECT(0) is 106)"
};
static const struct pwords mode_words = { "RoCE mode", (const struct pword[]) {
	{ "v1", 1 }, { "v2", 2 }, { NULL, 0 } } };

static int key_roce_mode(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int mode, ret = pv_word(c, v, k->words, &mode);

	if (ret)
		return ret;
	/* as configfs spells it */
	nd_strlcpy(c->p->roce_mode, mode == 1 ? "IB/RoCE v1" : "RoCE v2", sizeof(c->p->roce_mode));
	pk_set_field(c, k->field, v);
	return 0;
}

const struct pkey pk_roce_keys[] = {
	{ "tos", ND_F_ROCE_TOS, pk_num, .num = &num_tos, PK_AT(roce_tos), .example = "tos: 106" },
	{ "mode", ND_F_ROCE_MODE, key_roce_mode, .words = &mode_words, .example = "mode: v2" },
	{ .name = NULL },
};
