/* The operating system, in one place. Every call smdmx makes to the system beyond standard
 * C goes through here: files by UTF-8 path (wide calls at the edge on Windows), mapping or
 * reading a whole file, atomic replace, directory walks, threads, interrupts held back around
 * a commit, and the clock. os_posix.c implements it for Linux, macOS and the BSDs, os_win32.c
 * for Windows; no other file includes an operating system's header. What only a program may
 * do to its process (signal and console handlers, exits, the allocator's settings, the
 * terminal) is in os_program.h, which the library does not include.
 *
 * Errors: a function that fails returns false (or NULL, or -1) and leaves a C errno value in
 * errno, translated from the system's own code on Windows, so that the callers decide the
 * same on every system; os_error_text(errno) says it in the system's own words. */
#ifndef SMDMX_OS_H
#define SMDMX_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* printf-like functions are checked against the C library's printf: mingw-w64's own (C99,
 * __USE_MINGW_ANSI_STDIO) on Windows, not the system's. */
#if defined(__MINGW32__)
#define OS_PRINTF gnu_printf
#else
#define OS_PRINTF printf
#endif

/* What the error errno says, for a message: strerror's words on POSIX systems; on Windows,
 * Windows' own text for the error that made it (FormatMessageW, in the user's language), when
 * the last call of this thread that failed is where errno came from. Valid until the next call
 * in this thread. */
const char *os_error_text(int err);

/* ---- files ------------------------------------------------------------------------------- */

/* An open file: a descriptor on POSIX, a HANDLE on Windows. */
typedef intptr_t os_file;
#define OS_NO_FILE ((os_file)-1)

os_file os_stdin(void);
os_file os_stdout(void);

/* Opens a file for reading. */
os_file os_open_read(const char *path);
/* Reads up to size bytes (retrying interrupted calls): the count, 0 at the end, -1 on error. */
ptrdiff_t os_read(os_file f, void *buf, size_t size);
/* The whole file at path, followed by a NUL (its size in *size; free it): NULL when it cannot be
 * read, errno ENOMEM when memory ran out (os_path.c). */
char *os_read_whole(const char *path, size_t *size);
/* Reads up to size bytes of a regular file at offset, as os_read, without using or moving
 * a shared file position: several threads may read one file at once. */
ptrdiff_t os_read_at(os_file f, void *buf, size_t size, uint64_t offset);
/* Writes all of size bytes (retrying short and interrupted writes). */
bool os_write_all(os_file f, const void *data, size_t size);
/* Closes f (the standard streams stay open); false when a late write failed. */
bool os_close(os_file f);
/* The size of f when it is a regular file; false for pipes, terminals and the like. */
bool os_file_size(os_file f, uint64_t *size);

/* A read-only mapping of the first size bytes of f (which stays usable after f is closed),
 * its pages read in as they are touched, for a reader that goes forward; NULL when the system
 * cannot map it (the caller reads instead). */
const void *os_map(os_file f, size_t size);
/* Gives back the memory of the pages wholly inside [from, to) of a mapping of os_map: they
 * leave the process's resident set and are read again if touched. */
void os_map_release(const void *data, size_t from, size_t to);
void os_unmap(const void *data, size_t size);

/* A pipe: [0] reads what [1] writes. */
bool os_pipe(os_file ends[2]);
/* Makes f the standard input (taking it over) and returns the one before, which a later call
 * puts back (and the caller then closes what that call returns). */
os_file os_set_stdin(os_file f);

/* fopen by UTF-8 path. */
FILE *os_fopen(const char *path, const char *mode);

/* ---- paths ------------------------------------------------------------------------------- */

typedef enum os_kind { OS_NONE, OS_REGULAR, OS_DIRECTORY, OS_OTHER } os_kind;

typedef struct os_stat {
	os_kind kind;
	bool link;          /* os_lstat: a symbolic link (or a junction), not followed */
	uint64_t size;
	int64_t mtime_sec;  /* last change, seconds and nanoseconds since 1970 */
	int32_t mtime_nsec;
} os_stat;

/* What is at path, following links; false (errno set) when nothing is. */
bool os_stat_path(const char *path, os_stat *st);
/* The same, not following a last component that is a link. */
bool os_lstat_path(const char *path, os_stat *st);
/* true when a and b are one file (through links, or by other names); false when either is
 * not there. */
bool os_same_file(const char *a, const char *b);
/* Which file is at path (through links): two paths of one file have the same id; false
 * when nothing is there. */
typedef struct os_file_id {
	uint64_t device, file;
} os_file_id;
bool os_file_id_of(const char *path, os_file_id *id);
bool os_mkdir(const char *path);     /* false with errno EEXIST when it is there */
bool os_remove(const char *path);
/* ---- paths (os_path.c: the same on every system, built with the rest) ---- */
/* '/', and '\\' where paths are Windows'. */
bool os_is_separator(char c);
/* The last separator of path, or NULL. */
const char *os_last_separator(const char *path);
/* Paths compared as the file system names them: where names ignore case (Windows), two names
 * are one when their letters' capitals are, over all of Unicode's Basic Multilingual Plane as
 * NTFS folds them (os_upcase.h: "Éclair" and "éCLAIR", "Модель" and "модель"), and '\\' is
 * '/'; elsewhere byte for byte. */
int os_path_compare(const char *a, const char *b);
/* The same rule as a key (malloc'd): two paths of one file as the file system names them give
 * one key (letters as their capitals where names ignore case, '\\' as '/'; elsewhere the path
 * as it is). NULL when out of memory. */
char *os_path_key(const char *path);
/* The key into the caller's room, as os_path_join_to writes (the key's length). */
size_t os_path_key_to(char *buf, size_t cap, const char *path);
/* Whether two names are one ignoring case, whatever the system: the letters' capitals over the
 * Basic Multilingual Plane (a QC's names, which studiomdl finds on Windows). */
bool os_same_name_nocase(const char *a, size_t an, const char *b, size_t bn);
/* The extension of path's file name without its dot ("" when none; a name that starts with
 * its only dot has none). */
const char *os_path_extension(const char *path);
/* path with its extension replaced by ext (or added); with "_" and suffix before it. */
char *os_path_with_extension(const char *path, const char *ext);
char *os_path_with_suffix(const char *path, const char *suffix);
/* The separator path is written with: '/' where it has only those (or paths are not
 * Windows'), else '\\' (Windows' own, for a path of none: "models" gives models\x.smd). */
char os_path_separator_of(const char *path);
/* path in buf (cap bytes, cut to fit) with every separator sep where paths are Windows' (the
 * separator the user wrote, for a path in a message); as it is elsewhere. Returns buf. */
const char *os_path_shown(const char *path, char sep, char *buf, size_t cap);
/* A new string from a format; NULL when memory ran out. */
char *os_strf(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
/* rel below dir, in dir's separator. */
char *os_path_join(const char *dir, const char *rel);
/* os_path_join, os_path_with_extension and os_path_with_suffix into the caller's room, as
 * snprintf writes: the length of the whole result, written when it fits in cap bytes (buf may
 * be NULL with cap 0, to be told the length). They allocate nothing. */
size_t os_path_join_to(char *buf, size_t cap, const char *dir, const char *rel);
size_t os_path_with_extension_to(char *buf, size_t cap, const char *path, const char *ext);
size_t os_path_with_suffix_to(char *buf, size_t cap, const char *path, const char *suffix);
/* The length of path's root, the part that names a file system rather than a folder in it
 * and stays as it is: "/" (POSIX); on Windows also "C:/", "C:", "//server/share/",
 * "//?/C:/", "//?/UNC/server/share/" and "//./X/" (either separator). 0 for a relative path. */
size_t os_path_root(const char *path);
/* path made absolute (against the working directory) with "." and ".." folded, '/' as the
 * separator, the root kept (os_path_root): on Windows "C:/a/b" for a drive, "//server/share/a"
 * for a network share, "//?/C:/a" as given, and "\\a" on the working directory's drive. */
char *os_path_absolute(const char *path);
/* to, named from the folder of from_file ("../b/c.smd"); its whole absolute path when they
 * share no folder (another drive or share). */
char *os_path_relative(const char *from_file, const char *to);
struct os_mem;
/* os_path_absolute, os_path_relative and os_getcwd in mem (NULL: malloc), every block they
 * use on the way too; what they return is its length and one byte (os_mem_free's size). */
char *os_path_absolute_in(const struct os_mem *mem, const char *path);
char *os_path_relative_in(const struct os_mem *mem, const char *from_file, const char *to);
char *os_getcwd_in(const struct os_mem *mem);
/* The folders above path made where they are not; false with why when one cannot be.
 * os_make_parent_dirs_made cuts path at its separators as it goes and mends it (it allocates
 * nothing), and with made says the first folder it made (the others are below it): the
 * length of path's part that names it, 0 when it made none. */
bool os_make_parent_dirs(const char *path, char *why, size_t why_size);
bool os_make_parent_dirs_made(char *path, size_t *made, char *why, size_t why_size);

/* The working directory (malloc'd, '/' as the separator), NULL when it cannot be had. */
char *os_getcwd(void);
/* true where the file system ignores case (names differing in case are one file). */
bool os_names_ignore_case(void);
/* true where a path may begin with a drive letter and '\' separates too. */
bool os_windows_paths(void);

/* Where a platform object (a folder being listed, a mutex, a condition) lives: a caller's
 * allocator's hooks (an smdmx_allocator's), or with NULL (or no hooks) malloc's. The object
 * keeps them, and is freed through them by its close or destroy. */
typedef struct os_mem {
	void *(*alloc_fn)(void *user, size_t size);
	void (*free_fn)(void *user, void *ptr, size_t size);
	void *user;
} os_mem;
static inline void *os_mem_alloc(const os_mem *mem, size_t size)
{
	return mem && mem->alloc_fn && mem->free_fn ? mem->alloc_fn(mem->user, size) : malloc(size);
}

static inline void os_mem_free(const os_mem *mem, void *p, size_t size)
{
	if (!p) return;
	if (mem && mem->alloc_fn && mem->free_fn) mem->free_fn(mem->user, p, size);
	else free(p);
}

/* Directory listing: each name once, "." and ".." left out, in the system's order. */
typedef struct os_dir os_dir;
os_dir *os_dir_open(const char *path);
os_dir *os_dir_open_in(const os_mem *mem, const char *path);
const char *os_dir_next(os_dir *d); /* NULL at the end */
void os_dir_close(os_dir *d);

/* ---- outputs written all or nothing ---------------------------------------------------------- */

/* Creates tmp_path (which must not exist) exclusively for writing, with the mode of a new
 * file; OS_NO_FILE with errno EEXIST when it does. */
os_file os_create_new(const char *tmp_path);
/* Flushes f's data to the disk (fsync; FlushFileBuffers). */
bool os_sync(os_file f);
/* Starts writing bytes [from, from + size) of f to the disk and returns without waiting, so
 * that os_sync later waits for less (Linux: sync_file_range; elsewhere nothing). A hint: its
 * failure is os_sync's to report. */
void os_sync_start(os_file f, uint64_t from, uint64_t size);
/* Renames from over to, replacing what is there, atomically where the system can
 * (rename; MoveFileExW with MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). */
bool os_replace(const char *from, const char *to);
/* Renames from to to only when nothing is there (errno EEXIST otherwise). */
bool os_rename_new(const char *from, const char *to);
/* The process id, for names of temporary files. */
long os_pid(void);

/* ---- threads ----------------------------------------------------------------------------- */

typedef struct os_thread os_thread;
os_thread *os_thread_start(void (*fn)(void *), void *arg); /* NULL when it cannot start */
os_thread *os_thread_start_in(const os_mem *mem, void (*fn)(void *), void *arg);
void os_thread_join(os_thread *t);
typedef struct os_mutex os_mutex;
os_mutex *os_mutex_create(void); /* NULL when out of memory */
os_mutex *os_mutex_create_in(const os_mem *mem);
void os_mutex_lock(os_mutex *m);
void os_mutex_unlock(os_mutex *m);
void os_mutex_destroy(os_mutex *m);
/* A condition to wait for under a mutex (wakeups may be spurious: wait in a loop). */
typedef struct os_cond os_cond;
os_cond *os_cond_create(void); /* NULL when out of memory */
os_cond *os_cond_create_in(const os_mem *mem);
void os_cond_wait(os_cond *c, os_mutex *m);
void os_cond_broadcast(os_cond *c);
void os_cond_destroy(os_cond *c);
unsigned os_cpu_count(void);

/* ---- interrupts -------------------------------------------------------------------------- */

/* Holds interrupts back (nests per thread; the outermost release delivers what came): while
 * an output set is made or renamed into place, so that a program's interrupt handler
 * (os_program.h, os_on_interrupt) never removes half of it. A library with no such handler
 * in its host changes nothing by it. */
void os_interrupts_hold(void);
void os_interrupts_release(void);
/* Removes a file from inside cleanup (async-signal-safe). */
void os_remove_in_cleanup(const char *path);

/* A clock for durations, in seconds. */
double os_seconds(void);
/* text (a whole number, NUL-terminated) read by the C library's correctly rounded strtof
 * (as_float) or strtod, as in the C locale whatever the process's locale, safe on several
 * threads at once; false when it cannot be (no memory for a locale). */
bool os_strtod_c(const char *text, bool as_float, double *out);
/* Memory: the pages of [p + from, p + to) of a block just allocated made resident in one
 * call, for a block of 1 MiB or more (faulting each page in on first touch costs more); with
 * huge, a block of 4 MiB or more also asks for huge pages (measured: it helps blocks made in
 * one go, and slows growing ones). Nothing where the system has no such call. */
void os_populate(void *p, size_t from, size_t to, bool huge);
/* The most memory the process has held at once (resident set, working set), in KiB. */
uint64_t os_peak_memory_kib(void);
/* A folder for temporary files (TMPDIR, /tmp; GetTempPath), malloc'd, '/' as separator. */
char *os_temp_dir(void);
bool os_rmdir(const char *path);

#endif
