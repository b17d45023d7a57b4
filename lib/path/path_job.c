// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A job's environment, wherever it can be read from: a running process (/proc/PID/environ, and
 * /proc/PID/maps for which communication libraries it loaded and NCCL's version), a file of
 * NAME=VALUE lines, or our own environment; then NCCL's configuration files, which fill in
 * only what the environment leaves unset, as NCCL's own loader does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define JOB_FILE_MAX (4u << 20)	/* an environment is at most a few hundred KiB */

static const char *const stack_names[ND_STACK_COUNT] = {
	[ND_STACK_NCCL] = "nccl",
	[ND_STACK_UCX] = "ucx",
	[ND_STACK_RDMA_CM] = "rdma_cm",
};

const char *nd_stack_name(enum nd_stack s)
{
	return (unsigned int)s < ND_STACK_COUNT ? stack_names[s] : "?";
}

int nd_stack_parse(const char *name, enum nd_stack *s)
{
	int i = nd_name_index(stack_names, ND_STACK_COUNT, name);

	if (i < 0)
		return -EINVAL;
	*s = (enum nd_stack)i;
	return 0;
}

void nd_job_free(struct nd_job *job)
{
	for (size_t i = 0; i < job->n_vars; i++) {
		free(job->vars[i].name);
		free(job->vars[i].value);
		free(job->vars[i].origin);
	}
	free(job->vars);
	memset(job, 0, sizeof(*job));
}

static struct nd_job_var *find(const struct nd_job *job, const char *name, size_t len)
{
	for (size_t i = 0; i < job->n_vars; i++)
		if (strlen(job->vars[i].name) == len && !memcmp(job->vars[i].name, name, len))
			return &job->vars[i];
	return NULL;
}

const char *nd_job_get(const struct nd_job *job, const char *name, const char **origin)
{
	const struct nd_job_var *v = find(job, name, strlen(name));

	if (v && origin)
		*origin = v->origin;
	return v ? v->value : NULL;
}

/* Set NAME (@len bytes of @name) to @value; a later one replaces it unless @keep (conf files). */
static int job_set(struct nd_job *job, const char *name, size_t len, const char *value,
		   const char *origin, bool keep, struct nd_err *e)
{
	struct nd_job_var *v = find(job, name, len), nv;

	if (v && keep)
		return 0;
	nv.name = strndup(name, len);
	nv.value = strdup(value);
	nv.origin = strdup(origin);
	if (!nv.name || !nv.value || !nv.origin || (!v && !(v = nd_push((void **)&job->vars,
								       &job->n_vars, sizeof(*v))))) {
		free(nv.name);
		free(nv.value);
		free(nv.origin);
		return nd_err_set(e, -ENOMEM, "%s: out of memory", job->source);
	}
	free(v->name);
	free(v->value);
	free(v->origin);
	*v = nv;
	return 0;
}

static bool name_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/* The length of the variable name at @s: letters, digits, underscores; 0 when none. */
static size_t name_len(const char *s)
{
	size_t n = 0;

	while (name_char(s[n], n == 0))
		n++;
	return n;
}

int nd_job_from_env(struct nd_job *job, char *const *envp, const char *source, struct nd_err *e)
{
	int ret = 0;

	memset(job, 0, sizeof(*job));
	nd_strlcpy(job->source, source, sizeof(job->source));
	for (size_t i = 0; envp && envp[i] && !ret; i++) {
		size_t n = name_len(envp[i]);

		if (n && envp[i][n] == '=')
			ret = job_set(job, envp[i], n, envp[i] + n + 1, "environment", false, e);
	}
	if (ret)
		nd_job_free(job);
	return ret;
}

/* NUL-separated NAME=VALUE strings (/proc/PID/environ) */
static int parse_environ(struct nd_job *job, const char *buf, size_t len, struct nd_err *e)
{
	const char *p = buf, *end = buf + len;
	int ret = 0;

	while (p < end && !ret) {
		size_t n = name_len(p), l = strnlen(p, (size_t)(end - p));

		if (n && p[n] == '=' && n < l)
			ret = job_set(job, p, n, p + n + 1, "environment", false, e);
		p += l + 1;
	}
	return ret;
}

/* "2.18.3" from a mapping of ".../libnccl.so.2.18.3" */
static void nccl_version_of(const char *line, char *buf, size_t size)
{
	const char *v = strstr(line, "libnccl.so.");
	size_t n = 0;

	if (!v)
		return;
	v += strlen("libnccl.so.");
	while ((isdigit((unsigned char)v[n]) || v[n] == '.') && n + 1 < size)
		n++;
	if (n && strchr(v, '.') && strchr(v, '.') < v + n) {
		memcpy(buf, v, n);
		buf[n] = '\0';
	}
}

/* The libraries a process has mapped say which stacks it can speak. */
static void scan_maps(struct nd_job *job, char *maps)
{
	static const struct {
		const char *lib;
		enum nd_stack stack;
	} libs[] = {
		{ "/libnccl.so", ND_STACK_NCCL },
		{ "/libnccl-net", ND_STACK_NCCL },
		{ "/libuct_ib.so", ND_STACK_UCX },
		{ "/librdmacm.so", ND_STACK_RDMA_CM },
	};

	for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
		for (size_t i = 0; i < ND_ARRAY_SIZE(libs); i++)
			if (strstr(line, libs[i].lib))
				job->loaded |= 1u << libs[i].stack;
		if (!job->nccl_version[0])
			nccl_version_of(line, job->nccl_version, sizeof(job->nccl_version));
	}
}

int nd_job_from_pid(struct nd_job *job, pid_t pid, struct nd_err *e)
{
	char path[256], comm[64] = "";
	char *buf = NULL;
	size_t len;
	int ret;

	memset(job, 0, sizeof(*job));
	if (nd_sys_read(comm, sizeof(comm), "/proc/%d/comm", (int)pid) < 0)
		return nd_err_set(e, -ESRCH, "pid %d: no such process", (int)pid);
	snprintf(job->source, sizeof(job->source), "pid %d (%s)", (int)pid, comm);
	snprintf(job->root, sizeof(job->root), "/proc/%d/root", (int)pid);
	nd_sys_path(path, sizeof(path), "/proc/%d/environ", (int)pid);
	ret = nd_file_read(path, JOB_FILE_MAX, &buf, &len, NULL);
	if (ret)
		return nd_err_set(e, ret, "pid %d: cannot read /proc/%d/environ: %s%s", (int)pid,
				  (int)pid, strerror(-ret), ret == -EACCES || ret == -EPERM ?
				  " (run nodrop as the job's user, or as root)" : "");
	ret = parse_environ(job, buf, len, e);
	free(buf);
	buf = NULL;
	/* maps only adds what the process loaded: not readable, not known */
	nd_sys_path(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!ret && !nd_file_read(path, 64u << 20, &buf, &len, NULL))
		scan_maps(job, buf);
	free(buf);
	if (ret)
		nd_job_free(job);
	return ret;
}

/* Take one level of matching quotes off @v (in place); -1 at an unclosed one, else 0. */
static int unquote(char *v)
{
	size_t n = strlen(v);
	char q = v[0];

	if (q != '"' && q != '\'')
		return 0;
	if (n < 2 || v[n - 1] != q)
		return -1;
	memmove(v, v + 1, n - 2);
	v[n - 2] = '\0';
	return 0;
}

/* One NAME=VALUE file: a job's env file (@keep false) or NCCL's conf files (@keep true). */
static int read_assignments(struct nd_job *job, const char *file, const char *path, bool keep,
			    bool missing_ok, struct nd_err *e)
{
	char *buf, *line, *next, origin[300];
	unsigned int lineno = 0;
	size_t len;
	int ret;

	ret = nd_file_read(path, JOB_FILE_MAX, &buf, &len, NULL);
	if (ret == -ENOENT && missing_ok)
		return 0;
	if (ret)
		return nd_err_set(e, ret, "%s: cannot read it: %s", file, strerror(-ret));
	for (line = buf; line && !ret; line = next) {
		char *s = line, *end;
		size_t n;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#' || *s == '\r')
			continue;
		if (!strncmp(s, "export ", 7))
			for (s += 7; *s == ' '; s++)
				;
		n = name_len(s);
		if (!n || s[n] != '=') {
			ret = nd_err_set(e, -EINVAL, "%s:%u:%zu: expected NAME=VALUE (a variable name "
					 "of letters, digits and _, then =): fix or remove the line",
					 file, lineno, (size_t)(s + n - line) + 1);
			break;
		}
		end = s + strlen(s);
		while (end > s + n + 1 && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (unquote(s + n + 1)) {
			ret = nd_err_set(e, -EINVAL, "%s:%u:%zu: the quote that opens %.*s's value "
					 "is not closed on its line", file, lineno,
					 (size_t)(s + n + 1 - line) + 1, (int)n, s);
			break;
		}
		snprintf(origin, sizeof(origin), "%s:%u", file, lineno);
		ret = job_set(job, s, n, s + n + 1, origin, keep, e);
	}
	free(buf);
	return ret;
}

int nd_job_from_file(struct nd_job *job, const char *path, struct nd_err *e)
{
	int ret;

	memset(job, 0, sizeof(*job));
	nd_strlcpy(job->source, path, sizeof(job->source));
	ret = read_assignments(job, path, path, false, false, e);
	if (ret)
		nd_job_free(job);
	return ret;
}

/* A configuration file as the job sees it: under its own root when it is a process. */
static int read_conf(struct nd_job *job, const char *file, struct nd_err *e)
{
	char path[4200];

	if (job->root[0])
		nd_sys_path(path, sizeof(path), "%s%s", job->root, file);
	else
		nd_strlcpy(path, file, sizeof(path));
	/* NCCL skips a file it cannot open, so the job runs without it: so do we */
	return read_assignments(job, file, path, true, true, e);
}

int nd_job_read_nccl_conf(struct nd_job *job, const char *etc, struct nd_err *e)
{
	const char *user = nd_job_get(job, "NCCL_CONF_FILE", NULL);
	const char *home = nd_job_get(job, "HOME", NULL);
	char path[4096];
	int ret = 0;

	if (user && *user)
		ret = read_conf(job, user, e);
	else if (home && *home) {
		snprintf(path, sizeof(path), "%s/.nccl.conf", home);
		ret = read_conf(job, path, e);
	}
	if (!ret && etc)
		ret = read_conf(job, etc, e);
	return ret;
}
