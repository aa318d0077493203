/* smdmx-options: what the options table (src/cli/option_table.c) gives besides the
 * programs' parsers and --help, written at build time on the build machine:
 *
 *   smdmx-options man COMMAND TEMPLATE OUT   the manual page: TEMPLATE with its line
 *                                            "@OPTIONS@" replaced by the OPTIONS of COMMAND
 *                                            (smd2dmx, dmx2smd; smdmx: a part per command)
 *   smdmx-options bash OUT                   the bash completion of the three programs
 *   smdmx-options list                       every command's options, a line each:
 *                                            COMMAND<TAB>NAME<TAB>KIND<TAB>A VALUE IT TAKES
 *                                            (the suite's table-driven checks read it)
 *
 * Exit codes: 0 written, 1 a file could not be read or written, 2 a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cli/option_table.h"

static const char *const kinds[] = { "flag", "text", "file", "dir", "choice", "number", "name" };
static const char *const section_titles[] = { "Inputs and outputs", "Diagnostics", "Conversion", "Options" };

/* ---- troff ------------------------------------------------------------------------------ */

/* s as troff text: '\\' and '-' escaped, option names (a '-' starting a word, then a letter
 * or '-') in bold. */
static void troff_text(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'') fputs("\\&", f);
	for (const char *p = s; *p; p++) {
		bool word_start = p == s || strchr(" (/[", p[-1]);
		if (*p == '-' && word_start && (p[1] == '-' || (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z'))) {
			fputs("\\fB", f);
			while (*p && (*p == '-' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
				fputs(*p == '-' ? "\\-" : (char[]){ *p, 0 }, f);
				p++;
			}
			fputs("\\fR", f);
			p--;
		} else if (*p == '-') {
			fputs("\\-", f);
		} else if (*p == '\\') {
			fputs("\\e", f);
		} else if (*p == '\n') {
			fputc(' ', f);
		} else {
			fputc(*p, f);
		}
	}
}

/* An option's label: its names in bold, the values' names in italic. */
static void troff_label(FILE *f, const cli_option *o)
{
	char label[128];
	cli_option_label(o, label, sizeof(label));
	for (char *p = label; *p;) {
		size_t n = strcspn(p, " ,");
		if (n) {
			fputs(p[0] == '-' ? "\\fB" : "\\fI", f);
			for (size_t k = 0; k < n; k++) fputs(p[k] == '-' ? "\\-" : (char[]){ p[k], 0 }, f);
			fputs("\\fR", f);
		}
		p += n;
		while (*p == ' ' || *p == ',') fputc(*p++, f);
	}
}

static bool shown(const cli_option *o, unsigned bit)
{
	return (o->commands & bit) && !(o->flags & OF_HIDDEN);
}

/* The OPTIONS entries of a command, by section (titled when it has more than one). */
static void man_options(FILE *f, unsigned bit, bool sub)
{
	size_t n;
	const cli_option *opts = cli_options(&n);
	unsigned sections = 0;
	for (size_t i = 0; i < n; i++)
		if (shown(&opts[i], bit)) sections |= 1u << opts[i].section;
	for (unsigned s = 0; s < 4; s++) {
		if (!(sections & (1u << s))) continue;
		if (sections != (1u << s) && !sub) fprintf(f, ".SS %s\n", section_titles[s]);
		for (size_t i = 0; i < n; i++) {
			const cli_option *o = &opts[i];
			if (!shown(o, bit) || o->section != s) continue;
			fputs(".TP\n", f);
			troff_label(f, o);
			fputc('\n', f);
			/* a sentence: a capital first, a full stop last */
			char text[2048];
			size_t len = (size_t)snprintf(text, sizeof(text), "%s", o->help);
			if (len && text[0] >= 'a' && text[0] <= 'z' && strncmp(text, "smdmx", 5)) text[0] = (char)(text[0] - 'a' + 'A');
			if (len && text[len - 1] != '.') snprintf(text + len, sizeof(text) - len, ".");
			troff_text(f, text);
			if (o->more) {
				fputc(' ', f);
				troff_text(f, o->more);
			}
			fputc('\n', f);
		}
	}
}

static int man(const char *command, const char *template_path, const char *out_path)
{
	size_t nc;
	const cli_command *cmds = cli_commands(&nc);
	const cli_command *c = NULL;
	for (size_t i = 0; i < nc; i++)
		if (!strcmp(cmds[i].name, command)) c = &cmds[i];
	if (!c) {
		fprintf(stderr, "smdmx-options: error: no command '%s'\n", command);
		return 2;
	}
	FILE *in = fopen(template_path, "r");
	if (!in) {
		perror(template_path);
		return 1;
	}
	FILE *out = fopen(out_path, "w");
	if (!out) {
		perror(out_path);
		fclose(in);
		return 1;
	}
	char line[4096];
	bool placed = false;
	while (fgets(line, sizeof(line), in)) {
		if (strcmp(line, "@OPTIONS@\n")) {
			fputs(line, out);
			continue;
		}
		placed = true;
		if (c->bit != CMD_SMDMX) {
			man_options(out, c->bit, false);
			continue;
		}
		for (size_t i = 0; i < nc; i++) {
			if (!cmds[i].word) continue;
			fprintf(out, ".SS %s\n", cmds[i].name);
			man_options(out, cmds[i].bit, true);
		}
	}
	bool ok = !ferror(in) && placed;
	fclose(in);
	if (fclose(out) != 0) ok = false;
	if (!placed) fprintf(stderr, "smdmx-options: error: %s has no line @OPTIONS@\n", template_path);
	return ok ? 0 : 1;
}

/* ---- bash ------------------------------------------------------------------------------- */

/* The extglob pattern of a list of extensions, each in both cases: @(smd|SMD|vta|VTA). */
static void bash_pattern(FILE *f, const char *exts)
{
	fputs("'@(", f);
	for (const char *p = exts; *p;) {
		size_t n = strcspn(p, " ");
		fprintf(f, "%s%.*s|", p == exts ? "" : "|", (int)n, p);
		for (size_t k = 0; k < n; k++) fputc(p[k] >= 'a' && p[k] <= 'z' ? p[k] - 'a' + 'A' : p[k], f);
		p += n;
		while (*p == ' ') p++;
	}
	fputs(")'", f);
}

/* The names of an option, as a case pattern ("-j | --jobs"). */
static void bash_case(FILE *f, const cli_option *o)
{
	for (const char *p = o->names; *p;) {
		size_t n = strcspn(p, " ");
		fprintf(f, "%s%.*s", p == o->names ? "\t" : " | ", (int)n, p);
		p += n;
		while (*p == ' ') p++;
	}
	fputs(")", f);
}

static void bash_command(FILE *f, const cli_command *c)
{
	size_t n;
	const cli_option *opts = cli_options(&n);
	fprintf(f, "\n# %s\n_smdmx_%s()\n{\n\tcase $prev in\n", c->name, c->word ? c->word : c->name);
	for (size_t i = 0; i < n; i++) {
		const cli_option *o = &opts[i];
		if (!(o->commands & c->bit) || o->value == VAL_NONE) continue;
		bash_case(f, o);
		if (o->value == VAL_CHOICE || (o->value == VAL_NUMBER && o->values))
			fprintf(f, " COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n", o->values);
		else if (o->value == VAL_DIR)
			fputs(" _filedir -d ;;\n", f);
		else if (o->value == VAL_FILE && o->values) {
			fputs(" _filedir ", f);
			bash_pattern(f, o->values);
			fputs(" ;;\n", f);
		} else if (o->value == VAL_FILE)
			fputs(" _filedir ;;\n", f);
		else
			fputs(" ;;\n", f);
	}
	fputs("\t*)\n\t\tif [[ $cur == -* ]]; then\n\t\t\tCOMPREPLY=($(compgen -W \"", f);
	bool first = true;
	for (size_t i = 0; i < n; i++)
		if (opts[i].commands & c->bit) {
			fprintf(f, "%s%s", first ? "" : " ", opts[i].names);
			first = false;
		}
	fputs("\" -- \"$cur\"))\n\t\telse\n\t\t\t", f);
	if (!strcmp(c->inputs, "DIR")) fputs("_filedir -d", f);
	else {
		fputs("_filedir ", f);
		bash_pattern(f, c->inputs);
	}
	fputs("\n\t\tfi\n\t\t;;\n\tesac\n}\n", f);
}

static int bash(const char *out_path)
{
	FILE *f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return 1;
	}
	size_t nc;
	const cli_command *cmds = cli_commands(&nc);
	fputs("# bash completion for smdmx, smd2dmx and dmx2smd, written by smdmx-options from the\n"
	      "# programs' options table (src/cli/option_table.c): every option, and the values of those\n"
	      "# that take one of a list, a file or a folder.\n",
	      f);
	for (size_t i = 0; i < nc; i++)
		if (cmds[i].bit != CMD_SMDMX) bash_command(f, &cmds[i]);
	fputs("\n_smdmx()\n{\n\tlocal cur prev words cword\n\t_init_completion || return\n\tif ((cword == 1)); then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"",
	      f);
	for (size_t i = 0; i < nc; i++)
		if (cmds[i].word) fprintf(f, "%s ", cmds[i].word);
	fputs("-h --help --version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase ${words[1]} in\n", f);
	for (size_t i = 0; i < nc; i++)
		if (cmds[i].word) fprintf(f, "\t%s) _smdmx_%s ;;\n", cmds[i].word, cmds[i].word);
	fputs("\tesac\n}\n", f);
	for (size_t i = 0; i < nc; i++)
		if (!cmds[i].word && cmds[i].bit != CMD_SMDMX)
			fprintf(f, "\n_%s_program()\n{\n\tlocal cur prev words cword\n\t_init_completion || return\n\t_smdmx_%s\n}\n",
			        cmds[i].name, cmds[i].name);
	fputs("\ncomplete -F _smdmx smdmx\ncomplete -F _smd2dmx_program smd2dmx\ncomplete -F _dmx2smd_program dmx2smd\n", f);
	return fclose(f) == 0 ? 0 : 1;
}

/* ---- the list --------------------------------------------------------------------------- */

/* A value the option takes: its first choice, its lowest number, a name. */
static void a_value(const cli_option *o, char *buf, size_t size)
{
	if (o->value == VAL_CHOICE) snprintf(buf, size, "%.*s", (int)strcspn(o->values, " "), o->values);
	else if (o->value == VAL_NUMBER) snprintf(buf, size, "%.17g", (o->flags & OF_ABOVE_LO) ? o->hi : o->lo);
	else if (o->value == VAL_NONE) snprintf(buf, size, "-");
	else snprintf(buf, size, "x");
}

static int list(void)
{
	size_t nc, n;
	const cli_command *cmds = cli_commands(&nc);
	const cli_option *opts = cli_options(&n);
	for (size_t c = 0; c < nc; c++) {
		if (cmds[c].bit == CMD_SMDMX) continue;
		for (size_t i = 0; i < n; i++) {
			const cli_option *o = &opts[i];
			if (!(o->commands & cmds[c].bit)) continue;
			char value[64];
			a_value(o, value, sizeof(value));
			for (const char *p = o->names; *p;) {
				size_t k = strcspn(p, " ");
				printf("%s\t%.*s\t%s\t%s\n", cmds[c].name, (int)k, p, kinds[o->value], value);
				p += k;
				while (*p == ' ') p++;
			}
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* The table kept whole: no two options of one command share a name; every row has its
 * help, a valued one its value's name or label, a choice its values. */
static int table_problems(void)
{
	size_t nc, n;
	const cli_command *cmds = cli_commands(&nc);
	const cli_option *opts = cli_options(&n);
	int problems = 0;
	for (size_t i = 0; i < n; i++) {
		const cli_option *o = &opts[i];
		if (!o->help || (!(o->flags & OF_HIDDEN) && !o->help[0])) fprintf(stderr, "%s: no help\n", o->names), problems++;
		if (o->value != VAL_NONE && !o->arg && !o->label) fprintf(stderr, "%s: a value without its name\n", o->names), problems++;
		if (o->value == VAL_CHOICE && !o->values) fprintf(stderr, "%s: a choice of nothing\n", o->names), problems++;
		for (size_t c = 0; c < nc; c++) {
			if (!(o->commands & cmds[c].bit)) continue;
			for (const char *p = o->names; *p;) {
				size_t k = strcspn(p, " ");
				char name[64];
				snprintf(name, sizeof(name), "%.*s", (int)k, p);
				const char *attached;
				if (cli_option_find(cmds[c].bit, name, &attached) != o) {
					fprintf(stderr, "%s: %s names two options\n", cmds[c].name, name);
					problems++;
				}
				p += k;
				while (*p == ' ') p++;
			}
		}
	}
	return problems;
}

int main(int argc, char **argv)
{
	if (table_problems()) return 1;
	if (argc == 5 && !strcmp(argv[1], "man")) return man(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "bash")) return bash(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "list")) return list();
	if (argc == 2 && !strcmp(argv[1], "check")) return 0;
	fputs("usage: smdmx-options man COMMAND TEMPLATE OUT | bash OUT | list | check\n", stderr);
	return 2;
}
