/* What only a program may do (os_program.h), the part every system shares: text for a person
 * formatted and written whole (os_write_text is each system's). Built into the programs only. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os_program.h"

/* text formatted in one piece, written in one call */
bool os_printf(FILE *f, const char *fmt, ...)
{
	char small[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) return false;
	if ((size_t)n < sizeof(small)) return os_write_text(f, small, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big) return false;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	bool ok = os_write_text(f, big, (size_t)n);
	free(big);
	return ok;
}

bool os_puts(const char *s, FILE *f)
{
	return os_write_text(f, s, strlen(s));
}

