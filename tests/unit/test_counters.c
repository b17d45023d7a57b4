// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The canonical counter model, the map file format, the maps built in and a site's laid over
 * them. The shipped maps against fixture name lists of each driver family:
 * test_counters_drivers.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_counters.h"
#include "unit.h"

const char *unit_counter_maps(void)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/../../data/counters", unit_fixtures());
	return dir;
}

void unit_counter_root(const char *name)
{
	char path[PATH_MAX];

	if (name) {
		snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
		setenv("NODROP_SYSROOT", path, 1);
	} else {
		unsetenv("NODROP_SYSROOT");
	}
	nd_sysroot_reset();
}

/* ---- the model ---- */

START_TEST(infos_are_well_formed)
{
	static const char *const units[] = { "frames", "us", "packets", "bytes", "events", "ticks",
					     "operations" };
	const struct nd_counter_info *v;
	size_t n, i, j, u;

	v = nd_counter_infos(&n);
	ck_assert_uint_ge(n, 60);
	ck_assert_ptr_null(v[n].name);
	for (i = 0; i < n; i++) {
		const char *s = v[i].name;

		ck_assert_msg(*s >= 'a' && *s <= 'z', "%s starts with a letter", s);
		for (; *s; s++)
			ck_assert_msg((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
				      *s == '_', "%s is snake_case", v[i].name);
		ck_assert_uint_lt(strlen(v[i].name), ND_CTR_NAME_MAX);
		for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (!strcmp(v[i].unit, units[u]))
				break;
		ck_assert_msg(u < sizeof(units) / sizeof(units[0]), "%s unit %s", v[i].name,
			      v[i].unit);
		ck_assert_uint_gt(strlen(v[i].help), 10);
		ck_assert_ptr_null(strchr(v[i].help, '\n'));
		for (j = 0; j < i; j++)
			ck_assert_str_ne(v[i].name, v[j].name);
		ck_assert_ptr_eq(nd_counter_info(v[i].name), &v[i]);
	}
	ck_assert(nd_counter_info("pfc_rx_frames")->per_prio);
	ck_assert(!nd_counter_info("pause_rx_frames")->per_prio);
	ck_assert(nd_counter_info("rx_no_wqe_discards")->loss);
	ck_assert(!nd_counter_info("cnp_sent")->loss);
	ck_assert_str_eq(nd_counter_info("ib_xmit_wait")->unit, "ticks");
	ck_assert_ptr_null(nd_counter_info("rx_prio3_pause"));
}
END_TEST

/* nodrop-counters(8) documents every canonical name, with its unit. */
START_TEST(man_page_lists_every_name)
{
	const struct nd_counter_info *v;
	char path[PATH_MAX], want[160], *man;
	size_t n, i;

	snprintf(path, sizeof(path), "%s/../../man/nodrop-counters.8", unit_fixtures());
	man = unit_read_file(path);
	v = nd_counter_infos(&n);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "\n.BR %s \" (%s%s", v[i].name,
			 v[i].per_prio ? "per priority, " : "", v[i].unit);
		ck_assert_msg(strstr(man, want) != NULL, "nodrop-counters.8 lacks '%s'", want + 1);
	}
	free(man);
}
END_TEST

/* ---- the map format ---- */

static const struct {
	const char *text;
	const char *error;	/* NULL: parses */
} map_cases[] = {
	{ "drivers x\n# comment\n\nethtool a rx_bytes 64   # trailing\nrdma a rx_bytes 64\n",
	  NULL },
	{ "ibdevs rxe\nrdma a{p}b pfc_rx_frames 64\n", NULL },
	{ "drivers x\nfoo a b 64\n", "t.map:2: unknown source or keyword 'foo'" },
	{ "drivers x\nethtool a nosuch 64\n", "t.map:2: unknown canonical counter 'nosuch'" },
	{ "drivers x\nethtool a pfc_rx_frames 64\n", "t.map:2: 'pfc_rx_frames' is per priority" },
	{ "drivers x\nethtool a{p} rx_bytes 64\n", "t.map:2: 'rx_bytes' is not per priority" },
	{ "drivers x\nethtool a rx_bytes 65\n", "t.map:2: width '65' is not a number of bits" },
	{ "drivers x\nethtool a rx_bytes 0x20\n", "t.map:2: width '0x20'" },
	{ "drivers x\nethtool a rx_bytes 64 bogus\n", "t.map:2: unknown flag 'bogus'" },
	{ "drivers x\nethtool a rx_bytes 64 scale=0\n", "t.map:2: unknown flag 'scale=0'" },
	{ "drivers x\nethtool a rx_bytes 32 sum\n", "t.map:2: 'sum' needs width 64" },
	{ "drivers x\nethtool a rx_bytes 64 sat\n", "t.map:2: 'sat' needs a width below 64" },
	{ "drivers x\nethtool a rx_bytes 32 scale=4\n", "t.map:2: 'scale=' needs width 64" },
	{ "drivers x\nethtool a rx_bytes 64\nethtool a tx_bytes 64\n",
	  "t.map:3: this raw name is already mapped on line 2" },
	{ "drivers x\nethtool a rx_bytes 64 sum\nethtool b rx_bytes 64\n",
	  "t.map:3: 'sum' must be on every line for rx_bytes or on none (see line 2)" },
	{ "ethtool a rx_bytes 64\n", "t.map:1: no 'drivers' or 'ibdevs' line" },
	{ "drivers x\n", "t.map:1: no rule" },
	{ "drivers x\nethtool a{p}{p} pfc_rx_frames 64\n", "t.map:2: raw name 'a{p}{p}': {p} may" },
	{ "drivers x\nethtool a{q} rx_bytes 64\n",
	  "t.map:2: raw name 'a{q}': the only placeholder" },
	{ "drivers x\nethtool a rx_bytes\n", "t.map:2: a rule is SOURCE RAW-NAME CANONICAL WIDTH" },
	{ "drivers\n", "t.map:1: 'drivers' needs at least one name" },
	{ "drivers x\nethtool aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
	  "rx_bytes 64\n", "t.map:2: raw name 'aaaa" },
};

START_TEST(map_format)
{
	struct nd_ctr_maps maps = { 0 };
	struct nd_err e = { 0 };
	int ret = nd_ctr_map_parse(&maps, "t.map", map_cases[_i].text, &e);

	if (!map_cases[_i].error) {
		ck_assert_msg(!ret, "case %d: %s", _i, e.msg);
		ck_assert_uint_eq(maps.n, 1);
	} else {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_msg(!strncmp(e.msg, map_cases[_i].error, strlen(map_cases[_i].error)),
			      "case %d: got '%s', want '%s...'", _i, e.msg, map_cases[_i].error);
		ck_assert_uint_eq(maps.n, 0);
	}
	nd_ctr_maps_free(&maps);
}
END_TEST

START_TEST(map_long_line)
{
	struct nd_ctr_maps maps = { 0 };
	struct nd_err e = { 0 };
	char text[2100];

	memset(text, ' ', sizeof(text));
	memcpy(text, "drivers x\n#", 11);
	text[sizeof(text) - 1] = '\0';
	ck_assert_int_eq(nd_ctr_map_parse(&maps, "t.map", text, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "t.map:2: line longer than 1024 characters");
}
END_TEST

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(maps_dir_errors)
{
	char dir[] = "/tmp/nd-maps-XXXXXX", path[PATH_MAX];
	struct nd_ctr_maps maps;
	struct nd_err e = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "no counter map (*.map) in "));
	/* only *.map files count; the first bad line of the first bad file is named */
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	write_file(path, "not a map\n");
	snprintf(path, sizeof(path), "%s/a.map", dir);
	write_file(path, "drivers x\nethtool a rx_bytes 64\n");
	snprintf(path, sizeof(path), "%s/b.map", dir);
	write_file(path, "drivers y\n\nethtool b rx_byte 64\n");
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), -EINVAL);
	ck_assert_str_eq(strstr(e.msg, "/b.map:"), "/b.map:3: unknown canonical counter 'rx_byte' "
			 "(nodrop-counters(8) lists them)");
	ck_assert_uint_eq(maps.n, 0);
	unlink(path);
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), 0);
	ck_assert_uint_eq(maps.n, 1);
	nd_ctr_maps_free(&maps);
	snprintf(path, sizeof(path), "%s/a.map", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	unlink(path);
	rmdir(dir);
	ck_assert_int_eq(nd_ctr_maps_load(&maps, "/nonexistent/nd", &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "NODROP_COUNTER_MAPS"));
}
END_TEST

/*
 * A map holding a NUL byte is refused by name, by a full load and a lazy open alike, and its
 * text is freed once (it was freed on the error path and again by the directory reader).
 */
START_TEST(maps_nul_byte)
{
	static const char text[] = "drivers x\nethtool a\0 rx_bytes 64\n";
	char dir[] = "/tmp/nd-maps-XXXXXX", path[PATH_MAX];
	struct nd_ctr_maps maps;
	struct nd_err e = { 0 };
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.map", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, sizeof(text) - 1, f), sizeof(text) - 1);
	fclose(f);
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), -EINVAL);
	ck_assert_str_eq(strstr(e.msg, "/a.map:"), "/a.map: holds a NUL byte: not a counter map");
	ck_assert_uint_eq(maps.n, 0);
	ck_assert_int_eq(nd_ctr_maps_open(&maps, dir, &e), -EINVAL);
	ck_assert_uint_eq(maps.n, 0);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * A lazy open reads each map's drivers line only; a map's rules are parsed when a port first
 * selects it, with the same errors, and never for a port it does not apply to. A map with no
 * drivers or ibdevs line is refused at open, as by a full load.
 */
START_TEST(maps_open_lazily)
{
	static const char *const x[] = { "x" }, *const y[] = { "y" };
	char dir[] = "/tmp/nd-maps-XXXXXX", a[PATH_MAX], b[PATH_MAX];
	struct nd_ctr_maps maps;
	struct nd_ctr_sel sel;
	struct nd_err e = { 0 };
	int prio;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.map", dir);
	write_file(a, "drivers x\nethtool a rx_nobuf_discards 64\n");
	snprintf(b, sizeof(b), "%s/b.map", dir);
	write_file(b, "drivers y\n\nethtool b rx_byte 64\n");
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), -EINVAL);
	ck_assert_msg(!nd_ctr_maps_open(&maps, dir, &e), "%s", e.msg);
	ck_assert_uint_eq(maps.n, 2);
	ck_assert_uint_eq(maps.v[0].n_rules + maps.v[1].n_rules, 0);
	ck_assert_int_eq(nd_ctr_select(&maps, x, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), 0);
	ck_assert_uint_eq(sel.n, 1);
	ck_assert_uint_eq(maps.v[0].n_rules, 1);
	ck_assert_ptr_null(maps.v[0].text);
	ck_assert_ptr_nonnull(maps.v[1].text);		/* y's map: not needed, not parsed */
	ck_assert_ptr_nonnull(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "a", &prio));
	ck_assert_int_eq(nd_ctr_select(&maps, y, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), -EINVAL);
	ck_assert_str_eq(strstr(e.msg, "/b.map:"), "/b.map:3: unknown canonical counter 'rx_byte' "
			 "(nodrop-counters(8) lists them)");
	/* and again: a broken map stays broken, the same words */
	ck_assert_int_eq(nd_ctr_select(&maps, y, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:3: unknown canonical counter"));
	nd_ctr_maps_free(&maps);
	write_file(b, "# nothing but rules\nethtool b rx_nobuf_discards 64\n");
	ck_assert_int_eq(nd_ctr_maps_open(&maps, dir, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:1: no 'drivers' or 'ibdevs' line"));
	/* a header's word ends where the full parse ends a field: the same error either way */
	write_file(b, "\tdrivers# none\nethtool b rx_nobuf_discards 64\n");
	ck_assert_int_eq(nd_ctr_maps_open(&maps, dir, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:1: 'drivers' needs at least one name"));
	ck_assert_int_eq(nd_ctr_maps_load(&maps, dir, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:1: 'drivers' needs at least one name"));
	/*
	 * A "*" map is selected for a port only with a source its rules read: one of pause
	 * rules, broken, is not parsed (and not reported) for a port read by ethtool alone; a
	 * line that is no source counts as every source, so its error reaches every port.
	 */
	write_file(b, "drivers *\npause b rx_byte 64\n");
	ck_assert_msg(!nd_ctr_maps_open(&maps, dir, &e), "%s", e.msg);
	ck_assert_uint_eq(maps.v[1].sources, ND_CTR_SRC(ND_CTR_PAUSE));
	ck_assert_int_eq(nd_ctr_select(&maps, x, 1, NULL, ND_CTR_SRC(ND_CTR_ETHTOOL), &sel, &e),
			 0);
	ck_assert_uint_eq(sel.n, 1);
	ck_assert_ptr_nonnull(maps.v[1].text);
	ck_assert_int_eq(nd_ctr_select(&maps, x, 1, NULL, ND_CTR_SRC(ND_CTR_ETHTOOL) |
				       ND_CTR_SRC(ND_CTR_PAUSE), &sel, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:2: unknown canonical counter 'rx_byte'"));
	nd_ctr_maps_free(&maps);
	write_file(b, "drivers *\n pma b ib_xmit_wait 32 # the PMA\nrxpause b rx_byte 64\n");
	ck_assert_msg(!nd_ctr_maps_open(&maps, dir, &e), "%s", e.msg);
	ck_assert_uint_eq(maps.v[1].sources, ND_CTR_SRC_ALL);
	ck_assert_int_eq(nd_ctr_select(&maps, x, 1, NULL, ND_CTR_SRC(ND_CTR_ETHTOOL), &sel, &e),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:3: unknown source or keyword 'rxpause'"));
	nd_ctr_maps_free(&maps);
	/* a map of no rule is parsed for any port it applies to, and says so */
	write_file(b, "drivers *\n# nothing else\n");
	ck_assert_msg(!nd_ctr_maps_open(&maps, dir, &e), "%s", e.msg);
	ck_assert_int_eq(nd_ctr_select(&maps, x, 1, NULL, ND_CTR_SRC(ND_CTR_RDMA), &sel, &e),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/b.map:1: no rule"));
	nd_ctr_maps_free(&maps);
	unlink(a);
	unlink(b);
	rmdir(dir);
}
END_TEST

static void same_names(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++)
		ck_assert_str_eq(a[i], b[i]);
}

/*
 * The tables compiled in are the shipped files as the parser reads them, field by field, and
 * select as a lazy open of the files does (its sources per map).
 */
START_TEST(builtin_maps_are_the_files)
{
	struct nd_ctr_maps bin, files, lazy;
	struct nd_err e = { 0 };
	size_t i, j;

	ck_assert_msg(!nd_ctr_maps_builtin(&bin, &e), "%s", e.msg);
	ck_assert_msg(!nd_ctr_maps_load(&files, unit_counter_maps(), &e), "%s", e.msg);
	ck_assert_msg(!nd_ctr_maps_open(&lazy, unit_counter_maps(), &e), "%s", e.msg);
	ck_assert_uint_eq(bin.n, files.n);
	for (i = 0; i < bin.n; i++) {
		const struct nd_ctr_map *b = &bin.v[i], *f = &files.v[i];

		ck_assert_str_eq(b->file, basename(f->file));
		same_names(b->drivers, b->n_drivers, f->drivers, f->n_drivers);
		same_names(b->ibdevs, b->n_ibdevs, f->ibdevs, f->n_ibdevs);
		ck_assert_int_eq(b->any, f->any);
		ck_assert_uint_eq(b->sources, f->sources);
		ck_assert_uint_eq(b->sources, lazy.v[i].sources);
		ck_assert_uint_eq(b->base, f->base);
		ck_assert_ptr_null(b->text);
		ck_assert_uint_eq(b->n_rules, f->n_rules);
		for (j = 0; j < b->n_rules; j++) {
			const struct nd_ctr_rule *x = &b->rules[j], *y = &f->rules[j];

			ck_assert_int_eq(x->source, y->source);
			ck_assert_str_eq(x->prefix, y->prefix);
			ck_assert_str_eq(x->suffix, y->suffix);
			ck_assert_int_eq(x->per_prio, y->per_prio);
			ck_assert_uint_eq(x->prefix_len, y->prefix_len);
			ck_assert_uint_eq(x->suffix_len, y->suffix_len);
			ck_assert_uint_eq(x->info, y->info);
			ck_assert_uint_eq(x->width, y->width);
			ck_assert_int_eq(x->saturates, y->saturates);
			ck_assert_int_eq(x->sum, y->sum);
			ck_assert_uint_eq(x->scale, y->scale);
			ck_assert_uint_eq(x->line, y->line);
			ck_assert_uint_eq(x->order, y->order);
			ck_assert_uint_eq(x->key, y->key);
		}
	}
	nd_ctr_maps_free(&bin);
	nd_ctr_maps_free(&files);
	nd_ctr_maps_free(&lazy);
}
END_TEST

/* A site's files over the built-in maps: one replaces its namesake in place, others are added. */
START_TEST(site_maps_overlay)
{
	char dir[] = "/tmp/nd-site-XXXXXX", path[PATH_MAX];
	const char *const mlx5[] = { "mlx5_core" }, *const site[] = { "sitenic" };
	struct nd_ctr_maps maps;
	struct nd_ctr_sel sel;
	struct nd_err e = { 0 };
	unsigned long base = 0;
	size_t i, n;
	int prio;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* no directory: the built-in maps alone */
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_msg(!nd_ctr_maps_default(&maps, path, &e), "%s", e.msg);
	n = maps.n;
	for (i = 0; i < n; i++)
		if (!strcmp(maps.v[i].file, "mlx5.map"))
			base = maps.v[i].base;
	ck_assert_uint_gt(base, 0);
	nd_ctr_maps_free(&maps);

	snprintf(path, sizeof(path), "%s/mlx5.map", dir);
	write_file(path, "drivers mlx5_core\nethtool rx_site_pause pause_rx_frames 64\n");
	snprintf(path, sizeof(path), "%s/zz.map", dir);
	write_file(path, "drivers sitenic\nethtool site_pfc{p} pfc_rx_frames 64\n");
	ck_assert_msg(!nd_ctr_maps_default(&maps, dir, &e), "%s", e.msg);
	ck_assert_uint_eq(maps.n, n + 1);
	for (i = 0; i < n; i++)
		if (strstr(maps.v[i].file, "/mlx5.map"))
			break;
	ck_assert_uint_lt(i, n);
	ck_assert_uint_eq(maps.v[i].base, base);
	ck_assert_ptr_nonnull(strstr(maps.v[n].file, "/zz.map"));
	ck_assert_uint_gt(maps.v[n].base, maps.v[n - 1].base);
	ck_assert_msg(!nd_ctr_select(&maps, mlx5, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), "%s", e.msg);
	ck_assert_ptr_nonnull(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_site_pause", &prio));
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio3_pause", &prio));
	ck_assert_msg(!nd_ctr_select(&maps, site, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), "%s", e.msg);
	ck_assert_ptr_nonnull(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "site_pfc5", &prio));
	ck_assert_int_eq(prio, 5);
	nd_ctr_maps_free(&maps);

	/* NODROP_COUNTER_MAPS names the one directory read: the built-in maps are left out */
	setenv("NODROP_COUNTER_MAPS", dir, 1);
	ck_assert_msg(!nd_ctr_maps_default(&maps, "/nonexistent", &e), "%s", e.msg);
	ck_assert_uint_eq(maps.n, 2);
	nd_ctr_maps_free(&maps);
	unsetenv("NODROP_COUNTER_MAPS");

	/* a bad site map is named with its line, and nothing is kept */
	write_file(path, "ethtool site_pfc{p} pfc_rx_frames 64\n");
	ck_assert_int_eq(nd_ctr_maps_default(&maps, dir, &e), -EINVAL);
	ck_assert_str_eq(strstr(e.msg, "/zz.map:"), "/zz.map:1: no 'drivers' or 'ibdevs' line: "
			 "the map would apply to no port");
	ck_assert_uint_eq(maps.n, 0);
	/* a replacement's rules are parsed when a port selects it, and a bad one fails then */
	write_file(path, "drivers sitenic\nethtool x rx_byte 64\n");
	ck_assert_msg(!nd_ctr_maps_default(&maps, dir, &e), "%s", e.msg);
	ck_assert_int_eq(nd_ctr_select(&maps, site, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), -EINVAL);
	ck_assert_str_eq(strstr(e.msg, "/zz.map:"), "/zz.map:2: unknown canonical counter "
			 "'rx_byte' (nodrop-counters(8) lists them)");
	nd_ctr_maps_free(&maps);

	/* a site path that is not a directory */
	unlink(path);
	snprintf(path, sizeof(path), "%s/mlx5.map", dir);
	ck_assert_int_eq(nd_ctr_maps_default(&maps, path, &e), -ENOTDIR);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot read counter maps in "));
	ck_assert_ptr_nonnull(strstr(e.msg, "the site's maps are the *.map files"));
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(shipped_maps_load)
{
	struct nd_ctr_maps maps;
	struct nd_err e = { 0 };
	size_t i, j, rules = 0, n_infos;

	nd_counter_infos(&n_infos);
	ck_assert_msg(!nd_ctr_maps_load(&maps, unit_counter_maps(), &e), "%s", e.msg);
	ck_assert_uint_eq(maps.n, 6);
	for (i = 0; i < maps.n; i++) {
		ck_assert(maps.v[i].n_drivers || maps.v[i].n_ibdevs);
		for (j = 0; j < maps.v[i].n_rules; j++)
			ck_assert_uint_lt(maps.v[i].rules[j].info, n_infos);
		rules += maps.v[i].n_rules;
	}
	ck_assert_uint_gt(rules, 150);
	nd_ctr_maps_free(&maps);
}
END_TEST

Suite *suite_counters(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("model");

	tcase_add_test(tc, infos_are_well_formed);
	tcase_add_test(tc, man_page_lists_every_name);
	tcase_add_loop_test(tc, map_format, 0, (int)(sizeof(map_cases) / sizeof(map_cases[0])));
	tcase_add_test(tc, map_long_line);
	tcase_add_test(tc, maps_dir_errors);
	tcase_add_test(tc, maps_nul_byte);
	tcase_add_test(tc, maps_open_lazily);
	tcase_add_test(tc, builtin_maps_are_the_files);
	tcase_add_test(tc, site_maps_overlay);
	tcase_add_test(tc, shipped_maps_load);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_counters_drivers());
	suite_add_tcase(s, tcase_counters_build());
	suite_add_tcase(s, tcase_counters_diff());
	suite_add_tcase(s, tcase_counters_netlink());
	suite_add_tcase(s, tcase_counters_cli());
	return s;
}
