// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop compare: a stress or sim run against a baseline (one or more runs, or the last N of a
 * results directory), a row per headline number, exit 1 on a regression.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"

enum {
	OPT_THROUGHPUT = 256,
	OPT_LATENCY,
	OPT_CPU,
	OPT_JAIN,
	OPT_JUNIT,
	OPT_FORCE,
	OPT_ALL,
	OPT_SKIP,
};

/* A results directory is read two levels deep (DIR and its subdirectories), this many files. */
#define HISTORY_FILES_MAX 4096

struct found {
	char path[PATH_MAX];
	struct timespec mtime;
};

/* The JSON files found in a results directory: as many as there are, up to the bound. */
struct founds {
	struct found *v;
	size_t n, cap;
};

struct compare_args {
	struct nd_cmp_limits limits;
	bool ready;
	const char *history;
	unsigned int last;
	const char *junit;
	bool force, all;
};

static const struct nd_opt compare_opts[] = {
	{ "history", 'H', "DIR", "baseline: the last runs in this results directory (*.json, "
	  "also one level down) of the same workload as RUN" },
	{ "last", 'n', "N", "with --history: how many runs (default 5)" },
	{ "throughput", OPT_THROUGHPUT, "PCT", "throughput worse by more than PCT % (default 10)" },
	{ "latency", OPT_LATENCY, "PCT", "latency worse by more than PCT % (default 20)" },
	{ "cpu", OPT_CPU, "PCT", "CPU per GB worse by more than PCT % (default 20)" },
	{ "jain", OPT_JAIN, "DELTA", "Jain's index lower by more than DELTA (default 0.05)" },
	{ "skip", OPT_SKIP, "CLASSES", "numbers of these kinds are shown, never judged: throughput, "
	  "latency, cpu, fairness, loss, verdict (comma-separated)" },
	{ "force", OPT_FORCE, NULL, "compare runs of other options or hosts (said, not refused)" },
	{ "all", OPT_ALL, NULL, "text: every number, not only those that changed" },
	{ "junit", OPT_JUNIT, "FILE", "also write a test case per number as JUnit XML" },
	{ 0 },
};

static const char *class_value(unsigned int i)
{
	return i < ND_CMP_CLASS_COUNT ? nd_cmp_class_name(i) : NULL;
}

static const struct nd_comp compare_complete[] = {
	{ .opt = "skip", .value = class_value, .list = true },
	{ 0 },
};

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "nodrop compare: --%s '%s': %s\n", opt, arg, why);
	return ND_EXIT_USAGE;
}

static int parse_limit(const char *opt, const char *arg, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v >= 0 && v <= max))
		return bad(opt, arg, max > 1 ? "expected a percentage 0..1000" :
			   "expected a number 0..1");
	*out = v;
	return 0;
}

static int parse_skip(const char *arg, unsigned int *skip)
{
	char buf[128], *tok, *save = NULL;
	int c;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		c = nd_cmp_class_parse(tok);
		if (c < 0)
			return bad("skip", arg, "expected kinds among throughput, latency, cpu, "
				   "fairness, loss, verdict, comma-separated");
		*skip |= 1u << c;
	}
	return 0;
}

static void defaults(struct compare_args *a)
{
	if (a->ready)
		return;
	nd_cmp_limits_init(&a->limits);
	a->last = 5;
	a->ready = true;
}

static int compare_opt(int key, const char *arg, void *data)
{
	struct compare_args *a = data;
	unsigned long n;
	char *end;

	defaults(a);
	switch (key) {
	case 'H':
		a->history = arg;
		return 0;
	case 'n':
		n = strtoul(arg, &end, 10);
		if (arg[0] < '1' || arg[0] > '9' || *end || n > 1000)
			return bad("last", arg, "expected a number of runs 1..1000");
		a->last = (unsigned int)n;
		return 0;
	case OPT_THROUGHPUT:
		return parse_limit("throughput", arg, 1000, &a->limits.throughput_pct);
	case OPT_LATENCY:
		return parse_limit("latency", arg, 1000, &a->limits.latency_pct);
	case OPT_CPU:
		return parse_limit("cpu", arg, 1000, &a->limits.cpu_pct);
	case OPT_JAIN:
		return parse_limit("jain", arg, 1, &a->limits.jain);
	case OPT_JUNIT:
		a->junit = arg;
		return 0;
	case OPT_FORCE:
		a->force = true;
		return 0;
	case OPT_ALL:
		a->all = true;
		return 0;
	case OPT_SKIP:
		return parse_skip(arg, &a->limits.skip);
	}
	return ND_EXIT_USAGE;
}

/* Every run of every file given or found, in that order. */
struct pool {
	struct nd_cmp_run **runs;	/* one array per file */
	size_t *counts;
	size_t n_files;
	char (*ignored)[2][ND_ERR_MSG_MAX];	/* --history: files that are no run report, and why */
	size_t n_ignored;
};

static void pool_free(struct pool *p)
{
	size_t i;

	for (i = 0; i < p->n_files; i++)
		nd_cmp_runs_free(p->runs[i], p->counts[i]);
	free(p->runs);
	free(p->counts);
	free(p->ignored);
	memset(p, 0, sizeof(*p));
}

/*
 * Add the runs of @path. In a results directory (@tolerant) a JSON file that is no run report
 * (compare's own output beside the runs, say) is noted and passed over.
 */
static int pool_load(struct pool *p, const char *path, bool tolerant)
{
	struct nd_err e = { 0 };
	struct nd_cmp_run *runs, **rv;
	size_t n, *cv;
	int ret;

	ret = nd_cmp_load(path, &runs, &n, &e);
	if (ret == -EINVAL && tolerant) {
		char (*iv)[2][ND_ERR_MSG_MAX] = realloc(p->ignored, (p->n_ignored + 1) * sizeof(*iv));

		if (!iv)
			return -ENOMEM;
		p->ignored = iv;
		snprintf(iv[p->n_ignored][0], sizeof(iv[0][0]), "%s", path);
		snprintf(iv[p->n_ignored][1], sizeof(iv[0][1]), "%s", e.msg);
		p->n_ignored++;
		return 0;
	}
	if (ret) {
		fprintf(stderr, "nodrop compare: %s\n", e.msg);
		return ret;
	}
	rv = realloc(p->runs, (p->n_files + 1) * sizeof(*rv));
	if (rv)
		p->runs = rv;
	cv = realloc(p->counts, (p->n_files + 1) * sizeof(*cv));
	if (cv)
		p->counts = cv;
	if (!rv || !cv) {
		nd_cmp_runs_free(runs, n);
		fprintf(stderr, "nodrop compare: out of memory\n");
		return -ENOMEM;
	}
	p->runs[p->n_files] = runs;
	p->counts[p->n_files++] = n;
	return 0;
}

static int by_mtime(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

static bool is_json(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".json") && name[0] != '.';
}

/* *.json files of @dir and of its subdirectories; -ENOMEM, or what opendir() said of @dir. */
static int scan(const char *dir, int depth, struct founds *f)
{
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);
	char path[PATH_MAX];
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d)) && f->n < HISTORY_FILES_MAX) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path) ||
		    stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && depth) {
			/* an unreadable subdirectory holds no run we can read: passed over */
			ret = scan(path, depth - 1, f) == -ENOMEM ? -ENOMEM : 0;
		} else if (S_ISREG(st.st_mode) && is_json(de->d_name)) {
			if (f->n == f->cap) {
				size_t cap = f->cap ? f->cap * 2 : 16;
				struct found *v = realloc(f->v, cap * sizeof(*v));

				if (!v) {
					ret = -ENOMEM;
					break;
				}
				f->v = v;
				f->cap = cap;
			}
			snprintf(f->v[f->n].path, sizeof(f->v[f->n].path), "%s", path);
			f->v[f->n++].mtime = st.st_mtim;
		}
	}
	closedir(d);
	return ret;
}

static bool same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

struct side {
	const struct nd_cmp_run **base;
	size_t n;
};

struct skipped {
	char file[256];
	size_t index;
	char why[400];
};

struct job {
	const struct nd_cmp_run *run;
	struct side side;
	struct skipped *skip;
	size_t n_skip;
	struct nd_cmp_result res;
	bool forced;		/* compared although the workloads differ */
	char forced_why[400];
};

static int note_skip(struct job *j, const struct nd_cmp_run *b, const char *why)
{
	struct skipped *s = realloc(j->skip, (j->n_skip + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	j->skip = s;
	snprintf(s[j->n_skip].file, sizeof(s[j->n_skip].file), "%s", b->file);
	s[j->n_skip].index = b->index;
	snprintf(s[j->n_skip].why, sizeof(s[j->n_skip].why), "%s", why);
	j->n_skip++;
	return 0;
}

static int add_base(struct job *j, const struct nd_cmp_run *b)
{
	const struct nd_cmp_run **v = realloc(j->side.base, (j->side.n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	j->side.base = v;
	v[j->side.n++] = b;
	return 0;
}

/*
 * The baseline of @j: the pool's runs of the same workload (the newest @last of them with
 * --history); the others are skipped and said. Runs of an array pair with the run of the same
 * fabric, so a sim --compare file lines up with another.
 */
static int pick_base(struct job *j, const struct pool *p, const struct compare_args *a)
{
	char why[400];
	size_t f, i, k;
	int ret = 0;

	for (f = p->n_files; f-- > 0 && !ret;) {
		for (k = p->counts[f]; k-- > 0 && !ret;) {
			const struct nd_cmp_run *b = &p->runs[f][k];

			if (p->counts[f] > 1 && strcmp(b->fabric, j->run->fabric))
				continue;
			if (nd_cmp_differs(b, j->run, why, sizeof(why)) && !a->force) {
				ret = note_skip(j, b, why);
				continue;
			}
			if (a->history && j->side.n >= a->last)
				continue;
			if (why[0] && !j->forced) {
				j->forced = true;
				snprintf(j->forced_why, sizeof(j->forced_why), "%s", why);
			}
			ret = add_base(j, b);
		}
	}
	/* oldest first, as given */
	for (i = 0; i < j->side.n / 2; i++) {
		const struct nd_cmp_run *t = j->side.base[i];

		j->side.base[i] = j->side.base[j->side.n - 1 - i];
		j->side.base[j->side.n - 1 - i] = t;
	}
	return ret;
}

static const char *unit_of(enum nd_cmp_class c)
{
	switch (c) {
	case ND_CMP_THROUGHPUT:
		return "Gb/s";
	case ND_CMP_LATENCY:
		return "us";
	case ND_CMP_CPU:
		return "s/GB";
	default:
		return "";
	}
}

static void print_row(const struct nd_cmp_row *w, bool all, unsigned int skip)
{
	bool changed = !w->in_run || w->n_base == 0 || w->run != w->base;

	if (!pr_is_json() && !all && !w->worse && !changed)
		return;
	pr_open_object(NULL);
	pr_string(PR_ANY, "name", "  %-46s", w->name);
	pr_string(PR_JSON, "class", NULL, nd_cmp_class_name(w->cls));
	pr_float(PR_ANY, "baseline", " %12.4g", w->base);
	pr_uint(PR_JSON, "baseline_runs", NULL, w->n_base);
	if (w->in_run)
		pr_float(PR_ANY, "run", " %12.4g", w->run);
	else
		pr_null(PR_ANY, "run", " %12s");
	pr_string(PR_TEXT, NULL, " %-5s", unit_of(w->cls));
	if (w->base && w->in_run)
		pr_float(PR_ANY, "change_pct", " %+8.1f %%", w->change_pct);
	else
		pr_null(PR_ANY, "change_pct", "         ");
	pr_bool(PR_JSON, "worse", NULL, w->worse);
	pr_bool(PR_JSON, "judged", NULL, !(skip & (1u << w->cls)));
	if (skip & (1u << w->cls))
		pr_text("  (not judged: --skip)");
	else if (w->worse)
		pr_text("  WORSE");
	else if (!w->in_run)
		pr_text("  (not in this run)");
	else if (!w->n_base && w->cls != ND_CMP_LOSS)
		pr_text("  (new)");
	pr_nl();
	pr_close_object();
}

static void print_ignored(const struct pool *p)
{
	size_t i;

	pr_open_array("ignored");
	for (i = 0; i < p->n_ignored; i++) {
		pr_open_object(NULL);
		pr_string(PR_JSON, "file", NULL, p->ignored[i][0]);
		pr_string(PR_JSON, "why", NULL, p->ignored[i][1]);
		pr_close_object();
	}
	pr_close_array();
	if (p->n_ignored)
		pr_text("  ignored %zu file%s of the results directory that %s no run report "
			"(%s)\n", p->n_ignored, p->n_ignored == 1 ? "" : "s",
			p->n_ignored == 1 ? "is" : "are", p->ignored[0][0]);
}

static void print_job(const struct job *j, const struct compare_args *a, const struct pool *p)
{
	const struct nd_cmp_run *r = j->run;
	size_t i;

	pr_open_object(NULL);
	pr_string(PR_ANY, "run", "%s", r->file);
	if (r->index || strcmp(r->kind, "sim") == 0)
		pr_uint(PR_ANY, "index", "[%" PRIu64 "]", r->index);
	pr_string(PR_ANY, "kind", ": %s", r->kind);
	pr_string(PR_ANY, "fabric", " %s", r->fabric);
	pr_string(PR_ANY, "pattern", " %s", r->pattern);
	pr_string(PR_JSON, "options", NULL, r->options);
	pr_string(PR_ANY, "hosts", r->hosts[0] ? " on %s" : "%s", r->hosts);
	pr_uint(PR_TEXT, NULL, ", against %" PRIu64 " run", j->side.n);
	pr_text("%s (median)\n", j->side.n == 1 ? "" : "s");
	pr_open_array("baseline");
	for (i = 0; i < j->side.n; i++) {
		pr_open_object(NULL);
		pr_string(PR_ANY, "file", "  baseline %s", j->side.base[i]->file);
		pr_uint(PR_ANY, "index", "[%" PRIu64 "]", j->side.base[i]->index);
		pr_string(PR_ANY, "verdict", " %s\n", j->side.base[i]->verdict);
		pr_close_object();
	}
	pr_close_array();
	if (j->forced)
		pr_string(PR_ANY, "forced", "  warning: compared although the workloads differ "
			  "(--force): %s\n", j->forced_why);
	pr_open_array("skipped");
	for (i = 0; i < j->n_skip; i++) {
		pr_open_object(NULL);
		pr_string(PR_ANY, "file", "  skipped %s", j->skip[i].file);
		pr_uint(PR_ANY, "index", "[%" PRIu64 "]", j->skip[i].index);
		pr_string(PR_ANY, "why", ": another workload: %s\n", j->skip[i].why);
		pr_close_object();
	}
	pr_close_array();
	print_ignored(p);
	if (!j->side.n) {
		pr_null(PR_JSON, "metrics", NULL);
		pr_string(PR_ANY, "result", "  no baseline run of this workload: %s\n",
			  "nothing compared");
		pr_close_object();
		return;
	}
	pr_text("  %-46s %12s %12s %-5s %10s\n", "number", "baseline", "run", "", "change");
	pr_open_array("metrics");
	for (i = 0; i < j->res.n; i++)
		print_row(&j->res.rows[i], a->all, a->limits.skip);
	pr_close_array();
	pr_uint(PR_ANY, "regressions", "  %" PRIu64, j->res.n_worse);
	pr_uint(PR_ANY, "numbers", " of %" PRIu64 " numbers worse", j->res.n);
	pr_string(PR_ANY, "result", ": %s\n", j->res.n_worse ? "REGRESSION" : "ok");
	pr_close_object();
}

static void junit_job(FILE *f, const struct job *j)
{
	size_t i;

	for (i = 0; i < j->res.n; i++) {
		const struct nd_cmp_row *w = &j->res.rows[i];

		fprintf(f, "  <testcase classname=\"compare.%s.%s\" name=\"", j->run->kind,
			nd_cmp_class_name(w->cls));
		nd_xml_escape(f, w->name);
		fputs("\">", f);
		if (w->worse)
			fprintf(f, "<failure message=\"%.6g -&gt; %.6g (%+.1f %%)\"/>", w->base,
				w->run, w->change_pct);
		else
			fprintf(f, "<system-out>%.6g -&gt; %.6g</system-out>", w->base, w->run);
		fputs("</testcase>\n", f);
	}
	if (!j->side.n) {
		fputs("  <testcase classname=\"compare\" name=\"baseline\"><error message=\"no "
		      "baseline run of this workload\"/></testcase>\n", f);
	}
}

static int write_junit(const char *path, const struct job *jobs, size_t n)
{
	size_t i, tests = 0, fails = 0, errors = 0;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	for (i = 0; i < n; i++) {
		tests += jobs[i].side.n ? jobs[i].res.n : 1;
		fails += jobs[i].res.n_worse;
		errors += !jobs[i].side.n;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"nodrop-compare\" "
		"tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", tests, fails, errors);
	for (i = 0; i < n; i++)
		junit_job(f, &jobs[i]);
	fputs("</testsuite>\n", f);
	return fclose(f) ? -errno : 0;
}

/* The baseline files: those named, or the results directory's newest first. */
static int load_baseline(struct pool *p, const struct compare_args *a, char **files,
			 size_t n_files, const char *run_path)
{
	struct founds f = { 0 };
	size_t i;
	int ret;

	for (i = 0; i < n_files; i++)
		if ((ret = pool_load(p, files[i], false)))
			return ret;
	if (!a->history)
		return 0;
	ret = scan(a->history, 1, &f);
	if (ret == -ENOMEM) {
		fprintf(stderr, "nodrop compare: out of memory\n");
		free(f.v);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "nodrop compare: --history %s: %s; give the results directory\n",
			a->history, strerror(-ret));
		free(f.v);
		return -EINVAL;
	}
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), by_mtime);
	for (i = 0; i < f.n && !ret; i++)
		if (!same_file(f.v[i].path, run_path))
			ret = pool_load(p, f.v[i].path, true);
	free(f.v);
	return ret;
}

static int compare_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct compare_args *a = data;
	struct pool base = { 0 }, run = { 0 };
	struct job *jobs = NULL;
	struct nd_err e = { 0 };
	size_t i, n = 0, worse = 0, missing = 0;
	int rc = ND_EXIT_OK, ret;

	defaults(a);
	if (argc < 1 || (!a->history && argc < 2)) {
		fprintf(stderr, "nodrop compare: give BASELINE.json... RUN.json, or --history DIR "
			"RUN.json; 'nodrop compare --help'\n");
		return ND_EXIT_USAGE;
	}
	ret = pool_load(&run, argv[argc - 1], false);
	if (!ret)
		ret = load_baseline(&base, a, argv, (size_t)argc - 1, argv[argc - 1]);
	if (ret) {
		rc = ret == -ENOMEM ? ND_EXIT_SYSTEM : nd_cli_exit_code(ret);
		goto out;
	}
	n = run.counts[0];
	jobs = calloc(n, sizeof(*jobs));
	if (!jobs) {
		rc = ND_EXIT_SYSTEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		jobs[i].run = &run.runs[0][i];
		ret = pick_base(&jobs[i], &base, a);
		if (!ret)
			ret = nd_cmp_compare(jobs[i].side.base, jobs[i].side.n, jobs[i].run,
					     &a->limits, &jobs[i].res, &e);
		worse += jobs[i].res.n_worse;
		missing += !jobs[i].side.n;
	}
	if (ret) {
		fprintf(stderr, "nodrop compare: %s\n", e.msg[0] ? e.msg : strerror(-ret));
		rc = ND_EXIT_SYSTEM;
		goto out;
	}
	pr_init(cli->json, cli->pretty);
	pr_open_array(NULL);
	for (i = 0; i < n; i++)
		print_job(&jobs[i], a, &base);
	pr_close_array();
	if (pr_finish())
		rc = ND_EXIT_SYSTEM;
	else if (missing)
		rc = ND_EXIT_USAGE;
	else if (worse)
		rc = ND_EXIT_FINDINGS;
	if (missing)
		fprintf(stderr, "nodrop compare: %s has no baseline run of the same workload (see "
			"'skipped'); compare runs of the same options and hosts, or --force\n",
			argv[argc - 1]);
	if (a->junit && (ret = write_junit(a->junit, jobs, n))) {
		fprintf(stderr, "nodrop compare: cannot write %s: %s\n", a->junit, strerror(-ret));
		rc = ND_EXIT_SYSTEM;
	}
out:
	for (i = 0; jobs && i < n; i++) {
		free(jobs[i].side.base);
		free(jobs[i].skip);
		nd_cmp_result_free(&jobs[i].res);
	}
	free(jobs);
	pool_free(&base);
	pool_free(&run);
	return rc;
}

const struct nd_cmd nd_cmd_compare = {
	.name = "compare",
	.args = "BASELINE.json... RUN.json | --history DIR RUN.json",
	.summary = "Compare a stress or sim run with a baseline (runs of the same workload, or "
		   "the last of a results directory): what got worse, exit 1 on a regression",
	.opts = compare_opts,
	.opt = compare_opt,
	.run = compare_run,
	.data_size = sizeof(struct compare_args),
	.complete = compare_complete,
};
