// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for a directory of counter map files, as `nodrop counters --maps DIR`,
 * NODROP_COUNTER_MAPS and the site's /etc/nodrop/counters read it. The input is the files one
 * after another, each ended by a line "%%" (a shipped map alone is a directory of one); they are
 * written to a private directory and read by a full load, a lazy open with every map selected
 * as a port would, and as a site's maps laid over the built-in ones. Any bytes must load or be
 * refused with a negative errno and a message, leave nothing behind on refusal, and every rule
 * that loads must be found again by its raw name. ASan and UBSan watch every read and free.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/counters.h"
#include "fuzz_files.h"

#define FILES_MAX 8

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_dir_make("maps");
	return 0;
}

static void check_err(int ret, const struct nd_err *e, const struct nd_ctr_maps *maps)
{
	if (ret > 0 || (ret < 0 && (e->code != ret || !e->msg[0] || maps->n || maps->v)))
		abort();
}

/* The raw name @r maps, for priority 3 where it has one. */
static void raw_name(const struct nd_ctr_rule *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->prefix, r->per_prio ? "3" : "", r->per_prio ? r->suffix :
		 "");
}

/* Select each map as its first driver's (or ibdev's) port would; its rules must be found. */
static void select_each(struct nd_ctr_maps *maps)
{
	size_t n_infos, i, k;
	char raw[2 * ND_CTR_NAME_MAX + 4];
	struct nd_ctr_sel sel;
	struct nd_err e = { 0 };
	int ret, prio;
	bool in;

	nd_counter_infos(&n_infos);
	for (i = 0; i < maps->n; i++) {
		struct nd_ctr_map *m = &maps->v[i];
		const char *drv = m->n_drivers ? m->drivers[0] : NULL;
		const char *ibdev = m->n_ibdevs ? m->ibdevs[0] : NULL;

		ret = nd_ctr_select(maps, &drv, 1, ibdev, ND_CTR_SRC_ALL, &sel, &e);
		if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0])) || sel.n > ND_CTR_SEL_MAX)
			abort();
		if (ret)
			continue;
		for (k = 0, in = false; k < sel.n; k++)
			in |= sel.map[k] == m;
		for (k = 0; k < m->n_rules; k++) {
			const struct nd_ctr_rule *r = &m->rules[k];

			if (r->info >= n_infos || r->source >= ND_CTR_SOURCES ||
			    strlen(r->prefix) != r->prefix_len || strlen(r->suffix) != r->suffix_len)
				abort();
			raw_name(r, raw, sizeof(raw));
			/* an earlier map or alias may own the name; some rule must */
			if (in && !nd_ctr_lookup(&sel, r->source, raw, &prio))
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*const readers[])(struct nd_ctr_maps *, const char *, struct nd_err *) = {
		nd_ctr_maps_load, nd_ctr_maps_open,
	};
	struct nd_ctr_maps maps;
	struct nd_err e;
	size_t i;
	int ret;

	fuzz_files(data, size, "f%zu.map", FILES_MAX);
	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		memset(&e, 0, sizeof(e));
		ret = readers[i](&maps, fuzz_dir, &e);
		check_err(ret, &e, &maps);
		if (!ret) {
			select_each(&maps);
			nd_ctr_maps_free(&maps);
		}
	}
	/* a site's maps over the built-in ones, as a plain `nodrop counters` reads them */
	memset(&e, 0, sizeof(e));
	if (nd_ctr_maps_builtin(&maps, &e))
		abort();
	ret = nd_ctr_maps_overlay(&maps, fuzz_dir, &e);
	if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0])))
		abort();
	if (!ret)
		select_each(&maps);
	nd_ctr_maps_free(&maps);
	return 0;
}
