// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop --completion bash|fish: the completion script, generated from the tables that print
 * --help so that the two cannot drift. For bash the tables become case statements (which options
 * a command has, which take an argument and what it completes to) read by fixed shell code; for
 * fish, one `complete` line per command and option.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* main()'s own options (tools/nodrop.c); tests/completion.sh holds them to `nodrop --help` */
static const char top_opts[] = "-h --help -V --version --completion";
static const char shells[] = "bash fish";

/* Characters a value may hold: the script keeps values unquoted in a word list. */
static const char word_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				 "-_.:,+/";

static const char head[] =
	"# bash completion for nodrop(8), written by `nodrop --completion bash` from the option\n"
	"# tables that print its --help. Source it, or install it as\n"
	"# /usr/share/bash-completion/completions/nodrop.\n\n";

/* The fixed part: reads _nodrop_commands, _nodrop_opts, _nodrop_arg and _nodrop_operand. */
static const char body[] =
	"# The words up to the cursor as typed: bash also splits at ':' and '='\n"
	"# (COMP_WORDBREAKS), which values such as host:huge and --model=ieee hold.\n"
	"# _nodrop_bw: bash's own last word.\n"
	"_nodrop_words()\n"
	"{\n"
	"\tlocal i p=0 gap word\n"
	"\n"
	"\t_nodrop_cw=()\n"
	"\tfor ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"\t\tword=${COMP_LINE:p}\n"
	"\t\tgap=${word%%[![:space:]]*}\n"
	"\t\t((p += ${#gap}))\n"
	"\t\tword=${COMP_WORDS[i]}\n"
	"\t\t((i == COMP_CWORD)) && word=${COMP_LINE:p:COMP_POINT > p ? COMP_POINT - p : 0}\n"
	"\t\tif ((i > 0 && ${#gap} == 0)); then\n"
	"\t\t\t_nodrop_cw[${#_nodrop_cw[@]}-1]+=$word\n"
	"\t\telse\n"
	"\t\t\t_nodrop_cw+=(\"$word\")\n"
	"\t\tfi\n"
	"\t\t((p += ${#word}))\n"
	"\tdone\n"
	"\t_nodrop_bw=$word\n"
	"}\n"
	"\n"
	"# COMPREPLY for CUR from _nodrop_w: =WORDS, ,WORDS (a comma-separated list),\n"
	"# @netdev, @rdmadev, @dir, @file or @file:EXT. Devices are read below\n"
	"# NODROP_SYSROOT, as nodrop reads them.\n"
	"_nodrop_values()\n"
	"{\n"
	"\tlocal cur=$1 root=${NODROP_SYSROOT:-} lead= d p\n"
	"\tlocal -a w=()\n"
	"\n"
	"\tcase $_nodrop_w in\n"
	"\t=*)\n"
	"\t\tw=(${_nodrop_w#=})\n"
	"\t\t;;\n"
	"\t,*)\n"
	"\t\t[[ $cur == *,* ]] && lead=${cur%,*},\n"
	"\t\tfor d in ${_nodrop_w#,}; do\n"
	"\t\t\t[[ ,$lead == *,$d,* ]] || w+=(\"$d\")\n"
	"\t\tdone\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -P \"$lead\" -W \"${w[*]}\" -- \"${cur##*,}\")\n"
	"\t\treturn\n"
	"\t\t;;\n"
	"\t@netdev)\n"
	"\t\tfor d in \"$root\"/sys/class/net/*; do\n"
	"\t\t\t[[ -e $d ]] && w+=(\"${d##*/}\")\n"
	"\t\tdone\n"
	"\t\t;;\n"
	"\t@rdmadev)\n"
	"\t\tfor d in \"$root\"/sys/class/infiniband/*; do\n"
	"\t\t\t[[ -e $d ]] || continue\n"
	"\t\t\tw+=(\"${d##*/}\")\n"
	"\t\t\t[[ $cur == *:* ]] || continue\n"
	"\t\t\tfor p in \"$d\"/ports/*; do\n"
	"\t\t\t\t[[ -e $p ]] && w+=(\"${d##*/}:${p##*/}\")\n"
	"\t\t\tdone\n"
	"\t\tdone\n"
	"\t\t;;\n"
	"\t@dir)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
	"\t\treturn\n"
	"\t\t;;\n"
	"\t@file)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
	"\t\treturn\n"
	"\t\t;;\n"
	"\t@file:*)\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tmapfile -t COMPREPLY < <(compgen -d -- \"$cur\"\n"
	"\t\t\t\t\t compgen -f -X \"!*.${_nodrop_w#@file:}\" -- \"$cur\")\n"
	"\t\treturn\n"
	"\t\t;;\n"
	"\tesac\n"
	"\tmapfile -t COMPREPLY < <(compgen -W \"${w[*]}\" -- \"$cur\")\n"
	"}\n"
	"\n"
	"_nodrop()\n"
	"{\n"
	"\tlocal cur prev= cmd= pre= n i\n"
	"\n"
	"\tCOMPREPLY=()\n"
	"\t_nodrop_words\n"
	"\tn=${#_nodrop_cw[@]}\n"
	"\tcur=${_nodrop_cw[n-1]}\n"
	"\t((n > 2)) && prev=${_nodrop_cw[n-2]}\n"
	"\t[[ ${_nodrop_cw[1]} == -* ]] || cmd=${_nodrop_cw[1]}\n"
	"\t# after \"--\" every word is an operand\n"
	"\tfor ((i = 2; i < n - 1; i++)); do\n"
	"\t\t[[ ${_nodrop_cw[i]} == -- ]] && break\n"
	"\tdone\n"
	"\tif ((n == 2)) && [[ $cur != -* ]]; then\n"
	"\t\t_nodrop_w=\"=$_nodrop_commands\"\n"
	"\telif ((i < n - 1)); then\n"
	"\t\t_nodrop_operand \"$cmd\"\n"
	"\telif _nodrop_arg \"$cmd\" \"$prev\"; then\n"
	"\t\t:\n"
	"\telif [[ $cur == --*=* ]] && _nodrop_arg \"$cmd\" \"${cur%%=*}\"; then\n"
	"\t\tpre=${cur%%=*}=\n"
	"\t\tcur=${cur#*=}\n"
	"\telif [[ $cur == -* ]]; then\n"
	"\t\t_nodrop_opts \"$cmd\"\n"
	"\t\t_nodrop_w=\"=$_nodrop_w\"\n"
	"\telse\n"
	"\t\t_nodrop_operand \"$cmd\"\n"
	"\tfi\n"
	"\t_nodrop_values \"$cur\"\n"
	"\t# bash replaces only its own last word, which may start after a ':' or '=' in ours\n"
	"\tn=$((${#pre} + ${#cur} - ${#_nodrop_bw}))\n"
	"\tfor i in \"${!COMPREPLY[@]}\"; do\n"
	"\t\tCOMPREPLY[i]=$pre${COMPREPLY[i]}\n"
	"\t\tCOMPREPLY[i]=${COMPREPLY[i]:n}\n"
	"\tdone\n"
	"}\n"
	"\n"
	"complete -F _nodrop nodrop\n";

/* The kind one word of a synopsis names ("[DEV...]", "BASELINE.json..."), or NULL. */
static const char *word_kind(const char *w, size_t len)
{
	static const struct {
		const char *word;
		const char *kind;
	} names[] = {
		{ "DEV", ND_COMP_NETDEV },
		{ "DIR", ND_COMP_DIR },
		{ "FILE", ND_COMP_FILE },
		{ "PROFILE", ND_COMP_YAML },
	};
	size_t i;

	for (; len && *w == '['; len--)
		w++;
	while (len && (w[len - 1] == ']' || w[len - 1] == '.'))
		len--;
	if (len > 5 && !strncmp(w + len - 5, ".yaml", 5))
		return ND_COMP_YAML;
	if (len > 5 && !strncmp(w + len - 5, ".json", 5))
		return ND_COMP_JSON;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].word) == len && !strncmp(w, names[i].word, len))
			return names[i].kind;
	return NULL;
}

/* The kind the first telling word of @synopsis names, or NULL. */
static const char *synopsis_kind(const char *synopsis)
{
	const char *p = synopsis, *kind;
	size_t len;

	while (p && *p) {
		p += strspn(p, " |");
		len = strcspn(p, " |");
		kind = word_kind(p, len);
		if (kind)
			return kind;
		p += len;
	}
	return NULL;
}

static const struct nd_opt *find_opt(const struct nd_cmd *cmd, const char *name)
{
	const struct nd_opt *tables[] = { cmd->opts, nd_common_opts }, *o;
	size_t t;

	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name; o++)
			if (!strcmp(o->name, name))
				return o;
	return NULL;
}

static const struct nd_comp *find_comp(const struct nd_cmd *cmd, const char *name)
{
	const struct nd_comp *c;

	for (c = cmd->complete; c && c->opt; c++)
		if (!strcmp(c->opt, name))
			return c;
	return NULL;
}

static int put_word(FILE *f, const char *w, size_t len, bool first)
{
	if (!len || strspn(w, word_chars) < len)
		return -EINVAL;
	fprintf(f, "%s%.*s", first ? "" : " ", (int)len, w);
	return 0;
}

/* @c's completion as the script keeps it: "=WORDS", ",WORDS" or a kind. */
static int put_comp(FILE *f, const struct nd_comp *c)
{
	const char *w;
	unsigned int i;
	size_t len;
	int ret = 0;

	if (c->kind && c->kind[0] == '@') {
		fputs(c->kind, f);
		return c->list || c->value ? -EINVAL : 0;
	}
	if (!c->kind == !c->value)	/* the words come from one of the two */
		return -EINVAL;
	fputc(c->list ? ',' : '=', f);
	for (i = 0; !ret && c->value && (w = c->value(i)); i++)
		ret = put_word(f, w, strlen(w), !i);
	for (w = c->kind, i = 0; !ret && w && *w; i++) {
		len = strcspn(w, "|");
		ret = put_word(f, w, len, !i);
		w += len + (w[len] == '|');
	}
	return ret;
}

static void put_opts(FILE *f, const struct nd_cmd *cmd)
{
	const struct nd_opt *tables[] = { cmd->opts, nd_common_opts }, *o;
	const char *sep = "";
	size_t t;

	fprintf(f, "\t%s) _nodrop_w='", cmd->name);
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name; o++) {
			if (o->key < 256) {
				fprintf(f, "%s-%c", sep, o->key);
				sep = " ";
			}
			fprintf(f, "%s--%s", sep, o->name);
			sep = " ";
		}
	fputs("' ;;\n", f);
}

static int put_args(FILE *f, const struct nd_cmd *cmd)
{
	const struct nd_opt *tables[] = { cmd->opts, nd_common_opts }, *o;
	const struct nd_comp *c;
	const char *kind;
	size_t t;
	int ret;

	for (c = cmd->complete; c && c->opt; c++) {
		o = find_opt(cmd, c->opt);
		if (!o || !o->arg) {
			fprintf(stderr, "nodrop --completion: '%s' has no option --%s that "
				"takes an argument\n", cmd->name, c->opt);
			return -EINVAL;
		}
	}
	for (t = 0; t < 2; t++)
		for (o = tables[t]; o && o->name; o++) {
			if (!o->arg)
				continue;
			fprintf(f, "\t%s/--%s", cmd->name, o->name);
			if (o->key < 256)
				fprintf(f, " | %s/-%c", cmd->name, o->key);
			fputs(") _nodrop_w='", f);
			c = find_comp(cmd, o->name);
			kind = c ? NULL : synopsis_kind(o->arg);
			ret = c ? put_comp(f, c) : (fputs(kind ? kind : "", f), 0);
			if (ret) {
				fprintf(stderr, "nodrop --completion: %s --%s: a bad completion "
					"row\n", cmd->name, o->name);
				return ret;
			}
			fputs("' ;;\n", f);
		}
	return 0;
}

static int put_script(FILE *f, const struct nd_cmd *const *cmds, size_t n)
{
	const char *kind;
	size_t i;
	int ret;

	fputs(head, f);
	fputs("_nodrop_commands='", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", cmds[i]->name);
	fputs("'\n\n# _nodrop_opts CMD: its options in _nodrop_w ('': nodrop's own)\n"
	      "_nodrop_opts()\n{\n\tcase $1 in\n", f);
	for (i = 0; i < n; i++)
		put_opts(f, cmds[i]);
	fprintf(f, "\t'') _nodrop_w='%s' ;;\n\t*) _nodrop_w= ;;\n\tesac\n}\n\n", top_opts);
	fputs("# _nodrop_arg CMD OPTION: whether OPTION takes an argument; its completion in\n"
	      "# _nodrop_w\n_nodrop_arg()\n{\n\tcase $1/$2 in\n", f);
	for (i = 0; i < n; i++) {
		ret = put_args(f, cmds[i]);
		if (ret)
			return ret;
	}
	fprintf(f, "\t/--completion) _nodrop_w='=%s' ;;\n\t*) return 1 ;;\n\tesac\n}\n\n", shells);
	fputs("# _nodrop_operand CMD: the completion of its operands in _nodrop_w\n"
	      "_nodrop_operand()\n{\n\tcase $1 in\n", f);
	for (i = 0; i < n; i++) {
		kind = synopsis_kind(cmds[i]->args);
		if (kind)
			fprintf(f, "\t%s) _nodrop_w='%s' ;;\n", cmds[i]->name, kind);
	}
	fputs("\t*) _nodrop_w= ;;\n\tesac\n}\n\n", f);
	fputs(body, f);
	return 0;
}

/* ---- fish ---- */

static const char fish_head[] =
	"# fish completion for nodrop(8), written by `nodrop --completion fish` from the option\n"
	"# tables that print its --help. Source it, or install it as\n"
	"# /usr/share/fish/vendor_completions.d/nodrop.fish.\n\n"
	"# Devices are read below NODROP_SYSROOT, as nodrop reads them.\n"
	"function __nodrop_netdevs\n"
	"\tfor d in \"$NODROP_SYSROOT\"/sys/class/net/*\n"
	"\t\tbasename $d\n"
	"\tend\n"
	"end\n\n"
	"function __nodrop_rdmadevs\n"
	"\tfor d in \"$NODROP_SYSROOT\"/sys/class/infiniband/*\n"
	"\t\tset -l n (basename $d)\n"
	"\t\techo $n\n"
	"\t\tfor p in $d/ports/*\n"
	"\t\t\techo $n:(basename $p)\n"
	"\t\tend\n"
	"\tend\n"
	"end\n\n"
	"# Files ending in SUFFIX, and directories to go into.\n"
	"function __nodrop_files --argument-names suffix\n"
	"\tset -l tok (string replace -r -- '^--?[^=]*=' '' (commandline -ct))\n"
	"\tfor f in $tok*\n"
	"\t\tif test -d $f\n"
	"\t\t\techo $f/\n"
	"\t\telse if string match -q -- \"*$suffix\" $f\n"
	"\t\t\techo $f\n"
	"\t\tend\n"
	"\tend\n"
	"end\n\n"
	"# A comma-separated list: the items typed so far, then each item not yet used.\n"
	"function __nodrop_list\n"
	"\tset -l tok (string replace -r -- '^--?[^=]*=' '' (commandline -ct))\n"
	"\tset -l lead (string replace -r -- '[^,]*$' '' $tok)\n"
	"\tset -l used (string split -- , $lead)\n"
	"\tfor w in $argv\n"
	"\t\tcontains -- $w $used; or echo $lead$w\n"
	"\tend\n"
	"end\n\n"
	"complete -c nodrop -f\n";

/* @s in single quotes, as fish reads them */
static void fish_quote(FILE *f, const char *s)
{
	putc('\'', f);
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			putc('\\', f);
		putc(*s, f);
	}
	putc('\'', f);
}

/*
 * The arguments of `complete` for a value of @kind: -r (an argument, nothing to offer), -r -F
 * (any file), or -x (no files) with the candidates.
 */
static const char *fish_kind(const char *kind)
{
	static const struct {
		const char *kind;
		const char *args;
	} kinds[] = {
		{ ND_COMP_NETDEV, "-x -a '(__nodrop_netdevs)'" },
		{ ND_COMP_RDMADEV, "-x -a '(__nodrop_rdmadevs)'" },
		{ ND_COMP_DIR, "-x -a '(__fish_complete_directories)'" },
		{ ND_COMP_YAML, "-x -a '(__nodrop_files .yaml)'" },
		{ ND_COMP_JSON, "-x -a '(__nodrop_files .json)'" },
		{ ND_COMP_FILE, "-r -F" },
	};
	size_t i;

	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return kinds[i].args;
	return "-r";
}

/* -x -a 'WORDS' from @c's words (the same checks as the bash script's), a list through
 * __nodrop_list. */
static int fish_words(FILE *f, const struct nd_comp *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&buf, &len);
	int ret;

	if (!w)
		return -ENOMEM;
	ret = put_comp(w, c);
	if (fclose(w) || ret || len < 1) {
		free(buf);
		return ret ? ret : -ENOMEM;
	}
	/* put_comp wrote "=WORDS" or ",WORDS", or a kind */
	if (buf[0] == '@')
		fprintf(f, " %s", fish_kind(buf));
	else
		fprintf(f, buf[0] == ',' ? " -x -a '(__nodrop_list %s)'" : " -x -a '%s'", buf + 1);
	free(buf);
	return 0;
}

static int fish_opt(FILE *f, const struct nd_cmd *cmd, const struct nd_opt *o)
{
	const struct nd_comp *c = cmd ? find_comp(cmd, o->name) : NULL;

	fputs("complete -c nodrop -n ", f);
	if (cmd)
		fprintf(f, "'__fish_seen_subcommand_from %s'", cmd->name);
	else
		fputs("__fish_use_subcommand", f);
	if (o->key < 256)
		fprintf(f, " -s %c", o->key);
	fprintf(f, " -l %s", o->name);
	if (c) {
		if (fish_words(f, c))
			return -EINVAL;
	} else if (o->arg) {
		fprintf(f, " %s", fish_kind(synopsis_kind(o->arg)));
	}
	fputs(" -d ", f);
	fish_quote(f, o->help);
	putc('\n', f);
	return 0;
}

static int put_fish(FILE *f, const struct nd_cmd *const *cmds, size_t n)
{
	static const struct nd_opt top[] = {
		{ "help", 'h', NULL, "show the commands and exit" },
		{ "version", 'V', NULL, "show the version and exit" },
		{ 0 },
	};
	const struct nd_opt *o;
	const char *kind;
	size_t i, t;

	fputs(fish_head, f);
	for (o = top; o->name; o++)
		fish_opt(f, NULL, o);
	fprintf(f, "complete -c nodrop -n __fish_use_subcommand -l completion -x -a '%s' -d %s\n",
		shells, "'print the completion script for a shell'");
	for (i = 0; i < n; i++) {
		const struct nd_opt *tables[] = { cmds[i]->opts, nd_common_opts };

		fprintf(f, "\ncomplete -c nodrop -n __fish_use_subcommand -a %s -d ", cmds[i]->name);
		fish_quote(f, cmds[i]->summary);
		putc('\n', f);
		for (t = 0; t < 2; t++)
			for (o = tables[t]; o && o->name; o++)
				if (fish_opt(f, cmds[i], o)) {
					fprintf(stderr, "nodrop --completion: %s --%s: a bad completion "
						"row\n", cmds[i]->name, o->name);
					return -EINVAL;
				}
		/* operands: the candidates alone (-r and -x are about an option's argument) */
		kind = synopsis_kind(cmds[i]->args);
		if (kind)
			fprintf(f, "complete -c nodrop -n '__fish_seen_subcommand_from %s' %s\n",
				cmds[i]->name, fish_kind(kind) + strlen("-x "));
	}
	return 0;
}

int nd_completion(const char *shell, const struct nd_cmd *const *cmds, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!shell || (strcmp(shell, "bash") && strcmp(shell, "fish"))) {
		fprintf(stderr, "nodrop: --completion takes the shell: %s\n", shells);
		return ND_EXIT_USAGE;
	}
	/* all or nothing: a table the script cannot hold must not leave half a script */
	f = open_memstream(&buf, &len);
	if (!f) {
		fprintf(stderr, "nodrop --completion: out of memory\n");
		return ND_EXIT_SYSTEM;
	}
	ret = !strcmp(shell, "bash") ? put_script(f, cmds, n) : put_fish(f, cmds, n);
	if (fclose(f) || ret) {
		free(buf);
		return ND_EXIT_SYSTEM;
	}
	ret = fwrite(buf, 1, len, stdout) == len && !fflush(stdout) ? ND_EXIT_OK : ND_EXIT_SYSTEM;
	free(buf);
	if (ret)
		fprintf(stderr, "nodrop --completion: cannot write the script\n");
	return ret;
}
