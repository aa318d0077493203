/* The console as a user meets it: whether the program was started by Explorer (and has a
 * window of its own that closes when it ends), and the progress line of a batch, rewritten in
 * place on every terminal, escape codes or not. Both decide from facts the platform layer
 * gathers, so that the tests can give them any facts (tests/test_console.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* A path as Explorer passes a dropped file or folder: absolute (a drive and '\', or '\\' for a
 * share, on Windows; '/' elsewhere), and there. */
static bool windows_separator(char c)
{
	return c == '\\' || c == '/';
}

static bool dropped_path(const char *a)
{
	bool absolute = os_windows_paths() ? (((a[0] >= 'A' && a[0] <= 'Z') || (a[0] >= 'a' && a[0] <= 'z')) && a[1] == ':' &&
	                                      windows_separator(a[2])) ||
	                                         (windows_separator(a[0]) && windows_separator(a[1]))
	                                   : a[0] == '/';
	os_stat st;
	return absolute && os_stat_path(a, &st) && (st.kind == OS_REGULAR || st.kind == OS_DIRECTORY);
}

bool launched_from_explorer(const os_launch *l, int argc, char **argv)
{
	/* Explorer makes a console for the program and gives it nothing else: a program that
	 * shares its console, or whose streams go elsewhere, was started by something that reads
	 * them; one started by another program (start, a scheduled task, an IDE, a build tool)
	 * ends as it would in a script, whatever console it has. */
	if (!l->own_console || !l->console_streams || strcasecmp(l->parent, "explorer.exe") != 0) return false;
	/* a double click gives no arguments; a drop, the absolute paths of what was dropped */
	for (int i = 1; i < argc; i++)
		if (!dropped_path(argv[i])) return false;
	return true;
}

/* Display columns of UTF-8 text: a character outside ASCII counts as two (CJK takes two; the
 * others leave a column spare), so that a line never wraps. */
static size_t columns_of(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];
		if (b < 0x80) c++;
		else if ((b & 0xC0) != 0x80) c += 2;
	}
	return c;
}

bool progress_text(char *buf, size_t cap, const char *name, size_t finished, size_t count, const char *input, uint64_t size,
                   uint64_t read)
{
	char part[32] = "";
	bool big = size >= PROGRESS_BIG && read > 0;
	if (big && read >= size) snprintf(part, sizeof(part), " (read; converting)");
	else if (big) snprintf(part, sizeof(part), " (read %u%%)", (unsigned)(read * 100 / size));
	if (count > 1) snprintf(buf, cap, "%s: [%zu/%zu] %s%s", name, finished, count, input, part);
	else snprintf(buf, cap, "%s: %s%s", name, input, part);
	return count > 1 || big;
}

/* The bytes of the longest start of s[0, n) within cols columns (whole characters). */
static size_t start_within(const char *s, size_t n, size_t cols)
{
	size_t k = 0;
	while (k < n) {
		size_t next = k + 1;
		while (next < n && ((unsigned char)s[next] & 0xC0) == 0x80) next++;
		if (columns_of(s, next) > cols) break;
		k = next;
	}
	return k;
}

/* Where the longest end of s[0, n) within cols columns starts (whole characters). */
static size_t end_within(const char *s, size_t n, size_t cols)
{
	size_t from = n;
	while (from > 0) {
		size_t p = from - 1;
		while (p > 0 && ((unsigned char)s[p] & 0xC0) == 0x80) p--;
		if (columns_of(s + p, n - p) > cols) break;
		from = p;
	}
	return from;
}

/* text cut to room columns into out (at least strlen(text) + 7 bytes): the program's name and
 * the [n/N] count stay whole, and the path after them loses its middle ("C:\Users\...\hero.smd"),
 * its file name (and what follows it) kept whole where it fits; on a line too narrow even for
 * the count, the end of the text after "...". */
static void progress_fit(const char *text, size_t room, char *out)
{
	size_t n = strlen(text);
	if (columns_of(text, n) <= room) {
		memcpy(out, text, n + 1);
		return;
	}
	/* the head: up to "] " (the count), else ": " (the name) */
	size_t head = 0;
	const char *count = strstr(text, "] "), *colon = strstr(text, ": ");
	if (count) head = (size_t)(count - text) + 2;
	else if (colon) head = (size_t)(colon - text) + 2;
	size_t head_cols = columns_of(text, head);
	if (head == 0 || head_cols + 3 + 8 > room) {
		size_t from = end_within(text, n, room > 3 ? room - 3 : 0);
		memcpy(out, "...", 3);
		memcpy(out + 3, text + from, n - from + 1);
		return;
	}
	const char *rest = text + head;
	size_t rn = n - head, avail = room - head_cols - 3;
	/* the file name and what follows it (" (read 25%)"): from the last separator */
	size_t name = rn;
	while (name > 0 && rest[name - 1] != '/' && rest[name - 1] != '\\') name--;
	if (name > 0) name--; /* with its separator */
	size_t name_cols = columns_of(rest + name, rn - name);
	size_t end_cols = avail - avail / 3;
	if (name_cols > end_cols) end_cols = name_cols < avail ? name_cols : avail;
	size_t from = end_within(rest, rn, end_cols);
	/* the end from a separator: whole folder names */
	size_t sep = from;
	while (sep < name && rest[sep] != '/' && rest[sep] != '\\') sep++;
	if (sep < name || (sep == name && name < rn)) from = sep;
	size_t lead = start_within(rest, from, avail - columns_of(rest + from, rn - from));
	size_t k = 0;
	memcpy(out + k, text, head + lead);
	k += head + lead;
	memcpy(out + k, "...", 3);
	k += 3;
	memcpy(out + k, rest + from, rn - from + 1);
}

size_t progress_render(os_term kind, unsigned columns, size_t *shown, const char *text, char *buf, size_t cap)
{
	size_t len = 0, room = columns > 1 ? columns - 1 : 1;
	if (cap < 16) return 0;
	cap--; /* for the final NUL */
	char small[512], *fit = strlen(text) + 8 <= sizeof(small) ? small : malloc(strlen(text) + 8);
	if (!fit) return 0;
	progress_fit(text, room, fit);
	size_t body = strlen(fit), wide = columns_of(fit, body);
#define PUT(s, k)                                              \
	do {                                                       \
		size_t k_ = (k);                                       \
		if (len + k_ > cap) k_ = cap - len;                    \
		memcpy(buf + len, (s), k_);                            \
		len += k_;                                             \
	} while (0)
	if (kind == OS_TERM_ANSI) {
		PUT("\r\033[K", 4);
	} else {
		PUT("\r", 1);
	}
	PUT(fit, body);
	/* without escape codes, spaces cover what the line held beyond the new text, and '\r'
	 * comes back to where the text ends */
	if (kind == OS_TERM_PLAIN && *shown > wide) {
		size_t pad = *shown - wide;
		for (size_t i = 0; i < pad && len < cap; i++) buf[len++] = ' ';
		PUT("\r", 1);
		PUT(fit, body);
	}
#undef PUT
	if (fit != small) free(fit);
	buf[len] = 0;
	*shown = wide;
	return len;
}
