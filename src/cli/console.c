/* The console as a user meets it: whether the program was started by Explorer (and has a
 * window of its own that closes when it ends), and the progress line of a batch, rewritten in
 * place on every terminal, escape codes or not. Both decide from facts the platform layer
 * gathers, so that the tests can give them any facts (tests/test_console.c). */
#include <stdio.h>
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

size_t progress_render(os_term kind, unsigned columns, size_t *shown, const char *text, char *buf, size_t cap)
{
	size_t len = 0, n = strlen(text), room = columns > 1 ? columns - 1 : 1;
	if (cap < 16) return 0;
	cap--; /* for the final NUL */
	/* The end of the text (a path's file name) is what tells; a text too wide for the line
	 * keeps its end, after "...". */
	const char *from = text;
	if (columns_of(text, n) > room) {
		size_t keep = room > 3 ? room - 3 : 0;
		from = text + n;
		while (from > text) {
			const char *p = from - 1;
			while (p > text && ((unsigned char)*p & 0xC0) == 0x80) p--;
			if (columns_of(p, (size_t)(text + n - p)) > keep) break;
			from = p;
		}
	}
	size_t body = (size_t)(text + n - from), wide = columns_of(from, body) + (from != text ? 3 : 0);
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
	if (from != text) PUT("...", 3);
	PUT(from, body);
	/* without escape codes, spaces cover what the line held beyond the new text, and '\r'
	 * comes back to where the text ends */
	if (kind == OS_TERM_PLAIN && *shown > wide) {
		size_t pad = *shown - wide;
		for (size_t i = 0; i < pad && len < cap; i++) buf[len++] = ' ';
		PUT("\r", 1);
		if (from != text) PUT("...", 3);
		PUT(from, body);
	}
#undef PUT
	buf[len] = 0;
	*shown = wide;
	return len;
}
