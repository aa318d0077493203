/* Paths, and outputs written all or nothing: each output goes to a temporary file in its
 * target directory and is renamed into place when the whole job succeeded. Temporary files
 * are removed on failure and on SIGINT, SIGTERM and SIGHUP. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../platform/os.h"
#include "cli.h"

/* ---- paths ------------------------------------------------------------------------------- */

bool is_separator(char c)
{
	return os_is_separator(c);
}

const char *last_separator(const char *path)
{
	return os_last_separator(path);
}

int path_compare(const char *a, const char *b)
{
	return os_path_compare(a, b);
}

const char *path_extension(const char *path)
{
	return os_path_extension(path);
}

bool is_smd_family(const char *ext)
{
	return !strcasecmp(ext, "smd") || !strcasecmp(ext, "sma") || !strcasecmp(ext, "phys") || !strcasecmp(ext, "vta");
}

int cmp_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!p) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* The platform's paths (os_path.c), out of memory ending the program as xstrdup does. */
static char *have(char *p)
{
	if (!p) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	return p;
}

char *path_with_extension(const char *path, const char *ext)
{
	return have(os_path_with_extension(path, ext));
}

char *path_with_suffix(const char *path, const char *suffix)
{
	return have(os_path_with_suffix(path, suffix));
}

char path_separator_of(const char *path)
{
	return os_path_separator_of(path);
}

char *path_join(const char *dir, const char *rel)
{
	return have(os_path_join(dir, rel));
}

char *path_absolute(const char *path)
{
	return have(os_path_absolute(path));
}

char *path_relative(const char *from_file, const char *to)
{
	return have(os_path_relative(from_file, to));
}

bool make_parent_dirs(const char *path, char *why, size_t why_size)
{
	return os_make_parent_dirs(path, why, why_size);
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

bool stdin_is_dmx(void)
{
	size_t n = 0;
	char why[256];
	const char *d = stdin_data(&n, why, sizeof(why));
	return d && n >= 4 && !memcmp(d, "<!--", 4);
}

smdmx_scene *cli_read_smd(const char *path, const smdmx_smd_read_options *options, smdmx_error *error,
                          smdmx_warnings *warnings)
{
	if (strcmp(path, "-")) return smdmx_smd_read_file(path, options, error, warnings);
	smdmx_smd_read_options o;
	memset(&o, 0, sizeof(o));
	if (options) o = *options;
	if (!o.name) o.name = stdin_name;
	size_t n = 0;
	char why[256];
	const void *d = stdin_data(&n, why, sizeof(why));
	if (!d) {
		memset(error, 0, sizeof(*error));
		error->code = SMDMX_ERROR_IO;
		snprintf(error->message, sizeof(error->message), "%s", why);
		if (warnings) memset(warnings, 0, sizeof(*warnings));
		return NULL;
	}
	return smdmx_smd_read_memory(d, n, &o, error, warnings);
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
		if (warnings) memset(warnings, 0, sizeof(*warnings));
		return NULL;
	}
	return smdmx_dmx_read_memory(d, n, options, error, warnings);
}

/* ---- cleanup on signals ------------------------------------------------------------------ */

/* Temporary files in flight, for the signal handler: fixed slots, so that the handler only
 * reads memory that stays valid. A file without a slot (more than SLOTS at once) is still
 * removed on every failure, only not on a signal. */
enum { SLOTS = 128, SLOT_PATH = 4096 };
static char slot_path[SLOTS][SLOT_PATH];
static int slot_used[SLOTS]; /* 0 free, 1 taken, 2 taken and filled (atomics) */
static long pid; /* for temporary names; set before any worker starts */

static int slot_take(const char *path)
{
	size_t n = strlen(path);
	if (n >= SLOT_PATH) return -1;
	for (int s = 0; s < SLOTS; s++) {
		int free_slot = 0;
		if (__atomic_compare_exchange_n(&slot_used[s], &free_slot, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			memcpy(slot_path[s], path, n + 1);
			__atomic_store_n(&slot_used[s], 2, __ATOMIC_RELEASE);
			return s;
		}
	}
	return -1;
}

static void slot_release(int s)
{
	if (s >= 0) __atomic_store_n(&slot_used[s], 0, __ATOMIC_RELEASE);
}

static void on_interrupt(void)
{
	for (int s = 0; s < SLOTS; s++)
		if (__atomic_load_n(&slot_used[s], __ATOMIC_ACQUIRE) == 2) os_remove_in_cleanup(slot_path[s]);
}

void output_init(void)
{
	pid = os_pid();
	os_on_interrupt(on_interrupt);
}

/* ---- outputs ----------------------------------------------------------------------------- */

/* Files dropped in Explorer: an output that is there is said in Explorer's terms (its user
 * gave no option, and has none to give). */
static bool explorer_terms;

void outputs_in_explorer_terms(void)
{
	explorer_terms = true;
}

static void say_exists(const char *path, char *why, size_t why_size)
{
	if (explorer_terms)
		snprintf(why, why_size, "'%s' is already there, and was kept: delete it or move it away in Explorer, then drop again", path);
	else
		snprintf(why, why_size, "'%s' exists (--force overwrites it)", path);
}

/* Why Windows cannot hold path as a file's name, or NULL: a device name (CON, PRN, AUX, NUL,
 * COM1 to COM9, LPT1 to LPT9, with any extension: "con.dmx" is the console), ':' past the
 * drive (it names an alternate data stream of another file), a name that ends in '.' or ' '
 * (Windows drops them), or a character it refuses. what: room for the reason. */
static const char *windows_name_problem(const char *path, char *what, size_t n)
{
	const char *p = path;
	if (p[0] && p[1] == ':') p += 2;                                            /* the drive */
	else if (is_separator(p[0]) && is_separator(p[1]) && (p[2] == '?' || p[2] == '.') && is_separator(p[3])) p += 4; /* \\?\ */
	while (*p) {
		while (is_separator(*p)) p++;
		const char *e = p;
		while (*e && !is_separator(*e)) e++;
		size_t len = (size_t)(e - p);
		bool dots = (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.');
		for (const char *c = p; c < e && !dots; c++) {
			if (*c == ':') return "':' past the drive names a stream of another file";
			if ((unsigned char)*c < 32 || strchr("<>\"|?*", *c)) {
				snprintf(what, n, "a name with %s%c%s", (unsigned char)*c < 32 ? "a control character" : "'",
				         (unsigned char)*c < 32 ? ' ' : *c, (unsigned char)*c < 32 ? "" : "'");
				return what;
			}
		}
		if (len && !dots && (e[-1] == '.' || e[-1] == ' ')) return "a name that ends in '.' or ' ' (Windows drops them)";
		/* the device names, with or without an extension (and spaces before it) */
		size_t stem = 0;
		while (stem < len && p[stem] != '.') stem++;
		while (stem > 0 && p[stem - 1] == ' ') stem--;
		static const char *const devices[] = { "CON", "PRN", "AUX", "NUL" };
		bool device = false;
		for (size_t i = 0; i < 4 && !device; i++) device = stem == 3 && !strncasecmp(p, devices[i], 3);
		if (!device && stem == 4 && (!strncasecmp(p, "COM", 3) || !strncasecmp(p, "LPT", 3)) && p[3] >= '1' && p[3] <= '9')
			device = true;
		if (device) {
			snprintf(what, n, "'%.*s' is a device on Windows, not a file", (int)stem, p);
			return what;
		}
		p = e;
	}
	return NULL;
}

bool output_allowed(const char *path, char *const *inputs, size_t input_count, bool force, char *why, size_t why_size)
{
	if (!strcmp(path, "-")) return true;
	char what[128];
	const char *bad = os_windows_paths() ? windows_name_problem(path, what, sizeof(what)) : NULL;
	if (bad) {
		snprintf(why, why_size, "'%s': Windows cannot hold this name: %s", path, bad);
		return false;
	}
	os_stat so;
	if (!os_stat_path(path, &so)) return true; /* nothing there yet */
	for (size_t i = 0; i < input_count; i++) {
		if (inputs[i] && strcmp(inputs[i], "-") && os_same_file(inputs[i], path)) {
			snprintf(why, why_size, "the output '%s' is the input '%s'", path, inputs[i]);
			return false;
		}
	}
	if (so.kind == OS_DIRECTORY) {
		snprintf(why, why_size, "the output '%s' is a directory", path);
		return false;
	}
	if (!force) {
		say_exists(path, why, why_size);
		return false;
	}
	return true;
}

output *outputs_open(outputs *set, const char *path, char *why, size_t why_size)
{
	output *grown = realloc(set->items, (set->count + 1) * sizeof(*grown));
	if (!grown) {
		snprintf(why, why_size, "out of memory");
		return NULL;
	}
	set->items = grown;
	output *out = &set->items[set->count];
	memset(out, 0, sizeof(*out));
	out->slot = -1;
	if (!strcmp(path, "-")) {
		out->path = xstrdup(path);
		out->fd = os_stdout();
		set->count++;
		return out;
	}
	/* A name of our own, created exclusively with the final file's mode (0666 less the
	 * umask, as any new file): no fchmod afterwards. */
	static unsigned long counter;
	const char *slash = last_separator(path);
	/* The name is registered before the file is created: an interrupt in between removes a
	 * file that is not there yet, rather than leaving one behind. */
	for (int attempt = 0;; attempt++) {
		unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		out->tmp = slash ? xasprintf("%.*s.%s.%ld.%lu.tmp", (int)(slash - path + 1), path, slash + 1, pid, n)
		                 : xasprintf(".%s.%ld.%lu.tmp", path, pid, n);
		os_interrupts_hold();
		out->slot = slot_take(out->tmp);
		out->fd = os_create_new(out->tmp);
		int e = errno;
		if (out->fd == OS_NO_FILE) {
			slot_release(out->slot);
			out->slot = -1;
		}
		os_interrupts_release();
		if (out->fd != OS_NO_FILE) break;
		free(out->tmp);
		out->tmp = NULL;
		if (e != EEXIST || attempt == 100) {
			snprintf(why, why_size, "cannot write '%s': %s", path, os_error_text(e));
			return NULL;
		}
	}
	out->path = xstrdup(path);
	set->count++;
	return out;
}

bool output_write(void *user, const void *data, size_t size)
{
	output *out = user;
	if (os_write_all(out->fd, data, size)) return true;
	out->errnum = errno;
	/* standard output whose reader is gone (| head): where no signal ended the program,
	 * it ends here, as quietly */
	if (!out->tmp && out->errnum == EPIPE) os_exit_broken_pipe();
	return false;
}

static void output_drop(output *out)
{
	if (out->tmp) {
		if (out->fd != OS_NO_FILE) os_close(out->fd);
		os_remove(out->tmp);
		slot_release(out->slot);
	}
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
	out->fd = OS_NO_FILE;
}

void outputs_abort(outputs *set)
{
	for (size_t i = 0; i < set->count; i++) output_drop(&set->items[i]);
	free(set->items);
	set->items = NULL;
	set->count = 0;
}

bool outputs_finish(outputs *set, char *why, size_t why_size)
{
	for (size_t i = 0; i < set->count; i++) {
		output *out = &set->items[i];
		if (!out->tmp || out->fd == OS_NO_FILE) continue;
		os_file fd = out->fd;
		out->fd = OS_NO_FILE;
		bool synced = os_sync(fd);
		int e = errno;
		if (!os_close(fd) || !synced) {
			if (!synced) errno = e;
			snprintf(why, why_size, "cannot write '%s': %s", out->path, os_error_text(errno));
			outputs_abort(set);
			return false;
		}
	}
	return true;
}

/* The file at path holds the same bytes as the file at other (other not NULL) or as the
 * len bytes at data. */
bool file_same_bytes(const char *path, const char *other, const void *data, size_t len)
{
	FILE *fa = os_fopen(path, "rb"), *fb = fa && other ? os_fopen(other, "rb") : NULL;
	bool same = fa && (fb || !other);
	char x[65536], y[65536];
	size_t at = 0;
	while (same) {
		size_t n = fread(x, 1, sizeof(x), fa), m;
		if (fb) {
			m = fread(y, 1, sizeof(y), fb);
			same = n == m && !memcmp(x, y, n);
		} else {
			same = n <= len - at && (!n || !memcmp(x, (const char *)data + at, n));
			at += n;
		}
		if (n < sizeof(x)) break;
	}
	same = same && !ferror(fa) && (fb ? !ferror(fb) && fgetc(fb) == EOF : at == len);
	if (fa) fclose(fa);
	if (fb) fclose(fb);
	return same;
}

bool output_clashes(const output *out)
{
	os_stat there;
	return out->tmp && os_stat_path(out->path, &there) && !(there.kind == OS_REGULAR && file_same_bytes(out->tmp, out->path, NULL, 0));
}

bool outputs_commit(outputs *set, char ***written, size_t *written_count, char *why, size_t why_size)
{
	/* Flush to the disk and close everything first: a late write error fails the whole set,
	 * and a file renamed into place is never one whose data a crash could still lose. */
	if (!outputs_finish(set, why, why_size)) return false;
	/* The interrupts wait while the set is renamed into place: all of it or none. */
	os_interrupts_hold();
	size_t done = 0;
	for (; done < set->count; done++) {
		output *out = &set->items[done];
		if (!out->tmp) continue;
		os_stat there;
		if (!set->force && set->same_ok && os_stat_path(out->path, &there) && there.kind == OS_REGULAR &&
		    file_same_bytes(out->tmp, out->path, NULL, 0)) {
			/* the very bytes are there: they stay, and count as written */
			os_remove(out->tmp);
			slot_release(out->slot);
			out->slot = -1;
			free(out->tmp);
			out->tmp = NULL;
			continue;
		}
		bool moved = set->force || out->replace ? os_replace(out->tmp, out->path) : os_rename_new(out->tmp, out->path);
		if (!moved) {
			if (errno == EEXIST) say_exists(out->path, why, why_size);
			else snprintf(why, why_size, "cannot write '%s': %s", out->path, os_error_text(errno));
			break;
		}
	}
	if (done < set->count) {
		/* Take back what this job already put in place: all or nothing. */
		for (size_t i = 0; i < done; i++)
			if (set->items[i].tmp) os_remove(set->items[i].path);
		outputs_abort(set);
		os_interrupts_release();
		return false;
	}
	/* (never realloc to 0 bytes: that may free the list and return NULL) */
	char **list = set->count ? realloc(*written, (*written_count + set->count) * sizeof(char *)) : *written;
	for (size_t i = 0; i < set->count; i++) {
		output *out = &set->items[i];
		slot_release(out->slot);
		free(out->tmp);
		if (list) list[(*written_count)++] = out->path;
		else free(out->path);
	}
	os_interrupts_release();
	if (list) *written = list;
	free(set->items);
	set->items = NULL;
	set->count = 0;
	return true;
}

/* ---- depfiles ---------------------------------------------------------------------------- */

void tb_putc(text_buf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *t = realloc(b->text, cap);
		if (!t) {
			fputs("smdmx: error: out of memory\n", stderr);
			exit(EXIT_FAILED);
		}
		b->text = t;
		b->cap = cap;
	}
	b->text[b->len++] = c;
	b->text[b->len] = 0;
}

void tb_puts(text_buf *b, const char *s)
{
	for (; s && *s; s++) tb_putc(b, *s);
}

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

bool depfile_write(const char *path, const text_buf *b, char *why, size_t why_size)
{
	outputs set = { .force = true };
	output *out = outputs_open(&set, path, why, why_size);
	bool ok = out && output_write(out, b->text ? b->text : "", b->len);
	char **written = NULL;
	size_t written_count = 0;
	if (ok) ok = outputs_commit(&set, &written, &written_count, why, why_size);
	else {
		if (out) snprintf(why, why_size, "cannot write '%s': %s", path, os_error_text(out->errnum));
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
