// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A plan's steps and how their values print: the bottom of the plan code, used by plan.c and by
 * the per-part planners (plan_dcb.c, plan_roce.c) alike, so they never call back into plan.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "plan_step.h"

void nd_plan_free(struct nd_plan *plan)
{
	free(plan->steps);
	plan->steps = NULL;
	plan->n = 0;
}

size_t nd_plan_changes(const struct nd_plan *plan)
{
	size_t i, n = 0;

	for (i = 0; i < plan->n; i++)
		n += !plan->steps[i].skip;
	return n;
}

struct nd_step *nd_plan_add(struct nd_plan *plan, enum nd_step_kind kind, size_t port,
			    enum nd_field field)
{
	struct nd_step *s = nd_push((void **)&plan->steps, &plan->n, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->port = port;
	s->field = field;
	return s;
}

/* "0:50 1:50 ..." for eight small values. */
void nd_fmt_u8s(char *buf, size_t len, const uint8_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? " " : "", v[i]);
}

void nd_fmt_u64s(char *buf, size_t len, const uint64_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64, i ? " " : "", v[i]);
}

void nd_fmt_tsas(char *buf, size_t len, const uint8_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					nd_tsa_name(v[i]));
}

/* "host ieee" for 0x09, as `dcb dcbx show` lists the mode's flags; "firmware" for none. */
void nd_fmt_dcbx(char *buf, size_t len, uint8_t dcbx)
{
	static const struct {
		uint8_t bit;
		const char *word;
	} flags[] = {
		{ DCB_CAP_DCBX_HOST, "host" }, { DCB_CAP_DCBX_LLD_MANAGED, "lld-managed" },
		{ DCB_CAP_DCBX_VER_CEE, "cee" }, { DCB_CAP_DCBX_VER_IEEE, "ieee" },
		{ DCB_CAP_DCBX_STATIC, "static" },
	};
	size_t i, off = 0;

	buf[0] = '\0';
	if (!(dcbx & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED)))
		off += (size_t)snprintf(buf, len, "firmware");
	for (i = 0; i < ND_ARRAY_SIZE(flags) && off < len; i++)
		if (dcbx & flags[i].bit)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
						flags[i].word);
}

/* "0-7:0 8-15:1 26:3" for a DSCP map, "none" when empty. */
void nd_fmt_dscp_map(char *buf, size_t len, const int *map)
{
	size_t off = 0;
	int d = 0, end;

	buf[0] = '\0';
	while (d < ND_DSCP_MAX && off < len) {
		if (map[d] < 0) {
			d++;
			continue;
		}
		for (end = d; end + 1 < ND_DSCP_MAX && map[end + 1] == map[d]; end++)
			;
		if (end > d)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d:%d", off ? " " : "", d,
						end, map[d]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d:%d", off ? " " : "", d,
						map[d]);
		d = end + 1;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}
