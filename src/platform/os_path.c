/* Paths as the system names them (os.h, "paths"): separators ('\\' too on Windows), extensions,
 * an absolute path folded, one path named from another's folder, parent folders made; and
 * strings from a format (os_strf). Built
 * into the library and the programs alike, as the rest of the platform layer. A function
 * that returns a new string returns NULL when memory ran out (free it with free()). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

char *os_strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!p) return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

const char *os_path_shown(const char *path, char sep, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", path);
	if (sep != '\\') sep = '/';
	for (char *p = buf; os_windows_paths() && *p; p++)
		if (*p == '/' || *p == '\\') *p = sep;
	return buf;
}

bool os_is_separator(char c)
{
	return c == '/' || (c == '\\' && os_windows_paths());
}

const char *os_last_separator(const char *path)
{
	const char *last = NULL;
	for (const char *p = path; *p; p++)
		if (os_is_separator(*p)) last = p;
	return last;
}

/* ---- names as a file system that ignores case compares them -------------------------------- */

#include "os_upcase.h"

/* The capital of code point c (os_upcase.h beyond ASCII), ASCII's letters as small ones, so
 * that names order as they did when only ASCII was folded; equal for two letters exactly when
 * their capitals are. */
static uint32_t fold(uint32_t c)
{
	if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
	if (c > 0xFFFF) return c;
	size_t lo = 0, hi = sizeof(os_upcase) / sizeof(os_upcase[0]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (os_upcase[mid][0] < c) lo = mid + 1;
		else hi = mid;
	}
	uint32_t u = lo < sizeof(os_upcase) / sizeof(os_upcase[0]) && os_upcase[lo][0] == c ? os_upcase[lo][1] : c;
	return u >= 'A' && u <= 'Z' ? u + 32 : u;
}

/* The code point at s[*i] (of n bytes), *i moved past it; a byte that begins no character of
 * UTF-8 is one of its own, above every code point (0x110000 + the byte). */
static uint32_t next_char(const char *s, size_t n, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t left = n - *i, len = u[0] < 0x80 ? 1 : (u[0] & 0xE0) == 0xC0 ? 2 : (u[0] & 0xF0) == 0xE0 ? 3 : (u[0] & 0xF8) == 0xF0 ? 4 : 0;
	uint32_t c = len == 1 ? u[0] : len == 2 ? u[0] & 0x1Fu : len == 3 ? u[0] & 0x0Fu : u[0] & 0x07u;
	bool ok = len && len <= left;
	for (size_t k = 1; ok && k < len; k++) {
		ok = (u[k] & 0xC0) == 0x80;
		c = (c << 6) | (u[k] & 0x3Fu);
	}
	if (!ok) {
		*i += 1;
		return 0x110000u + u[0];
	}
	*i += len;
	return c;
}

/* a[0, an) against b[0, bn), letters by their capitals; with seps, '\\' as '/'. */
static int fold_compare(const char *a, size_t an, const char *b, size_t bn, bool seps)
{
	size_t i = 0, j = 0;
	while (i < an && j < bn) {
		uint32_t x = fold(next_char(a, an, &i)), y = fold(next_char(b, bn, &j));
		if (seps && x == '\\') x = '/';
		if (seps && y == '\\') y = '/';
		if (x != y) return x < y ? -1 : 1;
	}
	return i < an ? 1 : j < bn ? -1 : 0;
}

bool os_same_name_nocase(const char *a, size_t an, const char *b, size_t bn)
{
	return fold_compare(a, an, b, bn, false) == 0;
}

char *os_path_key(const char *path)
{
	size_t n = os_path_key_to(NULL, 0, path);
	char *out = malloc(n + 1);
	if (out) os_path_key_to(out, n + 1, path);
	return out;
}

size_t os_path_key_to(char *buf, size_t cap, const char *path)
{
	size_t n = strlen(path), i = 0, len = 0;
	if (!os_names_ignore_case()) {
		if (cap > n) memcpy(buf, path, n + 1);
		return n;
	}
	while (i < n) {
		char out[4];
		size_t k = 0, at = i;
		uint32_t c = next_char(path, n, &i);
		if (c >= 0x110000u) { /* not UTF-8: the byte as it is */
			out[k++] = path[at];
		} else {
			c = fold(c);
			if (c == '\\') c = '/';
			if (c < 0x80) {
				out[k++] = (char)c;
			} else if (c < 0x800) {
				out[k++] = (char)(0xC0 | (c >> 6));
				out[k++] = (char)(0x80 | (c & 0x3F));
			} else if (c < 0x10000) {
				out[k++] = (char)(0xE0 | (c >> 12));
				out[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
				out[k++] = (char)(0x80 | (c & 0x3F));
			} else {
				out[k++] = (char)(0xF0 | (c >> 18));
				out[k++] = (char)(0x80 | ((c >> 12) & 0x3F));
				out[k++] = (char)(0x80 | ((c >> 6) & 0x3F));
				out[k++] = (char)(0x80 | (c & 0x3F));
			}
		}
		if (len + k < cap) memcpy(buf + len, out, k);
		len += k;
	}
	if (len < cap) buf[len] = 0;
	return len;
}

int os_path_compare(const char *a, const char *b)
{
	if (!os_names_ignore_case()) return strcmp(a, b);
	return fold_compare(a, strlen(a), b, strlen(b), true);
}

const char *os_path_extension(const char *path)
{
	const char *slash = os_last_separator(path);
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? dot + 1 : "";
}

static size_t stem_length(const char *path)
{
	const char *ext = os_path_extension(path);
	return *ext ? (size_t)(ext - path) - 1 : strlen(path);
}

/* A length said by snprintf, as a size (0 for its failure, which a caller's room of 1 takes). */
static size_t printed(int n)
{
	return n > 0 ? (size_t)n : 0;
}

size_t os_path_with_extension_to(char *buf, size_t cap, const char *path, const char *ext)
{
	return printed(snprintf(buf, cap, "%.*s.%s", (int)stem_length(path), path, ext));
}

size_t os_path_with_suffix_to(char *buf, size_t cap, const char *path, const char *suffix)
{
	const char *ext = os_path_extension(path);
	return printed(snprintf(buf, cap, "%.*s_%s%s%s", (int)stem_length(path), path, suffix, *ext ? "." : "", ext));
}

char *os_path_with_extension(const char *path, const char *ext)
{
	return os_strf("%.*s.%s", (int)stem_length(path), path, ext);
}

char *os_path_with_suffix(const char *path, const char *suffix)
{
	const char *ext = os_path_extension(path);
	return os_strf("%.*s_%s%s%s", (int)stem_length(path), path, suffix, *ext ? "." : "", ext);
}

/* path made absolute (against the working directory) with "." and ".." folded, '/' as the
 * separator. On Windows: "C:/a/b" for a drive, "//server/share/a" for a network share, and
 * "\\a" on the working directory's drive. */
char os_path_separator_of(const char *path)
{
	return os_windows_paths() && !(strchr(path, '/') && !strchr(path, '\\')) ? '\\' : '/';
}

size_t os_path_join_to(char *buf, size_t cap, const char *dir, const char *rel)
{
	char sep = os_path_separator_of(dir);
	size_t n = strlen(dir);
	size_t len = printed(snprintf(buf, cap, "%s%s%s", dir, n && os_is_separator(dir[n - 1]) ? "" : sep == '/' ? "/" : "\\", rel));
	for (char *c = buf && len < cap ? buf + n : NULL; c && *c; c++)
		if (os_is_separator(*c)) *c = sep;
	return len;
}

char *os_path_join(const char *dir, const char *rel)
{
	size_t n = os_path_join_to(NULL, 0, dir, rel);
	char *p = malloc(n + 1);
	if (p) os_path_join_to(p, n + 1, dir, rel);
	return p;
}

/* The end of one name at p (at a separator or the end) and past the separator after it. */
static size_t past_component(const char *p, size_t i)
{
	while (p[i] && !os_is_separator(p[i])) i++;
	return p[i] ? i + 1 : i;
}

size_t os_path_root(const char *p)
{
	if (!os_windows_paths()) return p[0] == '/';
	if (os_is_separator(p[0]) && os_is_separator(p[1])) {
		/* \\?\ and \\.\ (paths the system takes as they are): the drive or volume after it,
		 * or UNC with its server and share; \\server\share otherwise */
		if ((p[2] == '?' || p[2] == '.') && os_is_separator(p[3])) {
			bool unc = (p[4] == 'U' || p[4] == 'u') && (p[5] == 'N' || p[5] == 'n') && (p[6] == 'C' || p[6] == 'c') &&
			           os_is_separator(p[7]);
			return unc ? past_component(p, past_component(p, 8)) : past_component(p, 4);
		}
		return past_component(p, past_component(p, 2));
	}
	if (p[0] && p[1] == ':') return os_is_separator(p[2]) ? 3 : 2;
	return os_is_separator(p[0]);
}

/* A string in mem: the parts' lengths, then their bytes (a NULL part: none). Exactly its
 * length and one byte, as os_mem_free takes it back. */
static char *mem_cat(const os_mem *mem, const char *a, size_t an, const char *b, const char *c)
{
	size_t bn = b ? strlen(b) : 0, cn = c ? strlen(c) : 0;
	char *out = os_mem_alloc(mem, an + bn + cn + 1);
	if (!out) return NULL;
	memcpy(out, a, an);
	if (bn) memcpy(out + an, b, bn);
	if (cn) memcpy(out + an + bn, c, cn);
	out[an + bn + cn] = 0;
	return out;
}

static void mem_str_free(const os_mem *mem, char *s)
{
	if (s) os_mem_free(mem, s, strlen(s) + 1);
}

char *os_path_absolute(const char *path)
{
	return os_path_absolute_in(NULL, path);
}

char *os_path_absolute_in(const os_mem *mem, const char *path)
{
	bool windows = os_windows_paths();
	char *given = mem_cat(mem, path, strlen(path), NULL, NULL);
	if (!given) return NULL;
	if (windows)
		for (char *c = given; *c; c++)
			if (*c == '\\') *c = '/';
	size_t root = os_path_root(given);
	/* "C:x" (the drive's own working folder) is taken from the working directory, as before */
	bool rooted = root > 0 && !(windows && root == 2 && given[1] == ':');
	bool on_drive = windows && root == 1; /* "/a": on the working directory's drive or share */
	char *cwd = rooted && !on_drive ? NULL : os_getcwd_in(mem);
	char *joined;
	if (!rooted) joined = cwd ? mem_cat(mem, cwd, strlen(cwd), "/", given) : mem_cat(mem, "./", 2, given, NULL);
	else if (on_drive && cwd && os_path_root(cwd) > 1) joined = mem_cat(mem, cwd, os_path_root(cwd) - 1, given, NULL);
	else joined = mem_cat(mem, given, strlen(given), NULL, NULL);
	mem_str_free(mem, given);
	mem_str_free(mem, cwd);
	size_t room = joined ? strlen(joined) + 2 : 0;
	char *out = joined ? os_mem_alloc(mem, room) : NULL;
	if (!out) {
		mem_str_free(mem, joined);
		return NULL;
	}
	/* the root as it is (a drive, a share, \\?\ and what follows it), then each name after a
	 * '/', "." and ".." folded, never above the root */
	root = os_path_root(joined);
	memcpy(out, joined, root);
	size_t n = root, keep = root;
	if (keep && out[keep - 1] == '/') n = --keep; /* each name is written after a '/' */
	for (const char *p = joined + root; *p;) {
		while (*p == '/') p++;
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0) break;
		if (len == 1 && p[0] == '.') {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > keep && out[n - 1] != '/') n--;
			if (n > keep) n--;
		} else {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	if (n == keep && root) n = root; /* the root alone keeps its '/' */
	else if (n == 0) out[n++] = '/';
	out[n] = 0;
	mem_str_free(mem, joined);
	/* its length and one byte, as os_mem_free takes it back */
	char *exact = mem_cat(mem, out, n, NULL, NULL);
	os_mem_free(mem, out, room);
	return exact;
}

char *os_path_relative(const char *from_file, const char *to)
{
	return os_path_relative_in(NULL, from_file, to);
}

char *os_path_relative_in(const os_mem *mem, const char *from_file, const char *to)
{
	char *a = os_path_absolute_in(mem, from_file), *b = os_path_absolute_in(mem, to);
	if (!a || !b) {
		mem_str_free(mem, a);
		mem_str_free(mem, b);
		return NULL;
	}
	size_t alen = strlen(a);
	char *slash = strrchr(a, '/');
	if (slash) slash[1] = 0; /* the folder of from_file, with its '/' */
	size_t common = 0, i = 0;
	while (a[i] && a[i] == b[i]) {
		if (a[i] == '/') common = i + 1;
		i++;
	}
	size_t root = os_path_root(a);
	char *out;
	if (common == 0 || common < root || os_path_root(b) != root) {
		/* another drive or share: no way there but the whole path */
		out = mem_cat(mem, b, strlen(b), NULL, NULL);
	} else {
		size_t ups = 0;
		for (const char *p = a + common; *p; p++) ups += *p == '/';
		size_t len = strlen(b + common) + 3 * ups + 1;
		out = os_mem_alloc(mem, len);
		if (out) {
			out[0] = 0;
			for (size_t k = 0; k < ups; k++) strcat(out, "../");
			strcat(out, b + common);
		}
	}
	os_mem_free(mem, a, alen + 1);
	mem_str_free(mem, b);
	return out;
}

bool os_make_parent_dirs(const char *path, char *why, size_t why_size)
{
	char *p = os_strf("%s", path);
	if (!p) {
		snprintf(why, why_size, "out of memory");
		return false;
	}
	bool ok = os_make_parent_dirs_made(p, NULL, why, why_size);
	free(p);
	return ok;
}

/* How much of path is its root, which is there and never made: / ; on Windows C:\ or \ ,
 * \\server\share\ , and the same after \\?\ (\\?\C:\ , \\?\UNC\server\share\ ). */
static size_t root_length(const char *p)
{
	if (!os_windows_paths()) return os_is_separator(p[0]) ? 1 : 0;
	size_t i = 0;
	bool two = os_is_separator(p[0]) && os_is_separator(p[1]);
	if (two && (p[2] == '?' || p[2] == '.') && os_is_separator(p[3])) {
		i = 4;
		if (p[i] && p[i + 1] == ':') return i + 2 + (os_is_separator(p[i + 2]) ? 1 : 0);
		bool unc = (p[i] == 'U' || p[i] == 'u') && (p[i + 1] == 'N' || p[i + 1] == 'n') && (p[i + 2] == 'C' || p[i + 2] == 'c') &&
		           os_is_separator(p[i + 3]);
		if (!unc) return i;
		i += 4;
	} else if (two) {
		i = 2;
	} else if (p[0] && p[1] == ':') {
		return 2 + (os_is_separator(p[2]) ? 1 : 0);
	} else {
		return os_is_separator(p[0]) ? 1 : 0;
	}
	for (int part = 0; part < 2; part++) { /* server\share\ */
		while (p[i] && !os_is_separator(p[i])) i++;
		if (p[i]) i++;
	}
	return i;
}

bool os_make_parent_dirs_made(char *p, size_t *made, char *why, size_t why_size)
{
	if (made) *made = 0;
	const char *slash = os_last_separator(p);
	if (!slash || slash == p) return true;
	char sep_last = *slash;
	p[slash - p] = '\0';
	os_stat st;
	bool there = os_stat_path(p, &st) && st.kind == OS_DIRECTORY; /* the usual case in a batch */
	p[slash - p] = sep_last;
	if (there) return true;
	size_t root = root_length(p);
	/* A folder found here may be taken away before the next is made in it: an output that
	 * failed removes the empty folders it made (another thread of a batch, or another
	 * program), so a folder missing on the way (ENOENT) starts the walk again. */
	for (int attempt = 0;; attempt++) {
		bool again = false;
		for (char *s = p + (root ? root : 1); *s && !again; s++) {
			if (!os_is_separator(*s)) continue; /* the root (C:\, \\?\C:\, /) is there */
			char sep = *s;
			*s = '\0';
			if (os_mkdir(p)) {
				if (made && !*made) *made = (size_t)(s - p); /* the first made: the others are below it */
			} else if (errno == ENOENT && attempt < 100) {
				again = true;
			} else if (errno != EEXIST) {
				snprintf(why, why_size, "cannot create the directory '%s': %s", p, os_error_text(errno));
				*s = sep;
				return false;
			}
			*s = sep;
		}
		if (!again) break;
	}
	return true;
}

/* ---- a file read whole ------------------------------------------------------------------------ */

char *os_read_whole(const char *path, size_t *size)
{
	os_file f = os_open_read(path);
	if (f == OS_NO_FILE) return NULL;
	size_t cap = (size_t)1 << 16, n = 0;
	char *b = malloc(cap);
	int e = b ? 0 : ENOMEM;
	while (b) {
		ptrdiff_t k = os_read(f, b + n, cap - n - 1);
		if (k < 0) {
			e = errno;
			free(b);
			b = NULL;
			break;
		}
		if (k == 0) break;
		n += (size_t)k;
		if (n + 1 == cap) {
			char *g = cap < SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
			if (!g) {
				free(b);
				e = ENOMEM;
			}
			b = g;
			cap *= 2;
		}
	}
	os_close(f);
	if (!b) {
		errno = e;
		return NULL;
	}
	b[n] = 0;
	*size = n;
	return b;
}
