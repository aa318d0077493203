/* A call's warnings (smdmx/error.h): a list of one entry per code, counted, its room taken
 * from the call's allocator as it grows. */
#include <stdio.h>
#include <string.h>

#include "support/internal.h"

/* The list's blocks through its allocator, counted as its own: its room is its live bytes,
 * its blocks what fail_after counts. */
static sm_alloc list_alloc(const smdmx_warnings *w)
{
	sm_alloc a;
	sm_alloc_init(&a, &w->allocator);
	a.live = w->capacity * sizeof(smdmx_warning);
	a.made = w->blocks;
	return a;
}

static bool same_hooks(const smdmx_allocator *x, const smdmx_allocator *y)
{
	return x->alloc_fn == y->alloc_fn && x->realloc_fn == y->realloc_fn && x->free_fn == y->free_fn &&
	       x->user == y->user;
}

void smdmx_warnings_free(smdmx_warnings *w)
{
	if (!w) return;
	sm_alloc a = list_alloc(w);
	sm_free(&a, w->data, w->capacity * sizeof(smdmx_warning));
	memset(w, 0, sizeof(*w));
}

void sm_warnings_start(smdmx_warnings *w, const smdmx_allocator *allocator)
{
	if (!w) return;
	smdmx_allocator a;
	memset(&a, 0, sizeof(a));
	if (allocator) a = *allocator;
	if (w->data && !same_hooks(&w->allocator, &a)) smdmx_warnings_free(w);
	w->allocator = a;
	w->count = w->lost = w->blocks = 0;
}

void sm_warnings_leave(smdmx_warnings *w, sm_budget *budget)
{
	if (!w) return;
	sm_alloc a = list_alloc(w);
	sm_budget_leave(budget, &a);
	w->allocator = a.hooks;
}

bool sm_warnings_kept(const smdmx_warnings *w, smdmx_error *error)
{
	if (!w || !w->lost) return true;
	return sm_fail_oom(error);
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
	if (w->count == w->capacity) {
		/* room for 4, then twice as many, up to one entry per code */
		size_t cap = w->capacity ? 2 * w->capacity : 4;
		if (cap > SMDMX_WARNING_CODE_COUNT) cap = SMDMX_WARNING_CODE_COUNT;
		sm_alloc a = list_alloc(w);
		smdmx_warning *d = cap > w->capacity
		                       ? sm_realloc(&a, w->data, w->capacity * sizeof(smdmx_warning), cap * sizeof(smdmx_warning))
		                       : NULL;
		if (!d) {
			w->lost += n;
			return;
		}
		w->data = d;
		w->capacity = cap;
		w->blocks = a.made;
	}
	smdmx_warning *e = &w->data[w->count++];
	memset(e, 0, sizeof(*e)); /* every byte of an entry set, past the texts' ends too */
	e->code = code;
	e->line = line;
	e->column = column;
	e->count = n;
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

void sm_warnings_merge(smdmx_warnings *into, smdmx_warnings *from, uint32_t line_base, const char *file)
{
	for (size_t i = 0; into && i < from->count; i++) {
		const smdmx_warning *x = &from->data[i];
		size_t before = into->count;
		sm_warn_n(into, x->code, x->count, x->line ? x->line + line_base : 0, x->column, "%s", x->message);
		if (into->count > before) snprintf(into->data[before].file, sizeof(into->data[before].file), "%s", x->file[0] ? x->file : file);
	}
	if (into) into->lost += from->lost;
	smdmx_warnings_free(from);
}
