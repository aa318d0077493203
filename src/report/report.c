/* Batch reports (report.h): rows read, drawn and compared on several threads. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../platform/os.h"
#include "report.h"

/* ---- rows -------------------------------------------------------------------------------- */

/* A copy of s (NULL: NULL); *ok false when memory ran out. */
static char *text_copy(const char *s, bool *ok)
{
	if (!s) return NULL;
	char *c = malloc(strlen(s) + 1);
	if (c) memcpy(c, s, strlen(s) + 1);
	else *ok = false;
	return c;
}


static void side_free(report_side *s);

bool report_add(report_page *r, const char *a, const char *b, int status, const char *state, const char *messages,
                size_t warnings, size_t errors)
{
	report_row *g = realloc(r->rows, (r->count + 1) * sizeof(*g));
	if (!g) return false;
	r->rows = g;
	report_row row = { .status = status, .state = state, .warnings = warnings, .errors = errors };
	bool ok = true;
	row.a.path = text_copy(a, &ok);
	row.b.path = text_copy(b, &ok);
	row.messages = text_copy(messages ? messages : "", &ok);
	if (!ok) {
		side_free(&row.a);
		side_free(&row.b);
		free(row.messages);
		return false;
	}
	r->rows[r->count++] = row;
	return true;
}

/* Side 0 (a) or 1 (b) of the last row. */
static report_side *last_side(report_page *r, int side)
{
	return side ? &r->rows[r->count - 1].b : &r->rows[r->count - 1].a;
}

bool report_vta(report_page *r, int side, const char *vta)
{
	report_side *s = last_side(r, side);
	bool ok = true;
	free(s->vta);
	s->vta = text_copy(vta, &ok);
	return ok;
}

bool report_clip(report_page *r, int side, const char *clip)
{
	report_side *s = last_side(r, side);
	char **g = realloc(s->clips, (s->clip_count + 1) * sizeof(char *));
	if (!g) return false;
	s->clips = g;
	bool ok = true;
	s->clips[s->clip_count] = text_copy(clip, &ok);
	s->clip_count += ok;
	return ok;
}

static void side_free(report_side *s)
{
	free(s->path);
	free(s->vta);
	for (size_t i = 0; i < s->clip_count; i++) free(s->clips[i]);
	free(s->clips);
}

void report_free(report_page *r)
{
	for (size_t i = 0; i < r->count; i++) {
		report_row *row = &r->rows[i];
		side_free(&row->a);
		side_free(&row->b);
		free(row->messages);
		if (row->result) {
			for (int k = 0; k < 2; k++) {
				free(row->result->side[k].png64);
				free(row->result->side[k].uv64);
				free(row->result->side[k].problem);
			}
			free(row->result->shown.text);
			free(row->result->said.text);
			free(row->result->expected);
			free(row->result);
		}
	}
	free(r->rows);
	r->rows = NULL;
	r->count = 0;
}

/* ---- one row: read, draw, compare --------------------------------------------------------- */

static char *base64(const uint8_t *data, size_t n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	if (!out) return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
		*o++ = digits[v >> 18 & 63];
		*o++ = digits[v >> 12 & 63];
		*o++ = i + 1 < n ? digits[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? digits[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* What reading a side said, as the page's program prints it. */
static void said_text(const report_page *r, text_buf *out, const said_list *l)
{
	static const char *const kinds[] = { "error", "warning", "note" };
	if (r->format) {
		r->format(out, l->m, l->count);
		return;
	}
	for (size_t i = 0; i < l->count; i++) {
		char head[64] = "";
		if (l->m[i].line) snprintf(head, sizeof(head), ":%u:%u", l->m[i].line, l->m[i].column ? l->m[i].column : 1);
		tb_puts(out, l->m[i].path ? l->m[i].path : "smdmx");
		tb_puts(out, head);
		tb_puts(out, ": ");
		tb_puts(out, kinds[l->m[i].kind]);
		tb_puts(out, ": ");
		tb_puts(out, l->m[i].text);
		tb_putc(out, '\n');
	}
}

/* The first line of an error said in text ("path:line:col: error: ..."), without the path. */
static char *first_error(const char *text)
{
	const char *t = text ? strstr(text, "error: ") : NULL;
	if (!t) return os_strf("cannot be read");
	const char *end = strchr(t, '\n');
	return os_strf("%.*s", (int)(end ? end - t : (ptrdiff_t)strlen(t)), t);
}

/* A side read as smdmx diff reads it (an SMD with its VTA, a DMX, a QC's $model), its clips
 * added. NULL with the problem in res. */
static smdmx_scene *read_side(const report_page *r, const report_side *s, side_result *res, text_buf *said,
                              bool as_files, bool *posed)
{
	picture_input in = { .path = s->path, .vta = s->vta, .as_files = as_files,
		             .clips = (const char *const *)s->clips, .clip_count = s->clip_count };
	said_list l = { 0 };
	smdmx_scene *scene = picture_scene(&in, &l, posed);
	text_buf t = { 0 };
	said_text(r, &t, &l);
	said_free(&l);
	tb_puts(said, t.text);
	said->failed = said->failed || l.failed || t.failed;
	if (!scene) res->problem = first_error(t.text);
	free(t.text);
	return scene;
}

/* A side drawn in the frame both sides share (other may be NULL). */
static void draw_side(const smdmx_scene *s, const smdmx_scene *other, bool posed, side_result *res)
{
	res->read = true;
	res->joints = s->joint_count;
	res->shapes = s->flex_shape_count;
	res->clips = s->clip_count;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) res->polygons += s->meshes[m].face_sets[f].polygon_count;
	sm_render_options ro = { .view = SM_VIEW_THREE_QUARTER, .size = PICTURE_SIZE, .frame_with = other,
		                 .clip = posed ? s->clips[0].name : NULL };
	uint8_t *png = NULL;
	size_t size = 0;
	smdmx_error err;
	if (!picture_png(s, &ro, &png, &size, NULL, 0, NULL, &err)) {
		res->problem = os_strf("error: %s", err.message);
		return;
	}
	res->png64 = base64(png, size);
	free(png);
	/* the UV layouts beside it, small: a V turned the wrong way shows at a glance */
	sm_render_options uv = { .uv = true, .size = UV_SIZE };
	sm_image img;
	if (!sm_render(s, &uv, &img, NULL, &err)) return; /* no UVs: no layout */
	if (sm_png_encode(&img, &png, &size)) {
		res->uv64 = base64(png, size);
		res->uv_width = img.width;
		res->uv_height = img.height;
		free(png);
	}
	sm_render_free(&img, NULL);
}

typedef struct diff_ctx {
	report_result *res;
	size_t shown;
} diff_ctx;

static void note_difference(void *user, const char *message)
{
	diff_ctx *c = user;
	if (c->shown++ >= DIFFERENCES_SHOWN) return;
	tb_puts(&c->res->shown, message);
	tb_putc(&c->res->shown, '\n');
}

/* Differences that one known cause explains, named (NULL when none does): clips of one frame
 * rate against another (a QC's fps applied to one side, the other read at its format's
 * default). (Two animations' bind poses, which an SMD animation cannot hold, are no
 * difference: smdmx_diff_options leaves them out.) The scenes' rates are put back. */
static char *expected_cause(smdmx_scene *a, smdmx_scene *b, const smdmx_compare_options *opts, bool *failed)
{
	if (a->clip_count != b->clip_count || !a->clip_count) return NULL;
	double ra = a->clips[0].frame_rate, rb = b->clips[0].frame_rate;
	bool one_rate = true;
	for (size_t c = 0; c < a->clip_count; c++) one_rate = one_rate && a->clips[c].frame_rate == ra && b->clips[c].frame_rate == rb;
	if (!one_rate || ra == rb) return NULL;
	for (size_t c = 0; c < b->clip_count; c++) b->clips[c].frame_rate = ra;
	size_t n = smdmx_scene_diff(a, b, opts, NULL, NULL, NULL);
	bool rate = n == 0;
	if (n == SIZE_MAX) *failed = true; /* out of memory */
	for (size_t c = 0; c < b->clip_count; c++) b->clips[c].frame_rate = rb;
	if (!rate) return NULL;
	return os_strf("the frame rate: %g fps against %g (an fps a QC gives one side, the other read at its format's "
	               "default); nothing to do", ra, rb);
}

static void make_row(void *ctx, size_t i)
{
	report_page *r = ctx;
	report_row *row = &r->rows[i];
	report_result *res = calloc(1, sizeof(*res));
	if (!res) return;
	res->differences = -1;
	smdmx_scene *s[2] = { NULL, NULL };
	bool posed[2] = { false, false };
	const report_side *sides[2] = { &row->a, &row->b };
	for (int k = 0; k < 2; k++) {
		if (!sides[k]->path) continue;
		s[k] = read_side(r, sides[k], &res->side[k], &res->said, false, &posed[k]);
	}
	for (int k = 0; k < 2; k++)
		if (s[k]) draw_side(s[k], s[1 - k], posed[k], &res->side[k]);
	/* Two QCs are compared as their files are, as smdmx diff compares files: the same QC
	 * lines scale and turn both alike, and turning a joint's rotation and a vertex rounds
	 * differently (smdmx_qc_scene_options.as_files). Their messages were said above. */
	smdmx_scene *as_files[2] = { NULL, NULL };
	bool qcs = row->a.path && row->b.path && !strcasecmp(os_path_extension(row->a.path), "qc") &&
	           !strcasecmp(os_path_extension(row->b.path), "qc");
	for (int k = 0; qcs && s[0] && s[1] && k < 2; k++) {
		side_result scratch;
		text_buf quiet = { 0 };
		memset(&scratch, 0, sizeof(scratch));
		as_files[k] = read_side(r, sides[k], &scratch, &quiet, true, NULL);
		free(scratch.problem);
		free(quiet.text);
	}
	smdmx_scene *cmp[2] = { qcs ? as_files[0] : s[0], qcs ? as_files[1] : s[1] };
	if (cmp[0] && cmp[1]) {
		smdmx_compare_options opts;
		smdmx_diff_options(NULL, NULL, &opts);
		smdmx_diff_options(cmp[0], cmp[1], &opts);
		diff_ctx c = { res, 0 };
		size_t n = smdmx_scene_diff(cmp[0], cmp[1], &opts, note_difference, &c, NULL);
		if (n == SIZE_MAX) res->said.failed = true; /* out of memory: the report fails */
		else res->differences = (long long)n;
		if (res->differences > 0) res->expected = expected_cause(cmp[0], cmp[1], &opts, &res->said.failed);
		if (c.shown > DIFFERENCES_SHOWN) {
			char more[64];
			snprintf(more, sizeof(more), "... and %zu more\n", c.shown - DIFFERENCES_SHOWN);
			tb_puts(&res->shown, more);
		}
	}
	for (int k = 0; k < 2; k++) {
		smdmx_scene_free(s[k]);
		smdmx_scene_free(as_files[k]);
	}
	row->result = res;
}

bool report_make(report_page *r, unsigned workers)
{
	run_parallel(workers, r->count, make_row, r);
	bool ok = true;
	for (size_t i = 0; i < r->count; i++) {
		const report_result *res = r->rows[i].result;
		ok = ok && res && !res->said.failed && !res->shown.failed;
	}
	return ok;
}

/* Every file the rows read: the page never takes the place of one. */
bool report_files_read(const report_page *r, report_files *out)
{
	out->read_count = 0;
	out->read = malloc((4 * r->count + 1) * sizeof(char *));
	for (size_t i = 0; out->read && i < r->count; i++) {
		const report_side *s[2] = { &r->rows[i].a, &r->rows[i].b };
		for (int k = 0; k < 2; k++) {
			if (s[k]->path) out->read[out->read_count++] = s[k]->path;
			if (s[k]->vta) out->read[out->read_count++] = s[k]->vta;
		}
	}
	return out->read != NULL;
}
