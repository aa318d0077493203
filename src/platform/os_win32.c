/* The operating system on Windows (Vista and later; built with mingw-w64). os.h says what each
 * function does. Paths are UTF-8 inside smdmx and wide at every call here; a path too long
 * for the old 260-character limit is made absolute and given the \\?\ prefix. System errors
 * become errno values, so that messages read the same as on POSIX systems. */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#define UNICODE
#define _UNICODE
#include "os.h"
#include "os_win32.h"

#include <windows.h>
#include <shellapi.h>
#include <psapi.h>
#include <tlhelp32.h>
#include <conio.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <locale.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>

/* ---- text and errors --------------------------------------------------------------------- */

/* The Windows error behind the last errno this thread set from one (os_error_text). */
static _Thread_local DWORD last_error;
static _Thread_local int last_errno;
static _Thread_local char error_text[1024];

static int errno_for(DWORD e);

static int errno_of(DWORD e)
{
	int x = errno_for(e);
	last_error = e;
	last_errno = x;
	return x;
}

const char *os_error_text(int err)
{
	if (err != last_errno || !last_error) return strerror(err);
	wchar_t w[512];
	DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, last_error, 0, w, 512, NULL);
	/* without its line end and final period: it goes inside a sentence */
	while (n > 0 && (w[n - 1] == L'\r' || w[n - 1] == L'\n' || w[n - 1] == L' ' || w[n - 1] == L'.')) n--;
	if (!n) return strerror(err);
	w[n] = 0;
	if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, error_text, (int)sizeof(error_text), NULL, NULL)) return strerror(err);
	return error_text;
}

static int errno_for(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_BAD_NET_NAME:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_PATHNAME: return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_WRITE_PROTECT: return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS: return EEXIST;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY: return ENOMEM;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL: return ENOSPC;
	case ERROR_BROKEN_PIPE:
	case ERROR_PIPE_NOT_CONNECTED:
	case ERROR_NO_DATA: return EPIPE;
	case ERROR_DIRECTORY: return ENOTDIR;
	case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
	case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
	case ERROR_TOO_MANY_OPEN_FILES: return EMFILE;
	case ERROR_NOT_SAME_DEVICE: return EXDEV;
	default: return EIO;
	}
}

static void set_errno(void)
{
	errno = errno_of(GetLastError());
}

static bool stat_of(const char *path, os_stat *st, bool follow);

/* errno for a call on path that failed: a folder on the way that is a file is ENOTDIR, as
 * POSIX systems say, where Windows says only that the path is not found. */
static void set_errno_for(const char *path)
{
	DWORD e = GetLastError();
	errno = errno_of(e);
	if (e != ERROR_PATH_NOT_FOUND && e != ERROR_DIRECTORY) return;
	size_t n = strlen(path);
	char *p = malloc(n + 1);
	if (!p) return;
	memcpy(p, path, n + 1);
	for (;;) {
		char *a = strrchr(p, '/'), *b = strrchr(p, '\\');
		char *cut = a > b ? a : b;
		if (!cut || cut == p) break;
		*cut = 0;
		os_stat st;
		if (stat_of(p, &st, true)) {
			if (st.kind != OS_DIRECTORY) errno = ENOTDIR;
			break;
		}
	}
	free(p);
	if (errno != ENOTDIR) errno = errno_of(e);
}

static wchar_t *wide_of(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	if (n <= 0) {
		errno = ENOENT; /* not UTF-8: no such name */
		return NULL;
	}
	wchar_t *w = malloc((size_t)n * sizeof(wchar_t));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

char *os_win_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	if (n <= 0) return NULL;
	char *s = malloc((size_t)n);
	if (!s) return NULL;
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

/* A path the system gave, as smdmx writes paths: UTF-8 with '/'. */
static char *utf8_path_of(const wchar_t *w)
{
	char *s = os_win_utf8(w);
	for (char *p = s; p && *p; p++)
		if (*p == '\\') *p = '/';
	return s;
}

/* A path for the wide calls: '/' as '\', and past MAX_PATH made absolute with the \\?\
 * prefix, which lifts the limit to 32,767 characters. */
static wchar_t *wpath(const char *path)
{
	wchar_t *w = wide_of(path);
	if (!w) return NULL;
	size_t n = wcslen(w);
	for (size_t i = 0; i < n; i++)
		if (w[i] == L'/') w[i] = L'\\';
	if (n < MAX_PATH - 12 || !wcsncmp(w, L"\\\\?\\", 4)) return w;
	DWORD need = GetFullPathNameW(w, 0, NULL, NULL);
	wchar_t *full = need ? malloc((size_t)need * sizeof(wchar_t)) : NULL;
	DWORD got = full ? GetFullPathNameW(w, need, full, NULL) : 0;
	free(w);
	if (!got || got >= need) {
		errno = full ? ENAMETOOLONG : ENOMEM;
		free(full);
		return NULL;
	}
	bool unc = full[0] == L'\\' && full[1] == L'\\';
	const wchar_t *prefix = unc ? L"\\\\?\\UNC" : L"\\\\?\\";
	const wchar_t *rest = unc ? full + 1 : full; /* \\server\share: \\?\UNC\server\share */
	size_t len = wcslen(prefix) + wcslen(rest) + 1;
	wchar_t *out = malloc(len * sizeof(wchar_t));
	if (out) {
		wcscpy(out, prefix);
		wcscat(out, rest);
	} else {
		errno = ENOMEM;
	}
	free(full);
	return out;
}

/* ---- files ------------------------------------------------------------------------------- */

os_file os_stdin(void) { return (os_file)GetStdHandle(STD_INPUT_HANDLE); }
os_file os_stdout(void) { return (os_file)GetStdHandle(STD_OUTPUT_HANDLE); }

static bool is_std(os_file f)
{
	return (HANDLE)f == GetStdHandle(STD_INPUT_HANDLE) || (HANDLE)f == GetStdHandle(STD_OUTPUT_HANDLE) ||
	       (HANDLE)f == GetStdHandle(STD_ERROR_HANDLE);
}

os_file os_open_read(const char *path)
{
	wchar_t *w = wpath(path);
	if (!w) return OS_NO_FILE;
	HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	                       FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, NULL);
	if (h == INVALID_HANDLE_VALUE) set_errno_for(path);
	free(w);
	if (h != INVALID_HANDLE_VALUE) {
		BY_HANDLE_FILE_INFORMATION info;
		if (GetFileInformationByHandle(h, &info) && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
			CloseHandle(h);
			errno = EISDIR;
			return OS_NO_FILE;
		}
	}
	return h == INVALID_HANDLE_VALUE ? OS_NO_FILE : (os_file)h;
}

ptrdiff_t os_read(os_file f, void *buf, size_t size)
{
	DWORD want = size > 0x40000000 ? 0x40000000 : (DWORD)size, got = 0;
	if (ReadFile((HANDLE)f, buf, want, &got, NULL)) return (ptrdiff_t)got;
	DWORD e = GetLastError();
	if (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF) return 0; /* the writer closed the pipe: the end */
	errno = errno_of(e);
	return -1;
}

ptrdiff_t os_read_at(os_file f, void *buf, size_t size, uint64_t offset)
{
	/* An explicit offset on a synchronous handle: each call reads where it says, whatever
	 * other threads do with the handle's own position. */
	DWORD want = size > 0x40000000 ? 0x40000000 : (DWORD)size, got = 0;
	OVERLAPPED ov;
	memset(&ov, 0, sizeof(ov));
	ov.Offset = (DWORD)offset;
	ov.OffsetHigh = (DWORD)(offset >> 32);
	if (ReadFile((HANDLE)f, buf, want, &got, &ov)) return (ptrdiff_t)got;
	DWORD e = GetLastError();
	if (e == ERROR_HANDLE_EOF) return 0;
	errno = errno_of(e);
	return -1;
}

bool os_write_all(os_file f, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		DWORD want = size > 0x40000000 ? 0x40000000 : (DWORD)size, done = 0;
		if (!WriteFile((HANDLE)f, p, want, &done, NULL)) {
			set_errno();
			return false;
		}
		p += done;
		size -= done;
	}
	return true;
}

bool os_close(os_file f)
{
	if (f == OS_NO_FILE || is_std(f)) return true;
	if (CloseHandle((HANDLE)f)) return true;
	set_errno();
	return false;
}

bool os_file_size(os_file f, uint64_t *size)
{
	LARGE_INTEGER n;
	if (GetFileType((HANDLE)f) != FILE_TYPE_DISK || !GetFileSizeEx((HANDLE)f, &n)) return false;
	*size = (uint64_t)n.QuadPart;
	return true;
}

const void *os_map(os_file f, size_t size)
{
	HANDLE m = CreateFileMappingW((HANDLE)f, NULL, PAGE_READONLY, 0, 0, NULL);
	if (!m) return NULL;
	const void *view = MapViewOfFile(m, FILE_MAP_READ, 0, 0, size);
	CloseHandle(m); /* the view keeps the mapping */
	return view;
}

void os_map_release(const void *data, size_t from, size_t to)
{
	/* Unlocking pages that are not locked takes them out of the working set. */
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	uintptr_t page = si.dwPageSize;
	uintptr_t a = ((uintptr_t)data + from + page - 1) / page * page, b = ((uintptr_t)data + to) / page * page;
	if (b > a) VirtualUnlock((void *)a, b - a);
}

void os_unmap(const void *data, size_t size)
{
	(void)size;
	if (data) UnmapViewOfFile(data);
}

bool os_pipe(os_file ends[2])
{
	HANDLE r, w;
	if (!CreatePipe(&r, &w, NULL, 1 << 16)) {
		set_errno();
		return false;
	}
	ends[0] = (os_file)r;
	ends[1] = (os_file)w;
	return true;
}

os_file os_set_stdin(os_file f)
{
	HANDLE old = GetStdHandle(STD_INPUT_HANDLE);
	if (!SetStdHandle(STD_INPUT_HANDLE, (HANDLE)f)) return OS_NO_FILE;
	return (os_file)old;
}

FILE *os_fopen(const char *path, const char *mode)
{
	wchar_t *w = wpath(path), *m = wide_of(mode);
	FILE *f = w && m ? _wfopen(w, m) : NULL;
	free(w);
	free(m);
	return f;
}

/* ---- paths ------------------------------------------------------------------------------- */

static int64_t unix_100ns(FILETIME t)
{
	/* 100 ns ticks since 1601 */
	return (int64_t)(((uint64_t)t.dwHighDateTime << 32 | t.dwLowDateTime) - UINT64_C(116444736000000000));
}

/* What a handle says of the file at w, links followed. */
static bool file_info(const wchar_t *w, BY_HANDLE_FILE_INFORMATION *info)
{
	HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	                       FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE) return false;
	bool ok = GetFileInformationByHandle(h, info);
	CloseHandle(h);
	return ok;
}

bool os_same_file(const char *a, const char *b)
{
	wchar_t *x = wpath(a), *y = x ? wpath(b) : NULL;
	BY_HANDLE_FILE_INFORMATION p, q;
	bool same = y && file_info(x, &p) && file_info(y, &q) && p.dwVolumeSerialNumber == q.dwVolumeSerialNumber &&
	            p.nFileIndexHigh == q.nFileIndexHigh && p.nFileIndexLow == q.nFileIndexLow;
	free(x);
	free(y);
	return same;
}

bool os_file_id_of(const char *path, os_file_id *id)
{
	wchar_t *w = wpath(path);
	BY_HANDLE_FILE_INFORMATION p;
	bool ok = w && file_info(w, &p);
	free(w);
	if (!ok) return false;
	id->device = p.dwVolumeSerialNumber;
	id->file = (uint64_t)p.nFileIndexHigh << 32 | p.nFileIndexLow;
	return true;
}

static bool stat_of(const char *path, os_stat *st, bool follow)
{
	memset(st, 0, sizeof(*st));
	wchar_t *w = wpath(path);
	if (!w) return false;
	WIN32_FILE_ATTRIBUTE_DATA a;
	if (!GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
		DWORD e = GetLastError();
		errno = errno_of(e);
		free(w);
		return false;
	}
	bool reparse = a.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT;
	st->link = !follow && reparse;
	BY_HANDLE_FILE_INFORMATION info;
	if (follow && reparse && file_info(w, &info)) {
		/* a link followed: what it points to */
		a.dwFileAttributes = info.dwFileAttributes;
		a.ftLastWriteTime = info.ftLastWriteTime;
		a.nFileSizeHigh = info.nFileSizeHigh;
		a.nFileSizeLow = info.nFileSizeLow;
	}
	free(w);
	st->kind = (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? OS_DIRECTORY
	         : (a.dwFileAttributes & FILE_ATTRIBUTE_DEVICE)    ? OS_OTHER
	                                                           : OS_REGULAR;
	st->size = (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow;
	int64_t t = unix_100ns(a.ftLastWriteTime);
	st->mtime_sec = t >= 0 ? t / 10000000 : -((-t + 9999999) / 10000000);
	st->mtime_nsec = (int32_t)((t - st->mtime_sec * 10000000) * 100);
	return true;
}

bool os_stat_path(const char *path, os_stat *st) { return stat_of(path, st, true); }
bool os_lstat_path(const char *path, os_stat *st) { return stat_of(path, st, false); }

typedef enum path_op { MAKE_DIR, REMOVE_FILE, REMOVE_DIR } path_op;

/* The calls that take one path and say only whether they worked. */
static bool on_path(const char *path, path_op op)
{
	wchar_t *w = wpath(path);
	if (!w) return false;
	bool ok = op == MAKE_DIR ? CreateDirectoryW(w, NULL) : op == REMOVE_FILE ? DeleteFileW(w) : RemoveDirectoryW(w);
	if (!ok) set_errno_for(path);
	free(w);
	return ok;
}

bool os_mkdir(const char *path) { return on_path(path, MAKE_DIR); }
bool os_remove(const char *path) { return on_path(path, REMOVE_FILE); }
bool os_rmdir(const char *path) { return on_path(path, REMOVE_DIR); }

char *os_getcwd(void)
{
	return os_getcwd_in(NULL);
}

char *os_getcwd_in(const os_mem *mem)
{
	DWORD n = GetCurrentDirectoryW(0, NULL);
	size_t wsize = (size_t)n * sizeof(wchar_t);
	wchar_t *w = n ? os_mem_alloc(mem, wsize) : NULL;
	if (!w || !GetCurrentDirectoryW(n, w)) {
		os_mem_free(mem, w, wsize);
		return NULL;
	}
	const wchar_t *from = !wcsncmp(w, L"\\\\?\\", 4) && w[5] == L':' ? w + 4 : w;
	/* UTF-8 of its length and one byte, '/' as the separator */
	int len = WideCharToMultiByte(CP_UTF8, 0, from, -1, NULL, 0, NULL, NULL);
	char *s = len > 0 ? os_mem_alloc(mem, (size_t)len) : NULL;
	if (s && WideCharToMultiByte(CP_UTF8, 0, from, -1, s, len, NULL, NULL) != len) {
		os_mem_free(mem, s, (size_t)len);
		s = NULL;
	}
	os_mem_free(mem, w, wsize);
	for (char *p = s; p && *p; p++)
		if (*p == '\\') *p = '/';
	return s;
}

bool os_names_ignore_case(void) { return true; }
bool os_windows_paths(void) { return true; }

struct os_dir {
	HANDLE h;
	WIN32_FIND_DATAW data;
	bool first, done;
	char *name;
	os_mem mem;
};

os_dir *os_dir_open(const char *path)
{
	return os_dir_open_in(NULL, path);
}

os_dir *os_dir_open_in(const os_mem *mem, const char *path)
{
	size_t n = strlen(path);
	char *pattern = malloc(n + 3);
	if (!pattern) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(pattern, path, n);
	size_t k = n;
	if (k && pattern[k - 1] != '/' && pattern[k - 1] != '\\') pattern[k++] = '/';
	pattern[k++] = '*';
	pattern[k] = 0;
	wchar_t *w = wpath(pattern);
	free(pattern);
	os_dir *d = w ? os_mem_alloc(mem, sizeof(*d)) : NULL;
	if (!d) {
		free(w);
		return NULL;
	}
	memset(d, 0, sizeof(*d));
	d->mem = mem ? *mem : (os_mem){ 0 };
	d->h = FindFirstFileExW(w, FindExInfoBasic, &d->data, FindExSearchNameMatch, NULL, 0);
	free(w);
	if (d->h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		if (e != ERROR_FILE_NOT_FOUND) { /* an empty directory has no match: not an error */
			errno = errno_of(e);
			os_mem_free(mem, d, sizeof(*d));
			return NULL;
		}
		d->done = true;
	}
	d->first = true;
	return d;
}

const char *os_dir_next(os_dir *d)
{
	for (;;) {
		if (d->done) return NULL;
		if (!d->first && !FindNextFileW(d->h, &d->data)) {
			d->done = true;
			return NULL;
		}
		d->first = false;
		const wchar_t *n = d->data.cFileName;
		if (!wcscmp(n, L".") || !wcscmp(n, L"..")) continue;
		free(d->name);
		d->name = os_win_utf8(n);
		if (d->name) return d->name;
	}
}

void os_dir_close(os_dir *d)
{
	if (!d) return;
	if (d->h != INVALID_HANDLE_VALUE && d->h) FindClose(d->h);
	free(d->name);
	os_mem m = d->mem;
	os_mem_free(&m, d, sizeof(*d));
}

/* ---- outputs written all or nothing ---------------------------------------------------------- */

os_file os_create_new(const char *tmp_path)
{
	wchar_t *w = wpath(tmp_path);
	if (!w) return OS_NO_FILE;
	/* shared for deleting: the interrupt's cleanup removes it even while it is open */
	HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL,
	                       NULL);
	if (h == INVALID_HANDLE_VALUE) set_errno_for(tmp_path);
	free(w);
	return h == INVALID_HANDLE_VALUE ? OS_NO_FILE : (os_file)h;
}

bool os_sync(os_file f)
{
	if (GetFileType((HANDLE)f) != FILE_TYPE_DISK) return true;
	if (FlushFileBuffers((HANDLE)f)) return true;
	DWORD e = GetLastError();
	if (e == ERROR_INVALID_FUNCTION || e == ERROR_INVALID_HANDLE) return true;
	errno = errno_of(e);
	return false;
}

void os_sync_start(os_file f, uint64_t from, uint64_t size)
{
	(void)f, (void)from, (void)size; /* FlushFileBuffers at the end does it all */
}

static bool move(const char *from, const char *to, DWORD flags)
{
	wchar_t *a = wpath(from), *b = a ? wpath(to) : NULL;
	bool ok = b && MoveFileExW(a, b, flags | MOVEFILE_WRITE_THROUGH);
	if (b && !ok) set_errno();
	free(a);
	free(b);
	return ok;
}

bool os_replace(const char *from, const char *to) { return move(from, to, MOVEFILE_REPLACE_EXISTING); }
bool os_rename_new(const char *from, const char *to) { return move(from, to, 0); }
long os_pid(void) { return (long)GetCurrentProcessId(); }

/* ---- threads ----------------------------------------------------------------------------- */

struct os_thread {
	HANDLE h;
	void (*fn)(void *);
	void *arg;
	os_mem mem;
};

static unsigned __stdcall thread_main(void *arg)
{
	os_thread *t = arg;
	t->fn(t->arg);
	return 0;
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
	/* _beginthreadex, not CreateThread: the C library's per-thread state is set up */
	uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
	if (!h) {
		os_mem_free(mem, t, sizeof(*t));
		return NULL;
	}
	t->h = (HANDLE)h;
	return t;
}

void os_thread_join(os_thread *t)
{
	if (!t) return;
	WaitForSingleObject(t->h, INFINITE);
	CloseHandle(t->h);
	os_mem mem = t->mem;
	os_mem_free(&mem, t, sizeof(*t));
}

struct os_mutex {
	SRWLOCK lock;
	os_mem mem;
};

os_mutex *os_mutex_create(void)
{
	return os_mutex_create_in(NULL);
}

os_mutex *os_mutex_create_in(const os_mem *mem)
{
	os_mutex *m = os_mem_alloc(mem, sizeof(*m));
	if (m) {
		InitializeSRWLock(&m->lock);
		m->mem = mem ? *mem : (os_mem){ 0 };
	}
	return m;
}

void os_mutex_lock(os_mutex *m) { AcquireSRWLockExclusive(&m->lock); }
void os_mutex_unlock(os_mutex *m) { ReleaseSRWLockExclusive(&m->lock); }
void os_mutex_destroy(os_mutex *m)
{
	if (!m) return;
	os_mem mem = m->mem;
	os_mem_free(&mem, m, sizeof(*m));
}

struct os_cond {
	CONDITION_VARIABLE cv;
	os_mem mem;
};

os_cond *os_cond_create(void)
{
	return os_cond_create_in(NULL);
}

os_cond *os_cond_create_in(const os_mem *mem)
{
	os_cond *c = os_mem_alloc(mem, sizeof(*c));
	if (c) {
		InitializeConditionVariable(&c->cv);
		c->mem = mem ? *mem : (os_mem){ 0 };
	}
	return c;
}

void os_cond_wait(os_cond *c, os_mutex *m) { SleepConditionVariableSRW(&c->cv, &m->lock, INFINITE, 0); }
void os_cond_broadcast(os_cond *c) { WakeAllConditionVariable(&c->cv); }
void os_cond_destroy(os_cond *c)
{
	if (!c) return;
	os_mem mem = c->mem;
	os_mem_free(&mem, c, sizeof(*c));
}

unsigned os_cpu_count(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwNumberOfProcessors > 0 ? (unsigned)si.dwNumberOfProcessors : 1;
}


/* ---- interrupts -------------------------------------------------------------------------- */

/* Interrupts are held back by a lock, which a program's console control handler
 * (os_program_win32.c) takes before it removes the temporary files: it waits for a file being
 * created and registered, or a set being renamed into place. */
static CRITICAL_SECTION hold_lock;
static volatile LONG hold_ready;

static void hold_init(void)
{
	if (InterlockedCompareExchange(&hold_ready, 1, 0) == 0) {
		InitializeCriticalSection(&hold_lock);
		InterlockedExchange(&hold_ready, 2);
	}
	while (hold_ready != 2) Sleep(0);
}



void os_interrupts_hold(void)
{
	hold_init();
	EnterCriticalSection(&hold_lock); /* recursive for the same thread */
}

void os_interrupts_release(void)
{
	LeaveCriticalSection(&hold_lock);
}


void os_remove_in_cleanup(const char *path)
{
	wchar_t buf[4096];
	int n = MultiByteToWideChar(CP_UTF8, 0, path, -1, buf, 4096);
	if (n > 0) {
		for (int i = 0; buf[i]; i++)
			if (buf[i] == L'/') buf[i] = L'\\';
		DeleteFileW(buf);
	}
}

/* ---- the clock, numbers, memory ---------------------------------------------------------- */










double os_seconds(void)
{
	LARGE_INTEGER f, c;
	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return (double)c.QuadPart / (double)f.QuadPart;
}

/* mingw-w64's correctly rounded strtod (gdtoa) reads the locale's decimal point: with one
 * that is not '.', it stops there, and the text is read again with that locale's point. The
 * C library's locale data is read under a lock: the threads of one conversion parse at once. */
static SRWLOCK strtod_lock = SRWLOCK_INIT;

bool os_strtod_c(const char *text, bool as_float, double *out)
{
	char buf[512];
	size_t n = strlen(text);
	if (n >= sizeof(buf)) return false;
	memcpy(buf, text, n + 1);
	AcquireSRWLockExclusive(&strtod_lock);
	char *stopped;
	double v = as_float ? (double)strtof(buf, &stopped) : strtod(buf, &stopped);
	const char *point = localeconv()->decimal_point;
	char *dot = strchr(buf, '.');
	if (*stopped && stopped == dot && point && strcmp(point, ".") && strlen(point) == 1) {
		*dot = point[0];
		v = as_float ? (double)strtof(buf, NULL) : strtod(buf, NULL);
	}
	ReleaseSRWLockExclusive(&strtod_lock);
	*out = v;
	return true;
}

/* Windows faults pages in cheaply enough: nothing to ask for. */
void os_populate(void *p, size_t from, size_t to, bool huge)
{
	(void)p;
	(void)from;
	(void)to;
	(void)huge;
}

uint64_t os_peak_memory_kib(void)
{
	PROCESS_MEMORY_COUNTERS pmc;
	if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof(pmc))) return 0;
	return (uint64_t)pmc.PeakWorkingSetSize / 1024;
}

char *os_temp_dir(void)
{
	wchar_t w[MAX_PATH + 2];
	DWORD n = GetTempPathW(MAX_PATH + 2, w);
	if (!n || n > MAX_PATH + 1) return NULL;
	if (n > 1 && w[n - 1] == L'\\') w[n - 1] = 0; /* without its last '\' */
	return utf8_path_of(w);
}
#endif
