// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver map files: which raw counter name means which canonical counter, per driver family.
 * Data, not code, so a new driver or a renamed counter needs a file and no rebuild. The format
 * is in nodrop-counters(8) and at the top of every shipped map.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "counters.h"

#ifndef ND_DATADIR
#define ND_DATADIR "/usr/local/share/nodrop"
#endif

#define MAP_FILE_MAX (1024 * 1024)
#define MAP_LINE_MAX 1024
#define MAP_FIELDS_MAX 16
#define MAP_SCALE_MAX 1024
/* Room for this many lines per file in a rule's order number. */
#define MAP_ORDER_STRIDE 1000000UL

struct parse {
	struct nd_ctr_map *map;
	unsigned long base;	/* order of this file's line 0 */
	const char *file;
	unsigned int line;
	struct nd_err *e;
};

static int perr(struct parse *p, const char *fmt, const char *a, const char *b)
{
	char what[ND_ERR_MSG_MAX];

	snprintf(what, sizeof(what), fmt, a, b);
	return nd_err_set(p->e, -EINVAL, "%s:%u: %s", p->file, p->line, what);
}

static int header(struct parse *p, char **f, size_t nf)
{
	bool drivers = !strcmp(f[0], "drivers");
	size_t i;

	if (nf < 2)
		return perr(p, "'%s' needs at least one name", f[0], NULL);
	for (i = 1; i < nf; i++) {
		int ret = drivers ? nd_strv_push(&p->map->drivers, &p->map->n_drivers, f[i]) :
				    nd_strv_push(&p->map->ibdevs, &p->map->n_ibdevs, f[i]);

		if (ret)
			return nd_err_set(p->e, ret, "out of memory reading %s", p->file);
		if (drivers && !strcmp(f[i], "*"))
			p->map->any = true;
	}
	return 0;
}

/* Split a raw name at {p}; no other braces: a typo such as {P} must not pass as a literal. */
static int pattern(struct parse *p, const char *raw, struct nd_ctr_rule *r)
{
	const char *at = strstr(raw, "{p}");
	size_t len = strlen(raw);

	if (len >= ND_CTR_NAME_MAX)
		return perr(p, "raw name '%s' is longer than %s characters", raw, "63");
	if (!at) {
		if (strchr(raw, '{') || strchr(raw, '}'))
			return perr(p, "raw name '%s': the only placeholder is {p}", raw, NULL);
		memcpy(r->prefix, raw, len + 1);
		return 0;
	}
	if (strchr(at + 3, '{') || strchr(at + 3, '}') || memchr(raw, '{', (size_t)(at - raw)) ||
	    memchr(raw, '}', (size_t)(at - raw)))
		return perr(p, "raw name '%s': {p} may appear once, and no other braces", raw,
			    NULL);
	memcpy(r->prefix, raw, (size_t)(at - raw));
	r->prefix[at - raw] = '\0';
	memcpy(r->suffix, at + 3, strlen(at + 3) + 1);
	r->per_prio = true;
	return 0;
}

static int number(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int flags(struct parse *p, char **f, size_t nf, struct nd_ctr_rule *r)
{
	unsigned long v;
	size_t i;

	for (i = 4; i < nf; i++) {
		if (!strcmp(f[i], "sat"))
			r->saturates = true;
		else if (!strcmp(f[i], "sum"))
			r->sum = true;
		else if (!strncmp(f[i], "scale=", 6) && !number(f[i] + 6, 1, MAP_SCALE_MAX, &v))
			r->scale = (uint32_t)v;
		else
			return perr(p, "unknown flag '%s' (sat, sum or scale=N with N 1..1024)",
				    f[i], NULL);
	}
	if (r->sum && r->width < 64)
		return perr(p, "'sum' needs width 64: narrower counters wrap each on its own",
			    NULL, NULL);
	if (r->scale > 1 && r->width < 64)
		return perr(p, "'scale=' needs width 64", NULL, NULL);
	if (r->saturates && r->width == 64)
		return perr(p, "'sat' needs a width below 64", NULL, NULL);
	return 0;
}

/* The same raw name twice, or a canonical name summed on some lines and not on others. */
static int conflicts(struct parse *p, const struct nd_ctr_rule *r)
{
	char other[32];
	size_t i;

	for (i = 0; i < p->map->n_rules; i++) {
		const struct nd_ctr_rule *o = &p->map->rules[i];

		if (o->source != r->source)
			continue;
		snprintf(other, sizeof(other), "%u", o->line);
		if (!strcmp(o->prefix, r->prefix) && !strcmp(o->suffix, r->suffix) &&
		    o->per_prio == r->per_prio)
			return perr(p, "this raw name is already mapped on line %s%s", other, "");
		if (o->info == r->info && o->sum != r->sum)
			return perr(p, "'sum' must be on every line for %s or on none "
				    "(see line %s)", r->info->name, other);
	}
	return 0;
}

static int rule(struct parse *p, char **f, size_t nf)
{
	struct nd_ctr_rule r = { .scale = 1, .line = p->line, .order = p->base + p->line };
	struct nd_ctr_rule *slot;
	unsigned long width;
	int ret;

	if (nd_ctr_source_parse(f[0], &r.source))
		return perr(p, "unknown source or keyword '%s' (ethtool, pause, rdma, pma, drivers "
			    "or ibdevs)", f[0], NULL);
	if (nf < 4)
		return perr(p, "a rule is SOURCE RAW-NAME CANONICAL WIDTH [FLAGS]; this line has "
			    "%s fields", nf == 2 ? "2" : "3", NULL);
	ret = pattern(p, f[1], &r);
	if (ret)
		return ret;
	r.info = nd_counter_info(f[2]);
	if (!r.info)
		return perr(p, "unknown canonical counter '%s' (nodrop-counters(8) lists them)",
			    f[2], NULL);
	if (r.info->per_prio != r.per_prio)
		return perr(p, r.per_prio ? "'%s' is not per priority: drop {p} from the raw name" :
					    "'%s' is per priority: the raw name needs {p}",
			    f[2], NULL);
	if (number(f[3], 1, 64, &width))
		return perr(p, "width '%s' is not a number of bits 1..64", f[3], NULL);
	r.width = (uint8_t)width;
	ret = flags(p, f, nf, &r);
	if (!ret)
		ret = conflicts(p, &r);
	if (ret)
		return ret;
	slot = nd_push((void **)&p->map->rules, &p->map->n_rules, sizeof(*slot));
	if (!slot)
		return nd_err_set(p->e, -ENOMEM, "out of memory reading %s", p->file);
	*slot = r;
	return 0;
}

static int parse_line(struct parse *p, char *line)
{
	char *f[MAP_FIELDS_MAX], *save = NULL, *tok, *hash;
	size_t nf = 0;

	hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (nf == MAP_FIELDS_MAX)
			return perr(p, "more than 16 fields", NULL, NULL);
		f[nf++] = tok;
	}
	if (!nf)
		return 0;
	if (!strcmp(f[0], "drivers") || !strcmp(f[0], "ibdevs"))
		return header(p, f, nf);
	return rule(p, f, nf);
}

static void map_free(struct nd_ctr_map *m)
{
	size_t i;

	for (i = 0; i < m->n_drivers; i++)
		free(m->drivers[i]);
	for (i = 0; i < m->n_ibdevs; i++)
		free(m->ibdevs[i]);
	free(m->drivers);
	free(m->ibdevs);
	free(m->rules);
	memset(m, 0, sizeof(*m));
}

int nd_ctr_map_parse(struct nd_ctr_maps *maps, const char *file, const char *text,
		     struct nd_err *e)
{
	struct nd_ctr_map m = { 0 };
	struct parse p = { .map = &m, .base = (maps->n + 1) * MAP_ORDER_STRIDE, .file = file,
			   .e = e };
	struct nd_ctr_map *slot;
	char line[MAP_LINE_MAX + 2];
	const char *s = text;
	int ret = 0;

	nd_strlcpy(m.file, file, sizeof(m.file));
	while (*s && !ret) {
		size_t len = strcspn(s, "\n");

		p.line++;
		if (p.line >= MAP_ORDER_STRIDE || len > MAP_LINE_MAX) {
			ret = perr(&p, p.line >= MAP_ORDER_STRIDE ? "too many lines" :
					"line longer than 1024 characters", NULL, NULL);
			break;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		ret = parse_line(&p, line);
		s += len + (s[len] == '\n');
	}
	if (!ret && !m.n_drivers && !m.n_ibdevs) {
		p.line = 1;
		ret = perr(&p, "no 'drivers' or 'ibdevs' line: the map would apply to no port",
			   NULL, NULL);
	}
	if (!ret && !m.n_rules) {
		p.line = 1;
		ret = perr(&p, "no rule", NULL, NULL);
	}
	if (!ret) {
		slot = nd_push((void **)&maps->v, &maps->n, sizeof(*slot));
		if (!slot)
			ret = nd_err_set(e, -ENOMEM, "out of memory reading %s", file);
		else {
			*slot = m;
			return 0;
		}
	}
	map_free(&m);
	return ret;
}

static int read_file(const char *path, char **out, struct nd_err *e)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;

	if (!f)
		return nd_err_set(e, -errno, "cannot open counter map %s: %s", path,
				  strerror(errno));
	buf = malloc(MAP_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return nd_err_set(e, -ENOMEM, "out of memory reading %s", path);
	}
	n = fread(buf, 1, MAP_FILE_MAX + 1, f);
	if (ferror(f) || n > MAP_FILE_MAX) {
		int err = ferror(f) ? -EIO : -EFBIG;

		fclose(f);
		free(buf);
		return nd_err_set(e, err, "%s: %s", path, err == -EIO ? "read error" :
				  "larger than 1 MiB: not a counter map");
	}
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) != n) {
		free(buf);
		return nd_err_set(e, -EINVAL, "%s: holds a NUL byte: not a counter map", path);
	}
	*out = buf;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_map(const char *name)
{
	size_t len = strlen(name);

	return len > 4 && name[0] != '.' && !strcmp(name + len - 4, ".map");
}

/* Names of the *.map files in @dir, sorted. */
static int list_maps(const char *dir, char ***names, size_t *n, struct nd_err *e)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return nd_err_set(e, -errno, "cannot read counter maps in %s: %s; set "
				  "NODROP_COUNTER_MAPS or --maps to the directory of *.map files",
				  dir, strerror(errno));
	while ((de = readdir(d)) && !ret)
		if (is_map(de->d_name) && nd_strv_push(names, n, de->d_name))
			ret = nd_err_set(e, -ENOMEM, "out of memory listing %s", dir);
	closedir(d);
	if (!ret && *n)
		qsort(*names, *n, sizeof(**names), name_cmp);
	return ret;
}

int nd_ctr_maps_load(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e)
{
	char path[PATH_MAX], **names;
	size_t n, i;
	int ret;

	memset(maps, 0, sizeof(*maps));
	ret = list_maps(dir, &names, &n, e);
	for (i = 0; i < n && !ret; i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ret = read_file(path, &text, e);
		if (!ret) {
			ret = nd_ctr_map_parse(maps, path, text, e);
			free(text);
		}
	}
	if (!ret && !maps->n)
		ret = nd_err_set(e, -ENOENT, "no counter map (*.map) in %s; set "
				 "NODROP_COUNTER_MAPS or --maps to the directory of the maps "
				 "nodrop ships", dir);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret)
		nd_ctr_maps_free(maps);
	return ret;
}

void nd_ctr_maps_free(struct nd_ctr_maps *maps)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < maps->n; i++)
		map_free(&maps->v[i]);
	free(maps->v);
	maps->v = NULL;
	maps->n = 0;
}

/*
 * A binary in a source tree's build directory finds the tree's maps next to it, so
 * `build/nodrop counters` works uninstalled and never picks up an older installed copy. The
 * path the program was started by comes from the ELF auxiliary vector, not /proc: it is ours,
 * not the kernel's state, and NODROP_SYSROOT must not move it.
 */
static bool tree_maps(char *buf, size_t len)
{
	const char *exe = (const char *)getauxval(AT_EXECFN);
	char real[PATH_MAX], *slash;
	struct stat st;

	if (!exe || !realpath(exe, real))
		return false;
	slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/../data/counters", real) >= len)
		return false;
	return !stat(buf, &st) && S_ISDIR(st.st_mode);
}

const char *nd_ctr_maps_dir(char *buf, size_t len)
{
	const char *env = getenv("NODROP_COUNTER_MAPS");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (!tree_maps(buf, len))
		snprintf(buf, len, "%s/counters", ND_DATADIR);
	return buf;
}

static bool map_applies(const struct nd_ctr_map *m, const char *const *drivers, size_t n,
			const char *ibdev)
{
	size_t i, j;

	for (i = 0; i < m->n_drivers; i++)
		for (j = 0; j < n; j++)
			if (drivers[j] && *drivers[j] && !strcmp(m->drivers[i], drivers[j]))
				return true;
	for (i = 0; ibdev && *ibdev && i < m->n_ibdevs; i++)
		if (!strncmp(ibdev, m->ibdevs[i], strlen(m->ibdevs[i])))
			return true;
	return false;
}

void nd_ctr_select(const struct nd_ctr_maps *maps, const char *const *drivers, size_t n_drivers,
		   const char *ibdev, struct nd_ctr_sel *sel)
{
	size_t i;
	int pass;

	/* whole, so two selections compare with memcmp */
	memset(sel, 0, sizeof(*sel));
	/* a driver's own map before the generic ones, so it can override a generic name */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < maps->n && sel->n < ND_CTR_SEL_MAX; i++)
			if (pass ? maps->v[i].any :
				   !maps->v[i].any && map_applies(&maps->v[i], drivers, n_drivers,
								   ibdev))
				sel->map[sel->n++] = &maps->v[i];
}

static bool matches(const struct nd_ctr_rule *r, const char *raw, int *prio)
{
	size_t pl, sl, len;

	if (!r->per_prio)
		return !strcmp(r->prefix, raw);
	pl = strlen(r->prefix);
	sl = strlen(r->suffix);
	len = strlen(raw);
	if (len != pl + 1 + sl || strncmp(raw, r->prefix, pl) || strcmp(raw + pl + 1, r->suffix))
		return false;
	if (raw[pl] < '0' || raw[pl] >= '0' + ND_PRIO_MAX)
		return false;
	*prio = raw[pl] - '0';
	return true;
}

const struct nd_ctr_rule *nd_ctr_lookup(const struct nd_ctr_sel *sel, enum nd_ctr_source src,
					const char *raw, int *prio)
{
	size_t m, i;

	*prio = -1;
	for (m = 0; m < sel->n; m++) {
		const struct nd_ctr_map *map = sel->map[m];

		for (i = 0; i < map->n_rules; i++)
			if (map->rules[i].source == src && matches(&map->rules[i], raw, prio))
				return &map->rules[i];
	}
	*prio = -1;
	return NULL;
}
