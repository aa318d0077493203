/* Paths, and outputs written all or nothing: each output goes to a temporary file in its
 * target directory and is renamed into place when the whole job succeeded. Temporary files
 * are removed on failure and on SIGINT, SIGTERM and SIGHUP. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- paths ------------------------------------------------------------------------------- */

const char *path_extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : "";
}

bool is_smd_family(const char *ext)
{
	return !strcasecmp(ext, "smd") || !strcasecmp(ext, "sma") || !strcasecmp(ext, "phys") || !strcasecmp(ext, "vta");
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
	char *p;
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	return p;
}

static size_t stem_length(const char *path)
{
	const char *ext = path_extension(path);
	return *ext ? (size_t)(ext - path) - 1 : strlen(path);
}

char *path_with_extension(const char *path, const char *ext)
{
	return xasprintf("%.*s.%s", (int)stem_length(path), path, ext);
}

char *path_with_suffix(const char *path, const char *suffix)
{
	const char *ext = path_extension(path);
	return xasprintf("%.*s_%s%s%s", (int)stem_length(path), path, suffix, *ext ? "." : "", ext);
}

/* path made absolute (against the working directory) with "." and ".." folded. */
char *path_absolute(const char *path)
{
	char cwd[PATH_MAX];
	char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : ".", path);
	char *out = xstrdup(joined);
	size_t n = 0;
	for (const char *p = joined; *p;) {
		while (*p == '/') p++;
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0) break;
		if (len == 1 && p[0] == '.') {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 0 && out[n - 1] != '/') n--;
			if (n > 0) n--;
		} else {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	if (n == 0) out[n++] = '/';
	out[n] = 0;
	free(joined);
	return out;
}

char *path_relative(const char *from_file, const char *to)
{
	char *a = path_absolute(from_file), *b = path_absolute(to);
	char *slash = strrchr(a, '/');
	if (slash) slash[1] = 0; /* the folder of from_file, with its '/' */
	size_t common = 0, i = 0;
	while (a[i] && a[i] == b[i]) {
		if (a[i] == '/') common = i + 1;
		i++;
	}
	size_t ups = 0;
	for (const char *p = a + common; *p; p++) ups += *p == '/';
	size_t len = strlen(b + common) + 3 * ups + 1;
	char *out = malloc(len);
	if (!out) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	out[0] = 0;
	for (size_t k = 0; k < ups; k++) strcat(out, "../");
	strcat(out, b + common);
	free(a);
	free(b);
	return out;
}

bool make_parent_dirs(const char *path, char *why, size_t why_size)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path) return true;
	char *p = xstrdup(path);
	p[slash - path] = '\0';
	struct stat st;
	bool there = stat(p, &st) == 0 && S_ISDIR(st.st_mode); /* the usual case in a batch */
	p[slash - path] = '/';
	if (there) {
		free(p);
		return true;
	}
	for (char *s = p + 1; *s; s++) {
		if (*s != '/') continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			snprintf(why, why_size, "cannot create the directory '%s': %s", p, strerror(errno));
			free(p);
			return false;
		}
		*s = '/';
	}
	free(p);
	return true;
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
			ssize_t n = read(STDIN_FILENO, in_data + in_size, cap - in_size);
			if (n < 0 && errno == EINTR) continue;
			if (n < 0) {
				snprintf(in_why, sizeof(in_why), "cannot read standard input: %s", strerror(errno));
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

smdmx_dm *cli_read_dmx(const char *path, smdmx_error *error, smdmx_warnings *warnings)
{
	if (strcmp(path, "-")) return smdmx_dmx_read_file(path, NULL, error, warnings);
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
	return smdmx_dmx_read_memory(d, n, NULL, error, warnings);
}

/* ---- cleanup on signals ------------------------------------------------------------------ */

/* Temporary files in flight, for the signal handler: fixed slots, so that the handler only
 * reads memory that stays valid. A file without a slot (more than SLOTS at once) is still
 * removed on every failure, only not on a signal. */
enum { SLOTS = 128 };
static char slot_path[SLOTS][PATH_MAX];
static volatile sig_atomic_t slot_used[SLOTS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static long pid; /* for temporary names; set before any worker starts */

static int slot_take(const char *path)
{
	if (strlen(path) >= PATH_MAX) return -1;
	pthread_mutex_lock(&slot_lock);
	int s = 0;
	while (s < SLOTS && slot_used[s]) s++;
	if (s < SLOTS) {
		strcpy(slot_path[s], path);
		slot_used[s] = 1;
	}
	pthread_mutex_unlock(&slot_lock);
	return s < SLOTS ? s : -1;
}

static void slot_release(int s)
{
	if (s < 0) return;
	pthread_mutex_lock(&slot_lock);
	slot_used[s] = 0;
	pthread_mutex_unlock(&slot_lock);
}

static void on_signal(int sig)
{
	for (int s = 0; s < SLOTS; s++)
		if (slot_used[s]) unlink(slot_path[s]);
	signal(sig, SIG_DFL);
	raise(sig);
}

void output_init(void)
{
	pid = (long)getpid();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A reader that closes the pipe (| head) ends the program as it ends any tool in a
	 * pipe: quietly, by SIGPIPE, once the temporary files are gone. */
	sigaction(SIGPIPE, &sa, NULL);
	/* Past RLIMIT_FSIZE, write() fails with EFBIG and the job cleans up, rather than the
	 * process dying with its temporary files left behind. */
	signal(SIGXFSZ, SIG_IGN);
}

/* ---- outputs ----------------------------------------------------------------------------- */

bool output_allowed(const char *path, char *const *inputs, size_t input_count, bool force, char *why, size_t why_size)
{
	if (!strcmp(path, "-")) return true;
	struct stat so;
	if (stat(path, &so) != 0) return true; /* nothing there yet */
	for (size_t i = 0; i < input_count; i++) {
		struct stat si;
		if (inputs[i] && strcmp(inputs[i], "-") && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			snprintf(why, why_size, "the output '%s' is the input '%s'", path, inputs[i]);
			return false;
		}
	}
	if (S_ISDIR(so.st_mode)) {
		snprintf(why, why_size, "the output '%s' is a directory", path);
		return false;
	}
	if (!force) {
		snprintf(why, why_size, "'%s' exists (--force overwrites it)", path);
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
		out->fd = STDOUT_FILENO;
		set->count++;
		return out;
	}
	/* A name of our own, created exclusively with the final file's mode (0666 less the
	 * umask, as any new file): no fchmod afterwards. */
	static unsigned long counter;
	const char *slash = strrchr(path, '/');
	/* The interrupts wait while the file is created and registered: one between the two
	 * would leave it behind. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int attempt = 0;; attempt++) {
		unsigned long n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		out->tmp = slash ? xasprintf("%.*s.%s.%ld.%lu.tmp", (int)(slash - path + 1), path, slash + 1, pid, n)
		                 : xasprintf(".%s.%ld.%lu.tmp", path, pid, n);
		out->fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (out->fd >= 0) break;
		int e = errno;
		free(out->tmp);
		out->tmp = NULL;
		if (e != EEXIST || attempt == 100) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			snprintf(why, why_size, "cannot write '%s': %s", path, strerror(e));
			return NULL;
		}
	}
	out->slot = slot_take(out->tmp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	out->path = xstrdup(path);
	set->count++;
	return out;
}

bool output_write(void *user, const void *data, size_t size)
{
	output *out = user;
	const char *p = data;
	while (size) {
		ssize_t n = write(out->fd, p, size);
		if (n < 0) {
			if (errno == EINTR) continue;
			out->errnum = errno;
			return false;
		}
		p += n;
		size -= (size_t)n;
	}
	return true;
}

static void output_drop(output *out)
{
	if (out->tmp) {
		if (out->fd >= 0) close(out->fd);
		unlink(out->tmp);
		slot_release(out->slot);
	}
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
	out->fd = -1;
}

void outputs_abort(outputs *set)
{
	for (size_t i = 0; i < set->count; i++) output_drop(&set->items[i]);
	free(set->items);
	set->items = NULL;
	set->count = 0;
}

/* Renames without replacing an existing file: renameat2 where the file system has it, else
 * a hard link (which fails on an existing name) and an unlink. */
static int rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
	if (errno != EINVAL && errno != ENOSYS) return -1;
#endif
	if (link(from, to) != 0) return -1;
	unlink(from);
	return 0;
}

bool outputs_commit(outputs *set, char ***written, size_t *written_count, char *why, size_t why_size)
{
	/* Close (and so flush) everything first: a late write error fails the whole set. */
	for (size_t i = 0; i < set->count; i++) {
		output *out = &set->items[i];
		if (!out->tmp) continue;
		int fd = out->fd;
		out->fd = -1;
		if (close(fd) != 0) {
			snprintf(why, why_size, "cannot write '%s': %s", out->path, strerror(errno));
			outputs_abort(set);
			return false;
		}
	}
	/* The interrupts wait while the set is renamed into place: all of it or none. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	size_t done = 0;
	for (; done < set->count; done++) {
		output *out = &set->items[done];
		if (!out->tmp) continue;
		int rc = set->force ? rename(out->tmp, out->path) : rename_noreplace(out->tmp, out->path);
		if (rc != 0) {
			if (errno == EEXIST) snprintf(why, why_size, "'%s' exists (--force overwrites it)", out->path);
			else snprintf(why, why_size, "cannot write '%s': %s", out->path, strerror(errno));
			break;
		}
	}
	if (done < set->count) {
		/* Take back what this job already put in place: all or nothing. */
		for (size_t i = 0; i < done; i++)
			if (set->items[i].tmp) unlink(set->items[i].path);
		outputs_abort(set);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return false;
	}
	char **list = realloc(*written, (*written_count + set->count) * sizeof(char *));
	for (size_t i = 0; i < set->count; i++) {
		output *out = &set->items[i];
		slot_release(out->slot);
		free(out->tmp);
		if (list) list[(*written_count)++] = out->path;
		else free(out->path);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (list) *written = list;
	free(set->items);
	set->items = NULL;
	set->count = 0;
	return true;
}
