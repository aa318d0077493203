/* Outputs written whole or not at all (include/smdmx/output.h): each output goes to a
 * temporary file beside its final path, in folders made for it where they are not, and is
 * renamed into place when its whole set succeeded; a set that does not succeed leaves neither
 * its files nor the folders it made. The temporary files in flight are listed in fixed slots, so that a signal
 * handler (the program's) can remove them reading only memory that stays valid. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform/os.h"
#include "support/internal.h"
#include "smdmx/output.h"

/* Every byte of a set goes through its allocator (smdmx_outputs_new): strings of their length
 * and one byte, the item list of its count, so that a final path handed to the caller in a
 * written list is freed by its length (smdmx_outputs_written_free). */
struct smdmx_output {
	sm_alloc *alloc; /* its set's */
	char *path;
	char *tmp;    /* NULL for standard output */
	os_file fd;
	int slot;     /* the interrupt slot, or -1 */
	int errnum;   /* errno of a failed write */
	int sync_errnum; /* errno of a failed flush (sm_outputs_flush), said by the commit: a flush
	                    that failed once may not fail again */
	bool flushed;    /* on the disk as written (sm_outputs_flush) */
	bool replace; /* the file already there is replaced (smdmx_output_set_replace) */
	size_t made;  /* the first folder made for it (those below it too): the length of path's
	                 part that names it; 0: none made */
	uint64_t written, started; /* bytes written; of them, those whose writing to the disk was started */
};

struct smdmx_outputs {
	smdmx_output **items; /* each on its own, so that an output's address stays as the set grows */
	size_t count, cap;
	unsigned flags;
	sm_alloc alloc;
};


sm_alloc *sm_outputs_alloc(smdmx_outputs *set)
{
	return &set->alloc;
}

/* ---- the interrupt slots ------------------------------------------------------------------ */

/* A file without a slot (more than SLOTS at once) is still removed on every failure, only
 * not on a signal. */
enum { SLOTS = 128, SLOT_PATH = 4096 };
static char slot_path[SLOTS][SLOT_PATH];
static int slot_used[SLOTS]; /* 0 free, 1 taken, 2 taken and filled (atomics) */

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

void smdmx_outputs_remove_temporary(void)
{
	for (int s = 0; s < SLOTS; s++)
		if (__atomic_load_n(&slot_used[s], __ATOMIC_ACQUIRE) == 2) os_remove_in_cleanup(slot_path[s]);
}

/* ---- a set -------------------------------------------------------------------------------- */

smdmx_outputs *smdmx_outputs_new(unsigned flags, const smdmx_allocator *allocator)
{
	sm_alloc a;
	sm_alloc_init(&a, allocator);
	smdmx_outputs *set = sm_malloc(&a, sizeof(*set));
	if (!set) return NULL;
	memset(set, 0, sizeof(*set));
	set->flags = flags;
	set->alloc = a;
	return set;
}

void smdmx_outputs_written_free(char **written, size_t count, const smdmx_allocator *allocator)
{
	if (!written) return;
	sm_alloc a;
	sm_alloc_init(&a, allocator);
	for (size_t i = 0; i < count; i++) sm_str_free(&a, written[i]);
	sm_free(&a, written, (count ? count : 1) * sizeof(char *));
}

unsigned smdmx_outputs_flags(const smdmx_outputs *set)
{
	return set ? set->flags : 0;
}

void smdmx_outputs_set_flags(smdmx_outputs *set, unsigned flags)
{
	if (set) set->flags = flags;
}

size_t smdmx_outputs_count(const smdmx_outputs *set)
{
	return set ? set->count : 0;
}

smdmx_output *smdmx_outputs_item(smdmx_outputs *set, size_t index)
{
	return set && index < set->count ? set->items[index] : NULL;
}

const char *smdmx_output_path(const smdmx_output *output)
{
	return output ? output->path : NULL;
}

int smdmx_output_errno(const smdmx_output *output)
{
	return output ? output->errnum : EINVAL;
}

void smdmx_output_set_replace(smdmx_output *output, bool replace)
{
	if (output) output->replace = replace;
}

/* A failure said in the caller's room: its code. */
static smdmx_error_code fail_why(smdmx_error_code code, char *why, size_t why_size, const char *fmt, ...) SM_PRINTF(4, 5);
static smdmx_error_code fail_why(smdmx_error_code code, char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (why && why_size) vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
	return code;
}


/* The temporary name of path: ".NAME.PID.N.tmp" in its folder (NULL: no memory). */
static char *temporary_name(sm_alloc *a, const char *path, unsigned long n)
{
	const char *slash = os_last_separator(path);
	int dir = slash ? (int)(slash - path + 1) : 0;
	int len = snprintf(NULL, 0, "%.*s.%s.%ld.%lu.tmp", dir, path, path + dir, os_pid(), n);
	char *t = len > 0 ? sm_malloc(a, (size_t)len + 1) : NULL;
	if (t) snprintf(t, (size_t)len + 1, "%.*s.%s.%ld.%lu.tmp", dir, path, path + dir, os_pid(), n);
	return t;
}

bool smdmx_output_rename(smdmx_output *output, const char *path)
{
	if (!output || !path) return false;
	char *c = sm_str_copy(output->alloc, path);
	if (!c) return false;
	sm_str_free(output->alloc, output->path);
	output->path = c;
	return true;
}

/* The folders made for an output that is not put in place: each from its file's up to the
 * first made, while they are empty (another output may have put a file there). The path is
 * cut at each in turn, and mended. */
static void remove_made(smdmx_output *out)
{
	if (!out->made) return;
	char *dir = out->path;
	for (size_t cut = strlen(dir); cut > out->made;) {
		while (cut > out->made && !os_is_separator(dir[cut])) cut--;
		if (cut < out->made || !os_is_separator(dir[cut])) break;
		char sep = dir[cut];
		dir[cut] = '\0';
		bool gone = os_rmdir(dir);
		dir[cut] = sep;
		if (!gone) break;
		cut--;
	}
	out->made = 0;
}

/* An output's memory (not its files). */
static void output_free(smdmx_output *out)
{
	sm_str_free(out->alloc, out->tmp);
	sm_str_free(out->alloc, out->path);
	sm_free(out->alloc, out, sizeof(*out));
}

smdmx_output *sm_outputs_open(smdmx_outputs *set, const char *path, char *why, size_t why_size, smdmx_error_code *code)
{
	*code = SMDMX_ERROR_NONE;
	if (!set || !path) return *code = fail_why(SMDMX_ERROR_USAGE, why, why_size, "smdmx_outputs_open: %s is NULL", !set ? "set" : "path"), NULL;
	sm_alloc *a = &set->alloc;
	if (set->count == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 4;
		smdmx_output **grown = sm_realloc(a, set->items, set->cap * sizeof(*grown), cap * sizeof(*grown));
		if (!grown) return *code = fail_why(SMDMX_ERROR_OUT_OF_MEMORY, why, why_size, "out of memory"), NULL;
		set->items = grown;
		set->cap = cap;
	}
	smdmx_output *out = sm_malloc(a, sizeof(*out));
	if (out) memset(out, 0, sizeof(*out));
	if (!out || !(out->path = sm_str_copy(a, path))) {
		if (out) sm_free(a, out, sizeof(*out));
		return *code = fail_why(SMDMX_ERROR_OUT_OF_MEMORY, why, why_size, "out of memory"), NULL;
	}
	out->alloc = a;
	out->slot = -1;
	if (!strcmp(path, "-")) {
		out->fd = os_stdout();
		set->items[set->count++] = out;
		return out;
	}
	/* Its folders, made where they are not (and removed with the output if it fails). */
	if (!os_make_parent_dirs_made(out->path, &out->made, why, why_size)) {
		output_free(out);
		*code = SMDMX_ERROR_IO;
		return NULL;
	}
	/* A name of our own, created exclusively with the final file's mode (0666 less the
	 * umask, as any new file). The name is registered before the file is created: an
	 * interrupt in between removes a file that is not there yet, rather than leaving one. */
	static unsigned long counter;
	for (int attempt = 0;; attempt++) {
		out->tmp = temporary_name(a, path, __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
		if (!out->tmp) break;
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
		sm_str_free(a, out->tmp);
		out->tmp = NULL;
		/* ENOENT: another set that failed took away a folder it had made, which this one
		 * found there: made again */
		size_t again = 0;
		bool remade = e == ENOENT && attempt < 100 && os_make_parent_dirs_made(out->path, &again, why, why_size);
		if (remade && again && !out->made) out->made = again;
		if (!remade && (e != EEXIST || attempt == 100)) {
			if (e != ENOENT || attempt == 100) fail_why(SMDMX_ERROR_IO, why, why_size, "cannot write '%s': %s", path, os_error_text(e));
			remove_made(out);
			output_free(out);
			*code = SMDMX_ERROR_IO;
			return NULL;
		}
	}
	if (!out->tmp) {
		remove_made(out);
		output_free(out);
		return *code = fail_why(SMDMX_ERROR_OUT_OF_MEMORY, why, why_size, "out of memory"), NULL;
	}
	set->items[set->count++] = out;
	return out;
}

smdmx_output *smdmx_outputs_open(smdmx_outputs *set, const char *path, char *why, size_t why_size)
{
	smdmx_error_code code;
	return sm_outputs_open(set, path, why, why_size, &code);
}

/* Bytes of a file written between two starts of their writing to the disk. */
#define SYNC_STEP ((uint64_t)8 << 20)

bool smdmx_output_write(void *output, const void *data, size_t size)
{
	smdmx_output *out = output;
	if (!out || (!data && size)) return false;
	if (!os_write_all(out->fd, data, size)) {
		out->errnum = errno ? errno : EIO;
		return false;
	}
	/* A large file goes to the disk while the rest of it is made: the flush before its rename
	 * (smdmx_outputs_finish) then waits for its last part only. Standard output is not. */
	out->written += size;
	out->flushed = false;
	if (out->tmp && out->written - out->started >= SYNC_STEP) {
		os_sync_start(out->fd, out->started, out->written - out->started);
		out->started = out->written;
	}
	return true;
}

void sm_outputs_start(smdmx_outputs *set)
{
	for (size_t i = 0; set && i < set->count; i++) {
		smdmx_output *out = set->items[i];
		if (!out->tmp || out->fd == OS_NO_FILE || out->written == out->started) continue;
		os_sync_start(out->fd, out->started, out->written - out->started);
		out->started = out->written;
	}
}

void sm_outputs_flush(smdmx_outputs *set)
{
	for (size_t i = 0; set && i < set->count; i++) {
		smdmx_output *out = set->items[i];
		if (!out->tmp || out->fd == OS_NO_FILE || out->sync_errnum || out->flushed) continue;
		if (!os_sync(out->fd)) out->sync_errnum = errno ? errno : EIO;
		else out->flushed = true;
	}
}

static void output_drop(smdmx_output *out)
{
	if (out->tmp) {
		if (out->fd != OS_NO_FILE) os_close(out->fd);
		os_remove(out->tmp);
		slot_release(out->slot);
	}
	remove_made(out);
	output_free(out);
}

void smdmx_outputs_abort(smdmx_outputs *set)
{
	if (!set) return;
	for (size_t i = 0; i < set->count; i++) output_drop(set->items[i]);
	sm_free(&set->alloc, set->items, set->cap * sizeof(*set->items));
	set->items = NULL;
	set->count = set->cap = 0;
}

void smdmx_outputs_free(smdmx_outputs *set)
{
	if (!set) return;
	smdmx_outputs_abort(set);
	sm_alloc a = set->alloc;
	sm_free(&a, set, sizeof(*set));
}

smdmx_error_code smdmx_outputs_finish(smdmx_outputs *set, char *why, size_t why_size)
{
	if (!set) return fail_why(SMDMX_ERROR_USAGE, why, why_size, "smdmx_outputs_finish: set is NULL");
	/* Every file's writing started before the first flush waits: the disk takes them
	 * together, and one commit of the file system's journal covers them all. */
	sm_outputs_start(set);
	for (size_t i = 0; i < set->count; i++) {
		smdmx_output *out = set->items[i];
		if (!out->tmp || out->fd == OS_NO_FILE) continue;
		os_file fd = out->fd;
		out->fd = OS_NO_FILE;
		bool synced = !out->sync_errnum && (out->flushed || os_sync(fd));
		int e = out->sync_errnum ? out->sync_errnum : errno;
		if (!os_close(fd) || !synced) {
			if (!synced) errno = e;
			smdmx_error_code c = fail_why(SMDMX_ERROR_IO, why, why_size, "cannot write '%s': %s", out->path, os_error_text(errno));
			smdmx_outputs_abort(set);
			return c;
		}
	}
	return SMDMX_ERROR_NONE;
}

bool smdmx_file_same_bytes(const char *path, const char *other, const void *data, size_t len)
{
	enum { PART = 16384 };
	FILE *fa = os_fopen(path, "rb"), *fb = fa && other ? os_fopen(other, "rb") : NULL;
	char x[PART], y[PART];
	bool same = fa && (fb || !other);
	size_t at = 0;
	while (same) {
		size_t n = fread(x, 1, PART, fa), m;
		if (fb) {
			m = fread(y, 1, PART, fb);
			same = n == m && !memcmp(x, y, n);
		} else {
			same = n <= len - at && (!n || !memcmp(x, (const char *)data + at, n));
			at += n;
		}
		if (n < PART) break;
	}
	same = same && !ferror(fa) && (fb ? !ferror(fb) && fgetc(fb) == EOF : at == len);
	if (fa) fclose(fa);
	if (fb) fclose(fb);
	return same;
}

bool smdmx_output_clashes(const smdmx_output *out)
{
	if (!out) return false;
	os_stat there;
	return out->tmp && os_stat_path(out->path, &there) &&
	       !(there.kind == OS_REGULAR && smdmx_file_same_bytes(out->tmp, out->path, NULL, 0));
}

smdmx_error_code smdmx_outputs_commit(smdmx_outputs *set, char ***written, size_t *written_count, char *why,
                                      size_t why_size)
{
	if (!set || !written || !written_count)
		return fail_why(SMDMX_ERROR_USAGE, why, why_size, "smdmx_outputs_commit: %s is NULL", !set ? "set" : !written ? "written" : "written_count");
	/* Flush to the disk and close everything first: a late write error fails the whole set,
	 * and a file renamed into place is never one whose data a crash could still lose. */
	smdmx_error_code code = smdmx_outputs_finish(set, why, why_size);
	if (code) return code;
	/* Room for the list first: once files are in place, nothing may fail. (Never realloc to
	 * 0 bytes: that may free the list and return NULL.) */
	char **list = NULL; /* the list as it will be: installed once the files are in place */
	size_t listed = *written_count, list_bytes = (listed + set->count) * sizeof(char *);
	if (set->count) {
		list = sm_malloc(&set->alloc, list_bytes);
		if (!list) {
			smdmx_outputs_abort(set);
			return fail_why(SMDMX_ERROR_OUT_OF_MEMORY, why, why_size, "out of memory");
		}
		if (listed) memcpy(list, *written, listed * sizeof(char *));
	}
	bool force = set->flags & SMDMX_OUTPUTS_FORCE, same_ok = set->flags & SMDMX_OUTPUTS_SAME_OK;
	/* The interrupts wait while the set is renamed into place: all of it or none. */
	os_interrupts_hold();
	size_t done = 0;
	for (; done < set->count; done++) {
		smdmx_output *out = set->items[done];
		if (!out->tmp) continue;
		os_stat there;
		if (!force && same_ok && os_stat_path(out->path, &there) && there.kind == OS_REGULAR &&
		    smdmx_file_same_bytes(out->tmp, out->path, NULL, 0)) {
			/* the very bytes are there: they stay, and count as written */
			os_remove(out->tmp);
			slot_release(out->slot);
			out->slot = -1;
			sm_str_free(&set->alloc, out->tmp);
			out->tmp = NULL;
			continue;
		}
		bool moved = force || out->replace ? os_replace(out->tmp, out->path) : os_rename_new(out->tmp, out->path);
		if (!moved) {
			if (errno == EEXIST) code = fail_why(SMDMX_ERROR_EXISTS, why, why_size, "'%s' exists", out->path);
			else code = fail_why(SMDMX_ERROR_IO, why, why_size, "cannot write '%s': %s", out->path, os_error_text(errno));
			break;
		}
	}
	if (done < set->count) {
		/* Take back what this set already put in place: all or nothing. */
		for (size_t i = 0; i < done; i++)
			if (set->items[i]->tmp) os_remove(set->items[i]->path);
		smdmx_outputs_abort(set);
		os_interrupts_release();
		if (list) sm_free(&set->alloc, list, list_bytes);
		return code;
	}
	if (list) {
		if (*written) sm_free(&set->alloc, *written, listed * sizeof(char *));
		*written = list;
	}
	for (size_t i = 0; i < set->count; i++) {
		smdmx_output *out = set->items[i];
		slot_release(out->slot);
		sm_str_free(&set->alloc, out->tmp); /* (in place: the folders it made stay) */
		(*written)[(*written_count)++] = out->path;
		sm_free(&set->alloc, out, sizeof(*out));
	}
	os_interrupts_release();
	sm_free(&set->alloc, set->items, set->cap * sizeof(*set->items));
	set->items = NULL;
	set->count = set->cap = 0;
	return SMDMX_ERROR_NONE;
}

/* ---- whether a path may be written -------------------------------------------------------- */

/* Why Windows cannot hold path as a file's name, or NULL: a device name (CON, PRN, AUX, NUL,
 * COM1 to COM9, LPT1 to LPT9, with any extension: "con.dmx" is the console), ':' past the
 * drive (it names an alternate data stream of another file), a name that ends in '.' or ' '
 * (Windows drops them), or a character it refuses. what: room for the reason. */
static const char *windows_name_problem(const char *path, char *what, size_t n)
{
	const char *p = path;
	if (p[0] && p[1] == ':') p += 2; /* the drive */
	else if (os_is_separator(p[0]) && os_is_separator(p[1]) && (p[2] == '?' || p[2] == '.') && os_is_separator(p[3])) {
		p += 4; /* \\?\ or \\.\, then a drive (\\?\C:\...) or UNC\server\share */
		if (p[0] && p[1] == ':') p += 2;
	}
	while (*p) {
		while (os_is_separator(*p)) p++;
		const char *e = p;
		while (*e && !os_is_separator(*e)) e++;
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

smdmx_error_code smdmx_output_allowed(const char *path, const char *const *inputs, size_t input_count, bool force,
                                      char *why, size_t why_size)
{
	if (!path) return fail_why(SMDMX_ERROR_USAGE, why, why_size, "smdmx_output_allowed: path is NULL");
	if (!strcmp(path, "-")) return SMDMX_ERROR_NONE;
	char what[128];
	const char *bad = os_windows_paths() ? windows_name_problem(path, what, sizeof(what)) : NULL;
	if (bad) return fail_why(SMDMX_ERROR_USAGE, why, why_size, "'%s': Windows cannot hold this name: %s", path, bad);
	os_stat so;
	if (!os_stat_path(path, &so)) return SMDMX_ERROR_NONE; /* nothing there yet */
	for (size_t i = 0; i < input_count; i++)
		if (inputs[i] && strcmp(inputs[i], "-") && os_same_file(inputs[i], path))
			return fail_why(SMDMX_ERROR_USAGE, why, why_size, "the output '%s' is the input '%s'", path, inputs[i]);
	if (so.kind == OS_DIRECTORY) return fail_why(SMDMX_ERROR_USAGE, why, why_size, "the output '%s' is a directory", path);
	return force ? SMDMX_ERROR_NONE : fail_why(SMDMX_ERROR_EXISTS, why, why_size, "'%s' exists", path);
}
