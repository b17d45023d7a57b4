// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * How a profile key stores its value: the generic key parsers the schema's tables name (a
 * number, a word, a priority list, a per-index map) that parse with profile_value.c and put
 * the value at the key's offset in struct nd_profile, marking its field set and where.
 */
#include <string.h>

#include "core/internal.h"
#include "profile_int.h"

void pk_set_field(struct pctx *c, int field, const struct nd_ynode *v)
{
	struct nd_loc *loc = &c->p->loc[field];

	c->p->set |= 1u << field;
	nd_strlcpy(loc->file, c->file, sizeof(loc->file));
	loc->line = v->line;
	loc->col = v->col;
}

static void put(void *dst, size_t size, int64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	if (size == 1)
		memcpy(dst, &u8, 1);
	else if (size == 2)
		memcpy(dst, &u16, 2);
	else if (size == 4)
		memcpy(dst, &u32, 4);
	else
		memcpy(dst, &v, 8);
}

/* Sparse maps (the DSCP map) hold signed values, -1 for none; the others unsigned. */
static int64_t get(const void *src, size_t size, bool sign)
{
	uint8_t u8;
	uint32_t u32;
	int32_t s32;
	int64_t v;

	if (size == 1) {
		memcpy(&u8, src, 1);
		return u8;
	}
	if (size == 4 && sign) {
		memcpy(&s32, src, 4);
		return s32;
	}
	if (size == 4) {
		memcpy(&u32, src, 4);
		return u32;
	}
	memcpy(&v, src, 8);
	return v;
}

int pk_num(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	uint64_t val;
	int ret = pv_uint(c, v, k->num, &val);

	if (ret)
		return ret;
	put((char *)c->p + k->off, k->size, (int64_t)val);
	pk_set_field(c, k->field, v);
	return 0;
}

int pk_word(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int val, ret = pv_word(c, v, k->words, &val);

	if (ret)
		return ret;
	put((char *)c->p + k->off, k->size, val);
	pk_set_field(c, k->field, v);
	return 0;
}

int pk_prios(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	uint8_t bits;
	int ret = pv_prio_list(c, v, &bits);

	if (ret)
		return ret;
	put((char *)c->p + k->off, 1, bits);
	pk_set_field(c, k->field, v);
	return 0;
}

int pk_map(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	bool inherited = c->p->set & (1u << k->field);
	unsigned int n = (unsigned int)k->map->index->max + 1, i;
	char *base = (char *)c->p + k->off;
	int64_t vals[ND_DSCP_MAX];
	int ret;

	/* what the extended profile gave is where a mapping without `all` starts */
	for (i = 0; i < n; i++)
		vals[i] = inherited ? get(base + i * k->size, k->size, k->map->sparse) :
			  k->map->sparse ? -1 : 0;
	ret = pv_map(c, v, k->map, vals, inherited);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		put(base + i * k->size, k->size, vals[i]);
	pk_set_field(c, k->field, v);
	return 0;
}
