/* Helpers shared by the test programs. */
#ifndef SMDMX_TEST_UTIL_H
#define SMDMX_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "smdmx/smdmx.h"

#ifndef SMDMX_SOURCE_ROOT
#error "SMDMX_SOURCE_ROOT must be defined by the build"
#endif

/* Reads a whole file into malloc'd memory (NULL when it cannot be opened). */
static inline char *test_slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n == cap) buf = realloc(buf, cap *= 2);
		size_t k = fread(buf + n, 1, cap - n, f);
		if (k == 0) break;
		n += k;
	}
	fclose(f);
	*size = n;
	return buf;
}

static inline char *test_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", SMDMX_SOURCE_ROOT, rel);
	return buf;
}

/* An allocator that counts live bytes, to prove that failures leak nothing. */
typedef struct test_counter {
	long long live;
	size_t calls;
} test_counter;

static inline void *tc_alloc(void *user, size_t size)
{
	test_counter *c = user;
	c->live += (long long)size;
	c->calls++;
	return malloc(size);
}

static inline void *tc_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	test_counter *c = user;
	void *p = realloc(ptr, new_size);
	if (p) c->live += (long long)new_size - (long long)old_size;
	c->calls++;
	return p;
}

static inline void tc_free(void *user, void *ptr, size_t size)
{
	test_counter *c = user;
	c->live -= (long long)size;
	free(ptr);
}

static inline smdmx_allocator test_allocator(test_counter *c)
{
	smdmx_allocator a;
	memset(&a, 0, sizeof(a));
	a.alloc_fn = tc_alloc;
	a.realloc_fn = tc_realloc;
	a.free_fn = tc_free;
	a.user = c;
	return a;
}

/* A growable memory sink for writers. */
typedef struct test_sink {
	char *data;
	size_t size, cap;
	size_t fail_at; /* fail the write that would pass this many bytes; 0 = never */
} test_sink;

static inline bool test_sink_write(void *user, const void *data, size_t size)
{
	test_sink *s = user;
	if (s->fail_at && s->size + size >= s->fail_at) return false;
	if (s->size + size > s->cap) {
		s->cap = (s->size + size) * 2;
		s->data = realloc(s->data, s->cap);
	}
	memcpy(s->data + s->size, data, size);
	s->size += size;
	return true;
}

#endif
