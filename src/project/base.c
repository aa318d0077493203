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

static void add_text(pj_msgs *m, const char *path, uint32_t line, uint32_t column, smdmx_message_kind kind,
                     smdmx_error_code code, uint64_t byte, const char *text)
{
	m->warnings += kind == SMDMX_MESSAGE_WARNING;
	m->errors += kind == SMDMX_MESSAGE_ERROR;
	if (m->count == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 8;
		smdmx_message *g = pj_realloc(m->mem, m->items, cap * sizeof(*g));
		if (!g) {
			m->lost++;
			return;
		}
		m->items = g;
		m->cap = cap;
	}
	char *p = pj_strdup(m->mem, path), *t = pj_strdup(m->mem, text);
	if ((path && !p) || !t) {
		pj_free(m->mem, p);
		pj_free(m->mem, t);
		m->lost++;
		return;
	}
	bool error = kind == SMDMX_MESSAGE_ERROR;
	m->items[m->count++] = (smdmx_message){ kind, p, line, column, t, error ? code : SMDMX_ERROR_NONE, error ? byte : 0 };
}

/* "warning", else a note (an error is said with its code: pj_error). */
static smdmx_message_kind kind_of(const char *kind)
{
	return !strcmp(kind, "warning") ? SMDMX_MESSAGE_WARNING : SMDMX_MESSAGE_NOTE;
}

void pj_add(pj_msgs *m, const char *path, uint32_t line, uint32_t column, const char *kind, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_text(m, path, line, column, kind_of(kind), SMDMX_ERROR_NONE, 0, text);
}

void pj_error(pj_msgs *m, smdmx_error_code code, const char *path, uint32_t line, uint32_t column, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_text(m, path, line, column, SMDMX_MESSAGE_ERROR, code, 0, text);
}

void pj_add_message(pj_msgs *m, const smdmx_message *x)
{
	add_text(m, x->path, x->line, x->column, x->kind, x->code, x->byte, x->text);
}

void pj_add_error(pj_msgs *m, const char *path, const smdmx_error *e)
{
	add_text(m, e->file[0] ? e->file : path, e->line, e->column, SMDMX_MESSAGE_ERROR, e->code, e->byte, e->message);
}

void pj_add_warnings(pj_msgs *m, const char *path, const smdmx_warnings *w)
{
	for (size_t i = 0; i < w->count; i++) {
		const char *where = w->data[i].file[0] ? w->data[i].file : path;
		if (w->data[i].count > 1)
			pj_add(m, where, w->data[i].line, w->data[i].column, "warning", "%s (%zu times)", w->data[i].message, w->data[i].count);
		else
			add_text(m, where, w->data[i].line, w->data[i].column, SMDMX_MESSAGE_WARNING, SMDMX_ERROR_NONE, 0, w->data[i].message);
	}
}

void pj_msgs_free(pj_msgs *m)
{
	for (size_t i = 0; i < m->count; i++) {
		pj_free(m->mem, (char *)m->items[i].path);
		pj_free(m->mem, (char *)m->items[i].text);
	}
	pj_free(m->mem, m->items);
	memset(m, 0, sizeof(*m));
}

/* ---- text, strings, paths ------------------------------------------------------------------- */

/* m's hooks alone: its counts are left as they are, so that the threads of a job may share
 * it (the job's budget, whose hooks m has, counts for them all, atomically). */
static sm_alloc hooks_of(const sm_alloc *m)
{
	sm_alloc a = { m->hooks, 0, 0 };
	return a;
}

void *pj_malloc(const sm_alloc *m, size_t size)
{
	sm_alloc a = hooks_of(m);
	return sm_new(&a, 1, size);
}

void *pj_calloc(const sm_alloc *m, size_t count, size_t size)
{
	sm_alloc a = hooks_of(m);
	return sm_new_zero(&a, count, size);
}

void *pj_realloc(const sm_alloc *m, void *p, size_t size)
{
	sm_alloc a = hooks_of(m);
	return sm_renew(&a, p, 1, size);
}

void pj_free(const sm_alloc *m, void *p)
{
	if (!p) return; /* (a list never grown may have no m) */
	sm_alloc a = hooks_of(m);
	sm_del(&a, p);
}

char *pj_strdup(const sm_alloc *m, const char *s)
{
	if (!s) return NULL;
	size_t n = strlen(s) + 1;
	char *c = pj_malloc(m, n);
	if (c) memcpy(c, s, n);
	return c;
}

char *pj_asprintf(const sm_alloc *m, const char *fmt, ...)
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

os_mem pj_os_mem(const sm_alloc *m)
{
	return sm_os_mem(&m->hooks);
}

/* A string the platform made in m's hooks (os_path_absolute_in and kin: its length and one
 * byte) as m's block. */
static char *into(const sm_alloc *m, char *os_made)
{
	if (!os_made) return NULL;
	char *c = pj_strdup(m, os_made);
	os_mem mem = pj_os_mem(m);
	os_mem_free(&mem, os_made, strlen(os_made) + 1);
	return c;
}

char *pj_path_absolute(const sm_alloc *m, const char *path)
{
	os_mem mem = pj_os_mem(m);
	return path ? into(m, os_path_absolute_in(&mem, path)) : NULL;
}

char *pj_path_relative(const sm_alloc *m, const char *from_file, const char *to)
{
	os_mem mem = pj_os_mem(m);
	return from_file && to ? into(m, os_path_relative_in(&mem, from_file, to)) : NULL;
}

/* A path the platform writes into room of its length (os_path_*_to), in m. */
#define PATH_IN(m, call_to, ...) \
	do { \
		size_t n_ = call_to(NULL, 0, __VA_ARGS__); \
		char *p_ = pj_malloc(m, n_ + 1); \
		if (p_) call_to(p_, n_ + 1, __VA_ARGS__); \
		return p_; \
	} while (0)

char *pj_path_with_extension(const sm_alloc *m, const char *path, const char *ext)
{
	if (!path) return NULL;
	PATH_IN(m, os_path_with_extension_to, path, ext);
}

char *pj_path_with_suffix(const sm_alloc *m, const char *path, const char *suffix)
{
	if (!path || !suffix) return NULL;
	PATH_IN(m, os_path_with_suffix_to, path, suffix);
}

char *pj_path_join(const sm_alloc *m, const char *dir, const char *rel)
{
	if (!dir || !rel) return NULL;
	PATH_IN(m, os_path_join_to, dir, rel);
}

char *pj_path_key(const sm_alloc *m, const char *path)
{
	PATH_IN(m, os_path_key_to, path);
}

char *pj_read_whole(const sm_alloc *m, const char *path, size_t *size)
{
	if (!path) return NULL;
	os_file f = os_open_read(path);
	if (f == OS_NO_FILE) return NULL; /* (a file not there is no record: nothing said) */
	size_t cap = (size_t)1 << 16, n = 0;
	char *b = pj_malloc(m, cap);
	while (b) {
		ptrdiff_t k = os_read(f, b + n, cap - n - 1);
		if (k <= 0) {
			if (k < 0) pj_free(m, b), b = NULL;
			break;
		}
		n += (size_t)k;
		if (n + 1 == cap) {
			char *g = cap < SIZE_MAX / 2 ? pj_realloc(m, b, cap * 2) : NULL;
			if (!g) pj_free(m, b);
			b = g;
			cap *= 2;
		}
	}
	os_close(f);
	if (!b) return NULL;
	b[n] = 0;
	*size = n;
	return b;
}

void pj_putc(pj_text *b, char c)
{
	if (b->lost) return;
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *g = pj_realloc(b->mem, b->text, cap);
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
	if (!set->set) set->set = smdmx_outputs_new(0, set->hooks);
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
	if (!set->mem) {
		bool ok = said(set, smdmx_outputs_commit(set->set, written, written_count, why, why_size));
		pj_outputs_abort(set);
		return ok;
	}
	/* the list in mem's blocks, its room and its copies of the outputs' paths taken before
	 * any file is put in place (the commit lists each output's path, in order), so that a
	 * commit's files are listed whole; without them, nothing is put in place */
	size_t n = smdmx_outputs_count(set->set);
	char **list = n ? pj_realloc(set->mem, *written, (*written_count + n) * sizeof(char *)) : *written;
	if (list) *written = list;
	size_t copied = 0;
	while (list && copied < n &&
	       (list[*written_count + copied] = pj_strdup(set->mem, smdmx_output_path(smdmx_outputs_item(set->set, copied)))))
		copied++;
	char **committed = NULL;
	size_t made_count = 0;
	bool ok = copied == n;
	if (!ok) {
		snprintf(why, why_size, "out of memory");
		set->code = SMDMX_ERROR_OUT_OF_MEMORY;
	} else {
		ok = said(set, smdmx_outputs_commit(set->set, &committed, &made_count, why, why_size));
	}
	if (ok) *written_count += n;
	else
		for (size_t i = 0; i < copied; i++) pj_free(set->mem, list[*written_count + i]);
	smdmx_outputs_written_free(committed, made_count, set->hooks);
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
		str_map g = { pj_calloc(m->mem, m->cap ? 2 * m->cap : 64, sizeof(str_slot)), m->cap ? 2 * m->cap : 64, m->count, m->mem };
		if (!g.slots) return;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].s) *str_slot_of(&g, m->slots[i].s) = m->slots[i];
		pj_free(m->mem, m->slots);
		*m = g;
	}
	str_slot *x = str_slot_of(m, s);
	if (!x->s) {
		if (!(x->s = pj_strdup(m->mem, s))) return;
		m->count++;
	}
	x->value = value;
}

void qp_str_map_free(str_map *m)
{
	for (size_t i = 0; i < m->cap; i++) pj_free(m->mem, m->slots[i].s);
	pj_free(m->mem, m->slots);
	const sm_alloc *mem = m->mem;
	memset(m, 0, sizeof(*m));
	m->mem = mem;
}


void qp_list_push(const sm_alloc *m, char ***list, size_t *count, char *s)
{
	char **l = s ? pj_realloc(m, *list, (*count + 1) * sizeof(char *)) : NULL;
	if (!l) {
		pj_free(m, s);
		return;
	}
	*list = l;
	l[(*count)++] = s;
}

/* OUTDIR and path's place below the root. */
char *qp_out_path(const library *l, const char *path)
{
	const sm_alloc *m = &l->mem;
	char *a = pj_path_absolute(m, path);
	char *out = a && l->outdir && l->root ? pj_asprintf(m, "%s%s", l->outdir, a + strlen(l->root)) : NULL;
	pj_free(m, a);
	return out;
}

/* A reference's new name: its extension replaced (or added), its folder spelled as the QC
 * spells it and its file as the output is named (which is the input's name on disk); the
 * output's own name when it took another to avoid a clash. */
char *qp_new_name(const sm_alloc *m, const char *name, const char *src, const char *dst)
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
		if (os_same_name_nocase(n, nstem, base, dstem)) return pj_asprintf(m, "%.*s%s", (int)dir, name, base);
		return pj_asprintf(m, "%.*s%.*s.%s", (int)dir, name, (int)nstem, n, os_path_extension(base));
	}
	return pj_asprintf(m, "%.*s%s", (int)dir, name, base);
}
