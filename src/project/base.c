/* What the project layer's files share (project_internal.h), below all of them: messages
 * gathered, memory through the run's failure switch, text, paths, the tasks' output sets, and
 * the library's strings, lists and folders. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/project_internal.h"
#include "support/internal.h"

/* ---- messages -------------------------------------------------------------------------------- */

static void msg_str_free(pj_msgs *m, char *s)
{
	if (m->mem) sm_str_free(m->mem, s);
	else free(s);
}

static void add_text(pj_msgs *m, const char *path, uint32_t line, uint32_t column, smdmx_message_kind kind,
                     smdmx_error_code code, const char *text)
{
	m->warnings += kind == SMDMX_MESSAGE_WARNING;
	m->errors += kind == SMDMX_MESSAGE_ERROR;
	if (m->count == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		smdmx_message *g = m->mem ? sm_realloc(m->mem, m->items, m->cap * sizeof(*g), cap * sizeof(*g))
		                          : pj_realloc(NULL, m->items, cap * sizeof(*g));
		if (!g) {
			m->lost = true;
			pj_oom();
			return;
		}
		m->items = g;
		m->cap = cap;
	}
	char *p = m->mem ? sm_str_copy(m->mem, path) : pj_strdup(NULL, path), *t = m->mem ? sm_str_copy(m->mem, text) : pj_strdup(NULL, text);
	if ((path && !p) || !t) {
		msg_str_free(m, p);
		msg_str_free(m, t);
		m->lost = true;
		pj_oom();
		return;
	}
	m->items[m->count++] = (smdmx_message){ kind, p, line, column, t, kind == SMDMX_MESSAGE_ERROR ? code : SMDMX_ERROR_NONE };
}

static smdmx_message_kind kind_of(const char *kind)
{
	return !strcmp(kind, "error") ? SMDMX_MESSAGE_ERROR : !strcmp(kind, "warning") ? SMDMX_MESSAGE_WARNING : SMDMX_MESSAGE_NOTE;
}

void pj_add(pj_msgs *m, const char *path, uint32_t line, uint32_t column, const char *kind, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_text(m, path, line, column, kind_of(kind), SMDMX_ERROR_USAGE, text); /* (errors: pj_error) */
}

void pj_error(pj_msgs *m, smdmx_error_code code, const char *path, uint32_t line, uint32_t column, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_text(m, path, line, column, SMDMX_MESSAGE_ERROR, code, text);
}

void pj_add_error(pj_msgs *m, const char *path, const smdmx_error *e)
{
	add_text(m, e->file[0] ? e->file : path, e->line, e->column, SMDMX_MESSAGE_ERROR, e->code, e->message);
}

void pj_add_warnings(pj_msgs *m, const char *path, const smdmx_warnings *w)
{
	for (size_t i = 0; i < w->count; i++) {
		const char *where = w->data[i].file[0] ? w->data[i].file : path;
		if (w->data[i].count > 1)
			pj_add(m, where, w->data[i].line, w->data[i].column, "warning", "%s (%zu times)", w->data[i].message, w->data[i].count);
		else
			add_text(m, where, w->data[i].line, w->data[i].column, SMDMX_MESSAGE_WARNING, SMDMX_ERROR_NONE, w->data[i].message);
	}
}

void pj_msgs_free(pj_msgs *m)
{
	for (size_t i = 0; i < m->count; i++) {
		msg_str_free(m, (char *)m->items[i].path);
		msg_str_free(m, (char *)m->items[i].text);
	}
	if (m->mem) sm_free(m->mem, m->items, m->cap * sizeof(*m->items));
	else free(m->items);
	memset(m, 0, sizeof(*m));
}

/* ---- text, strings, paths ------------------------------------------------------------------- */

_Thread_local bool pj_oom_seen;
size_t pj_fail_after;
static size_t made; /* allocations so far, for pj_fail_after (the sweep's runs are on one thread) */

void pj_oom(void)
{
	pj_oom_seen = true;
}

void *pj_have(void *p)
{
	if (!p) pj_oom();
	return p;
}

void pj_fail_start(void)
{
	if (pj_fail_after) made = 0; /* a test's sweep (never written otherwise: runs may share the process) */
}

/* An allocation the sweep may fail. */
static bool may_allocate(void)
{
	if (pj_fail_after && made++ >= pj_fail_after) {
		pj_oom();
		return false;
	}
	return true;
}

void *pj_malloc(sm_alloc *m, size_t size)
{
	if (m) return pj_have(sm_new(m, 1, size));
	return may_allocate() ? pj_have(malloc(size ? size : 1)) : NULL;
}

void *pj_calloc(sm_alloc *m, size_t count, size_t size)
{
	if (m) return pj_have(sm_new_zero(m, count, size));
	return may_allocate() ? pj_have(calloc(count ? count : 1, size ? size : 1)) : NULL;
}

void *pj_realloc(sm_alloc *m, void *p, size_t size)
{
	if (m) return pj_have(sm_renew(m, p, 1, size));
	return may_allocate() ? pj_have(realloc(p, size ? size : 1)) : NULL;
}

void pj_free(sm_alloc *m, void *p)
{
	if (m) sm_del(m, p);
	else free(p);
}

char *pj_strdup(sm_alloc *m, const char *s)
{
	if (!s) return NULL;
	if (!m) return may_allocate() ? pj_have(strdup(s)) : NULL;
	size_t n = strlen(s) + 1;
	char *c = pj_malloc(m, n);
	if (c) memcpy(c, s, n);
	return c;
}

char *pj_asprintf(sm_alloc *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n >= 0 ? pj_malloc(m, (size_t)n + 1) : NULL;
	if (!p) return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* A string the platform made (malloc'd) in m instead, when m is given. */
static char *into(sm_alloc *m, char *os_made)
{
	if (!m || !os_made) return os_made;
	char *c = pj_strdup(m, os_made);
	free(os_made);
	return c;
}

char *pj_path_absolute(sm_alloc *m, const char *path)
{
	return path && (m || may_allocate()) ? pj_have(into(m, os_path_absolute(path))) : NULL;
}

char *pj_path_relative(sm_alloc *m, const char *from_file, const char *to)
{
	return from_file && to && (m || may_allocate()) ? pj_have(into(m, os_path_relative(from_file, to))) : NULL;
}

/* A path the platform writes into room of its length (os_path_*_to), in m. */
#define PATH_IN(m, call_to, ...) \
	do { \
		size_t n_ = call_to(NULL, 0, __VA_ARGS__); \
		char *p_ = pj_malloc(m, n_ + 1); \
		if (p_) call_to(p_, n_ + 1, __VA_ARGS__); \
		return p_; \
	} while (0)

char *pj_path_with_extension(sm_alloc *m, const char *path, const char *ext)
{
	if (!path) return NULL;
	if (m) PATH_IN(m, os_path_with_extension_to, path, ext);
	return may_allocate() ? pj_have(os_path_with_extension(path, ext)) : NULL;
}

char *pj_path_with_suffix(sm_alloc *m, const char *path, const char *suffix)
{
	if (!path || !suffix) return NULL;
	if (m) PATH_IN(m, os_path_with_suffix_to, path, suffix);
	return may_allocate() ? pj_have(os_path_with_suffix(path, suffix)) : NULL;
}

char *pj_path_join(sm_alloc *m, const char *dir, const char *rel)
{
	if (!dir || !rel) return NULL;
	if (m) PATH_IN(m, os_path_join_to, dir, rel);
	return may_allocate() ? pj_have(os_path_join(dir, rel)) : NULL;
}

char *pj_read_whole(const char *path, size_t *size)
{
	if (!path || !may_allocate()) return NULL;
	errno = 0;
	char *text = os_read_whole(path, size);
	if (!text && errno == ENOMEM) pj_oom(); /* (a file not there is no record: nothing said) */
	return text;
}

void pj_putc(pj_text *b, char c)
{
	if (b->lost) return;
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *g = pj_realloc(NULL, b->text, cap);
		if (!g) {
			b->lost = true;
			return;
		}
		b->text = g;
		b->cap = cap;
	}
	b->text[b->len++] = c;
	b->text[b->len] = 0;
}

void pj_puts(pj_text *b, const char *s)
{
	for (; s && *s; s++) pj_putc(b, *s);
}

/* ---- a task's outputs ------------------------------------------------------------------------- */

/* A set operation's code kept for its messages: whether it succeeded. */
static bool said(pj_outputs *set, smdmx_error_code code)
{
	if (set && code != SMDMX_ERROR_NONE) set->code = code;
	return code == SMDMX_ERROR_NONE;
}

bool pj_output_allowed(pj_outputs *set, const char *path, char *const *inputs, size_t input_count, bool force, char *why,
                       size_t why_size)
{
	return said(set, smdmx_output_allowed(path, (const char *const *)inputs, input_count, force, why, why_size));
}

pj_output *pj_outputs_open(pj_outputs *set, const char *path, char *why, size_t why_size)
{
	if (!set->set && may_allocate()) set->set = pj_have(smdmx_outputs_new(0, set->hooks));
	if (!set->set) {
		snprintf(why, why_size, "out of memory");
		set->code = SMDMX_ERROR_OUT_OF_MEMORY;
		return NULL;
	}
	smdmx_error_code code;
	pj_output *o = sm_outputs_open(set->set, path, why, why_size, &code);
	said(set, code);
	return o;
}

size_t pj_outputs_count(const pj_outputs *set)
{
	return smdmx_outputs_count(set->set);
}

pj_output *pj_outputs_item(pj_outputs *set, size_t index)
{
	return smdmx_outputs_item(set->set, index);
}

bool pj_output_write(void *user, const void *data, size_t size)
{
	return smdmx_output_write(user, data, size);
}

void pj_outputs_abort(pj_outputs *set)
{
	smdmx_outputs_free(set->set);
	set->set = NULL;
}

bool pj_outputs_finish(pj_outputs *set, char *why, size_t why_size)
{
	if (!set->set) return true;
	bool ok = said(set, smdmx_outputs_finish(set->set, why, why_size));
	if (!ok) pj_outputs_abort(set);
	return ok;
}

void pj_outputs_start(pj_outputs *set)
{
	sm_outputs_start(set->set);
}

void pj_outputs_flush(pj_outputs *set)
{
	sm_outputs_flush(set->set);
}

bool pj_outputs_commit(pj_outputs *set, char ***written, size_t *written_count, char *why, size_t why_size)
{
	if (!set->set) return true;
	smdmx_outputs_set_flags(set->set, (set->force ? SMDMX_OUTPUTS_FORCE : 0u) | (set->same_ok ? SMDMX_OUTPUTS_SAME_OK : 0u));
	bool ok = said(set, smdmx_outputs_commit(set->set, written, written_count, why, why_size));
	pj_outputs_abort(set);
	return ok;
}

bool pj_output_clashes(const pj_output *out)
{
	return smdmx_output_clashes(out);
}

/* ---- the library's strings, lists and folders ------------------------------------------------ */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
	return h;
}

/* The slot of s: there, or the empty one where it goes. */
static str_slot *str_slot_of(const str_map *m, const char *s)
{
	size_t i = (size_t)str_hash(s) & (m->cap - 1);
	while (m->slots[i].s && strcmp(m->slots[i].s, s)) i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

uint32_t qp_str_get(const str_map *m, const char *s)
{
	if (!m->cap || !s) return SMDMX_NONE;
	const str_slot *x = str_slot_of(m, s);
	return x->s ? x->value : SMDMX_NONE;
}

void qp_str_set(str_map *m, const char *s, uint32_t value)
{
	if (!s) return; /* out of memory making it: said */
	if (2 * (m->count + 1) > m->cap) {
		str_map g = { pj_calloc(NULL, m->cap ? 2 * m->cap : 64, sizeof(str_slot)), m->cap ? 2 * m->cap : 64, m->count };
		if (!g.slots) return;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].s) *str_slot_of(&g, m->slots[i].s) = m->slots[i];
		free(m->slots);
		*m = g;
	}
	str_slot *x = str_slot_of(m, s);
	if (!x->s) {
		if (!(x->s = pj_strdup(NULL, s))) return;
		m->count++;
	}
	x->value = value;
}

void qp_str_map_free(str_map *m)
{
	for (size_t i = 0; i < m->cap; i++) free(m->slots[i].s);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}


void qp_list_push(char ***list, size_t *count, char *s)
{
	char **l = s ? pj_realloc(NULL, *list, (*count + 1) * sizeof(char *)) : NULL;
	if (!l) {
		free(s);
		return;
	}
	*list = l;
	l[(*count)++] = s;
}

/* OUTDIR and path's place below the root. */
char *qp_out_path(const library *l, const char *path)
{
	char *a = pj_path_absolute(NULL, path);
	char *out = a && l->outdir && l->root ? pj_asprintf(NULL, "%s%s", l->outdir, a + strlen(l->root)) : NULL;
	free(a);
	return out;
}

/* A reference's new name: its extension replaced (or added), its folder spelled as the QC
 * spells it and its file as the output is named (which is the input's name on disk); the
 * output's own name when it took another to avoid a clash. */
char *qp_new_name(const char *name, const char *src, const char *dst)
{
	const char *slash = strrchr(name, '/'), *bs = strrchr(name, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	size_t dir = slash ? (size_t)(slash - name + 1) : 0;
	const char *base = strrchr(dst, '/');
	base = base ? base + 1 : dst;
	const char *sbase = strrchr(src, '/');
	sbase = sbase ? sbase + 1 : src;
	size_t dstem = strlen(base) - strlen(os_path_extension(base)) - (*os_path_extension(base) ? 1 : 0);
	size_t sstem = strlen(sbase) - strlen(os_path_extension(sbase)) - (*os_path_extension(sbase) ? 1 : 0);
	if (dstem == sstem && !strncasecmp(base, sbase, dstem)) {
		/* the same name: the QC's spelling of it, with the new extension */
		const char *n = name + dir;
		const char *ext = os_path_extension(n);
		size_t nstem = strlen(n) - strlen(ext) - (*ext ? 1 : 0);
		if (*ext && strcasecmp(ext, "smd") && strcasecmp(ext, "dmx") && strcasecmp(ext, "vta") && strcasecmp(ext, "sma") &&
		    strcasecmp(ext, "phys"))
			nstem = strlen(n); /* a dot in the name, no extension */
		/* spelt otherwise than the file (found as Windows finds it, case ignored): the QC
		 * written names the output as it is written, for systems that tell case */
		if (os_same_name_nocase(n, nstem, base, dstem)) return pj_asprintf(NULL, "%.*s%s", (int)dir, name, base);
		return pj_asprintf(NULL, "%.*s%.*s.%s", (int)dir, name, (int)nstem, n, os_path_extension(base));
	}
	return pj_asprintf(NULL, "%.*s%s", (int)dir, name, base);
}
