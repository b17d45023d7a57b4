// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profiles: the desired lossless state of a port, from YAML (see nodrop-profile(5)). The schema is
 * a tree of key tables; each key names its field, its parser and where the value goes. Parsing
 * touches no system state: a profile is read, checked whole and returned, or nothing is.
 *
 * This file owns the whole profile: the extends chain (each file's parent first, its own keys
 * over that), the checks across keys once the chain is in, and the entry points. Below it:
 * the schema (profile_schema.c and the sections' files), the key-table engine
 * (profile_table.c), the key and value parsers (profile_keys.c, profile_value.c) and file
 * reading (profile_file.c), which share profile_int.h and call nothing here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "profile_int.h"

#define LOC_FILE_MAX sizeof(((struct nd_loc *)0)->file)

/* ---- the extends chain ---- */

static int apply_buf(struct pctx *c, const char *buf, size_t len);

static int cycle(struct pctx *c, const struct nd_ynode *v, const char *path)
{
	const struct pctx *chain[ND_PROFILE_MAX_DEPTH + 1], *a;
	char list[ND_ERR_MSG_MAX];
	size_t n = 0, len = 0;

	for (a = c; a && n < ND_ARRAY_SIZE(chain); a = a->child)
		chain[n++] = a;
	list[0] = '\0';
	while (n-- && len < sizeof(list))
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s -> ", chain[n]->file);
	return pv_err(c, v, "%s is already in the chain (%s%s); remove the cycle", path, list,
		      path);
}

static int extend(struct pctx *c, const struct nd_ynode *v)
{
	char path[LOC_FILE_MAX], dir[LOC_FILE_MAX], why[256];
	struct pctx parent;
	const struct pctx *a;
	struct stat st;
	const char *s;
	size_t len;
	char *buf;
	int ret, n;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	if (!c->dir)
		return pv_err(c, v, "this profile was not read from a file, so %s cannot be found; "
			      "load the profile from its file", s);
	if (c->depth >= ND_PROFILE_MAX_DEPTH)
		return pv_err(c, v, "more than %d levels of extends; flatten the chain",
			      ND_PROFILE_MAX_DEPTH);
	if (s[0] == '/' || !c->dir[0])
		n = snprintf(path, sizeof(path), "%s", s);
	else
		n = snprintf(path, sizeof(path), "%s/%s", c->dir, s);
	if (n < 0 || (size_t)n >= sizeof(path))
		return pv_err(c, v, "the path is over %zu characters; move the profiles closer",
			      sizeof(path) - 1);
	ret = pf_slurp(path, &buf, &len, &st, why, sizeof(why));
	if (ret)
		return nd_err_set(c->e, ret, "%s:%u:%u: extends: %s: %s; %s", c->file, v->line,
				  v->col, path, why, pf_file_fix(ret, true));
	for (a = c; a; a = a->child) {
		if (a->have_ino && a->dev == st.st_dev && a->ino == st.st_ino) {
			free(buf);
			return cycle(c, v, path);
		}
	}
	nd_path_dir(path, dir, sizeof(dir));
	parent = (struct pctx){
		.file = path, .dir = dir, .child = c, .depth = c->depth + 1, .have_ino = true,
		.dev = st.st_dev, .ino = st.st_ino, .p = c->p, .e = c->e, .schema = c->schema,
		.path = "",
	};
	ret = apply_buf(&parent, buf, len);
	free(buf);
	return ret;
}

/* Parse one file of the chain into c->p: what it extends first, then its own keys over that. */
static int apply_buf(struct pctx *c, const char *buf, size_t len)
{
	const struct nd_ynode *ext = NULL;
	struct nd_ynode *root;
	char desc[64];
	size_t i;
	int ret;

	ret = nd_yaml_load(buf ? buf : "", buf ? len : 0, c->file, &root, c->e);
	if (ret)
		return ret;
	c->path = "";
	c->example = "mtu: 9000";
	if (!root || (root->type == ND_Y_SCALAR && root->plain && !root->len) ||
	    (root->type == ND_Y_MAP && !root->n))
		ret = nd_err_set(c->e, -EINVAL, "%s:1:1: empty profile; give at least one key, "
				 "like mtu: 9000 (see nodrop-profile(5))", c->file);
	else if (root->type != ND_Y_MAP)
		ret = pv_err(c, root, "a profile is a mapping of keys, got %s; start with a key "
			     "like mtu: 9000", nd_yaml_desc(root, desc, sizeof(desc)));
	for (i = 0; !ret && !ext && i + 1 < root->n; i += 2)
		if (nd_yaml_is(root->kids[i], "extends"))
			ext = root->kids[i + 1];
	if (ext) {
		c->path = "extends";
		c->example = "extends: base.yaml";
		ret = extend(c, ext);
		c->path = "";
		c->example = "mtu: 9000";
	}
	if (!ret)
		ret = pk_parse_table(c, root, c->schema);
	nd_yaml_free(root);
	return ret;
}

/* ---- the whole profile ---- */

/* Checks across keys, once the whole chain is in: values may come from different files. */
static int validate(struct pctx *c)
{
	const struct nd_profile *p = c->p;
	char tcs[32] = "", from[300] = "";
	enum nd_field at, other;
	unsigned int sum = 0, tc;
	size_t len = 0;

	if (!(p->set & (1u << ND_F_ETS_TSA)) || !(p->set & (1u << ND_F_ETS_BW)))
		return 0;
	for (tc = 0; tc < ND_PRIO_MAX; tc++) {
		if (p->tc_tsa[tc] != IEEE_8021QAZ_TSA_ETS)
			continue;
		sum += p->tc_bw[tc];
		len += (size_t)snprintf(tcs + len, sizeof(tcs) - len, "%s%u", len ? "," : "", tc);
	}
	if (!len || sum == 100)
		return 0;
	/*
	 * The two halves may come from different files of the chain: point at the one the top
	 * file gave (what was just edited) and name the other.
	 */
	at = ND_F_ETS_BW;
	other = ND_F_ETS_TSA;
	if (!strcmp(p->loc[other].file, c->file) && strcmp(p->loc[at].file, c->file)) {
		at = ND_F_ETS_TSA;
		other = ND_F_ETS_BW;
	}
	if (strcmp(p->loc[at].file, p->loc[other].file))
		snprintf(from, sizeof(from), " (%s from %s:%u:%u)", nd_field_key(other),
			 p->loc[other].file, p->loc[other].line, p->loc[other].col);
	c->path = nd_field_key(at);
	return pv_err_at(c, &p->loc[at], "the TCs with tsa ets (%s) get %u%% in all%s; their "
			 "bandwidth must sum to 100", tcs, sum, from);
}

static void profile_init(struct nd_profile *p)
{
	int d;

	memset(p, 0, sizeof(*p));
	for (d = 0; d < ND_DSCP_MAX; d++)
		p->dscp2prio[d] = -1;
}

/* The top file: its name (or its file name without .yaml) and the checks across keys. */
static int finish(struct pctx *c)
{
	struct nd_profile *p = c->p;

	if (!c->named)
		nd_path_stem(c->file, p->name, sizeof(p->name));
	nd_strlcpy(p->origin.file, c->file, sizeof(p->origin.file));
	return validate(c);
}

int nd_profile_parse(const char *buf, size_t len, const char *name, const char *dir,
		     struct nd_profile *p, struct nd_err *e)
{
	struct pctx c = {
		.file = name ? name : "<profile>", .dir = dir, .p = p, .e = e,
		.schema = pk_top_keys,
	};
	int ret;

	profile_init(p);
	if (strlen(c.file) >= LOC_FILE_MAX)
		ret = nd_err_set(e, -ENAMETOOLONG, "%.64s...: the name is over %zu characters; "
				 "use a shorter one", c.file, LOC_FILE_MAX - 1);
	else if (len > ND_PROFILE_MAX_BYTES)
		ret = nd_err_set(e, -E2BIG, "%s: is %zu bytes, over the %d-byte limit for a "
				 "profile; a profile is a few kilobytes of YAML", c.file, len,
				 ND_PROFILE_MAX_BYTES);
	else
		ret = apply_buf(&c, buf, len);
	if (!ret)
		ret = finish(&c);
	if (ret)
		nd_profile_free(p);
	return ret;
}

int nd_profile_load(const char *path, struct nd_profile *p, struct nd_err *e)
{
	struct pctx c = { .file = path, .p = p, .e = e, .schema = pk_top_keys };
	char dir[LOC_FILE_MAX], why[256];
	struct stat st;
	size_t len;
	char *buf;
	int ret;

	profile_init(p);
	if (strlen(path) >= LOC_FILE_MAX) {
		ret = nd_err_set(e, -ENAMETOOLONG, "%.64s...: the path is over %zu characters; "
				 "move the profile closer", path, LOC_FILE_MAX - 1);
		nd_profile_free(p);
		return ret;
	}
	ret = pf_slurp(path, &buf, &len, &st, why, sizeof(why));
	if (ret) {
		nd_err_set(e, ret, "%s: %s; %s", path, why, pf_file_fix(ret, false));
		nd_profile_free(p);
		return ret;
	}
	nd_path_dir(path, dir, sizeof(dir));
	c.dir = dir;
	c.have_ino = true;
	c.dev = st.st_dev;
	c.ino = st.st_ino;
	ret = apply_buf(&c, buf, len);
	free(buf);
	if (!ret)
		ret = finish(&c);
	if (ret)
		nd_profile_free(p);
	return ret;
}

void nd_profile_free(struct nd_profile *p)
{
	if (!p)
		return;
	pk_match_free(&p->match);
	memset(p, 0, sizeof(*p));
}
