// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for LLDP frames (nd_lldp_decode): the bytes come from whoever is on the
 * other end of the cable. Any input must give 0 or -EBADMSG with a message, hand back nothing
 * on failure (the whole struct zero), and on success only what the struct can hold: strings
 * terminated inside their buffers, application entries within their arrays with priorities
 * and selectors in their bit widths, ETS's max TCs 1..8 and tables in range.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void terminated(const char *s, size_t size)
{
	if (!memchr(s, '\0', size))
		abort();
}

static void ets_ok(const struct nd_peer_ets *t)
{
	if (!t->present)
		return;
	for (int i = 0; i < 8; i++)
		if (t->prio_tc[i] > 15)
			abort();
}

static bool zero(const void *v, size_t n)
{
	const unsigned char *b = v;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nd_peer p;
	struct nd_err e = { 0 };
	int ret = nd_lldp_decode(data, size, &p, &e);

	if (ret) {
		if (ret != -EBADMSG || e.code != ret || !e.msg[0] || !zero(&p, sizeof(p)))
			abort();
		return 0;
	}
	terminated(p.chassis_id, sizeof(p.chassis_id));
	terminated(p.port_id, sizeof(p.port_id));
	terminated(p.sys_name, sizeof(p.sys_name));
	terminated(p.port_desc, sizeof(p.port_desc));
	ets_ok(&p.ets);
	ets_ok(&p.ets_reco);
	if (p.ets.present && (p.ets.max_tcs < 1 || p.ets.max_tcs > 8))
		abort();
	if (p.n_app > ND_PEER_APP_MAX || p.cee.n_app > ND_PEER_APP_MAX ||
	    (!p.app_present && p.n_app) || (!p.cee.present && p.cee.n_app))
		abort();
	for (size_t i = 0; i < p.n_app; i++)
		if (p.app[i].prio > 7 || p.app[i].sel > 7)
			abort();
	for (size_t i = 0; i < p.cee.n_app; i++)
		if (p.cee.app[i].prio > 8 || p.cee.app[i].sel > 3)
			abort();
	if (p.pfc.present && p.pfc.cap > 15)
		abort();
	if (p.repeated & ND_PEER_REP_PFC && p.pfc.present)
		abort();
	return 0;
}
