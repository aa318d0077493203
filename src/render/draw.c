/* A scene drawn (render.h): views, framing, meshes, skeleton, sheets of views, shapes and UV
 * layouts. */
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pose.h"
#include "raster.h"
#include "render.h"

/* ---- views ----------------------------------------------------------------------------- */

/* Rows: right, up, towards the viewer (right x up = towards), as literal numbers. */
static const double view_rows[SM_VIEW_COUNT][3][3] = {
	[SM_VIEW_FRONT] = { { 1, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } },
	[SM_VIEW_SIDE] = { { 0, -1, 0 }, { 0, 0, 1 }, { -1, 0, 0 } },
	[SM_VIEW_TOP] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } },
	/* from between the front and the model's right, 45 degrees round, 30 degrees up */
	[SM_VIEW_THREE_QUARTER] = { { 0.70710678118654752, -0.70710678118654752, 0 },
	                            { 0.35355339059327376, 0.35355339059327376, 0.86602540378443865 },
	                            { -0.61237243569579452, -0.61237243569579452, 0.5 } },
};
static const char *const view_names[SM_VIEW_COUNT + 1] = { "front", "side", "top", "three-quarter", "all" };

const char *sm_view_name(sm_view v)
{
	return v <= SM_VIEW_COUNT ? view_names[v] : "?";
}

sm_view sm_view_find(const char *name)
{
	for (int v = 0; v <= SM_VIEW_COUNT; v++)
		if (!strcmp(name, view_names[v])) return (sm_view)v;
	return (sm_view)(SM_VIEW_COUNT + 1);
}

/* A view with the scene's up axis turned to Z (as smdmx_scene_transform turns it: +90
 * degrees about X for Y up, about Y for X up): rows times that rotation. */
static void view_matrix(sm_view v, char up, double out[3][3])
{
	static const double y_up[3][3] = { { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } };
	static const double x_up[3][3] = { { 0, 0, 1 }, { 0, 1, 0 }, { -1, 0, 0 } };
	const double(*m)[3] = up == 'Y' ? y_up : up == 'X' ? x_up : NULL;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			out[i][j] = m ? view_rows[v][i][0] * m[0][j] + view_rows[v][i][1] * m[1][j] + view_rows[v][i][2] * m[2][j]
			              : view_rows[v][i][j];
}

/* ---- colours --------------------------------------------------------------------------- */

static const uint8_t background[3] = { 38, 42, 50 };
static const uint8_t bone_colour[3] = { 255, 214, 64 };
static const uint8_t joint_colour[3] = { 255, 120, 40 };
static const uint8_t uv_square[3] = { 58, 64, 76 };
static const uint8_t palette[12][3] = {
	{ 196, 196, 204 }, { 222, 120, 100 }, { 110, 180, 230 }, { 140, 206, 120 }, { 230, 190, 90 }, { 186, 130, 220 },
	{ 90, 200, 190 },  { 236, 150, 190 }, { 170, 160, 120 }, { 120, 140, 230 }, { 210, 220, 120 }, { 200, 120, 150 },
};

/* A material's colour, by its name ignoring ASCII case (Source's material names), so that a
 * file and its conversion show one material alike whatever order they list materials in. */
static const uint8_t *material_colour(const smdmx_scene *s, uint32_t m)
{
	if (m >= s->material_count || !s->materials[m].name) return palette[0];
	uint32_t h = 2166136261u;
	for (const char *c = s->materials[m].name; *c; c++) {
		char l = *c >= 'A' && *c <= 'Z' ? (char)(*c + 32) : *c;
		h = (h ^ (uint8_t)l) * 16777619u;
	}
	return palette[h % 12];
}

static void shade(const uint8_t base[3], double k, uint8_t out[3])
{
	for (int i = 0; i < 3; i++) out[i] = (uint8_t)(base[i] * k + 0.5);
}

/* ---- the picture being drawn ------------------------------------------------------------ */

typedef struct frame {
	double scale, cx, cy; /* view units to pixels, about the centre (cx, cy) */
} frame;

typedef struct drawing {
	const smdmx_scene *s;
	const sm_render_options *o;
	uint32_t size;
	sm_image img;
	float *depth;
	sm_pose rest, pose;       /* bind; the clip's frame (or bind) */
	float (*pos)[3];          /* posed positions, all meshes one after another */
	size_t *first;            /* mesh i's at pos[first[i]] */
	size_t position_total;
	smdmx_error *error;
} drawing;

static sm_cell cell_at(drawing *d, uint32_t i, uint32_t columns)
{
	uint32_t cx = i % columns, cy = i / columns;
	sm_cell c = { d->img.rgb, d->depth, d->img.width, cx * d->size, cy * d->size, (cx + 1) * d->size, (cy + 1) * d->size };
	return c;
}

/* The posed positions of every mesh, with the shape of that name (NULL: none). */
static void pose_all(drawing *d, const sm_pose *p, const char *shape)
{
	const smdmx_scene *s = d->s;
	for (uint32_t m = 0; m < s->mesh_count; m++) {
		const smdmx_flex_shape *sh = NULL;
		for (size_t k = 0; shape && !sh && k < s->flex_shape_count; k++)
			if (s->flex_shapes[k].mesh == m && !strcmp(s->flex_shapes[k].name, shape)) sh = &s->flex_shapes[k];
		sm_pose_mesh(s, p, m, sh, d->pos + d->first[m]);
	}
}

static void project(double v[3][3], const float p[3], double out[3])
{
	for (int i = 0; i < 3; i++) out[i] = v[i][0] * p[0] + v[i][1] * p[1] + v[i][2] * p[2];
}

static void grow(const double q[3], double lo[2], double hi[2])
{
	for (int k = 0; k < 2; k++) lo[k] = q[k] < lo[k] ? q[k] : lo[k], hi[k] = q[k] > hi[k] ? q[k] : hi[k];
}

/* The view's extent of the positions in d->pos (or, without any, of the joints of pose, as
 * posed: the rest pose's are its bind). */
static void bounds_of(const drawing *d, const sm_pose *pose, double v[3][3], double lo[2], double hi[2])
{
	double q[3];
	for (size_t i = 0; i < d->position_total; i++) {
		project(v, d->pos[i], q);
		grow(q, lo, hi);
	}
	for (size_t j = 0; !d->position_total && j < pose->count; j++) {
		const double *t = pose->posed ? pose->posed[j].t : pose->bind[j].t;
		float p[3] = { (float)t[0], (float)t[1], (float)t[2] };
		project(v, p, q);
		grow(q, lo, hi);
	}
}

static bool alloc_positions(drawing *d)
{
	const smdmx_scene *s = d->s;
	d->first = malloc((s->mesh_count + 1) * sizeof(size_t));
	if (!d->first) return false;
	size_t total = 0;
	for (size_t m = 0; m < s->mesh_count; m++) d->first[m] = total, total += s->meshes[m].position_count;
	d->first[s->mesh_count] = total;
	d->position_total = total;
	d->pos = malloc((total ? total : 1) * sizeof(*d->pos));
	return d->pos != NULL;
}

/* The extent of another scene's rest pose in view v (its own up axis turned). */
static void bounds_of_other(const smdmx_scene *s, sm_view view, double lo[2], double hi[2])
{
	drawing o = { .s = s };
	double v[3][3];
	view_matrix(view, s->up_axis, v);
	if (alloc_positions(&o) && sm_pose_make(s, NULL, 0, &o.rest)) {
		pose_all(&o, &o.rest, NULL);
		bounds_of(&o, &o.rest, v, lo, hi);
	}
	free(o.first);
	free(o.pos);
	sm_pose_free(&o.rest);
}

/* Extents lo to hi fit 90% of a view of size pixels, centred (nothing: 1 unit a pixel). */
static frame frame_of(const double lo[2], const double hi[2], uint32_t size)
{
	frame f = { 1, 0, 0 };
	if (!(lo[0] <= hi[0])) return f;
	double extent = hi[0] - lo[0] > hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
	f.scale = extent > 0 ? size * 0.9 / extent : 1;
	f.cx = (lo[0] + hi[0]) / 2;
	f.cy = (lo[1] + hi[1]) / 2;
	return f;
}

/* The frame of a view: what it shows (the positions in d->pos, posed or shaped as drawn, or
 * without any the joints of pose), with o->frame_with's rest pose, fit 90% of the cell,
 * centred. A frame of a walk far from where it starts, or a jaw opened past the rest pose's
 * box, is in the picture. */
static frame fit(drawing *d, const sm_pose *pose, sm_view view, double v[3][3])
{
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY };
	bounds_of(d, pose, v, lo, hi);
	if (d->o->frame_with) bounds_of_other(d->o->frame_with, view, lo, hi);
	return frame_of(lo, hi, d->size);
}

/* The frame of a sheet of shapes: the part of the model the shapes move, before and after
 * (d->pos holds the rest pose), so that a face's shapes are seen on a whole body; the whole
 * model when they move nothing. */
static frame fit_shapes(drawing *d, sm_view view, double v[3][3])
{
	const smdmx_scene *s = d->s;
	double lo[2] = { INFINITY, INFINITY }, hi[2] = { -INFINITY, -INFINITY }, q[3];
	size_t most = 1;
	for (size_t m = 0; m < s->mesh_count; m++) most = s->meshes[m].position_count > most ? s->meshes[m].position_count : most;
	float(*moved)[3] = malloc(most * sizeof(*moved));
	for (size_t k = 0; moved && k < s->flex_shape_count; k++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[k];
		if (sh->mesh >= s->mesh_count || !sh->position_count) continue;
		sm_pose_mesh(s, &d->rest, sh->mesh, sh, moved);
		for (size_t i = 0; i < sh->position_count; i++) {
			uint32_t at = sh->position_indices[i];
			if (at >= s->meshes[sh->mesh].position_count) continue;
			project(v, d->pos[d->first[sh->mesh] + at], q);
			grow(q, lo, hi);
			project(v, moved[at], q);
			grow(q, lo, hi);
		}
	}
	free(moved);
	return lo[0] <= hi[0] ? frame_of(lo, hi, d->size) : fit(d, &d->rest, view, v);
}

static void to_pixels(const sm_cell *c, const frame *f, const double q[3], float out[3])
{
	out[0] = (float)(c->x0 + (c->x1 - c->x0) / 2.0 + (q[0] - f->cx) * f->scale);
	out[1] = (float)(c->y0 + (c->y1 - c->y0) / 2.0 - (q[1] - f->cy) * f->scale);
	out[2] = (float)-q[2];
}

static void draw_meshes(drawing *d, const sm_cell *c, double v[3][3], const frame *f)
{
	const smdmx_scene *s = d->s;
	for (uint32_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *mesh = &s->meshes[m];
		const float(*pos)[3] = (const float(*)[3])(d->pos + d->first[m]);
		for (size_t fs = 0; fs < mesh->face_set_count; fs++) {
			const smdmx_face_set *set = &mesh->face_sets[fs];
			const uint8_t *base = material_colour(s, set->material);
			for (size_t p = 0; p < set->polygon_count; p++) {
				uint32_t o0 = set->offsets[p], o1 = set->offsets[p + 1];
				double q[3][3];
				float px[3][3];
				project(v, pos[mesh->position_indices[set->corners[o0]]], q[0]);
				to_pixels(c, f, q[0], px[0]);
				for (uint32_t k = o0 + 1; k + 1 < o1; k++) { /* a fan */
					project(v, pos[mesh->position_indices[set->corners[k]]], q[1]);
					project(v, pos[mesh->position_indices[set->corners[k + 1]]], q[2]);
					to_pixels(c, f, q[1], px[1]);
					to_pixels(c, f, q[2], px[2]);
					/* lit from the viewer: the normal's part towards the viewer */
					double e1[3], e2[3], n[3];
					for (int i = 0; i < 3; i++) e1[i] = q[1][i] - q[0][i], e2[i] = q[2][i] - q[0][i];
					n[0] = e1[1] * e2[2] - e1[2] * e2[1];
					n[1] = e1[2] * e2[0] - e1[0] * e2[2];
					n[2] = e1[0] * e2[1] - e1[1] * e2[0];
					double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
					uint8_t rgb[3];
					shade(base, len > 0 ? 0.3 + 0.7 * fabs(n[2]) / len : 0.3, rgb);
					sm_fill_triangle(c, px, rgb);
				}
			}
		}
	}
}

static void draw_skeleton(drawing *d, const sm_cell *c, double v[3][3], const frame *f)
{
	int r = d->size >= 512 ? 2 : 1;
	for (size_t j = 0; j < d->pose.count; j++) {
		uint32_t p = d->s->joints[j].parent;
		if (p == SMDMX_NONE) continue;
		float a[3] = { (float)d->pose.posed[j].t[0], (float)d->pose.posed[j].t[1], (float)d->pose.posed[j].t[2] };
		float b[3] = { (float)d->pose.posed[p].t[0], (float)d->pose.posed[p].t[1], (float)d->pose.posed[p].t[2] };
		double qa[3], qb[3];
		float pa[3], pb[3];
		project(v, a, qa);
		project(v, b, qb);
		to_pixels(c, f, qa, pa);
		to_pixels(c, f, qb, pb);
		sm_draw_line(c, pa, pb, bone_colour);
	}
	for (size_t j = 0; j < d->pose.count; j++) {
		float a[3] = { (float)d->pose.posed[j].t[0], (float)d->pose.posed[j].t[1], (float)d->pose.posed[j].t[2] };
		double q[3];
		float px[3];
		project(v, a, q);
		to_pixels(c, f, q, px);
		sm_fill_dot(c, px, r, joint_colour);
	}
}

/* One view of the model into a cell: the pose and shape already in d->pos. */
static void draw_view(drawing *d, const sm_cell *c, sm_view view, const frame *f)
{
	double v[3][3];
	view_matrix(view, d->s->up_axis, v);
	sm_fill_cell(c, background);
	for (uint32_t y = c->y0; y < c->y1; y++)
		for (uint32_t x = c->x0; x < c->x1; x++) d->depth[(size_t)y * d->img.width + x] = INFINITY;
	draw_meshes(d, c, v, f);
	if (d->o->skeleton || !d->position_total) draw_skeleton(d, c, v, f);
}

/* ---- UV layouts ------------------------------------------------------------------------- */

static void uv_pixel(const sm_cell *c, const float uv[2], float out[2])
{
	double side = c->x1 - c->x0, m = side * 0.05, span = side - 2 * m;
	out[0] = (float)(c->x0 + m + uv[0] * span);
	out[1] = (float)(c->y0 + m + (1.0 - uv[1]) * span);
}

/* The UV layout (set 0) of material mat: the unit square, the polygons filled in the
 * material's colour, their edges over them; V up, as a texture is seen. */
static void draw_uv(drawing *d, const sm_cell *c, uint32_t mat)
{
	const smdmx_scene *s = d->s;
	sm_cell plain = *c;
	plain.depth = NULL;
	sm_fill_cell(c, background);
	float corner[2][2], sq[2][2];
	float lo[2] = { 0, 0 }, hi[2] = { 1, 1 };
	uv_pixel(c, lo, sq[0]);
	uv_pixel(c, hi, sq[1]);
	corner[0][0] = sq[0][0], corner[0][1] = sq[1][1], corner[1][0] = sq[1][0], corner[1][1] = sq[0][1];
	float t1[3][3] = { { corner[0][0], corner[0][1], 0 }, { corner[1][0], corner[0][1], 0 }, { corner[1][0], corner[1][1], 0 } };
	float t2[3][3] = { { corner[0][0], corner[0][1], 0 }, { corner[1][0], corner[1][1], 0 }, { corner[0][0], corner[1][1], 0 } };
	sm_fill_triangle(&plain, t1, uv_square);
	sm_fill_triangle(&plain, t2, uv_square);
	const uint8_t *base = material_colour(s, mat);
	uint8_t fill[3], line[3];
	shade(base, 0.55, fill);
	for (int i = 0; i < 3; i++) line[i] = (uint8_t)((base[i] + 255 * 3) / 4);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t m = 0; m < s->mesh_count; m++) {
			const smdmx_mesh *mesh = &s->meshes[m];
			if (!mesh->uv_set_count) continue;
			const smdmx_uv_set *uv = &mesh->uv_sets[0];
			for (size_t fs = 0; fs < mesh->face_set_count; fs++) {
				const smdmx_face_set *set = &mesh->face_sets[fs];
				if (set->material != mat) continue;
				for (size_t p = 0; p < set->polygon_count; p++) {
					uint32_t o0 = set->offsets[p], o1 = set->offsets[p + 1];
					float px[3][3] = { { 0 } };
					uv_pixel(c, uv->data[uv->indices[set->corners[o0]]], px[0]);
					for (uint32_t k = o0 + 1; pass == 0 && k + 1 < o1; k++) {
						uv_pixel(c, uv->data[uv->indices[set->corners[k]]], px[1]);
						uv_pixel(c, uv->data[uv->indices[set->corners[k + 1]]], px[2]);
						sm_fill_triangle(&plain, px, fill);
					}
					for (uint32_t k = o0; pass == 1 && k < o1; k++) { /* the polygon's outline */
						float a[2], b[2];
						uv_pixel(c, uv->data[uv->indices[set->corners[k]]], a);
						uv_pixel(c, uv->data[uv->indices[set->corners[k + 1 < o1 ? k + 1 : o0]]], b);
						sm_draw_line(&plain, a, b, line);
					}
				}
			}
		}
}

/* ---- the whole picture ------------------------------------------------------------------- */

static bool fail_names(smdmx_error *e, const char *what, const char *name, const char *const *names, size_t n)
{
	char list[400] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof(list) - 80; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", i ? ", " : ": ", names[i]);
	if (n > 0 && len >= sizeof(list) - 80) snprintf(list + len, sizeof(list) - len, ", ...");
	return sm_render_fail(e, SMDMX_ERROR_USAGE, "no %s named '%s' (the model has %zu%s)", what, name, n, list);
}

/* Unique shape names, in the order of their first shape. */
static size_t shape_names(const smdmx_scene *s, const char **out)
{
	size_t n = 0;
	for (size_t i = 0; i < s->flex_shape_count; i++) {
		size_t k = 0;
		while (k < n && strcmp(out[k], s->flex_shapes[i].name)) k++;
		if (k == n) out[n++] = s->flex_shapes[i].name;
	}
	return n;
}

static const smdmx_clip *find_clip(const smdmx_scene *s, const sm_render_options *o, int32_t *tick, smdmx_error *e)
{
	const smdmx_clip *clip = NULL;
	for (size_t i = 0; i < s->clip_count && !clip; i++)
		if (!strcmp(s->clips[i].name, o->clip)) clip = &s->clips[i];
	if (!clip) {
		const char *names[16];
		size_t n = s->clip_count < 16 ? s->clip_count : 16;
		for (size_t i = 0; i < n; i++) names[i] = s->clips[i].name;
		fail_names(e, "clip", o->clip, names, s->clip_count);
		return NULL;
	}
	/* frames as the SMD writer samples them, in double: a rate far past any file's cannot
	 * overflow a count */
	double r = clip->frame_rate;
	double first = round((double)clip->start * r / 10000.0);
	double frames = round(((double)clip->start + clip->duration) * r / 10000.0) - first;
	if (!(frames >= 0 && frames < 1e15)) {
		sm_render_fail(e, SMDMX_ERROR_LIMIT, "clip '%s' has too many frames to pose", clip->name);
		return NULL;
	}
	if (o->frame < 0 || (double)o->frame > frames) {
		sm_render_fail(e, SMDMX_ERROR_USAGE, "clip '%s' has frames 0 to %.0f, not %lld", clip->name, frames, (long long)o->frame);
		return NULL;
	}
	double t = floor((first + (double)o->frame) * 10000.0 / r);
	*tick = t < INT32_MIN ? INT32_MIN : t > INT32_MAX ? INT32_MAX : (int32_t)t;
	return clip;
}

static bool has_polygons(const smdmx_scene *s, bool uv)
{
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++)
			if (s->meshes[m].face_sets[f].polygon_count && (!uv || s->meshes[m].uv_set_count)) return true;
	return false;
}

static bool material_has_uvs(const smdmx_scene *s, uint32_t m)
{
	for (size_t k = 0; k < s->mesh_count; k++)
		for (size_t f = 0; f < s->meshes[k].face_set_count; f++)
			if (s->meshes[k].face_sets[f].material == m && s->meshes[k].uv_set_count) return true;
	return false;
}

/* The cells of the picture and their names: the views, the base and each shape, or each
 * material with UVs; one otherwise. */
static bool plan_cells(drawing *d, sm_render_layout *l)
{
	const smdmx_scene *s = d->s;
	const sm_render_options *o = d->o;
	size_t n = 1, cap = 1 + (s->flex_shape_count > s->material_count ? s->flex_shape_count : s->material_count);
	if (cap < SM_VIEW_COUNT) cap = SM_VIEW_COUNT;
	l->names = malloc(cap * sizeof(char *));
	if (!l->names) return sm_render_fail(d->error, SMDMX_ERROR_OUT_OF_MEMORY, "out of memory");
	l->names[0] = sm_view_name(o->view == SM_VIEW_ALL ? SM_VIEW_THREE_QUARTER : o->view);
	if (o->uv) {
		if (!has_polygons(s, true)) return sm_render_fail(d->error, SMDMX_ERROR_EMPTY, "no polygons with UVs to draw");
		n = 0;
		for (uint32_t m = 0; m < s->material_count; m++)
			if (material_has_uvs(s, m)) l->names[n++] = s->materials[m].name;
	} else if (o->shapes) {
		if (!s->flex_shape_count) return sm_render_fail(d->error, SMDMX_ERROR_EMPTY, "no flex shapes to draw");
		l->names[0] = "base";
		n = 1 + shape_names(s, l->names + 1);
	} else if (o->view == SM_VIEW_ALL) {
		n = SM_VIEW_COUNT;
		for (int v = 0; v < SM_VIEW_COUNT; v++) l->names[v] = sm_view_name((sm_view)v);
	}
	if (o->shape) {
		const char **names = calloc(s->flex_shape_count + 1, sizeof(char *));
		if (!names) return sm_render_fail(d->error, SMDMX_ERROR_OUT_OF_MEMORY, "out of memory");
		size_t k = shape_names(s, names), i = 0;
		while (i < k && strcmp(names[i], o->shape)) i++;
		bool found = i < k;
		if (!found) fail_names(d->error, "flex shape", o->shape, names, k);
		free(names);
		if (!found) return false;
	}
	l->cells = (uint32_t)n;
	l->columns = o->view == SM_VIEW_ALL && !o->uv && !o->shapes ? 2 : 1;
	while ((uint64_t)l->columns * l->columns < n) l->columns++;
	l->rows = (uint32_t)((n + l->columns - 1) / l->columns);
	uint64_t px = (uint64_t)l->columns * d->size * l->rows * d->size;
	if (px > SM_RENDER_MAX_PIXELS)
		return sm_render_fail(d->error, SMDMX_ERROR_LIMIT,
		               "a picture of %u x %u views of %u pixels is %llu pixels, past the limit of %llu: give a smaller --size",
		               l->columns, l->rows, d->size, (unsigned long long)px, (unsigned long long)SM_RENDER_MAX_PIXELS);
	return true;
}

static bool prepare(drawing *d, sm_render_layout *l)
{
	const smdmx_scene *s = d->s;
	if (d->size < SM_RENDER_MIN_SIZE || d->size > SM_RENDER_MAX_SIZE)
		return sm_render_fail(d->error, SMDMX_ERROR_USAGE, "the size is %u to %u pixels, not %u", SM_RENDER_MIN_SIZE,
		               SM_RENDER_MAX_SIZE, d->size);
	if (!has_polygons(s, false) && !s->joint_count)
		return sm_render_fail(d->error, SMDMX_ERROR_EMPTY, "no polygons and no joints to draw");
	if (!plan_cells(d, l)) return false;
	int32_t tick = 0;
	const smdmx_clip *clip = d->o->clip ? find_clip(s, d->o, &tick, d->error) : NULL;
	if (d->o->clip && !clip) return false;
	bool positions = alloc_positions(d);
	d->img.width = l->columns * d->size;
	d->img.height = l->rows * d->size;
	size_t px = (size_t)d->img.width * d->img.height;
	d->img.rgb = malloc(px * 3);
	d->depth = malloc(px * sizeof(float));
	if (!positions || !d->img.rgb || !d->depth) return sm_render_fail(d->error, SMDMX_ERROR_OUT_OF_MEMORY, "out of memory");
	if (!sm_pose_make(s, NULL, 0, &d->rest) || !sm_pose_make(s, clip, tick, &d->pose)) return sm_render_fail(d->error, SMDMX_ERROR_OUT_OF_MEMORY, "out of memory");
	sm_fill_cell(&(sm_cell){ d->img.rgb, NULL, d->img.width, 0, 0, d->img.width, d->img.height }, background);
	return true;
}

/* A sheet's cells are named at their top left (a picture of one cell is not). */
static void name_cells(drawing *d, const sm_render_layout *l)
{
	uint32_t scale = d->size >= 384 ? 3 : d->size >= 160 ? 2 : 1;
	for (uint32_t i = 0; l->cells > 1 && i < l->cells; i++) {
		sm_cell c = cell_at(d, i, l->columns);
		sm_draw_label(&c, l->names[i] ? l->names[i] : "", scale);
	}
}

/* Whether only the background was drawn in cell c. */
static bool cell_empty(const drawing *d, const sm_cell *c)
{
	for (uint32_t y = c->y0; y < c->y1; y++) {
		const uint8_t *p = d->img.rgb + ((size_t)y * d->img.width + c->x0) * 3;
		for (uint32_t x = c->x0; x < c->x1; x++, p += 3)
			if (p[0] != background[0] || p[1] != background[1] || p[2] != background[2]) return false;
	}
	return true;
}

static void draw_cells(drawing *d, sm_render_layout *l)
{
	const sm_render_options *o = d->o;
	if (o->uv) {
		uint32_t k = 0;
		for (uint32_t m = 0; m < d->s->material_count && k < l->cells; m++)
			if (material_has_uvs(d->s, m)) {
				sm_cell c = cell_at(d, k++, l->columns);
				draw_uv(d, &c, m);
			}
		name_cells(d, l);
		return;
	}
	sm_view views[SM_VIEW_COUNT];
	frame frames[SM_VIEW_COUNT];
	uint32_t nv = o->view == SM_VIEW_ALL && !o->shapes ? SM_VIEW_COUNT : 1;
	/* a sheet of shapes is framed on what the shapes move, at rest; a picture on what it shows */
	bool posed = !o->shapes && (o->clip || o->shape);
	if (posed) pose_all(d, &d->pose, o->shape);
	else pose_all(d, &d->rest, NULL);
	for (uint32_t i = 0; i < nv; i++) {
		views[i] = nv > 1 ? (sm_view)i : o->view == SM_VIEW_ALL ? SM_VIEW_THREE_QUARTER : o->view;
		double v[3][3];
		view_matrix(views[i], d->s->up_axis, v);
		frames[i] = o->shapes ? fit_shapes(d, views[i], v) : fit(d, posed ? &d->pose : &d->rest, views[i], v);
	}
	for (uint32_t i = 0; i < l->cells; i++) {
		sm_cell c = cell_at(d, i, l->columns);
		if (i == 0 || o->shapes) pose_all(d, &d->pose, o->shapes ? (i ? l->names[i] : NULL) : o->shape);
		uint32_t vi = nv > 1 ? i : 0;
		draw_view(d, &c, views[vi], &frames[vi]);
		l->empty += cell_empty(d, &c);
	}
	name_cells(d, l);
}

bool sm_render_fail(smdmx_error *error, smdmx_error_code code, const char *fmt, ...)
{
	if (!error) return false;
	memset(error, 0, sizeof(*error));
	error->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error->message, sizeof(error->message), fmt, ap);
	va_end(ap);
	return false;
}

bool sm_render(const smdmx_scene *s, const sm_render_options *o, sm_image *out, sm_render_layout *layout, smdmx_error *error)
{
	drawing d = { .s = s, .o = o, .size = o->size ? o->size : 512, .error = error };
	sm_render_layout own = { 0 }, *l = layout ? layout : &own;
	memset(l, 0, sizeof(*l));
	memset(out, 0, sizeof(*out));
	bool ok = prepare(&d, l);
	if (ok) draw_cells(&d, l);
	free(d.first);
	free(d.pos);
	free(d.depth);
	sm_pose_free(&d.rest);
	sm_pose_free(&d.pose);
	if (ok) *out = d.img;
	else sm_render_free(&d.img, l);
	if (l == &own) sm_render_free(NULL, l);
	return ok;
}

void sm_render_free(sm_image *img, sm_render_layout *layout)
{
	if (img) {
		free(img->rgb);
		memset(img, 0, sizeof(*img));
	}
	if (layout) {
		free(layout->names);
		memset(layout, 0, sizeof(*layout));
	}
}
