/* Error and warning reporting: the first error wins; warnings are counted per code. */
#include <stdio.h>
#include <string.h>

#include "support/internal.h"

/* every kind of warning has its entry's room (error.h) */
_Static_assert(SMDMX_WARNING_CODE_COUNT <= SMDMX_WARNINGS_MAX, "more warning codes than smdmx_warnings holds: a new soname");

static const char *const code_names[SMDMX_ERROR_CODE_COUNT] = {
	"none", "io", "out-of-memory", "limit", "empty", "nul-byte", "line-too-long", "syntax",
	"bad-number", "not-finite", "version", "unknown-block", "missing-end", "bone-undefined",
	"bone-redefined", "parent-cycle", "triangle", "links", "time", "invalid-scene",
	"vertex-id", "usage", "header", "encoding", "duplicate-id", "unknown-id", "unterminated", "unknown-type",
	"bad-value", "exists", "warnings",
};

const char *smdmx_error_code_name(smdmx_error_code code)
{
	if ((unsigned)code >= SMDMX_ERROR_CODE_COUNT) return "unknown";
	return code_names[code];
}

bool sm_fail(smdmx_error *error, smdmx_error_code code, uint32_t line, uint32_t column,
             const char *fmt, ...)
{
	if (!error || error->code != SMDMX_ERROR_NONE) return false;
	error->code = code;
	error->line = line;
	error->column = column;
	error->byte = 0;
	error->file[0] = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error->message, sizeof(error->message), fmt, ap);
	va_end(ap);
	return false;
}

bool sm_fail_null(smdmx_error *error, const char *call, const char *arg)
{
	return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s: %s is NULL", call, arg);
}

bool sm_fail_oom(smdmx_error *error)
{
	return sm_fail(error, SMDMX_ERROR_OUT_OF_MEMORY, 0, 0, "out of memory");
}

static void vwarn(smdmx_warnings *w, smdmx_warning_code code, size_t n, uint32_t line, uint32_t column, const char *fmt,
                  va_list ap) SM_PRINTF(6, 0);

static void vwarn(smdmx_warnings *w, smdmx_warning_code code, size_t n, uint32_t line, uint32_t column, const char *fmt,
                  va_list ap)
{
	if (!w || !n) return;
	for (size_t i = 0; i < w->count; i++) {
		if (w->data[i].code == code) {
			w->data[i].count += n;
			return;
		}
	}
	if (w->count >= SMDMX_WARNINGS_MAX) return;
	smdmx_warning *e = &w->data[w->count++];
	e->code = code;
	e->line = line;
	e->column = column;
	e->count = n;
	e->file[0] = 0;
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
}

void sm_warn(smdmx_warnings *w, smdmx_warning_code code, uint32_t line, uint32_t column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(w, code, 1, line, column, fmt, ap);
	va_end(ap);
}

void sm_warn_n(smdmx_warnings *w, smdmx_warning_code code, size_t n, uint32_t line, uint32_t column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(w, code, n, line, column, fmt, ap);
	va_end(ap);
}

const char *smdmx_version(int *major, int *minor, int *patch)
{
	if (major) *major = SMDMX_VERSION_MAJOR;
	if (minor) *minor = SMDMX_VERSION_MINOR;
	if (patch) *patch = SMDMX_VERSION_PATCH;
	return SMDMX_VERSION_STRING;
}
