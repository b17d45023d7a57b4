// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop counters --prometheus: the text exposition format for node_exporter's textfile collector. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "nodrop.h"
#include "prom.h"

static void escape(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && label)
			fputs("\\\"", f);
		else
			putc(*s, f);
	}
}

static void label(FILE *f, bool first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", first ? "{" : ",", name);
	escape(f, value, true);
	putc('"', f);
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	escape(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

void nd_prom_name(const struct nd_counter_info *info, char *buf, size_t len, uint64_t *div,
		  const char **unit)
{
	size_t n = strlen(info->name);

	/* Prometheus wants base units: the drivers' pause durations count microseconds */
	if (!strcmp(info->unit, "us") && n > 3 && !strcmp(info->name + n - 3, "_us")) {
		snprintf(buf, len, "nodrop_%.*s_seconds_total", (int)(n - 3), info->name);
		*div = 1000000;
		*unit = "seconds";
		return;
	}
	snprintf(buf, len, "nodrop_%s_total", info->name);
	*div = 1;
	*unit = info->unit;
}

static void series_labels(FILE *f, const struct nd_sample *smp, const struct nd_counter *c)
{
	char prio[12];

	label(f, true, "device", smp->ifname);
	if (c->prio >= 0) {
		snprintf(prio, sizeof(prio), "%d", c->prio);
		label(f, false, "prio", prio);
	}
	label(f, false, "source", nd_ctr_source_name(c->source));
	if (!c->mapped)
		label(f, false, "counter", c->name);
	putc('}', f);
}

static void value(FILE *f, uint64_t v, uint64_t div)
{
	/* exact decimal: a double would round counters above 2^53 */
	if (div == 1)
		fprintf(f, " %" PRIu64 "\n", v);
	else
		fprintf(f, " %" PRIu64 ".%06" PRIu64 "\n", v / div, v % div);
}

/* One family per canonical counter, all ports together, as the format requires. */
static void family(FILE *f, const struct nd_counter_info *info, const struct nd_sample *smp,
		   size_t n)
{
	char name[96], help[512];
	const char *unit;
	uint64_t div;
	bool headed = false;
	size_t i, j;

	nd_prom_name(info, name, sizeof(name), &div, &unit);
	for (i = 0; i < n; i++) {
		for (j = 0; j < smp[i].n; j++) {
			const struct nd_counter *c = &smp[i].c[j];

			if (!c->mapped || strcmp(c->name, info->name))
				continue;
			if (!headed) {
				snprintf(help, sizeof(help), "%s (%s%s).", info->help, unit,
					 div == 1 ? "" : "; the driver counts microseconds");
				head(f, name, "counter", help);
				headed = true;
			}
			fputs(name, f);
			series_labels(f, &smp[i], c);
			value(f, c->value, div);
		}
	}
}

static bool raw_seen(const struct nd_sample *smp, size_t upto)
{
	const struct nd_counter *c = &smp->c[upto];
	size_t k;

	for (k = 0; k < upto; k++)
		if (!smp->c[k].mapped && smp->c[k].source == c->source &&
		    !strcmp(smp->c[k].name, c->name))
			return true;
	return false;
}

/* Raw counters differ in unit and kind (some are gauges): one untyped family. */
static void raw_family(FILE *f, const struct nd_sample *smp, size_t n)
{
	bool headed = false;
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < smp[i].n; j++) {
			const struct nd_counter *c = &smp[i].c[j];

			/* a driver listing one name twice would make a duplicate series */
			if (c->mapped || raw_seen(&smp[i], j))
				continue;
			if (!headed) {
				head(f, "nodrop_raw", "untyped", "Driver counters no map names, under "
				     "the driver's name (label counter); units and kinds vary.");
				headed = true;
			}
			fputs("nodrop_raw", f);
			series_labels(f, &smp[i], c);
			value(f, c->value, 1);
		}
	}
}

/* Which port is which: a dashboard joins on device; present for every port, counted or not. */
static void port_info(FILE *f, const struct nd_sample *smp, size_t n)
{
	char ll[32], port[16];
	size_t i;

	if (!n)
		return;
	head(f, "nodrop_port_info", "gauge", "A port nodrop collected: its driver, RDMA device "
	     "and port, link layer (always 1).");
	for (i = 0; i < n; i++) {
		fputs("nodrop_port_info", f);
		label(f, true, "device", smp[i].ifname);
		label(f, false, "driver", smp[i].driver);
		if (smp[i].ibdev[0]) {
			snprintf(port, sizeof(port), "%u", smp[i].ibport);
			label(f, false, "rdma_device", smp[i].ibdev);
			label(f, false, "rdma_port", port);
			if (nd_sys_read(ll, sizeof(ll), "/sys/class/infiniband/%s/ports/%u/link_layer",
					smp[i].ibdev, smp[i].ibport) > 0)
				label(f, false, "link_layer", ll);
		}
		fputs("} 1\n", f);
	}
	head(f, "nodrop_port_mapped_counters", "gauge", "Counters of the port under canonical "
	     "names; 0: no counter map knows its driver (nodrop counters -a shows its raw names).");
	for (i = 0; i < n; i++) {
		size_t j, mapped = 0;

		for (j = 0; j < smp[i].n; j++)
			mapped += smp[i].c[j].mapped;
		fputs("nodrop_port_mapped_counters", f);
		label(f, true, "device", smp[i].ifname);
		fprintf(f, "} %zu\n", mapped);
	}
}

/* Which priorities are lossless: alerts join drops with it (and on(device, prio)). */
static void pfc_enabled(FILE *f, const struct nd_sample *smp, size_t n, const int *pfc)
{
	bool headed = false;
	char prio[4];
	size_t i;
	int p;

	for (i = 0; pfc && i < n; i++) {
		if (pfc[i] < 0)
			continue;
		if (!headed) {
			head(f, "nodrop_pfc_enabled", "gauge", "1 where PFC is on for the priority "
			     "(lossless), 0 where off; ports without DCB have no series.");
			headed = true;
		}
		for (p = 0; p < 8; p++) {
			snprintf(prio, sizeof(prio), "%d", p);
			fputs("nodrop_pfc_enabled", f);
			label(f, true, "device", smp[i].ifname);
			label(f, false, "prio", prio);
			fprintf(f, "} %d\n", (pfc[i] >> p) & 1);
		}
	}
}

int nd_prom_print(FILE *f, const struct nd_sample *smp, size_t n, const int *pfc, bool raw,
		  double now_s)
{
	const struct nd_counter_info *infos = nd_counter_infos(NULL);
	size_t i;

	head(f, "nodrop_build_info", "gauge", "The nodrop that wrote this file (always 1).");
	fputs("nodrop_build_info", f);
	label(f, true, "version", ND_VERSION);
	fputs("} 1\n", f);
	port_info(f, smp, n);
	pfc_enabled(f, smp, n, pfc);
	for (i = 0; infos[i].name; i++)
		family(f, &infos[i], smp, n);
	if (raw)
		raw_family(f, smp, n);
	/* last, so a file cut short has no fresh timestamp */
	head(f, "nodrop_last_success_timestamp_seconds", "gauge", "When nodrop last read every "
	     "port's counters (Unix time); a stale value means the collector stopped.");
	fprintf(f, "nodrop_last_success_timestamp_seconds %.3f\n", now_s);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

/* a peer check that failed: the peer lints other than "nothing heard", above info */
static bool peer_mismatch(const struct nd_lint *l)
{
	return !strncmp(l->id, "peer-", 5) && strcmp(l->id, "peer-unheard") &&
	       l->severity != ND_SEV_INFO;
}

static void audit_metrics(FILE *f, const struct nd_report *r, const struct nd_peer_wait *peers,
			  uint32_t accept)
{
	static const enum nd_severity sev[] = { ND_SEV_ERROR, ND_SEV_WARN };
	struct timespec now;

	head(f, "nodrop_audit_findings", "gauge", "audit's findings on the port, by severity");
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < 2; k++) {
			unsigned int c = 0;

			for (size_t j = 0; j < r->ports[i].n_lints; j++)
				c += r->ports[i].lints[j].severity == sev[k];
			fputs("nodrop_audit_findings", f);
			label(f, true, "device", r->ports[i].port.link.name);
			label(f, false, "severity", nd_severity_name(sev[k]));
			fprintf(f, "} %u\n", c);
		}
	head(f, "nodrop_audit_drift_fields", "gauge",
	     "profile fields whose value on the port differs from the profile's");
	for (size_t i = 0; i < r->n; i++) {
		size_t c = 0;

		for (size_t j = 0; j < r->ports[i].n_changes; j++)
			c += !r->ports[i].changes[j].skipped;
		fputs("nodrop_audit_drift_fields", f);
		label(f, true, "device", r->ports[i].port.link.name);
		fprintf(f, "} %zu\n", c);
	}
	head(f, "nodrop_audit_unverified_fields", "gauge", "profile fields the port would not "
	     "give, so their value could not be checked (those the site accepts left out)");
	for (size_t i = 0; i < r->n; i++) {
		size_t c = 0;

		for (size_t j = 0; j < r->ports[i].n_changes; j++)
			c += r->ports[i].changes[j].skipped &&
			     !(accept & (1u << r->ports[i].changes[j].field));
		fputs("nodrop_audit_unverified_fields", f);
		label(f, true, "device", r->ports[i].port.link.name);
		fprintf(f, "} %zu\n", c);
	}
	if (peers) {
		head(f, "nodrop_peer_heard", "gauge", "1 when the port's link partner answered "
		     "(source: dcbnl or lldp), 0 when nothing was heard in the wait");
		for (size_t i = 0; i < r->n; i++) {
			fputs("nodrop_peer_heard", f);
			label(f, true, "device", r->ports[i].port.link.name);
			label(f, false, "source", nd_peer_source_name(peers[i].source));
			fprintf(f, "} %d\n", peers[i].heard);
		}
		head(f, "nodrop_peer_mismatches", "gauge", "checks of the port against its link "
		     "partner that failed (PFC, willing, DSCP map, max frame size, ETS share)");
		for (size_t i = 0; i < r->n; i++) {
			unsigned int c = 0;

			for (size_t j = 0; j < r->ports[i].n_lints; j++)
				c += peer_mismatch(&r->ports[i].lints[j]);
			fputs("nodrop_peer_mismatches", f);
			label(f, true, "device", r->ports[i].port.link.name);
			fprintf(f, "} %u\n", c);
		}
		head(f, "nodrop_peer_mismatch", "gauge", "1 for each failed check against the link "
		     "partner, naming it and the switch port");
		for (size_t i = 0; i < r->n; i++)
			for (size_t j = 0; j < r->ports[i].n_lints; j++) {
				const struct nd_lint *l = &r->ports[i].lints[j];
				char sw[170];

				if (!peer_mismatch(l))
					continue;
				nd_peer_name(&peers[i].peer, sw, sizeof(sw));
				fputs("nodrop_peer_mismatch", f);
				label(f, true, "device", r->ports[i].port.link.name);
				label(f, false, "check", l->id);
				label(f, false, "severity", nd_severity_name(l->severity));
				label(f, false, "switch_port", sw);
				fputs("} 1\n", f);
			}
	}
	clock_gettime(CLOCK_REALTIME, &now);
	head(f, "nodrop_audit_last_run_timestamp_seconds", "gauge",
	     "when this audit ran, seconds since the epoch");
	fprintf(f, "nodrop_audit_last_run_timestamp_seconds %.3f\n",
		now.tv_sec + now.tv_nsec / 1e9);
}

int nd_prom_write_audit(const char *path, const struct nd_report *r,
			const struct nd_peer_wait *peers, uint32_t accept)
{
	char tmp[4200];
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	audit_metrics(f, r, peers, accept);
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
