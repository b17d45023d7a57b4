// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lints across the cable (lib/apply/lint_peer.c): the clean port of test_lint.c against the
 * switch it is cabled to, configured to match, then each mismatch planted alone, and seeded
 * random switches held to a model written here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "test_lint.h"
#include "unit.h"

/* The switch the clean port is cabled to, configured to match: PFC 3, DSCP 26 -> 3, 9216. */
static void clean_peer(struct nd_peer_wait *w)
{
	struct nd_peer *p = &w->peer;

	memset(w, 0, sizeof(*w));
	strcpy(w->ifname, "eth2");
	w->heard = true;
	strcpy(p->sys_name, "leaf12");
	strcpy(p->port_id, "Ethernet1/3");
	p->pfc.present = true;
	p->pfc.cap = 8;
	p->pfc.enable = 1 << 3;
	p->app_present = true;
	p->n_app = 2;
	p->app[0] = (struct nd_peer_app){ .prio = 3, .sel = ND_APP_SEL_DSCP, .protocol = 26 };
	p->app[1] = (struct nd_peer_app){ .prio = 3, .sel = ND_APP_SEL_UDP, .protocol = 4791 };
	p->max_frame_present = true;
	p->max_frame = 9216;
	p->ets.present = true;
	for (int i = 0; i < ND_PRIO_MAX; i++) {
		p->ets.prio_tc[i] = (uint8_t)i;
		p->ets.tsa[i] = IEEE_8021QAZ_TSA_ETS;
		p->ets.tc_bw[i] = 12;
	}
}

static struct run lint_peer(const struct nd_port *p, const struct nd_peer_wait *w, bool accept)
{
	struct nd_err e = { 0 };
	struct run r;

	r.n = nd_lint_peer(p, NULL, w, accept, &r.v, &e);
	ck_assert_msg(r.n >= 0, "%s", e.msg);
	return r;
}

START_TEST(peer_clean)
{
	struct nd_peer_wait w;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	clean_peer(&w);
	r = lint_peer(&p, &w, false);
	ck_assert_msg(r.n == 0, "%d lints, first %s: %s", r.n, r.n ? r.v[0].id : "",
		      r.n ? r.v[0].evidence : "");
	free(r.v);
}
END_TEST

/* Each mismatch planted alone gives its own lint and no other, naming the switch port. */
START_TEST(peer_planted)
{
	static const struct {
		const char *id;
		enum nd_severity sev;
		const char *says;
	} want[] = {
		{ "peer-unheard", ND_SEV_ERROR, "no LLDP frame" },
		{ "peer-pfc-mismatch", ND_SEV_ERROR, "leaf12 Ethernet1/3 has PFC on priorities 0x10" },
		{ "peer-pfc-mismatch", ND_SEV_WARN, "the NIC ignores those PAUSE frames" },
		{ "peer-willing", ND_SEV_WARN, "will take its PFC 0x18 over this port's 0x08" },
		{ "peer-dscp-mismatch", ND_SEV_ERROR, "leaf12 Ethernet1/3 maps it to priority 4" },
		{ "peer-dscp-mismatch", ND_SEV_WARN, "maps other DSCPs and not this one" },
		{ "peer-max-frame", ND_SEV_ERROR, "takes frames up to 1522 bytes; MTU 9000 sends up "
		  "to 9018 (untagged, as DSCP trust sends)" },
		{ "peer-ets-starved", ND_SEV_WARN, "priority 3 (RoCE) in traffic class 3 with 0 %" },
	};

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct nd_peer_wait w;
		struct nd_port p;
		struct run r;

		lint_clean_port(&p);
		clean_peer(&w);
		switch (k) {
		case 0:
			w.heard = false;
			nd_err_set(&w.err, -ETIMEDOUT, "eth2: no LLDP frame in 31000 ms");
			break;
		case 1:
			w.peer.pfc.enable = 1 << 4;
			w.peer.pfc.willing = true;
			break;
		case 2:
			w.peer.pfc.enable = 1 << 3 | 1 << 5;
			w.peer.pfc.willing = true;
			break;
		case 3:
			p.dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
			/* 3 stays lossless at the switch too: only the willing bit differs */
			w.peer.pfc.enable = 1 << 4 | 1 << 3;
			p.dcb.pfc.pfc_en = 1 << 3;
			break;
		case 4:
			w.peer.app[0].prio = 4;
			break;
		case 5:
			w.peer.app[0].protocol = 46;
			break;
		case 6:
			w.peer.max_frame = 1522;
			break;
		case 7:
			w.peer.ets.tc_bw[3] = 0;
			break;
		}
		r = lint_peer(&p, &w, false);
		if (k == 3) {
			/* the extra priority also warns: the willing one is what is planted */
			ck_assert_int_eq(lint_count(&r, "peer-willing"), 1);
		} else if (k == 1) {
			/* PFC on 4, not 3: 3 unpaused there (error), 4 unheeded here (warning) */
			ck_assert_int_eq(lint_count(&r, "peer-pfc-mismatch"), 2);
			ck_assert_int_eq(r.n, 2);
		} else {
			ck_assert_msg(r.n == 1, "case %zu: %d lints, want %s", k, r.n, want[k].id);
		}
		int hit = 0;

		for (int i = 0; i < r.n; i++)
			hit += !strcmp(r.v[i].id, want[k].id) && r.v[i].severity == want[k].sev &&
			       strstr(r.v[i].evidence, want[k].says);
		ck_assert_msg(hit == 1, "case %zu: no %s %s saying '%s' (first: %s)", k,
			      nd_severity_name(want[k].sev), want[k].id, want[k].says,
			      r.n ? r.v[0].evidence : "none");
		free(r.v);
	}
}
END_TEST

/* A site that accepts an unheard peer: still said, as info. */
START_TEST(peer_unheard_accepted)
{
	struct nd_peer_wait w;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	clean_peer(&w);
	w.heard = false;
	r = lint_peer(&p, &w, true);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.v[0].severity, ND_SEV_INFO);
	ck_assert_ptr_nonnull(strstr(r.v[0].fix, "accepted"));
	free(r.v);
}
END_TEST

/*
 * 600 seeded random switches against the clean port, each held to a model written here: which
 * of PFC, DSCP, max frame and ETS disagree, and at which severity.
 */
START_TEST(peer_random)
{
	uint64_t rng = 0x5eed36;

	for (int k = 0; k < 600; k++) {
		struct nd_peer_wait w;
		struct nd_port p;
		struct run r;
		int want_pfc_err, want_pfc_warn, want_dscp_err = 0, want_dscp_warn = 0;
		int want_mfs, want_ets;
		bool any_dscp = false, found = false;

		lint_clean_port(&p);
		clean_peer(&w);
		w.peer.pfc.enable = (uint8_t)unit_rand(&rng);
		w.peer.pfc.willing = true;
		w.peer.max_frame = (uint16_t)(1500 + unit_rand(&rng) % 8000);
		w.peer.n_app = unit_rand(&rng) % 4;
		for (size_t i = 0; i < w.peer.n_app; i++) {
			w.peer.app[i].sel = unit_rand(&rng) % 2 ? ND_APP_SEL_DSCP : ND_APP_SEL_UDP;
			w.peer.app[i].protocol = (uint16_t)(unit_rand(&rng) % 3 ? 26 : 10);
			w.peer.app[i].prio = (uint8_t)(unit_rand(&rng) % 3 ? 3 : 5);
		}
		w.peer.ets.tc_bw[3] = (uint8_t)(unit_rand(&rng) % 4 ? 12 : 0);
		w.peer.ets.tsa[3] = (uint8_t)(unit_rand(&rng) % 4 ? IEEE_8021QAZ_TSA_ETS :
					      IEEE_8021QAZ_TSA_STRICT);
		/* the model: RoCE rides DSCP 26 -> priority 3, which the NIC pauses */
		want_pfc_err = !(w.peer.pfc.enable & 1 << 3);
		want_pfc_warn = !!(w.peer.pfc.enable & ~(1 << 3));
		for (size_t i = 0; i < w.peer.n_app; i++) {
			if (w.peer.app[i].sel != ND_APP_SEL_DSCP)
				continue;
			any_dscp = true;
			if (w.peer.app[i].protocol != 26)
				continue;
			found = true;
			want_dscp_err += w.peer.app[i].prio != 3;
		}
		want_dscp_warn = any_dscp && !found;
		want_mfs = w.peer.max_frame < 9018;	/* DSCP trust: untagged */
		want_ets = w.peer.ets.tsa[3] == IEEE_8021QAZ_TSA_ETS && !w.peer.ets.tc_bw[3];
		r = lint_peer(&p, &w, false);
		ck_assert_msg(lint_count(&r, "peer-pfc-mismatch") == want_pfc_err + want_pfc_warn &&
			      lint_count(&r, "peer-dscp-mismatch") == want_dscp_err + want_dscp_warn &&
			      lint_count(&r, "peer-max-frame") == want_mfs &&
			      lint_count(&r, "peer-ets-starved") == want_ets &&
			      r.n == want_pfc_err + want_pfc_warn + want_dscp_err + want_dscp_warn +
				     want_mfs + want_ets,
			      "case %d: %d lints (pfc %d+%d dscp %d+%d mfs %d ets %d)", k, r.n,
			      want_pfc_err, want_pfc_warn, want_dscp_err, want_dscp_warn, want_mfs,
			      want_ets);
		free(r.v);
	}
}
END_TEST

TCase *tcase_lint_peer(void)
{
	TCase *tc = tcase_create("peer");

	tcase_add_test(tc, peer_clean);
	tcase_add_test(tc, peer_planted);
	tcase_add_test(tc, peer_unheard_accepted);
	tcase_add_test(tc, peer_random);
	return tc;
}
