/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: lints: consistency rules over a port's current or planned state. */
#ifndef NODROP_LINT_H
#define NODROP_LINT_H

#include <nodrop/profile.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_severity {
	ND_SEV_INFO,
	ND_SEV_WARN,
	ND_SEV_ERROR,
};

const char *nd_severity_name(enum nd_severity sev);

struct nd_lint {
	const char *id;			/* stable, e.g. "roce-prio-not-lossless" */
	enum nd_severity severity;
	char evidence[256];		/* the values that break the rule */
	char fix[256];			/* what to do */
	struct nd_loc loc;		/* the profile value involved, file "" when none */
};

/*
 * Run every rule over @port (for apply --dry-run: the state after the plan) with @profile for
 * profile-only rules and locations (may be NULL). Returns the number of lints in *@lints
 * (caller frees) or -errno.
 */
int nd_lint_port(const struct nd_port *port, const struct nd_profile *profile,
		 struct nd_lint **lints, struct nd_err *e);

struct nd_peer_wait;
/*
 * The lints across the cable: @port's lossless state (as nd_lint_port() reads it) against what
 * its link partner advertised over LLDP (@peer, from nd_peer_listen()): nothing heard
 * (peer-unheard: an error, info when @accept_unheard), PFC on the RoCE or lossless priorities,
 * willing bits, the DSCP map, the maximum frame size, the ETS share of RoCE's traffic class.
 * Returns the number of lints in *@lints (caller frees) or -errno.
 */
int nd_lint_peer(const struct nd_port *port, const struct nd_profile *profile,
		 const struct nd_peer_wait *peer, bool accept_unheard, struct nd_lint **lints,
		 struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
