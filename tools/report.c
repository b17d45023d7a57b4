// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What apply, audit and rollback print: changes or drift per port, lints, the outcome. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"

static void print_lints(const struct nd_port_report *pr)
{
	size_t i;

	pr_open_array("lints");
	for (i = 0; i < pr->n_lints; i++) {
		const struct nd_lint *l = &pr->lints[i];

		pr_open_object(NULL);
		pr_string(PR_ANY, "severity", "    %s", nd_severity_name(l->severity));
		pr_string(PR_ANY, "id", " %s: ", l->id);
		pr_string(PR_ANY, "evidence", "%s", l->evidence);
		pr_string(PR_ANY, "fix", "\n        fix: %s", l->fix);
		if (l->loc.file[0]) {
			pr_string(PR_ANY, "file", " (%s", l->loc.file);
			pr_uint(PR_ANY, "line", ":%" PRIu64, l->loc.line);
			pr_uint(PR_ANY, "column", ":%" PRIu64 ")", l->loc.col);
		}
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static bool accepted(const struct nd_change *c, uint32_t accept)
{
	return accept & (1u << c->field);
}

static void print_change(const struct nd_change *c, bool audit, uint32_t accept)
{
	pr_open_object(NULL);
	pr_string(PR_ANY, "field", "    %-18s", nd_field_key(c->field));
	if (audit && c->skipped) {
		/* the port would not say: neither in the profile nor drift */
		pr_string(PR_JSON, "actual", NULL, c->from);
		pr_string(PR_JSON, "expected", NULL, c->to);
		pr_bool(PR_JSON, "unverified", NULL, true);
		pr_bool(PR_JSON, "accepted", NULL, accepted(c, accept));
		if (c->unsupported)
			pr_bool(PR_JSON, "unsupported", NULL, true);
		pr_text(" unverified%s:", accepted(c, accept) ? " (accepted)" : "");
		pr_string(PR_ANY, "note", " %s", c->warning);
		pr_string(PR_TEXT, NULL, "\n        wanted: %s", c->to);
	} else if (c->unsupported) {
		pr_string(PR_JSON, "from", NULL, c->from);
		pr_string(PR_JSON, "to", NULL, c->to);
		pr_bool(PR_JSON, "unsupported", NULL, true);
		pr_string(PR_ANY, "note", " %s", c->warning);
		pr_string(PR_TEXT, NULL, "\n        wanted: %s", c->to);
	} else if (c->skipped) {
		pr_string(PR_JSON, "from", NULL, c->from);
		pr_string(PR_JSON, "to", NULL, c->to);
		pr_bool(PR_JSON, "skipped", NULL, true);
		pr_text(" not applied:");
		pr_string(PR_ANY, "note", " %s", c->warning);
		pr_string(PR_TEXT, NULL, "\n        wanted: %s", c->to);
	} else if (audit) {
		pr_string(PR_ANY, "actual", " is %s,", c->from);
		pr_string(PR_ANY, "expected", " want %s", c->to);
	} else {
		pr_string(PR_ANY, "from", " %s", c->from);
		pr_string(PR_ANY, "to", " -> %s", c->to);
		if (c->warning[0])
			pr_string(PR_ANY, "warning", "\n        warning: %s", c->warning);
	}
	pr_nl();
	pr_close_object();
}

/* Rollback: the fields changed since the apply, which it will not overwrite silently. */
static void print_conflicts(const struct nd_report *r)
{
	size_t i;

	if (!r->n_conflicts)
		return;
	pr_open_array("conflicts");
	for (i = 0; i < r->n_conflicts; i++) {
		const struct nd_conflict *c = &r->conflicts[i];

		/* text: on stderr with the refusal (tools/rollback.c) */
		pr_open_object(NULL);
		pr_string(PR_JSON, "ifname", NULL, c->ifname);
		pr_string(PR_JSON, "field", NULL, nd_field_key(c->field));
		pr_string(PR_JSON, "applied", NULL, c->applied);
		pr_string(PR_JSON, "now", NULL, c->now);
		pr_close_object();
	}
	pr_close_array();
}

/*
 * Changes to make; for an audit, drift, and also the fields the port would not give (unverified:
 * findings unless @accept, a bit per field, names them).
 */
static size_t drifted(const struct nd_port_report *pr, bool audit, uint32_t accept)
{
	size_t i, n = 0;

	for (i = 0; i < pr->n_changes; i++)
		n += !pr->changes[i].skipped || (audit && !accepted(&pr->changes[i], accept));
	return n;
}

static size_t unverified(const struct nd_port_report *pr, uint32_t accept)
{
	size_t i, n = 0;

	for (i = 0; i < pr->n_changes; i++)
		n += pr->changes[i].skipped && !accepted(&pr->changes[i], accept);
	return n;
}

/* Changes apply writes on every port (an unsupported field is a skipped one). */
static uint64_t planned(const struct nd_report *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		n += drifted(&r->ports[i], false, 0);
	return n;
}

void nd_print_report(const struct nd_report *r, const struct nd_profile *profile, bool audit,
		     uint32_t accept)
{
	size_t i, k;

	pr_open_object(NULL);
	if (profile) {
		pr_string(PR_ANY, "profile", "profile %s", profile->name);
		pr_string(PR_ANY, "file", " (%s)", profile->origin.file);
		pr_nl();
	}
	pr_open_array("ports");
	for (i = 0; i < r->n; i++) {
		const struct nd_port_report *pr = &r->ports[i];
		size_t n = drifted(pr, audit, accept), u = audit ? unverified(pr, accept) : 0;

		pr_open_object(NULL);
		pr_string(PR_ANY, "ifname", "%s:", pr->port.link.name);
		if (audit)
			pr_text(" %s", n > u ? "drift" : u ? "unverified" : "in profile");
		else if (r->outcome == ND_OUTCOME_NOOP || !n)
			pr_text(" no changes");
		else
			pr_text(" %zu change%s", n, n == 1 ? "" : "s");
		pr_nl();
		pr_open_array(audit ? "drift" : "changes");
		for (k = 0; k < pr->n_changes; k++)
			print_change(&pr->changes[k], audit, accept);
		pr_close_array();
		print_lints(pr);
		pr_close_object();
	}
	pr_close_array();
	print_conflicts(r);
	/* for automation (the Ansible role's changed=): what this apply changed or would change */
	if (!audit)
		pr_uint(PR_JSON, "changes", NULL, r->outcome == ND_OUTCOME_NOOP ? 0 : planned(r));
	pr_string(PR_ANY, "outcome", "result: %s", nd_outcome_name(r->outcome));
	if (r->failure[0])
		pr_string(PR_JSON, "failure", NULL, r->failure);
	if (r->note[0])
		pr_string(PR_ANY, "note", " (%s)", r->note);
	if (r->journal[0])
		pr_string(PR_ANY, "journal", "; journal %s", r->journal);
	pr_nl();
	pr_close_object();
}

static bool unsupported(const struct nd_port_report *pr)
{
	size_t i;

	for (i = 0; i < pr->n_changes; i++)
		if (pr->changes[i].unsupported)
			return true;
	return false;
}

bool nd_report_has_errors(const struct nd_report *r, bool audit, uint32_t accept)
{
	size_t i, k;

	for (i = 0; i < r->n; i++) {
		/* apply's dry run: a field it cannot write; audit: drift and the unverified */
		if (audit ? drifted(&r->ports[i], true, accept) > 0 : unsupported(&r->ports[i]))
			return true;
		for (k = 0; k < r->ports[i].n_lints; k++)
			if (r->ports[i].lints[k].severity == ND_SEV_ERROR)
				return true;
	}
	return false;
}

void nd_xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

/* A run that ended before any port was checked still leaves a report: one errored test case. */
int nd_write_junit_error(const char *path, const char *profile, const char *msg)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nodrop audit\">\n"
		"  <testsuite name=\"nodrop audit\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
		"    <testcase classname=\"nodrop.audit\" name=\"");
	nd_xml_escape(f, profile);
	fprintf(f, "\"><error message=\"");
	nd_xml_escape(f, msg);
	fprintf(f, "\"/></testcase>\n  </testsuite>\n</testsuites>\n");
	if (fclose(f))
		return -errno;
	return 0;
}

/* One testsuite per port, one testcase per profile field and per lint. */
int nd_write_junit(const char *path, const struct nd_report *r, const struct nd_profile *p,
		   uint32_t accept)
{
	FILE *f = fopen(path, "w");
	size_t i, k;
	int field;

	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"nodrop audit\">\n");
	for (i = 0; i < r->n; i++) {
		const struct nd_port_report *pr = &r->ports[i];
		size_t tests = pr->n_lints, failures = drifted(pr, true, accept);

		for (field = 0; field < ND_F_COUNT; field++)
			tests += !!(p->set & (1u << field));
		for (k = 0; k < pr->n_lints; k++)
			failures += pr->lints[k].severity == ND_SEV_ERROR;
		fprintf(f, "  <testsuite name=\"");
		nd_xml_escape(f, pr->port.link.name);
		fprintf(f, "\" tests=\"%zu\" failures=\"%zu\">\n", tests, failures);
		for (field = 0; field < ND_F_COUNT; field++) {
			if (!(p->set & (1u << field)))
				continue;
			fprintf(f, "    <testcase classname=\"nodrop.audit.");
			nd_xml_escape(f, pr->port.link.name);
			fprintf(f, "\" name=\"%s\">", nd_field_key((enum nd_field)field));
			for (k = 0; k < pr->n_changes; k++) {
				const struct nd_change *c = &pr->changes[k];

				if ((int)c->field != field)
					continue;
				if (c->skipped) {
					/* unverified: a failure unless the site accepts it */
					fprintf(f, accepted(c, accept) ?
						"<skipped message=\"accepted unverified: " :
						"<failure message=\"unverified: ");
					nd_xml_escape(f, c->warning);
					fprintf(f, "\"/>");
					continue;
				}
				fprintf(f, "<failure message=\"is ");
				nd_xml_escape(f, c->from);
				fprintf(f, ", want ");
				nd_xml_escape(f, c->to);
				fprintf(f, "\"/>");
			}
			fprintf(f, "</testcase>\n");
		}
		for (k = 0; k < pr->n_lints; k++) {
			const struct nd_lint *l = &pr->lints[k];

			fprintf(f, "    <testcase classname=\"nodrop.lint.");
			nd_xml_escape(f, pr->port.link.name);
			fprintf(f, "\" name=\"%s\">", l->id);
			if (l->severity == ND_SEV_ERROR) {
				fprintf(f, "<failure message=\"");
				nd_xml_escape(f, l->evidence);
				fprintf(f, "\">");
				nd_xml_escape(f, l->fix);
				fprintf(f, "</failure>");
			} else {
				fprintf(f, "<system-out>%s: ", nd_severity_name(l->severity));
				nd_xml_escape(f, l->evidence);
				fprintf(f, "</system-out>");
			}
			fprintf(f, "</testcase>\n");
		}
		fprintf(f, "  </testsuite>\n");
	}
	fprintf(f, "</testsuites>\n");
	if (fclose(f))
		return -errno;
	return 0;
}

int nd_devs_add(struct nd_devs *devs, const char *cmd, const char *dev)
{
	if (devs->n >= ND_DEVS_MAX) {
		fprintf(stderr, "nodrop %s: more than %d --dev options\n", cmd, ND_DEVS_MAX);
		return ND_EXIT_USAGE;
	}
	devs->v[devs->n++] = dev;
	return 0;
}

int nd_cli_profile(const char *cmd, int argc, char **argv, struct nd_profile *p,
		   struct nd_err *e)
{
	if (argc != 1) {
		fprintf(stderr, "nodrop %s: give exactly one PROFILE; 'nodrop %s --help'\n", cmd, cmd);
		return ND_EXIT_USAGE;
	}
	if (nd_profile_load(argv[0], p, e)) {
		fprintf(stderr, "nodrop %s: %s\n", cmd, e->msg);
		return ND_EXIT_USAGE;
	}
	return 0;
}
