/* Diagnostics in the compiler format, collected per job so that a batch prints them in
 * input order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void append(diag_buf *d, const char *s, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		while (cap < d->len + n + 1) cap *= 2;
		char *t = realloc(d->text, cap);
		if (!t) return; /* out of memory: the line is lost, the status is not */
		d->text = t;
		d->cap = cap;
	}
	memcpy(d->text + d->len, s, n);
	d->len += n;
	d->text[d->len] = '\0';
}

/* Paths shown as the user writes them: on Windows, when the command line wrote paths with
 * '\\', the absolute paths smdmx makes (a drive, then '/') are shown with '\\' too. */
static bool backslashes;

void diag_show_backslashes(void)
{
	backslashes = true;
}

/* Whether p starts an absolute Windows path: a drive letter, ':' and a separator; or two
 * separators and a name followed by one (\\server\share, \\?\C:, \\.\X). */
static bool absolute_at(const char *p)
{
	bool sep0 = p[0] == '/' || p[0] == '\\', sep1 = p[1] == '/' || p[1] == '\\';
	if (sep0 && sep1) {
		size_t n = 2;
		while (p[n] && p[n] != '/' && p[n] != '\\' && p[n] != ' ' && p[n] != '\'' && p[n] != '"') n++;
		return n > 2 && (p[n] == '/' || p[n] == '\\');
	}
	return ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) && p[1] == ':' && (p[2] == '/' || p[2] == '\\');
}

/* In s, every absolute Windows path (absolute_at, at the start or after a space, quote or
 * '(') gets '\\' for '/', up to the quote that closes it or the end. */
static void show_backslashes(char *s)
{
	if (!backslashes) return;
	for (char *p = s; *p; p++) {
		bool starts = (p == s || p[-1] == ' ' || p[-1] == '\'' || p[-1] == '"' || p[-1] == '(') && absolute_at(p);
		if (!starts) continue;
		char close = p > s && (p[-1] == '\'' || p[-1] == '"') ? p[-1] : 0;
		for (; *p && *p != close && !(close == 0 && *p == '\n'); p++)
			if (*p == '/') *p = '\\';
		if (!*p) break;
	}
}

static void vadd_plain(diag_buf *d, const char *path, uint32_t line, uint32_t col, const char *kind, const char *msg,
                       const char *tail)
{
	char shown_path[4096], shown_msg[1024];
	snprintf(shown_path, sizeof(shown_path), "%s", path);
	snprintf(shown_msg, sizeof(shown_msg), "%s", msg);
	for (char *c = shown_path; backslashes && *c; c++) /* the message's file, a path whole */
		if (*c == '/') *c = '\\';
	show_backslashes(shown_path);
	show_backslashes(shown_msg);
	path = shown_path;
	msg = shown_msg;
	char head[64];
	if (line) snprintf(head, sizeof(head), ":%u:%u", line, col ? col : 1);
	else head[0] = '\0';
	append(d, path, strlen(path));
	append(d, head, strlen(head));
	append(d, ": ", 2);
	append(d, kind, strlen(kind));
	append(d, ": ", 2);
	append(d, msg, strlen(msg));
	append(d, tail, strlen(tail));
	append(d, "\n", 1);
}

static void vadd(diag_buf *d, const char *path, uint32_t line, uint32_t col, const char *kind, const char *fmt,
                 va_list ap) __attribute__((format(OS_PRINTF, 6, 0)));
static void vadd(diag_buf *d, const char *path, uint32_t line, uint32_t col, const char *kind, const char *fmt,
                 va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	vadd_plain(d, path, line, col, kind, msg, "");
}

void diag_add(diag_buf *d, const conv_opts *o, const char *path, uint32_t line, uint32_t col, const char *kind,
              const char *fmt, ...)
{
	bool warning = !strcmp(kind, "warning");
	if (warning && o && o->werror) {
		/* -W error: the warning is an error, shown whatever -q and --max-warnings say */
		d->warnings++;
		char msg[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		vadd_plain(d, path, line, col, "error", msg, " (-W error)");
		return;
	}
	if (warning) {
		d->warnings++;
		if ((o && o->quiet) || (o && o->max_warnings && d->warnings > o->max_warnings)) {
			d->hidden += !(o && o->quiet);
			return;
		}
	} else if (!strcmp(kind, "error")) {
		d->errors++;
	}
	va_list ap;
	va_start(ap, fmt);
	vadd(d, path, line, col, kind, fmt, ap);
	va_end(ap);
}

void diag_error(diag_buf *d, const char *path, const smdmx_error *e)
{
	diag_add(d, NULL, e->file[0] ? e->file : path, e->line, e->column, "error", "%s", e->message);
}

void diag_warnings(diag_buf *d, const conv_opts *o, const char *path, smdmx_warnings *w)
{
	for (size_t i = 0; i < w->count; i++) {
		const char *where = w->data[i].file[0] ? w->data[i].file : path;
		if (w->data[i].count > 1)
			diag_add(d, o, where, w->data[i].line, w->data[i].column, "warning", "%s (%zu times)", w->data[i].message,
			         w->data[i].count);
		else
			diag_add(d, o, where, w->data[i].line, w->data[i].column, "warning", "%s", w->data[i].message);
	}
	smdmx_warnings_free(w);
}

void diag_take(diag_buf *d, const conv_opts *o, const smdmx_message *m, size_t n)
{
	static const char *const kinds[] = { "error", "warning", "note" };
	for (size_t i = 0; i < n; i++) {
		char text[1024];
		snprintf(text, sizeof(text), "%s", m[i].text);
		if (m[i].kind == SMDMX_MESSAGE_ERROR) output_words(text, sizeof(text));
		diag_add(d, o, m[i].path ? m[i].path : o && o->name ? o->name : "smdmx", m[i].line, m[i].column, kinds[m[i].kind], "%s",
		         text);
	}
}

void diag_finish(diag_buf *d, const conv_opts *o, const char *path)
{
	(void)o;
	if (d->hidden) {
		char line[128];
		int n = snprintf(line, sizeof(line), ": note: %zu more warning%s not shown (--max-warnings)\n", d->hidden,
		                 d->hidden == 1 ? "" : "s");
		append(d, path, strlen(path));
		append(d, line, (size_t)n);
		d->hidden = 0;
	}
}

void diag_free(diag_buf *d)
{
	free(d->text);
	memset(d, 0, sizeof(*d));
}

void say_v(const char *name, const char *kind, const char *tail, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	show_backslashes(msg);
	os_printf(stderr, "%s: %s: %s%s\n", name, kind, msg, tail);
}

void say(const char *name, const char *kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_v(name, kind, "", fmt, ap);
	va_end(ap);
}
