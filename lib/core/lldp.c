// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LLDP agents running on this host (lldpad, lldpd, ...): a process that speaks DCBX can
 * overwrite what nodrop set, so lint (dcbx-not-host) and doctor both look for one.
 */
#include <string.h>

#include "internal.h"

/* LLDP agents that may own DCB; found by /proc/PID/comm, through the rooted accessor. */
static const struct {
	const char *comm;
	const char *does;
} lldp_agents[] = {
	{ "lldpad", "negotiates DCBX with the switch and writes PFC, ETS and APP through dcbnl" },
	{ "lldpd", "speaks LLDP on the ports it manages; whether it touches DCB is not visible" },
};

static int scan_proc(const char *name, void *data)
{
	struct nd_lldp_agent *a = data;
	char comm[32];
	size_t i;

	if (name[0] < '0' || name[0] > '9')
		return 0;
	/* a process that exited meanwhile is simply not there */
	if (nd_sys_read(comm, sizeof(comm), "/proc/%s/comm", name) < 0)
		return 0;
	for (i = 0; i < ND_ARRAY_SIZE(lldp_agents); i++) {
		if (!strcmp(comm, lldp_agents[i].comm)) {
			a->comm = lldp_agents[i].comm;
			a->does = lldp_agents[i].does;
			nd_strlcpy(a->pid, name, sizeof(a->pid));
			return 1;
		}
	}
	return 0;
}

int nd_lldp_agent_find(struct nd_lldp_agent *agent)
{
	memset(agent, 0, sizeof(*agent));
	return nd_sys_dir(scan_proc, agent, "/proc");
}
