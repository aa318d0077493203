/* Numbers in the C locale for the tests' own text and reference values, whatever locale the
 * process runs under (the suite also runs under de_DE.UTF-8): a per-thread locale where
 * POSIX has one, the numeric category set and put back on Windows (the tests are one
 * thread). c_numbers_begin returns what c_numbers_end puts back. */
#ifndef SMDMX_TEST_C_NUMBERS_H
#define SMDMX_TEST_C_NUMBERS_H

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
typedef char *c_numbers_state;

static inline c_numbers_state c_numbers_begin(void)
{
	const char *now = setlocale(LC_NUMERIC, NULL);
	char *saved = now ? malloc(strlen(now) + 1) : NULL;
	if (saved) strcpy(saved, now);
	setlocale(LC_NUMERIC, "C");
	return saved;
}

static inline void c_numbers_end(c_numbers_state s)
{
	if (!s) return;
	setlocale(LC_NUMERIC, s);
	free(s);
}
#else
typedef locale_t c_numbers_state;

static inline c_numbers_state c_numbers_begin(void)
{
	static locale_t c;
	if (!c) c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	return uselocale(c);
}

static inline void c_numbers_end(c_numbers_state s)
{
	uselocale(s);
}
#endif

static inline float c_strtof(const char *s)
{
	c_numbers_state o = c_numbers_begin();
	float v = strtof(s, NULL);
	c_numbers_end(o);
	return v;
}

static inline double c_strtod(const char *s)
{
	c_numbers_state o = c_numbers_begin();
	double v = strtod(s, NULL);
	c_numbers_end(o);
	return v;
}

#endif
