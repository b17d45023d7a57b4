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
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"

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
	bool headers, rules;	/* lines to take: a lazy open reads headers now, rules later */
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
		r->prefix_len = (uint8_t)len;
		return 0;
	}
	if (strchr(at + 3, '{') || strchr(at + 3, '}') || memchr(raw, '{', (size_t)(at - raw)) ||
	    memchr(raw, '}', (size_t)(at - raw)))
		return perr(p, "raw name '%s': {p} may appear once, and no other braces", raw,
			    NULL);
	r->prefix_len = (uint8_t)(at - raw);
	r->suffix_len = (uint8_t)(len - r->prefix_len - 3);
	memcpy(r->prefix, raw, r->prefix_len);
	r->prefix[r->prefix_len] = '\0';
	memcpy(r->suffix, at + 3, r->suffix_len + 1u);
	r->per_prio = true;
	return 0;
}

/* FNV-1a over the raw name as written ({p} included): equal keys are the only candidates. */
static uint32_t raw_key(enum nd_ctr_source source, const char *raw)
{
	uint32_t h = 2166136261u ^ (uint32_t)source;

	for (; *raw; raw++)
		h = (h ^ (uint8_t)*raw) * 16777619u;
	return h;
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
		/* formatted only for the error: this loop runs for every pair of rules */
		if (o->key == r->key && !strcmp(o->prefix, r->prefix) &&
		    !strcmp(o->suffix, r->suffix) && o->per_prio == r->per_prio) {
			snprintf(other, sizeof(other), "%u", o->line);
			return perr(p, "this raw name is already mapped on line %s%s", other, "");
		}
		if (o->info == r->info && o->sum != r->sum) {
			snprintf(other, sizeof(other), "%u", o->line);
			return perr(p, "'sum' must be on every line for %s or on none "
				    "(see line %s)", nd_ctr_rule_info(r)->name, other);
		}
	}
	return 0;
}

static int rule(struct parse *p, char **f, size_t nf)
{
	struct nd_ctr_rule r = { .scale = 1, .line = p->line, .order = p->base + p->line };
	const struct nd_counter_info *info;
	struct nd_ctr_rule *slot;
	unsigned long width;
	int ret;

	if (nd_ctr_source_parse(f[0], &r.source))
		return perr(p, "unknown source or keyword '%s' (ethtool, pause, rdma, pma, drivers "
			    "or ibdevs)", f[0], NULL);
	p->map->sources |= ND_CTR_SRC(r.source);
	if (nf < 4)
		return perr(p, "a rule is SOURCE RAW-NAME CANONICAL WIDTH [FLAGS]; this line has "
			    "%s fields", nf == 2 ? "2" : "3", NULL);
	ret = pattern(p, f[1], &r);
	if (ret)
		return ret;
	r.key = raw_key(r.source, f[1]);
	info = nd_counter_info(f[2]);
	if (!info)
		return perr(p, "unknown canonical counter '%s' (nodrop-counters(8) lists them)",
			    f[2], NULL);
	r.info = (uint16_t)nd_ctr_info_index(info);
	if (info->per_prio != r.per_prio)
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
	char *f[MAP_FIELDS_MAX], *c = line;
	size_t nf = 0;

	/* fields split in place; '#' ends the line */
	for (;;) {
		while (*c == ' ' || *c == '\t' || *c == '\r')
			c++;
		if (!*c || *c == '#')
			break;
		if (nf == MAP_FIELDS_MAX)
			return perr(p, "more than 16 fields", NULL, NULL);
		f[nf++] = c;
		while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '#')
			c++;
		if (*c != '#' && *c)
			*c++ = '\0';
		else if (*c == '#') {
			*c = '\0';
			break;
		}
	}
	if (!nf)
		return 0;
	if (!strcmp(f[0], "drivers") || !strcmp(f[0], "ibdevs"))
		return p->headers ? header(p, f, nf) : 0;
	return p->rules ? rule(p, f, nf) : 0;
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
	if (!m->builtin)
		free(m->rules);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

/*
 * What a lazy open needs of a line it does not parse: its first field, ended where
 * parse_line() ends fields (a blank, a carriage return, '#', the end). Returns its length; 0
 * for a blank or comment line.
 */
static size_t first_field(const char *s, const char *end, const char **field)
{
	const char *f;

	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	for (f = s; s < end && *s != ' ' && *s != '\t' && *s != '\r' && *s != '#'; s++)
		;
	*field = f;
	return (size_t)(s - f);
}

static bool field_is(const char *f, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(f, word, len);
}

/*
 * A rule line's source, as a bit: what nd_ctr_select() matches against a port's sources before
 * it parses the rules. A first field that is no source is an error the parse will report, so
 * it claims every source: the map is parsed for any port it applies to.
 */
static unsigned int line_source(const char *f, size_t len)
{
	int i;

	for (i = 0; i < ND_CTR_SOURCES; i++)
		if (field_is(f, len, nd_ctr_source_name((enum nd_ctr_source)i)))
			return ND_CTR_SRC(i);
	return ND_CTR_SRC_ALL;
}

/* The lines of @text that @p takes; then what a map must have of them. */
static int parse_text(struct parse *p, const char *text)
{
	char line[MAP_LINE_MAX + 2];
	const char *s = text, *prev = NULL;
	size_t prev_len = 0;
	int ret = 0;

	while (*s && !ret) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		p->line++;
		/* a lazy open parses the drivers and ibdevs lines only, and notes each rule's source */
		if (!p->rules) {
			const char *f;
			size_t flen = first_field(s, s + len, &f);

			/* most lines repeat the source of the line before */
			if (flen && flen == prev_len && !memcmp(f, prev, flen)) {
				flen = 0;
			} else if (flen && !field_is(f, flen, "drivers") &&
				   !field_is(f, flen, "ibdevs")) {
				p->map->sources |= line_source(f, flen);
				prev = f;
				prev_len = flen;
				flen = 0;
			}
			if (!flen) {
				s += len + (s[len] == '\n');
				continue;
			}
		}
		if (p->line >= MAP_ORDER_STRIDE || len > MAP_LINE_MAX)
			return perr(p, p->line >= MAP_ORDER_STRIDE ? "too many lines" :
				    "line longer than 1024 characters", NULL, NULL);
		memcpy(line, s, len);
		line[len] = '\0';
		ret = parse_line(p, line);
		s += len + (s[len] == '\n');
	}
	if (!ret && p->headers && !p->map->n_drivers && !p->map->n_ibdevs) {
		p->line = 1;
		ret = perr(p, "no 'drivers' or 'ibdevs' line: the map would apply to no port",
			   NULL, NULL);
	}
	/* no rule line: parsed for any port it applies to, which then hears of it */
	if (!ret && !p->rules && !p->map->sources)
		p->map->sources = ND_CTR_SRC_ALL;
	if (!ret && p->rules && !p->map->n_rules) {
		p->line = 1;
		ret = perr(p, "no rule", NULL, NULL);
	}
	return ret;
}

/* A lazily opened map's rules, parsed once, when a port first selects it. */
static int map_rules(struct nd_ctr_map *m, struct nd_err *e)
{
	struct parse p = { .map = m, .base = m->base, .file = m->file, .e = e, .rules = true };
	int ret;

	if (!m->text)
		return 0;
	ret = parse_text(&p, m->text);
	if (ret) {
		free(m->rules);
		m->rules = NULL;
		m->n_rules = 0;
		return ret;
	}
	free(m->text);
	m->text = NULL;
	return 0;
}

/* @text becomes the map's (lazy) or is only read (all now). */
static int map_add(struct nd_ctr_maps *maps, const char *file, char *text, bool lazy,
		   struct nd_err *e)
{
	struct nd_ctr_map m = { .base = (maps->n + 1) * MAP_ORDER_STRIDE };
	struct parse p = { .map = &m, .base = m.base, .file = file, .e = e, .headers = true,
			   .rules = !lazy };
	struct nd_ctr_map *slot;
	int ret;

	nd_strlcpy(m.file, file, sizeof(m.file));
	ret = parse_text(&p, text);
	slot = ret ? NULL : nd_push((void **)&maps->v, &maps->n, sizeof(*slot));
	if (!ret && !slot)
		ret = nd_err_set(e, -ENOMEM, "out of memory reading %s", file);
	if (ret) {
		/* the caller frees the text it still owns */
		map_free(&m);
		return ret;
	}
	if (lazy)
		m.text = text;
	*slot = m;
	return 0;
}

int nd_ctr_map_parse(struct nd_ctr_maps *maps, const char *file, const char *text,
		     struct nd_err *e)
{
	return map_add(maps, file, (char *)text, false, e);
}

/* @name in the directory @dirfd, named @path in errors. */
static int read_file(int dirfd, const char *name, const char *path, char **out, struct nd_err *e)
{
	size_t len;
	int ret = nd_file_readat(dirfd, name, MAP_FILE_MAX, out, &len, NULL);

	if (ret == -E2BIG)
		return nd_err_set(e, -EFBIG, "%s: larger than 1 MiB: not a counter map", path);
	if (ret == -EISDIR || ret == -EINVAL)
		return nd_err_set(e, -EINVAL, "%s: not a regular file: not a counter map", path);
	if (ret)
		return nd_err_set(e, ret, "cannot open counter map %s: %s", path, strerror(-ret));
	if (strlen(*out) != len) {
		/* the caller frees nothing it did not get */
		free(*out);
		*out = NULL;
		return nd_err_set(e, -EINVAL, "%s: holds a NUL byte: not a counter map", path);
	}
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

/* Names of the *.map files in @dir, sorted; *@d stays open for reading them. @fix ends errors. */
static int list_maps(const char *dir, const char *fix, DIR **d, char ***names, size_t *n,
		     struct nd_err *e)
{
	struct dirent *de;
	int ret = 0;

	*names = NULL;
	*n = 0;
	*d = opendir(dir);
	if (!*d)
		return nd_err_set(e, -errno, "cannot read counter maps in %s: %s; %s", dir,
				  strerror(errno), fix);
	while ((de = readdir(*d)) && !ret)
		if (is_map(de->d_name) && nd_strv_push(names, n, de->d_name))
			ret = nd_err_set(e, -ENOMEM, "out of memory listing %s", dir);
	if (!ret && *n)
		qsort(*names, *n, sizeof(**names), name_cmp);
	return ret;
}

/* Every *.map file of @dir, in name order; none is no error here. @fix ends a listing error. */
static int maps_read(struct nd_ctr_maps *maps, const char *dir, bool lazy, const char *fix,
		     struct nd_err *e)
{
	char path[PATH_MAX], **names;
	DIR *d = NULL;
	size_t n, i;
	int ret;

	memset(maps, 0, sizeof(*maps));
	ret = list_maps(dir, fix, &d, &names, &n, e);
	for (i = 0; i < n && !ret; i++) {
		char *text = NULL;
		size_t had = maps->n;

		/* opened by name in the directory: no walk of its whole path per map */
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		ret = read_file(dirfd(d), names[i], path, &text, e);
		if (!ret)
			ret = map_add(maps, path, text, lazy, e);
		/* a lazy map keeps its text; every other path frees it */
		if (!lazy || ret || maps->n == had)
			free(text);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (d)
		closedir(d);
	if (ret)
		nd_ctr_maps_free(maps);
	return ret;
}

/* The directory named as the maps: it must hold one. */
static int maps_read_dir(struct nd_ctr_maps *maps, const char *dir, bool lazy, struct nd_err *e)
{
	int ret = maps_read(maps, dir, lazy, "set NODROP_COUNTER_MAPS or --maps to the directory "
			    "of *.map files", e);

	if (!ret && !maps->n)
		ret = nd_err_set(e, -ENOENT, "no counter map (*.map) in %s; set "
				 "NODROP_COUNTER_MAPS or --maps to the directory of the maps "
				 "nodrop ships", dir);
	return ret;
}

int nd_ctr_maps_load(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e)
{
	return maps_read_dir(maps, dir, false, e);
}

int nd_ctr_maps_open(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e)
{
	return maps_read_dir(maps, dir, true, e);
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

/* The site's *.map files of @dir over @maps (see counters.h). */
int nd_ctr_maps_overlay(struct nd_ctr_maps *maps, const char *dir, struct nd_err *e)
{
	struct nd_ctr_maps site;
	struct nd_ctr_map *slot;
	size_t had = maps->n, i, j;
	struct stat st;
	int ret;

	/* no site directory: nothing to lay over (one failed call, the common case) */
	if (stat(dir, &st) && errno == ENOENT)
		return 0;
	ret = maps_read(&site, dir, true, "the site's maps are the *.map files of that directory",
			e);
	for (i = 0; i < site.n && !ret; i++) {
		struct nd_ctr_map *m = &site.v[i];

		/* matched by file name (GNU basename: no copy, no change to its argument) */
		for (j = 0; j < had && strcmp(basename(maps->v[j].file), basename(m->file)); j++)
			;
		/*
		 * Moved over with the order of its place: that of the map it replaces, else after
		 * all of them; opened lazily, its rules take their order from it when parsed.
		 */
		if (j < had) {
			slot = &maps->v[j];
			m->base = slot->base;
			map_free(slot);
		} else {
			slot = nd_push((void **)&maps->v, &maps->n, sizeof(*slot));
			if (!slot) {
				ret = nd_err_set(e, -ENOMEM, "out of memory reading %s", m->file);
				break;
			}
			m->base = maps->n * MAP_ORDER_STRIDE;
		}
		*slot = *m;
		memset(m, 0, sizeof(*m));
	}
	nd_ctr_maps_free(&site);
	return ret;
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

int nd_ctr_select(struct nd_ctr_maps *maps, const char *const *drivers, size_t n_drivers,
		  const char *ibdev, unsigned int sources, struct nd_ctr_sel *sel,
		  struct nd_err *e)
{
	size_t i;
	int pass, ret;

	/* whole, so two selections compare with memcmp */
	memset(sel, 0, sizeof(*sel));
	/* a driver's own map before the generic ones, so it can override a generic name */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < maps->n && sel->n < ND_CTR_SEL_MAX; i++)
			if (!(maps->v[i].sources & sources))
				continue;
			else if (pass ? maps->v[i].any :
					!maps->v[i].any && map_applies(&maps->v[i], drivers,
									n_drivers, ibdev)) {
				ret = map_rules(&maps->v[i], e);
				if (ret)
					return ret;
				sel->map[sel->n++] = &maps->v[i];
			}
	return 0;
}

/* @raw, @len long, by @r; a lookup runs over every rule of the port's maps per raw name. */
static bool matches(const struct nd_ctr_rule *r, const char *raw, size_t len, int *prio)
{
	size_t pl = r->prefix_len;

	if (!r->per_prio)
		return len == pl && !memcmp(r->prefix, raw, len);
	if (len != pl + 1 + r->suffix_len || memcmp(raw, r->prefix, pl) ||
	    memcmp(raw + pl + 1, r->suffix, r->suffix_len))
		return false;
	if (raw[pl] < '0' || raw[pl] >= '0' + ND_PRIO_MAX)
		return false;
	*prio = raw[pl] - '0';
	return true;
}

const struct nd_ctr_rule *nd_ctr_lookup(const struct nd_ctr_sel *sel, enum nd_ctr_source src,
					const char *raw, int *prio)
{
	size_t m, i, len = strlen(raw);

	*prio = -1;
	for (m = 0; m < sel->n; m++) {
		const struct nd_ctr_map *map = sel->map[m];

		for (i = 0; i < map->n_rules; i++)
			if (map->rules[i].source == src && matches(&map->rules[i], raw, len, prio))
				return &map->rules[i];
	}
	*prio = -1;
	return NULL;
}
