/* The programs' side of paths (the platform's, os_path.c) and of outputs written all or
 * nothing (the library's, smdmx/output.h): out of memory ends the program, a file already
 * there is said with what the user can do about it, the temporary files go on SIGINT,
 * SIGTERM and SIGHUP, and a reader that closed standard output ends the program quietly; and
 * files made in memory written whole (a picture, a report's page). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../platform/os_program.h"
#include "cli.h"

/* ---- paths ------------------------------------------------------------------------------- */

bool is_smd_family(const char *ext)
{
	return !strcasecmp(ext, "smd") || !strcasecmp(ext, "sma") || !strcasecmp(ext, "phys") || !strcasecmp(ext, "vta");
}

int cmp_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void *have(void *p)
{
	if (!p) {
		os_puts("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	return p;
}

void have_done(bool ok)
{
	if (!ok) have(NULL);
}

char *xstrdup(const char *s)
{
	return have(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = have(n >= 0 ? malloc((size_t)n + 1) : NULL);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* The platform's paths (os_path.c) that allocate, out of memory ending the program. */
char *path_with_extension(const char *path, const char *ext)
{
	return have(os_path_with_extension(path, ext));
}

char *path_join(const char *dir, const char *rel)
{
	return have(os_path_join(dir, rel));
}

/* ---- standard input ------------------------------------------------------------------------- */

const char *stdin_name = "stdin";
static char *in_data;
static size_t in_size;
static bool in_read, in_failed;
static char in_why[256];

const void *stdin_data(size_t *size, char *why, size_t why_size)
{
	if (!in_read) {
		in_read = true;
		size_t cap = 1 << 16;
		in_data = malloc(cap);
		for (;;) {
			if (!in_data) {
				snprintf(in_why, sizeof(in_why), "out of memory reading standard input");
				in_failed = true;
				break;
			}
			ptrdiff_t n = os_read(os_stdin(), in_data + in_size, cap - in_size);
			if (n < 0) {
				snprintf(in_why, sizeof(in_why), "cannot read standard input: %s", os_error_text(errno));
				in_failed = true;
				break;
			}
			if (n == 0) break;
			in_size += (size_t)n;
			if (in_size == cap) {
				char *g = cap < ((size_t)1 << 40) ? realloc(in_data, cap * 2) : NULL;
				if (!g) free(in_data);
				in_data = g;
				cap *= 2;
			}
		}
	}
	if (in_failed) {
		snprintf(why, why_size, "%s", in_why);
		return NULL;
	}
	*size = in_size;
	return in_data ? in_data : "";
}

smdmx_dm *cli_read_dmx(const char *path, const smdmx_dmx_read_options *options, smdmx_error *error,
                       smdmx_warnings *warnings)
{
	if (strcmp(path, "-")) return smdmx_dmx_read_file(path, options, error, warnings);
	size_t n = 0;
	char why[256];
	const void *d = stdin_data(&n, why, sizeof(why));
	if (!d) {
		memset(error, 0, sizeof(*error));
		error->code = SMDMX_ERROR_IO;
		snprintf(error->message, sizeof(error->message), "%s", why);
		smdmx_warnings_free(warnings);
		return NULL;
	}
	return smdmx_dmx_read_memory(d, n, options, error, warnings);
}

/* ---- outputs: the library's (smdmx/output.h), with the programs' words ------------------ */

void output_init(void)
{
	os_on_interrupt(smdmx_outputs_remove_temporary);
}

/* Files dropped in Explorer: an output that is there is said in Explorer's terms (its user
 * gave no option, and has none to give). */
static bool explorer_terms;

void outputs_in_explorer_terms(void)
{
	explorer_terms = true;
}

/* The library's failure in the programs' words: a file that is there (said "'PATH' exists")
 * gets what to do about it. */
static bool said(smdmx_error_code code, char *why, size_t why_size)
{
	if (code == SMDMX_ERROR_NONE) return true;
	size_t n = strlen(why);
	static const char exists[] = "' exists";
	if (code == SMDMX_ERROR_EXISTS && why[0] == '\'' && n > sizeof(exists) && !strcmp(why + n - (sizeof(exists) - 1), exists)) {
		char *path = xasprintf("%.*s", (int)(n - sizeof(exists)), why + 1);
		if (explorer_terms)
			snprintf(why, why_size, "'%s' is already there, and was kept: delete it or move it away in Explorer, then drop again", path);
		else
			snprintf(why, why_size, "'%s' exists (--force overwrites it)", path);
		free(path);
	}
	return false;
}

void output_words(char *text, size_t size)
{
	size_t n = strlen(text);
	static const char exists[] = "' exists";
	size_t e = sizeof(exists) - 1;
	if (n <= e || strcmp(text + n - e, exists)) return;
	/* the quote that opens the path: at the start of the text, or after a space */
	size_t open = n - e;
	while (open > 0 && !(text[open - 1] == '\'' && (open == 1 || text[open - 2] == ' '))) open--;
	if (open == 0) return;
	open--;
	char why[4200];
	snprintf(why, sizeof(why), "%s", text + open);
	said(SMDMX_ERROR_EXISTS, why, sizeof(why));
	snprintf(text + open, size - open, "%s", why);
}

bool output_allowed(const char *path, char *const *inputs, size_t input_count, bool force, char *why, size_t why_size)
{
	return said(smdmx_output_allowed(path, (const char *const *)inputs, input_count, force, why, why_size), why, why_size);
}

output *outputs_open(outputs *set, const char *path, char *why, size_t why_size)
{
	if (!set->set) set->set = have(smdmx_outputs_new(0, NULL));
	return smdmx_outputs_open(set->set, path, why, why_size);
}

bool output_write(void *user, const void *data, size_t size)
{
	if (smdmx_output_write(user, data, size)) return true;
	/* standard output whose reader is gone (| head): where no signal ended the program, it
	 * ends here, as quietly */
	if (smdmx_output_errno(user) == EPIPE && !strcmp(smdmx_output_path(user), "-")) os_exit_broken_pipe();
	return false;
}

void outputs_abort(outputs *set)
{
	smdmx_outputs_free(set->set);
	set->set = NULL;
}

static unsigned flags_of(const outputs *set)
{
	return set->force ? SMDMX_OUTPUTS_FORCE : 0u;
}

bool outputs_commit(outputs *set, char ***written, size_t *written_count, char *why, size_t why_size)
{
	if (!set->set) return true;
	smdmx_outputs_set_flags(set->set, flags_of(set));
	bool ok = said(smdmx_outputs_commit(set->set, written, written_count, why, why_size), why, why_size);
	outputs_abort(set);
	return ok;
}

/* ---- depfiles ---------------------------------------------------------------------------- */

void tb_dep_path(text_buf *b, const char *s)
{
	bool windows = os_windows_paths();
	for (; *s; s++) {
		char c = *s == '\\' && windows ? '/' : *s;
		if (c == ' ' || c == '\t' || c == '#' || c == '\\') tb_putc(b, '\\');
		if (c == '$') tb_putc(b, '$');
		tb_putc(b, c);
	}
}

void tb_shell_arg(text_buf *b, const char *s)
{
	bool windows = os_windows_paths(), quote = !*s;
	for (const char *p = s; *p && !quote; p++)
		quote = strchr(windows ? " \t&()[]{}^=;!'+,`~%" : " \t&()[]{}^=;!'\"+,`~$*?<>|#\\", *p) != NULL;
	if (!quote) {
		tb_puts(b, s);
	} else if (windows) { /* cmd and PowerShell: a Windows name holds no '"' */
		tb_putc(b, '"');
		tb_puts(b, s);
		tb_putc(b, '"');
	} else { /* a POSIX shell: within '', all but ' is itself */
		tb_putc(b, '\'');
		for (const char *p = s; *p; p++) {
			if (*p == '\'') tb_puts(b, "'\\''");
			else tb_putc(b, *p);
		}
		tb_putc(b, '\'');
	}
}

bool depfile_write(const char *path, const text_buf *b, char *why, size_t why_size)
{
	if (b->failed) {
		snprintf(why, why_size, "cannot write '%s': out of memory", path);
		return false;
	}
	outputs set = { .force = true };
	output *out = outputs_open(&set, path, why, why_size);
	bool ok = out && output_write(out, b->text ? b->text : "", b->len);
	char **written = NULL;
	size_t written_count = 0;
	if (ok) ok = outputs_commit(&set, &written, &written_count, why, why_size);
	else {
		if (out) snprintf(why, why_size, "cannot write '%s': %s", path, os_error_text(smdmx_output_errno(out)));
		outputs_abort(&set);
	}
	for (size_t i = 0; i < written_count; i++) free(written[i]);
	free(written);
	return ok;
}

/* ---- engine targets ---------------------------------------------------------------------- */

/* MAXSTUDIOBONES: 128 in GoldSrc and Source 1, 256 in CS:GO's branch; Source 2 has no such
 * limit. GoldSrc keeps one bone per vertex, Source 1 three, Source 2 four. */
const smdmx_engine_target *engine_target_find(const char *name, bool with_goldsrc)
{
	const smdmx_engine_target *t = smdmx_engine_target_find(name);
	return t && (with_goldsrc || t->encoding_version) ? t : NULL;
}

const char *engine_target_names(bool with_goldsrc)
{
	static char names[2][256];
	char *b = names[with_goldsrc];
	if (!*b) {
		size_t n, len = 0;
		const smdmx_engine_target *t = smdmx_engine_targets(&n);
		for (size_t i = 0; i < n; i++)
			if (with_goldsrc || t[i].encoding_version)
				len += (size_t)snprintf(b + len, sizeof(names[0]) - len, "%s%s", len ? ", " : "", t[i].name);
	}
	return b;
}

/* ---- files written whole ------------------------------------------------------------------- */

/* A file written all or nothing, never over an input and, without force, over nothing. */
bool write_file_whole(const char *path, const void *data, size_t size, char *const *inputs, size_t input_count,
                      bool force, char *why, size_t why_size)
{
	whole_file f = { path, data, size };
	return write_files_whole(&f, 1, inputs, input_count, force, why, why_size);
}

/* qsort's and bsearch's order of file ids. */
static int by_id(const void *a, const void *b)
{
	const os_file_id *x = a, *y = b;
	if (x->device != y->device) return x->device < y->device ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* Whether path may be written over: an output that is there is never one of the inputs.
 * The inputs' ids are taken once (*ids, sorted; a report reads tens of thousands of files
 * and writes hundreds), then an output is one stat and a search; the input it is, named. */
static bool allowed_among(const char *path, char *const *inputs, size_t input_count, os_file_id **ids, size_t *id_count,
                          bool force, char *why, size_t why_size)
{
	os_file_id at;
	if (!os_file_id_of(path, &at)) return output_allowed(path, NULL, 0, force, why, why_size);
	if (!*ids) {
		*ids = have(malloc((input_count + 1) * sizeof(os_file_id)));
		for (size_t i = 0; i < input_count; i++)
			if (inputs[i] && strcmp(inputs[i], "-") && os_file_id_of(inputs[i], &(*ids)[*id_count])) ++*id_count;
		qsort(*ids, *id_count, sizeof(os_file_id), by_id);
	}
	if (!bsearch(&at, *ids, *id_count, sizeof(os_file_id), by_id)) return output_allowed(path, NULL, 0, force, why, why_size);
	return output_allowed(path, inputs, input_count, force, why, why_size); /* which input, said */
}

bool write_files_whole(const whole_file *files, size_t count, char *const *inputs, size_t input_count, bool force, char *why,
                       size_t why_size)
{
	os_file_id *ids = NULL;
	size_t id_count = 0;
	bool allowed = true;
	for (size_t i = 0; allowed && i < count; i++)
		allowed = allowed_among(files[i].path, inputs, input_count, &ids, &id_count, force, why, why_size);
	free(ids);
	if (!allowed) return false;
	outputs set = { .force = force };
	bool ok = true;
	for (size_t i = 0; ok && i < count; i++) {
		output *out = outputs_open(&set, files[i].path, why, why_size);
		ok = out != NULL;
		if (ok && !output_write(out, files[i].data, files[i].size)) {
			snprintf(why, why_size, "cannot write '%s': %s", files[i].path, os_error_text(smdmx_output_errno(out)));
			ok = false;
		}
	}
	char **written = NULL;
	size_t nw = 0;
	ok = ok && outputs_commit(&set, &written, &nw, why, why_size);
	if (!ok) outputs_abort(&set);
	for (size_t i = 0; i < nw; i++) free(written[i]);
	free(written);
	return ok;
}
