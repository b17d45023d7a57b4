// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The canonical counter model, the map file format and the shipped maps against fixture name
 * lists of each driver family: every counter such a driver lists must come out mapped.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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

static struct nd_ctr_maps shipped;

static void load_shipped(void)
{
	struct nd_err e = { 0 };

	ck_assert_msg(!nd_ctr_maps_load(&shipped, unit_counter_maps(), &e), "%s", e.msg);
}

static void free_shipped(void)
{
	nd_ctr_maps_free(&shipped);
	unit_counter_root(NULL);
}

static void select_for(const char *driver, const char *ibdev, struct nd_ctr_sel *sel)
{
	const char *drivers[1] = { driver };
	struct nd_err e = { 0 };

	ck_assert_msg(!nd_ctr_select(&shipped, drivers, 1, ibdev, ND_CTR_SRC_ALL, sel, &e), "%s",
		      e.msg);
}

static bool selected(const struct nd_ctr_sel *sel, const char *file)
{
	size_t i;

	for (i = 0; i < sel->n; i++)
		if (strstr(sel->map[i]->file, file))
			return true;
	return false;
}

START_TEST(selection)
{
	struct nd_ctr_sel sel;

	select_for("nicsim", NULL, &sel);
	ck_assert_uint_eq(sel.n, 3);
	ck_assert(strstr(sel.map[0]->file, "/mlx5.map"));
	ck_assert(selected(&sel, "/ib-pma.map") && selected(&sel, "/ethtool-pause.map"));
	select_for("veth", "rxe0", &sel);
	ck_assert(strstr(sel.map[0]->file, "/rxe.map"));
	ck_assert(!selected(&sel, "/mlx5.map"));
	select_for("", "mlx5_3", &sel);
	ck_assert(selected(&sel, "/mlx5.map"));
	select_for("ice", NULL, &sel);
	ck_assert(selected(&sel, "/ice.map") && !selected(&sel, "/bnxt.map"));
	select_for("virtio_net", NULL, &sel);
	ck_assert_uint_eq(sel.n, 2);
}
END_TEST

START_TEST(lookup_priorities)
{
	const struct nd_ctr_rule *r;
	struct nd_ctr_sel sel;
	int prio;

	select_for("mlx5_core", NULL, &sel);
	r = nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio3_pause", &prio);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(nd_ctr_rule_info(r)->name, "pfc_rx_frames");
	ck_assert_int_eq(prio, 3);
	r = nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio7_pause_duration", &prio);
	ck_assert_str_eq(nd_ctr_rule_info(r)->name, "pfc_rx_duration_us");
	ck_assert_int_eq(prio, 7);
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio8_pause", &prio));
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio33_pause", &prio));
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio_pause", &prio));
	ck_assert_int_eq(prio, -1);
	/* the source is part of the name: out_of_buffer is an RDMA counter, not a driver string */
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "out_of_buffer", &prio));
	r = nd_ctr_lookup(&sel, ND_CTR_RDMA, "out_of_buffer", &prio);
	ck_assert_uint_eq(r->width, 32);
	ck_assert_int_eq(prio, -1);
}
END_TEST

/* ---- driver families: fixture name lists through the shipped maps ---- */

/* Feed "NAME VALUE" lines of a fixture's ethtool.txt as ethtool triples. */
static void feed_ethtool(struct nd_ctr_build *b, const char *fixture, size_t *count)
{
	char path[PATH_MAX], line[256], name[128];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/ethtool.txt", unit_fixtures(), fixture);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	*count = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		ck_assert_int_eq(sscanf(line, "%127s %llu", name, &v), 2);
		ck_assert_int_eq(nd_ctr_add(b, ND_CTR_ETHTOOL, name, v), 0);
		(*count)++;
	}
	fclose(f);
}

static void ethtool_sample(const char *fixture, const char *driver, struct nd_sample *smp,
			   size_t *count)
{
	struct nd_ctr_build b;
	struct nd_ctr_sel sel;

	memset(smp, 0, sizeof(*smp));
	strcpy(smp->ifname, "fixture");
	select_for(driver, NULL, &sel);
	ck_assert_int_eq(nd_ctr_build_start(&b, smp, &sel, NULL), 0);
	feed_ethtool(&b, fixture, count);
	ck_assert_int_eq(nd_ctr_build_finish(&b), 0);
}

static size_t raw_count(const struct nd_sample *smp)
{
	size_t i, n = 0;

	for (i = 0; i < smp->n; i++)
		n += !smp->c[i].mapped;
	return n;
}

/* The value of a canonical counter from @src, failing the test when it is absent. */
static uint64_t val(const struct nd_sample *smp, const char *name, int prio,
		    enum nd_ctr_source src)
{
	size_t i;

	for (i = 0; i < smp->n; i++)
		if (smp->c[i].mapped && smp->c[i].prio == prio && smp->c[i].source == src &&
		    !strcmp(smp->c[i].name, name))
			return smp->c[i].value;
	ck_abort_msg("%s prio %d not in the sample", name, prio);
	return 0;
}

static const struct nd_counter *ctr(const struct nd_sample *smp, const char *name, int prio)
{
	const struct nd_counter *c = nd_sample_find(smp, name, prio);

	ck_assert_msg(c != NULL, "%s prio %d not in the sample", name, prio);
	return c;
}

/* Sample @ifname of a fixture tree: its sysfs sources (RDMA hw_counters, PMA). */
static void sysfs_sample(const char *fixture, const char *ifname, struct nd_sample *smp)
{
	struct nd_sampler *s;
	struct nd_err e = { 0 };

	unit_counter_root(fixture);
	ck_assert_msg(!nd_sampler_new(&s, unit_counter_maps(), &e), "%s", e.msg);
	ck_assert_msg(!nd_sample_port(s, ifname, smp, &e), "%s", e.msg);
	nd_sampler_free(s);
	ck_assert(!smp->rdma_netlink);
	ck_assert_uint_gt(smp->t_ns, 0);
}

START_TEST(mlx5_ethtool)
{
	struct nd_sample smp;
	size_t n, p;

	ethtool_sample("ctr-mlx5", "mlx5_core", &smp, &n);
	ck_assert_uint_eq(n, 88);
	ck_assert_uint_eq(raw_count(&smp), 0);
	ck_assert_uint_eq(val(&smp, "pfc_rx_frames", 3, ND_CTR_ETHTOOL), 1053);
	ck_assert_uint_eq(val(&smp, "pfc_tx_duration_us", 3, ND_CTR_ETHTOOL), 1056);
	ck_assert_uint_eq(val(&smp, "pfc_rx_transitions", 3, ND_CTR_ETHTOOL), 1057);
	ck_assert_ptr_null(nd_sample_find(&smp, "pfc_rx_frames", 2));
	/* the MAC counter wins over the global-pause one, which is then left out */
	ck_assert_uint_eq(val(&smp, "pause_rx_frames", -1, ND_CTR_ETHTOOL), 1010);
	ck_assert_str_eq(ctr(&smp, "pause_rx_frames", -1)->raw, "rx_pause_ctrl_phy");
	ck_assert_uint_eq(val(&smp, "pause_tx_duration_us", -1, ND_CTR_ETHTOOL), 1061);
	ck_assert_uint_eq(val(&smp, "pause_storm_errors", -1, ND_CTR_ETHTOOL), 1064);
	/* port traffic from the _phy counters, which count RoCE too */
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 1006);
	ck_assert_str_eq(ctr(&smp, "rx_packets", -1)->raw, "rx_packets_phy");
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), 1012);
	ck_assert_uint_eq(ctr(&smp, "rx_no_wqe_discards", -1)->width, 32);
	for (p = 0; p < 8; p++) {
		ck_assert_uint_eq(val(&smp, "rx_prio_packets", (int)p, ND_CTR_ETHTOOL),
				  1014 + 5 * p);
		ck_assert_uint_eq(val(&smp, "rx_prio_discards", (int)p, ND_CTR_ETHTOOL),
				  1015 + 5 * p);
		ck_assert_uint_eq(val(&smp, "rx_ecn_marked", (int)p, ND_CTR_ETHTOOL), 1067 + 3 * p);
	}
	/* mapped first, in the table's order */
	ck_assert_str_eq(smp.c[0].name, "pfc_rx_frames");
	nd_sample_free(&smp);
}
END_TEST

START_TEST(mlx5_rdma)
{
	struct nd_sample smp;

	sysfs_sample("ctr-mlx5", "eth2", &smp);
	ck_assert_str_eq(smp.driver, "mlx5_core");
	ck_assert_str_eq(smp.ibdev, "mlx5_0");
	ck_assert_uint_eq(smp.ibport, 1);
	ck_assert_uint_eq(smp.n, 17);
	/* lifespan is no counter; an unmapped one stays, under its own name */
	ck_assert_ptr_null(nd_sample_find(&smp, "lifespan", -1));
	ck_assert_uint_eq(raw_count(&smp), 1);
	ck_assert(!ctr(&smp, "resp_cqe_error", -1)->mapped);
	ck_assert_uint_eq(ctr(&smp, "resp_cqe_error", -1)->value, 117);
	ck_assert_uint_eq(val(&smp, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 101);
	ck_assert_uint_eq(ctr(&smp, "rx_no_wqe_discards", -1)->width, 32);
	ck_assert_uint_eq(val(&smp, "seq_err_naks", -1, ND_CTR_RDMA), 104);
	ck_assert_uint_eq(val(&smp, "transport_retries", -1, ND_CTR_RDMA), 105);
	ck_assert_uint_eq(val(&smp, "retry_exceeded", -1, ND_CTR_RDMA), 107);
	ck_assert_uint_eq(val(&smp, "roce_rx_ecn_marked", -1, ND_CTR_RDMA), 109);
	ck_assert_uint_eq(val(&smp, "cnp_sent", -1, ND_CTR_RDMA), 110);
	ck_assert_uint_eq(val(&smp, "cnp_handled", -1, ND_CTR_RDMA), 111);
	ck_assert_uint_eq(val(&smp, "cnp_ignored", -1, ND_CTR_RDMA), 112);
	ck_assert_uint_eq(ctr(&smp, "cnp_ignored", -1)->width, 64);
	ck_assert_uint_eq(val(&smp, "rdma_tx_bytes", -1, ND_CTR_RDMA), 116);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(bnxt_ethtool)
{
	struct nd_sample smp;
	uint64_t sum = 0;
	size_t n, p;

	ethtool_sample("ctr-bnxt", "bnxt_en", &smp, &n);
	ck_assert_uint_eq(n, 95);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (p = 0; p < 8; p++) {
		ck_assert_uint_eq(val(&smp, "pfc_rx_frames", (int)p, ND_CTR_ETHTOOL),
				  2008 + 11 * p);
		ck_assert_uint_eq(val(&smp, "pfc_tx_transitions", (int)p, ND_CTR_ETHTOOL),
				  2013 + 11 * p);
		ck_assert_uint_eq(val(&smp, "tx_prio_packets", (int)p, ND_CTR_ETHTOOL),
				  2017 + 11 * p);
		sum += 2018 + 11 * p;
	}
	/* per-CoS discards add up to the port's */
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), sum);
	ck_assert_str_eq(ctr(&smp, "rx_nobuf_discards", -1)->raw, "rx_discard_packets_cos0");
	ck_assert_uint_eq(val(&smp, "pause_tx_frames", -1, ND_CTR_ETHTOOL), 2006);
	ck_assert_uint_eq(val(&smp, "pause_storm_warnings", -1, ND_CTR_ETHTOOL), 2007);
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 2001);
	nd_sample_free(&smp);
}
END_TEST

/* The old and the new bnxt_re names give the same canonical counters. */
START_TEST(bnxt_rdma_old_and_new)
{
	static const char *const both[] = { "roce_rx_ecn_marked", "cnp_sent", "cnp_handled",
					    "seq_err_naks", "transport_retries", "retry_exceeded",
					    "out_of_sequence", "duplicate_requests",
					    "rnr_naks_rcvd", "rx_no_wqe_discards" };
	struct nd_sample old, new;
	size_t i;

	sysfs_sample("ctr-bnxt", "ens1f0np0", &old);
	sysfs_sample("ctr-bnxt", "ens1f1np1", &new);
	ck_assert_str_eq(old.ibdev, "bnxt_re0");
	ck_assert_str_eq(new.ibdev, "bnxt_re1");
	ck_assert_uint_eq(raw_count(&old), 0);
	ck_assert_uint_eq(raw_count(&new), 0);
	ck_assert_uint_eq(old.n, 14);
	ck_assert_uint_eq(new.n, 10);
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
		ck_assert_uint_ge(val(&old, both[i], -1, ND_CTR_RDMA), 201);
		ck_assert_uint_ge(val(&new, both[i], -1, ND_CTR_RDMA), 301);
	}
	ck_assert_uint_eq(val(&old, "cnp_sent", -1, ND_CTR_RDMA), 202);
	ck_assert_uint_eq(val(&new, "cnp_sent", -1, ND_CTR_RDMA), 302);
	ck_assert_uint_eq(val(&old, "rdma_rx_bytes", -1, ND_CTR_RDMA), 213);
	ck_assert_uint_eq(val(&new, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 309);
	nd_sample_free(&old);
	nd_sample_free(&new);
}
END_TEST

START_TEST(ice_xon_xoff_add_up)
{
	struct nd_sample smp;
	size_t n, p;

	ethtool_sample("ctr-ice", "ice", &smp, &n);
	ck_assert_uint_eq(n, 45);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (p = 0; p < 8; p++) {
		uint64_t xon = 3014 + 4 * p;

		ck_assert_uint_eq(val(&smp, "pfc_rx_frames", (int)p, ND_CTR_ETHTOOL),
				  xon + xon + 1);
		ck_assert_uint_eq(val(&smp, "pfc_tx_frames", (int)p, ND_CTR_ETHTOOL),
				  (xon + 2) + (xon + 3));
	}
	ck_assert_str_eq(ctr(&smp, "pfc_rx_frames", 5)->raw, "rx_priority_5_xon.nic");
	ck_assert_uint_eq(val(&smp, "pause_rx_frames", -1, ND_CTR_ETHTOOL), 3010 + 3011);
	ck_assert_uint_eq(val(&smp, "pause_tx_frames", -1, ND_CTR_ETHTOOL), 3012 + 3013);
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 3001 + 3002 + 3003);
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), 3009);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(irdma_rdma)
{
	struct nd_sample smp;

	sysfs_sample("ctr-ice", "ens2f0", &smp);
	ck_assert_str_eq(smp.driver, "ice");
	ck_assert_str_eq(smp.ibdev, "irdma0");
	ck_assert_uint_eq(raw_count(&smp), 0);
	ck_assert_uint_eq(smp.n, 8);
	ck_assert_uint_eq(val(&smp, "roce_rx_ecn_marked", -1, ND_CTR_RDMA), 401);
	ck_assert_uint_eq(val(&smp, "cnp_sent", -1, ND_CTR_RDMA), 402);
	ck_assert_uint_eq(val(&smp, "cnp_handled", -1, ND_CTR_RDMA), 403);
	ck_assert_uint_eq(val(&smp, "cnp_ignored", -1, ND_CTR_RDMA), 404);
	ck_assert_uint_eq(val(&smp, "rdma_rx_packets", -1, ND_CTR_RDMA), 405 + 406);
	ck_assert_uint_eq(val(&smp, "rdma_tx_bytes", -1, ND_CTR_RDMA), 411 + 412);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(rxe_every_counter)
{
	static const struct {
		const char *name;
		uint64_t value;
	} want[] = {
		{ "rdma_tx_packets", 500 }, { "rdma_rx_packets", 501 },
		{ "duplicate_requests", 502 }, { "out_of_sequence", 503 },
		{ "rnr_naks_rcvd", 504 }, { "rnr_naks_sent", 505 }, { "seq_err_naks", 506 },
		{ "acks_deferred", 507 }, { "retry_exceeded", 508 }, { "rnr_retry_exceeded", 509 },
		{ "transport_retries", 510 }, { "send_errors", 511 }, { "ib_link_downed", 512 },
		{ "send_ops", 513 }, { "recv_ops", 514 },
	};
	struct nd_sample smp;
	size_t i;

	sysfs_sample("ctr-rxe", "veth0", &smp);
	/* a veth has no device: the map is chosen by the RDMA device's name */
	ck_assert_str_eq(smp.driver, "");
	ck_assert_str_eq(smp.ibdev, "rxe0");
	ck_assert_uint_eq(smp.n, 15);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_uint_eq(val(&smp, want[i].name, -1, ND_CTR_RDMA), want[i].value);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(ib_hca_pma)
{
	static const struct {
		const char *name;
		uint64_t value;
		uint8_t width;
		bool sat;
	} want[] = {
		{ "ib_xmit_wait", 4294967295u, 32, true }, { "ib_xmit_bytes", 4000, 64, false },
		{ "ib_rcv_bytes", 8000, 64, false }, { "ib_xmit_packets", 601, 64, false },
		{ "ib_rcv_packets", 602, 64, false }, { "ib_symbol_errors", 65535, 16, true },
		{ "ib_link_error_recovery", 3, 8, true }, { "ib_link_downed", 255, 8, true },
		{ "ib_rcv_errors", 604, 16, true },
		{ "ib_rcv_remote_physical_errors", 605, 16, true },
		{ "ib_rcv_switch_relay_errors", 606, 16, true },
		{ "ib_xmit_discards", 607, 16, true },
		{ "ib_xmit_constraint_errors", 8, 8, true },
		{ "ib_rcv_constraint_errors", 9, 8, true },
		{ "ib_local_link_integrity_errors", 15, 4, true },
		{ "ib_excessive_buffer_overrun_errors", 2, 4, true },
		{ "ib_vl15_dropped", 610, 16, true },
	};
	struct nd_sample smp;
	size_t i;

	sysfs_sample("ctr-ib", "ib0", &smp);
	/* IPoIB: the HCA under the same PCI function */
	ck_assert_str_eq(smp.ibdev, "mlx5_ib0");
	ck_assert_str_eq(smp.driver, "mlx5_core");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct nd_counter *c = ctr(&smp, want[i].name, -1);

		ck_assert_int_eq(c->source, ND_CTR_PMA);
		ck_assert_uint_eq(c->value, want[i].value);
		ck_assert_uint_eq(c->width, want[i].width);
		ck_assert_int_eq(c->saturates, want[i].sat);
	}
	/* an unmapped PMA counter stays raw; one the PMA cannot answer is left out */
	ck_assert_uint_eq(raw_count(&smp), 1);
	ck_assert(!ctr(&smp, "unicast_xmit_packets", -1)->mapped);
	ck_assert_ptr_null(nd_sample_find(&smp, "port_rcv_packets_dropped", -1));
	ck_assert_uint_eq(val(&smp, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 701);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(unknown_device)
{
	struct nd_sampler *s;
	struct nd_sample smp;
	struct nd_err e = { 0 };

	unit_counter_root("ctr-rxe");
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	ck_assert_int_eq(nd_sample_port(s, "eth9", &smp, &e), -ENODEV);
	ck_assert_str_eq(e.msg, "no network device 'eth9' (see 'ip link' for the names)");
	ck_assert_int_eq(nd_sample_port(s, "../x", &smp, &e), -ENODEV);
	ck_assert_int_eq(nd_sample_port(s, "", &smp, &e), -ENODEV);
	nd_sampler_free(s);
	ck_assert_int_eq(nd_sampler_new(&s, "/nonexistent", &e), -EINVAL);
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent"));
}
END_TEST

/* A batch is each port's sample; a bad port anywhere fails it whole, with its name. */
START_TEST(sample_batch)
{
	const char *two[] = { "veth0", "veth0" }, *bad[] = { "veth0", "eth9" };
	struct nd_sample one, smp[2];
	struct nd_sampler *s;
	struct nd_err e = { 0 };
	size_t i, k;

	unit_counter_root("ctr-rxe");
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	ck_assert_msg(!nd_sample_port(s, "veth0", &one, &e), "%s", e.msg);
	ck_assert_msg(!nd_sample_ports(s, two, 2, smp, &e), "%s", e.msg);
	for (k = 0; k < 2; k++) {
		ck_assert_str_eq(smp[k].ifname, "veth0");
		ck_assert_str_eq(smp[k].ibdev, one.ibdev);
		ck_assert_uint_eq(smp[k].n, one.n);
		for (i = 0; i < one.n; i++) {
			ck_assert_str_eq(smp[k].c[i].name, one.c[i].name);
			ck_assert_uint_eq(smp[k].c[i].value, one.c[i].value);
		}
		nd_sample_free(&smp[k]);
	}
	ck_assert_int_eq(nd_sample_ports(s, bad, 2, smp, &e), -ENODEV);
	ck_assert_str_eq(e.msg, "no network device 'eth9' (see 'ip link' for the names)");
	ck_assert(!smp[0].c && !smp[0].n && !smp[1].c);
	ck_assert_int_eq(nd_sample_ports(s, bad, 0, smp, &e), 0);
	nd_sample_free(&one);
	nd_sampler_free(s);
}
END_TEST

static void put_text(const char *dir, const char *sub, const char *name, const char *text)
{
	char path[PATH_MAX + 128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/1/%s/%s", dir, sub,
		 name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * One sampler over a series of samples (its builds replay the last one's layout) while the
 * port's counters change: values, RDMA counters that come and go (two at once: as many as
 * before, other names), PMA counters that stop answering and answer again. Each sample must be
 * what a new sampler reads from the tree at that moment.
 */
START_TEST(sample_series_follows_the_tree)
{
	static const char *const hw[] = { "out_of_buffer", "out_of_sequence", "np_cnp_sent",
					   "zz_vendor_extra", "zz_other" };
	char dir[] = "/tmp/nd-ctr-series-XXXXXX", cmd[PATH_MAX + 64], pma[32][256], text[32];
	char path[PATH_MAX + 128];
	struct nd_sampler *s, *fresh;
	struct nd_sample got, want;
	struct nd_err e = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	unsigned int round, k, n_pma = 0, same = 0;
	struct dirent *de;
	size_t last_n = 0;
	DIR *d;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a %s/ctr-ib/. %s", unit_fixtures(), dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/1/counters", dir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n_pma < 32)
		if (de->d_name[0] != '.')
			snprintf(pma[n_pma++], sizeof(pma[0]), "%s", de->d_name);
	closedir(d);
	ck_assert_uint_gt(n_pma, 10);
	setenv("NODROP_SYSROOT", dir, 1);
	nd_sysroot_reset();
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	for (round = 0; round < 80; round++) {
		switch (unit_rand(&rng) % 4) {
		case 0:
			for (k = 0; k < 2; k++) {
				const char *name = hw[unit_rand(&rng) % 5];

				snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/"
					 "1/hw_counters/%s", dir, name);
				if (unit_rand(&rng) % 2)
					unlink(path);
				else
					put_text(dir, "hw_counters", name, "42\n");
			}
			break;
		case 1:
			if (unit_rand(&rng) % 3)
				snprintf(text, sizeof(text), "%" PRIu64 "\n",
					 unit_rand(&rng) >> 40);
			else
				snprintf(text, sizeof(text), "N/A (no PMA)\n");
			put_text(dir, "counters", pma[unit_rand(&rng) % n_pma], text);
			break;
		case 2:
			snprintf(text, sizeof(text), "%u\n", round);
			put_text(dir, "hw_counters", "out_of_sequence", text);
			break;
		}
		ck_assert_msg(!nd_sample_port(s, "ib0", &got, &e), "%s", e.msg);
		ck_assert_int_eq(nd_sampler_new(&fresh, unit_counter_maps(), &e), 0);
		ck_assert_msg(!nd_sample_port(fresh, "ib0", &want, &e), "%s", e.msg);
		check_same_sample(&got, &want);
		same += got.n == last_n;
		last_n = got.n;
		nd_sample_free(&got);
		nd_sample_free(&want);
		nd_sampler_free(fresh);
	}
	/* the series had both: samples like the last one and samples of another list */
	ck_assert_uint_gt(same, 10);
	ck_assert_uint_lt(same, 75);
	nd_sampler_free(s);
	unit_counter_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
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
	tc = tcase_create("drivers");
	tcase_add_checked_fixture(tc, load_shipped, free_shipped);
	tcase_add_test(tc, selection);
	tcase_add_test(tc, lookup_priorities);
	tcase_add_test(tc, mlx5_ethtool);
	tcase_add_test(tc, mlx5_rdma);
	tcase_add_test(tc, bnxt_ethtool);
	tcase_add_test(tc, bnxt_rdma_old_and_new);
	tcase_add_test(tc, ice_xon_xoff_add_up);
	tcase_add_test(tc, irdma_rdma);
	tcase_add_test(tc, rxe_every_counter);
	tcase_add_test(tc, ib_hca_pma);
	tcase_add_test(tc, unknown_device);
	tcase_add_test(tc, sample_batch);
	tcase_add_test(tc, sample_series_follows_the_tree);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_counters_build());
	suite_add_tcase(s, tcase_counters_diff());
	suite_add_tcase(s, tcase_counters_netlink());
	suite_add_tcase(s, tcase_counters_cli());
	return s;
}
