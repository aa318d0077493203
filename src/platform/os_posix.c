/* The operating system on Linux, macOS and the BSDs (POSIX.1-2008). os.h says what each
 * function does. Linux-only calls are used where they help and have a POSIX fallback. */
#ifndef _WIN32
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* ---- files ------------------------------------------------------------------------------- */

os_file os_stdin(void) { return STDIN_FILENO; }
os_file os_stdout(void) { return STDOUT_FILENO; }

os_file os_open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? OS_NO_FILE : (os_file)fd;
}

ptrdiff_t os_read(os_file f, void *buf, size_t size)
{
	for (;;) {
		ssize_t n = read((int)f, buf, size);
		if (n < 0 && errno == EINTR) continue;
		return (ptrdiff_t)n;
	}
}

ptrdiff_t os_read_at(os_file f, void *buf, size_t size, uint64_t offset)
{
	for (;;) {
		ssize_t n = pread((int)f, buf, size, (off_t)offset);
		if (n < 0 && errno == EINTR) continue;
		return (ptrdiff_t)n;
	}
}

bool os_write_all(os_file f, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		ssize_t n = write((int)f, p, size);
		if (n < 0) {
			if (errno == EINTR) continue;
			return false;
		}
		p += n;
		size -= (size_t)n;
	}
	return true;
}

bool os_close(os_file f)
{
	if (f == OS_NO_FILE || f == STDIN_FILENO || f == STDOUT_FILENO || f == STDERR_FILENO) return true;
	return close((int)f) == 0;
}

bool os_file_size(os_file f, uint64_t *size)
{
	struct stat st;
	if (fstat((int)f, &st) != 0 || !S_ISREG(st.st_mode)) return false;
	*size = (uint64_t)st.st_size;
	return true;
}

const void *os_map(os_file f, size_t size)
{
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, (int)f, 0);
	if (map == MAP_FAILED) return NULL;
#ifdef MADV_SEQUENTIAL
	madvise(map, size, MADV_SEQUENTIAL);
#endif
	return map;
}

void os_map_release(const void *data, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)data + from + page - 1) / page * page, b = ((uintptr_t)data + to) / page * page;
	if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

void os_unmap(const void *data, size_t size)
{
	if (data) munmap((void *)(uintptr_t)data, size);
}

bool os_pipe(os_file ends[2])
{
	int fds[2];
	if (pipe(fds) != 0) return false;
	ends[0] = fds[0];
	ends[1] = fds[1];
	return true;
}

os_file os_set_stdin(os_file f)
{
	int saved = dup(STDIN_FILENO);
	if (saved < 0 || dup2((int)f, STDIN_FILENO) < 0) return OS_NO_FILE;
	close((int)f);
	return saved;
}

FILE *os_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

/* ---- paths ------------------------------------------------------------------------------- */

static void fill_stat(const struct stat *s, os_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->kind = S_ISREG(s->st_mode) ? OS_REGULAR : S_ISDIR(s->st_mode) ? OS_DIRECTORY : OS_OTHER;
	st->link = S_ISLNK(s->st_mode);
	st->size = (uint64_t)s->st_size;
#if defined(__APPLE__)
	st->mtime_sec = (int64_t)s->st_mtimespec.tv_sec;
	st->mtime_nsec = (int32_t)s->st_mtimespec.tv_nsec;
#else
	st->mtime_sec = (int64_t)s->st_mtim.tv_sec;
	st->mtime_nsec = (int32_t)s->st_mtim.tv_nsec;
#endif
}

bool os_stat_path(const char *path, os_stat *st)
{
	struct stat s;
	if (stat(path, &s) != 0) return false;
	fill_stat(&s, st);
	return true;
}

bool os_lstat_path(const char *path, os_stat *st)
{
	struct stat s;
	if (lstat(path, &s) != 0) return false;
	fill_stat(&s, st);
	return true;
}

bool os_same_file(const char *a, const char *b)
{
	struct stat x, y;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

bool os_file_id_of(const char *path, os_file_id *id)
{
	struct stat x;
	if (stat(path, &x) != 0) return false;
	id->device = (uint64_t)x.st_dev;
	id->file = (uint64_t)x.st_ino;
	return true;
}

bool os_mkdir(const char *path) { return mkdir(path, 0777) == 0; }
bool os_remove(const char *path) { return unlink(path) == 0; }

char *os_getcwd(void)
{
	return os_getcwd_in(NULL);
}

char *os_getcwd_in(const os_mem *mem)
{
	size_t cap = 256;
	for (;;) {
		char *b = os_mem_alloc(mem, cap);
		if (!b) return NULL;
		if (getcwd(b, cap)) {
			/* its length and one byte */
			size_t n = strlen(b) + 1;
			char *exact = os_mem_alloc(mem, n);
			if (exact) memcpy(exact, b, n);
			os_mem_free(mem, b, cap);
			return exact;
		}
		int err = errno;
		os_mem_free(mem, b, cap);
		if (err != ERANGE || cap > (1u << 20)) return NULL;
		cap *= 2;
	}
}

bool os_names_ignore_case(void)
{
	return false;
}

bool os_windows_paths(void)
{
	return false;
}

struct os_dir {
	DIR *d;
	os_mem mem;
};

os_dir *os_dir_open(const char *path)
{
	return os_dir_open_in(NULL, path);
}

os_dir *os_dir_open_in(const os_mem *mem, const char *path)
{
	DIR *d = opendir(path);
	if (!d) return NULL;
	os_dir *o = os_mem_alloc(mem, sizeof(*o));
	if (!o) {
		closedir(d);
		errno = ENOMEM;
		return NULL;
	}
	o->d = d;
	o->mem = mem ? *mem : (os_mem){ 0 };
	return o;
}

const char *os_dir_next(os_dir *o)
{
	struct dirent *e;
	while ((e = readdir(o->d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) return e->d_name;
	return NULL;
}

void os_dir_close(os_dir *o)
{
	if (!o) return;
	closedir(o->d);
	os_mem m = o->mem;
	os_mem_free(&m, o, sizeof(*o));
}

/* ---- outputs written all or nothing ---------------------------------------------------------- */

os_file os_create_new(const char *tmp_path)
{
	int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	return fd < 0 ? OS_NO_FILE : (os_file)fd;
}

bool os_sync(os_file f)
{
#if defined(_POSIX_SYNCHRONIZED_IO) && _POSIX_SYNCHRONIZED_IO > 0 && !defined(__APPLE__)
	if (fdatasync((int)f) == 0) return true;
#else
	if (fsync((int)f) == 0) return true;
#endif
	/* pipes, terminals and file systems without it: nothing to flush */
	return errno == EINVAL || errno == EROFS || errno == ENOTSUP;
}

void os_sync_start(os_file f, uint64_t from, uint64_t size)
{
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
	(void)sync_file_range((int)f, (off_t)from, (off_t)size, SYNC_FILE_RANGE_WRITE);
#else
	(void)f, (void)from, (void)size;
#endif
}

bool os_replace(const char *from, const char *to)
{
	return rename(from, to) == 0;
}

bool os_rename_new(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return true;
	if (errno != EINVAL && errno != ENOSYS) return false;
#endif
	/* A hard link fails on an existing name; file systems without links fall back to a
	 * check and a rename. */
	if (link(from, to) == 0) {
		unlink(from);
		return true;
	}
	if (errno == EEXIST) return false;
	struct stat st;
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return false;
	}
	return rename(from, to) == 0;
}

long os_pid(void)
{
	return (long)getpid();
}

/* ---- threads ----------------------------------------------------------------------------- */

struct os_thread {
	pthread_t t;
	void (*fn)(void *);
	void *arg;
	os_mem mem;
};

static void *thread_main(void *arg)
{
	os_thread *t = arg;
	t->fn(t->arg);
	return NULL;
}

os_thread *os_thread_start(void (*fn)(void *), void *arg)
{
	return os_thread_start_in(NULL, fn, arg);
}

os_thread *os_thread_start_in(const os_mem *mem, void (*fn)(void *), void *arg)
{
	os_thread *t = os_mem_alloc(mem, sizeof(*t));
	if (!t) return NULL;
	t->fn = fn;
	t->arg = arg;
	t->mem = mem ? *mem : (os_mem){ 0 };
	int rc = pthread_create(&t->t, NULL, thread_main, t);
	if (rc != 0) {
		os_mem_free(mem, t, sizeof(*t));
		errno = rc;
		return NULL;
	}
	return t;
}

void os_thread_join(os_thread *t)
{
	if (!t) return;
	pthread_join(t->t, NULL);
	os_mem mem = t->mem;
	os_mem_free(&mem, t, sizeof(*t));
}

struct os_mutex {
	pthread_mutex_t m;
	os_mem mem;
};

os_mutex *os_mutex_create(void)
{
	return os_mutex_create_in(NULL);
}

os_mutex *os_mutex_create_in(const os_mem *mem)
{
	os_mutex *m = os_mem_alloc(mem, sizeof(*m));
	if (m && pthread_mutex_init(&m->m, NULL) != 0) {
		os_mem_free(mem, m, sizeof(*m));
		return NULL;
	}
	if (m) m->mem = mem ? *mem : (os_mem){ 0 };
	return m;
}

void os_mutex_lock(os_mutex *m) { pthread_mutex_lock(&m->m); }
void os_mutex_unlock(os_mutex *m) { pthread_mutex_unlock(&m->m); }

void os_mutex_destroy(os_mutex *m)
{
	if (!m) return;
	pthread_mutex_destroy(&m->m);
	os_mem mem = m->mem;
	os_mem_free(&mem, m, sizeof(*m));
}

struct os_cond {
	pthread_cond_t c;
	os_mem mem;
};

os_cond *os_cond_create(void)
{
	return os_cond_create_in(NULL);
}

os_cond *os_cond_create_in(const os_mem *mem)
{
	os_cond *c = os_mem_alloc(mem, sizeof(*c));
	if (c && pthread_cond_init(&c->c, NULL) != 0) {
		os_mem_free(mem, c, sizeof(*c));
		return NULL;
	}
	if (c) c->mem = mem ? *mem : (os_mem){ 0 };
	return c;
}

void os_cond_wait(os_cond *c, os_mutex *m) { pthread_cond_wait(&c->c, &m->m); }
void os_cond_broadcast(os_cond *c) { pthread_cond_broadcast(&c->c); }

void os_cond_destroy(os_cond *c)
{
	if (!c) return;
	pthread_cond_destroy(&c->c);
	os_mem mem = c->mem;
	os_mem_free(&mem, c, sizeof(*c));
}

unsigned os_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* ---- interrupts -------------------------------------------------------------------------- */

static _Thread_local unsigned hold_depth;
static _Thread_local sigset_t hold_old;

void os_interrupts_hold(void)
{
	if (hold_depth++) return;
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &hold_old);
}

void os_interrupts_release(void)
{
	if (hold_depth == 0 || --hold_depth) return;
	pthread_sigmask(SIG_SETMASK, &hold_old, NULL);
}

void os_remove_in_cleanup(const char *path)
{
	unlink(path);
}

/* ---- errors and the clock ------------------------------------------------------------------- */

const char *os_error_text(int err)
{
	return strerror(err);
}




double os_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool os_strtod_c(const char *text, bool as_float, double *out)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c) return false;
	*out = as_float ? (double)strtof_l(text, NULL, c) : strtod_l(text, NULL, c);
	freelocale(c);
	return true;
}

void os_populate(void *p, size_t from, size_t to, bool huge)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = 4096;
	if (to - from < ((size_t)1 << 20)) return;
	uintptr_t a = ((uintptr_t)p + from + page - 1) & ~(page - 1), e = ((uintptr_t)p + to) & ~(page - 1);
#ifdef MADV_HUGEPAGE
	if (huge && e - a >= ((uintptr_t)4 << 20)) madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
	(void)huge;
#endif
	if (e > a) madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)from;
	(void)to;
	(void)huge;
#endif
}

uint64_t os_peak_memory_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
#if defined(__APPLE__)
	return (uint64_t)ru.ru_maxrss / 1024; /* bytes there */
#else
	return (uint64_t)ru.ru_maxrss;
#endif
}

char *os_temp_dir(void)
{
	const char *t = getenv("TMPDIR");
	char *s = malloc(t && *t ? strlen(t) + 1 : 5);
	if (s) strcpy(s, t && *t ? t : "/tmp");
	return s;
}

bool os_rmdir(const char *path)
{
	return rmdir(path) == 0;
}
#endif
