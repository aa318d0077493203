/* Error reporting: the first error wins. */
#include <stdio.h>
#include <string.h>

#include "support/internal.h"

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

const char *smdmx_version(int *major, int *minor, int *patch)
{
	if (major) *major = SMDMX_VERSION_MAJOR;
	if (minor) *minor = SMDMX_VERSION_MINOR;
	if (patch) *patch = SMDMX_VERSION_PATCH;
	return SMDMX_VERSION_STRING;
}
