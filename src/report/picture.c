/* A model read for a picture, its PNG bytes, pictures on several threads (report.h); and
 * the layer's growing text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../platform/os.h"
#include "report.h"

/* ---- text -------------------------------------------------------------------------------- */

void tb_putc(text_buf *b, char c)
{
	if (b->failed) return;
	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *t = realloc(b->text, cap);
		if (!t) {
			b->failed = true;
			return;
		}
		b->text = t;
		b->cap = cap;
	}
	b->text[b->len++] = c;
	b->text[b->len] = '\0';
}

void tb_puts(text_buf *b, const char *s)
{
	for (; s && *s; s++) tb_putc(b, *s);
}

/* ---- running on several threads ---------------------------------------------------------- */

typedef struct par {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n, next;
	os_mutex *lock;
} par;

static void par_worker(void *arg)
{
	par *p = arg;
	for (;;) {
		os_mutex_lock(p->lock);
		size_t i = p->next < p->n ? p->next++ : p->n;
		os_mutex_unlock(p->lock);
		if (i == p->n) return;
		p->fn(p->ctx, i);
	}
}

void run_parallel(unsigned workers, size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	par p = { fn, ctx, n, 0, os_mutex_create() };
	if (!workers) workers = os_cpu_count();
	if (workers > n) workers = (unsigned)n;
	if (workers > SMDMX_PROJECT_JOBS_MAX) workers = SMDMX_PROJECT_JOBS_MAX;
	os_thread *threads[SMDMX_PROJECT_JOBS_MAX];
	unsigned started = 0;
	for (unsigned t = 1; p.lock && t < workers; t++) {
		if (!(threads[started] = os_thread_start(par_worker, &p))) break;
		started++;
	}
	if (p.lock) par_worker(&p);
	else
		for (size_t i = 0; i < n; i++) fn(ctx, i); /* no mutex: on this thread alone */
	for (unsigned t = 0; t < started; t++) os_thread_join(threads[t]);
	if (p.lock) os_mutex_destroy(p.lock);
}

/* ---- what reading said --------------------------------------------------------------------- */

static void said_push(said_list *l, smdmx_message_kind kind, smdmx_error_code code, const char *path, uint32_t line,
                      uint32_t column, const char *fmt, ...) __attribute__((format(OS_PRINTF, 7, 8)));
static void said_push(said_list *l, smdmx_message_kind kind, smdmx_error_code code, const char *path, uint32_t line,
                      uint32_t column, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		smdmx_message *g = realloc(l->m, cap * sizeof(*g));
		if (!g) {
			l->failed = true;
			return;
		}
		l->m = g;
		l->cap = cap;
	}
	char *p = path ? malloc(strlen(path) + 1) : NULL, *t = malloc(strlen(text) + 1);
	if ((path && !p) || !t) {
		free(p);
		free(t);
		l->failed = true;
		return;
	}
	if (p) memcpy(p, path, strlen(path) + 1);
	memcpy(t, text, strlen(text) + 1);
	l->m[l->count++] = (smdmx_message){ kind, p, line, column, t, kind == SMDMX_MESSAGE_ERROR ? code : SMDMX_ERROR_NONE, 0 };
}

void said_free(said_list *l)
{
	for (size_t i = 0; i < l->count; i++) {
		free((char *)l->m[i].path);
		free((char *)l->m[i].text);
	}
	free(l->m);
	memset(l, 0, sizeof(*l));
}

static void say_error(said_list *l, const char *path, const smdmx_error *e)
{
	size_t n = l->count;
	said_push(l, SMDMX_MESSAGE_ERROR, e->code, e->file[0] ? e->file : path, e->line, e->column, "%s", e->message);
	if (l->count > n) l->m[n].byte = e->byte;
}

static void say_warnings(said_list *l, const char *path, const smdmx_warnings *w)
{
	for (size_t i = 0; i < w->count; i++) {
		const smdmx_warning *x = &w->data[i];
		const char *where = x->file[0] ? x->file : path;
		if (x->count > 1)
			said_push(l, SMDMX_MESSAGE_WARNING, SMDMX_ERROR_NONE, where, x->line, x->column, "%s (%zu times)", x->message, x->count);
		else
			said_push(l, SMDMX_MESSAGE_WARNING, SMDMX_ERROR_NONE, where, x->line, x->column, "%s", x->message);
	}
}

/* ---- a model read for a picture ------------------------------------------------------------ */

/* The QC's model (or a $model or part of it; without any, its first animation), as
 * smdmx_convert makes it. */
static smdmx_scene *qc_picture(const picture_input *in, said_list *said, bool *posed)
{
	smdmx_convert_options c;
	memset(&c, 0, sizeof(c));
	c.way = SMDMX_CONVERT_QC_SCENE;
	c.inputs = &in->path;
	c.input_count = 1;
	c.model = in->model;
	c.bodygroups = in->bodygroups;
	c.bodygroup_count = in->bodygroup_count;
	c.as_files = in->as_files;
	smdmx_convert_result *res = smdmx_convert(&c, NULL);
	if (!res) {
		said_push(said, SMDMX_MESSAGE_ERROR, SMDMX_ERROR_OUT_OF_MEMORY, in->path, 0, 0, "out of memory");
		return NULL;
	}
	smdmx_scene *s = res->scene;
	*posed = res->posed;
	for (size_t i = 0; i < res->message_count; i++) {
		const smdmx_message *m = &res->messages[i];
		size_t n = said->count;
		said_push(said, m->kind, m->code, m->path, m->line, m->column, "%s", m->text);
		if (said->count > n) said->m[n].byte = m->byte;
	}
	smdmx_convert_result_free(res);
	return s;
}

/* s with the shapes of the VTA at path; false (s kept) with the error said. */
static bool add_vta(const picture_input *in, smdmx_scene *s, said_list *said)
{
	smdmx_smd_read_options ro = { .name = in->name };
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *v = strcmp(in->vta, "-") ? smdmx_smd_read_file(in->vta, NULL, &err, &w)
	                                      : smdmx_smd_read_memory(in->data, in->size, &ro, &err, &w);
	say_warnings(said, in->vta, &w);
	if (!v) {
		smdmx_warnings_free(&w);
		say_error(said, in->vta, &err);
		return false;
	}
	bool ok = false;
	if (s->source.format == SMDMX_SOURCE_DMX)
		said_push(said, SMDMX_MESSAGE_ERROR, SMDMX_ERROR_USAGE, in->vta, 0, 0, "a VTA goes with an SMD, not with the DMX '%s'", in->path);
	else if (!smdmx_scene_attach_vta(s, v, &err, &w))
		say_error(said, in->vta, &err);
	else {
		say_warnings(said, in->vta, &w);
		ok = true;
	}
	smdmx_warnings_free(&w);
	smdmx_scene_free(v);
	return ok;
}

/* The model alone. */
static smdmx_scene *model_scene(const picture_input *in, said_list *said, bool *posed)
{
	if (!strcasecmp(os_path_extension(in->path), "qc")) return qc_picture(in, said, posed);
	smdmx_smd_read_options ro = { .name = strcmp(in->path, "-") ? NULL : in->name };
	smdmx_model_file l;
	smdmx_error err;
	smdmx_warnings w = { 0 };
	bool piped = !strcmp(in->path, "-");
	bool read = smdmx_model_file_read(in->path, piped ? in->data : NULL, piped ? in->size : 0, &ro, &l, &err, &w);
	if (read) say_warnings(said, in->path, &w);
	smdmx_warnings_free(&w);
	if (!read) {
		say_error(said, in->path, &err);
		return NULL;
	}
	if (!l.scene) {
		said_push(said, SMDMX_MESSAGE_ERROR, SMDMX_ERROR_USAGE, in->path, 0, 0, "not a model: %s", l.not_model);
		smdmx_model_file_free(&l);
		return NULL;
	}
	smdmx_scene *s = l.scene;
	l.scene = NULL;
	smdmx_model_file_free(&l);
	if (s->source.format == SMDMX_SOURCE_VTA && !in->vta) {
		said_push(said, SMDMX_MESSAGE_ERROR, SMDMX_ERROR_USAGE, in->path, 0, 0,
		    "a VTA holds shapes, not polygons: give its reference SMD before it ('REF.smd %s')", in->path);
		smdmx_scene_free(s);
		return NULL;
	}
	if (in->vta && !add_vta(in, s, said)) {
		smdmx_scene_free(s);
		return NULL;
	}
	return s;
}

smdmx_scene *picture_scene(const picture_input *in, said_list *said, bool *posed)
{
	bool shown_posed = false;
	smdmx_scene *s = model_scene(in, said, &shown_posed);
	if (posed) *posed = s && shown_posed;
	for (size_t i = 0; s && i < in->clip_count; i++) {
		smdmx_error err;
		smdmx_warnings w = { 0 };
		smdmx_scene *c = smdmx_smd_read_file(in->clips[i], NULL, &err, &w);
		bool ok = c && smdmx_scene_add_clips(s, c, &err);
		if (c) say_warnings(said, in->clips[i], &w);
		smdmx_warnings_free(&w);
		if (!ok) {
			say_error(said, in->clips[i], &err);
			smdmx_scene_free(s);
			s = NULL;
		}
		smdmx_scene_free(c);
	}
	return s;
}

/* ---- pictures -------------------------------------------------------------------------------- */

bool picture_png(const smdmx_scene *s, const sm_render_options *ro, uint8_t **png, size_t *size, char *legend,
                 size_t legend_size, uint32_t *empty, smdmx_error *err)
{
	sm_image img;
	sm_render_layout l;
	memset(err, 0, sizeof(*err));
	if (!sm_render(s, ro, &img, &l, err)) return false;
	if (empty) *empty = l.empty;
	bool ok = sm_png_encode(&img, png, size);
	if (!ok) sm_render_fail(err, SMDMX_ERROR_OUT_OF_MEMORY, "out of memory");
	if (ok && legend) {
		int n = snprintf(legend, legend_size, "%u x %u", img.width, img.height);
		for (uint32_t i = 0; n > 0 && (size_t)n < legend_size && i < l.cells; i++)
			n += snprintf(legend + n, legend_size - (size_t)n, "%s%s", i ? ", " : l.cells > 1 ? ": " : ", ", l.names[i]);
	}
	sm_render_free(&img, &l);
	return ok;
}
