// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The key-table engine: parse a YAML mapping against a table of keys (struct pkey), calling
 * each key's parser, refusing duplicates, and answering an unknown key with "did you mean"
 * from the same table or anywhere in the schema (c->schema). It knows no key of its own.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "profile_int.h"

/* "did you mean": a near key in the same mapping, else the same key elsewhere in the schema. */
static bool find_path(const struct pkey *table, const char *prefix, const char *name, char *buf,
		      size_t size)
{
	char path[128];
	size_t i;

	for (i = 0; table[i].name; i++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", table[i].name);
		if (!strcmp(table[i].name, name)) {
			nd_strlcpy(buf, path, size);
			return true;
		}
		if (table[i].sub && find_path(table[i].sub, path, name, buf, size))
			return true;
	}
	return false;
}

static int unknown_key(struct pctx *c, const struct nd_ynode *key, const struct pkey *table,
		       const char *parent)
{
	unsigned int best = 99, d, i;
	char list[256], guess[128];
	size_t len = 0;

	for (i = 0; table[i].name; i++) {
		d = strcasecmp(key->str, table[i].name) ? pv_distance(key->str, table[i].name) : 0;
		if (d < best && d <= (strlen(table[i].name) > 4 ? 2u : 1u)) {
			best = d;
			snprintf(guess, sizeof(guess), "%s%s%s", parent, *parent ? "." : "",
				 table[i].name);
		}
	}
	if (best != 99 || find_path(c->schema, "", key->str, guess, sizeof(guess)))
		return pv_err(c, key, "unknown key; did you mean %s?", guess);
	list[0] = '\0';
	for (i = 0; table[i].name && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : table[i + 1].name ? ", " : " or ", table[i].name);
	return pv_err(c, key, "unknown key; %s takes %s", *parent ? parent : "a profile", list);
}

int pk_parse_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *table)
{
	const struct nd_ynode *seen[PKEYS_MAX] = { NULL };
	const char *parent = c->path, *parent_ex = c->example;
	char path[128], shown[40], desc[64];
	size_t i, k;
	int ret;

	ret = pv_type(c, v, ND_Y_MAP);
	for (k = 0; !ret && k + 1 < v->n; k += 2) {
		const struct nd_ynode *key = v->kids[k];

		if (key->type != ND_Y_SCALAR || !key->len || strlen(key->str) != key->len)
			return pv_err(c, key, "keys must be words, got %s; write it like %s",
				      nd_yaml_desc(key, desc, sizeof(desc)), c->example);
		for (i = 0; table[i].name && !nd_yaml_is(key, table[i].name); i++)
			;
		snprintf(path, sizeof(path), "%s%s%s", parent, *parent ? "." : "",
			 nd_yaml_shown(key->str, key->len, shown, sizeof(shown)));
		c->path = path;
		if (!table[i].name) {
			ret = unknown_key(c, key, table, parent);
		} else if (seen[i]) {
			ret = pv_err(c, key, "duplicate key (first at line %u); give each key once",
				     seen[i]->line);
		} else {
			seen[i] = key;
			c->example = table[i].example;
			ret = table[i].parse(c, v->kids[k + 1], &table[i]);
		}
		c->path = parent;
		c->example = parent_ex;
	}
	return ret;
}

int pk_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	return pk_parse_table(c, v, k->sub);
}
