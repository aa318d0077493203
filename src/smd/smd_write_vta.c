/* VTA writing (decision 12): the shapes of a scene as a VTA against its reference: the
 * written corners numbered as the reference writes its triangles, shapes grouped by name,
 * each a time with the vertices it moves. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smd/smd_write.h"

/* ---- VTA ------------------------------------------------------------------------------------- */

/* A VTA writes, for each shape, every written corner whose position or normal the shape
 * moves. So that time and output follow the data, each mesh's written corners (the VTA
 * ids) are listed once, with the ids of each position and normal; a shape's lines are then
 * found from its deltas, not by visiting every corner again. */
typedef struct vta_mesh {
	size_t base;                   /* the mesh's first id */
	size_t count;                  /* its ids (written corners) */
	uint32_t *corner;              /* per id: the mesh corner */
	uint32_t *pos_first, *pos_ids; /* per position: offsets into pos_ids (ids, ascending) */
	uint32_t *nrm_first, *nrm_ids; /* the same per normal; NULL without normals */
	int32_t *pos_map, *nrm_map;    /* scratch: per position and normal, a delta or -1 */
	const uint32_t *number;        /* per corner, the number a VTA that was read gave it; NULL: base + id */
	xform x;
	bool has_xform;
} vta_mesh;

typedef struct vta_writer {
	writer *w;
	vta_mesh *meshes;
	size_t *shapes;                /* shape indices, by group and mesh (see group_shapes) */
	size_t *group_first;           /* per group + 1: offsets into shapes */
	size_t group_count;
	uint64_t *seen;                /* scratch: one shape's ids, a bit each (all clear between shapes) */
	struct vta_block {
		void *p;
		size_t size;
	} *blocks;                     /* every allocation above, with its size, to free */
	size_t block_count, block_cap;
} vta_writer;

static void *vta_alloc(vta_writer *v, size_t n, size_t item)
{
	size_t bytes;
	if (!sm_mul(n ? n : 1, item, &bytes)) return sm_fail_oom(v->w->error), NULL;
	void *p = v->block_count < v->block_cap ? sm_malloc(&v->w->alloc, bytes) : NULL;
	if (!p) return sm_fail_oom(v->w->error), NULL;
	v->blocks[v->block_count].p = p;
	v->blocks[v->block_count++].size = bytes;
	return p;
}

static void vta_free(vta_writer *v)
{
	for (size_t i = 0; i < v->block_count; i++) sm_free(&v->w->alloc, v->blocks[i].p, v->blocks[i].size);
	if (v->blocks) sm_free(&v->w->alloc, v->blocks, v->block_cap * sizeof(*v->blocks));
}

static bool collect_corner(writer *w, const smdmx_mesh *m, uint32_t c, size_t face_set, void *ctx)
{
	(void)w;
	(void)m;
	(void)face_set;
	vta_mesh *vm = ctx;
	vm->corner[vm->count++] = c;
	return true;
}

/* ids of each value (position or normal) of a mesh: offsets and ids, ascending per value. */
static bool index_ids(vta_writer *v, const vta_mesh *vm, const uint32_t *value_of_corner, size_t values, uint32_t **first,
                      uint32_t **ids)
{
	*first = vta_alloc(v, values + 1, sizeof(uint32_t));
	*ids = vta_alloc(v, vm->count, sizeof(uint32_t));
	if (!*first || !*ids) return false;
	sm_group(value_of_corner, vm->corner, vm->count, values, *first, *ids);
	return true;
}

static bool vta_meshes(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	v->meshes = vta_alloc(v, s->mesh_count, sizeof(vta_mesh));
	if (!v->meshes) return false;
	size_t base = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) {
		const smdmx_mesh *m = &s->meshes[mi];
		vta_mesh *vm = &v->meshes[mi];
		memset(vm, 0, sizeof(*vm));
		vm->base = base;
		vm->has_xform = smdw_mesh_xform(s, m, &vm->x);
		uint64_t n = 0;
		if (m->face_set_count) {
			for (size_t f = 0; f < m->face_set_count; f++)
				for (size_t p = 0; p < m->face_sets[f].polygon_count; p++)
					n += 3 * (uint64_t)(m->face_sets[f].offsets[p + 1] - m->face_sets[f].offsets[p] - 2);
		} else {
			n = m->corner_count;
		}
		if (n > UINT32_MAX)
			return sm_fail(v->w->error, SMDMX_ERROR_LIMIT, 0, 0, "mesh %zu writes more than %u VTA vertices", mi, UINT32_MAX);
		vm->corner = vta_alloc(v, (size_t)n, sizeof(uint32_t));
		if (!vm->corner || !smdw_for_each_written_corner(v->w, m, collect_corner, vm)) return false;
		SM_CHECK(index_ids(v, vm, m->position_indices, m->position_count, &vm->pos_first, &vm->pos_ids));
		if (m->normal_indices) SM_CHECK(index_ids(v, vm, m->normal_indices, m->normal_count, &vm->nrm_first, &vm->nrm_ids));
		vm->pos_map = vta_alloc(v, m->position_count + m->normal_count, sizeof(int32_t));
		if (!vm->pos_map) return false;
		for (size_t i = 0; i < m->position_count + m->normal_count; i++) vm->pos_map[i] = -1;
		vm->nrm_map = vm->pos_map + m->position_count;
		/* A VTA read keeps its vertex numbers (they may start above 0 or skip). */
		if (s->source.format == SMDMX_SOURCE_VTA && s->source.vta_ids && s->mesh_count == 1 && !m->face_set_count)
			vm->number = s->source.vta_ids;
		base += vm->count;
	}
	return true;
}

typedef struct shape_key {
	const char *name;
	uint32_t mesh;
	size_t index;
} shape_key;

/* By name, then mesh, then index. */
static int shape_order(const void *a, const void *b)
{
	const shape_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c) return c;
	if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* By first shape index: groups in order of first appearance. */
static int group_order(const void *a, const void *b)
{
	size_t i = ((const size_t *)a)[0], j = ((const size_t *)b)[0];
	return i < j ? -1 : i > j;
}

/* Groups the shapes by name (a group is one VTA frame), in order of first appearance; in
 * a group, one shape per mesh (the last of that mesh), by mesh. */
static bool group_shapes(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	size_t n = s->flex_shape_count;
	shape_key *order = vta_alloc(v, n, sizeof(shape_key));
	size_t *runs = vta_alloc(v, n, 3 * sizeof(size_t)); /* per group: first index, start, end in order */
	v->shapes = vta_alloc(v, n, sizeof(size_t));
	v->group_first = vta_alloc(v, n + 1, sizeof(size_t));
	if (!order || !runs || !v->shapes || !v->group_first) return false;
	for (size_t i = 0; i < n; i++) order[i] = (shape_key){ s->flex_shapes[i].name, s->flex_shapes[i].mesh, i };
	qsort(order, n, sizeof(shape_key), shape_order);
	size_t g = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i, first = order[i].index;
		while (e < n && !strcmp(order[e].name, order[i].name)) {
			if (order[e].index < first) first = order[e].index;
			e++;
		}
		runs[3 * g] = first;
		runs[3 * g + 1] = i;
		runs[3 * g + 2] = e;
		g++;
		i = e;
	}
	qsort(runs, g, 3 * sizeof(size_t), group_order);
	size_t k = 0;
	for (size_t r = 0; r < g; r++) {
		v->group_first[r] = k;
		for (size_t i = runs[3 * r + 1]; i < runs[3 * r + 2]; i++)
			if (i + 1 == runs[3 * r + 2] || order[i + 1].mesh != order[i].mesh) v->shapes[k++] = order[i].index;
	}
	v->group_first[g] = k;
	v->group_count = g;
	return true;
}

/* Refuses a VTA whose shapes would write far more lines than the scene holds data: each
 * delta writes a line per written corner on its position or normal, so a mesh whose
 * corners all share one position would write every corner for every shape. Past 2^23
 * lines, at most 16 times the deltas and base corners. Also makes the ids' bitmap. */
static bool vta_budget(vta_writer *v)
{
	const smdmx_scene *s = v->w->scene;
	uint64_t data = 0, lines = 0;
	for (size_t mi = 0; mi < s->mesh_count; mi++) data += v->meshes[mi].count;
	for (size_t i = 0; i < s->flex_shape_count; i++) data += s->flex_shapes[i].position_count + s->flex_shapes[i].normal_count;
	uint64_t budget = data * 16 > (1u << 23) ? data * 16 : (1u << 23);
	for (size_t k = 0; k < v->group_first[v->group_count] && lines <= budget; k++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[v->shapes[k]];
		const vta_mesh *vm = &v->meshes[sh->mesh];
		uint64_t here = 0;
		for (size_t i = 0; i < sh->position_count; i++)
			here += vm->pos_first[sh->position_indices[i] + 1] - vm->pos_first[sh->position_indices[i]];
		for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++)
			here += vm->nrm_first[sh->normal_indices[i] + 1] - vm->nrm_first[sh->normal_indices[i]];
		lines += here;
	}
	if (lines > budget)
		return sm_fail(v->w->error, SMDMX_ERROR_LIMIT, 0, 0,
		               "the VTA would write more than %llu vertex lines (16 times its %llu items of data, and at least "
		               "2^23): refused as a decompression bomb",
		               (unsigned long long)budget, (unsigned long long)data);
	size_t words = 1;
	for (size_t mi = 0; mi < s->mesh_count; mi++)
		if (v->meshes[mi].count / 64 + 1 > words) words = v->meshes[mi].count / 64 + 1;
	v->seen = vta_alloc(v, words, sizeof(uint64_t));
	if (v->seen) memset(v->seen, 0, words * sizeof(uint64_t));
	return v->seen != NULL;
}

static bool write_vta_line(writer *w, const smdmx_mesh *m, const vta_mesh *vm, size_t id, const smdmx_flex_shape *sh)
{
	uint32_t c = vm->corner[id];
	uint32_t p = m->position_indices[c], n = m->normal_indices ? m->normal_indices[c] : SMDMX_NONE;
	float pos[3], nrm[3] = { 0, 0, 0 };
	memcpy(pos, m->positions[p], sizeof(pos));
	if (n != SMDMX_NONE) memcpy(nrm, m->normals[n], sizeof(nrm));
	if (sh) {
		int32_t dp = vm->pos_map[p], dn = n != SMDMX_NONE ? vm->nrm_map[n] : -1;
		for (int i = 0; i < 3; i++) {
			if (dp >= 0) pos[i] += sh->position_deltas[dp][i];
			if (dn >= 0) nrm[i] += sh->normal_deltas[dn][i];
		}
	}
	if (vm->has_xform) {
		float a[3], b[3];
		smdw_apply(&vm->x, pos, true, a);
		smdw_apply(&vm->x, nrm, false, b);
		memcpy(pos, a, sizeof(a));
		memcpy(nrm, b, sizeof(b));
	}
	SM_CHECK(put_int(w, (int64_t)(vm->number ? vm->number[c] : vm->base + id), false));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, pos[i]));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, nrm[i]));
	return eol(w);
}

/* One shape's lines: the ids on its deltas' positions and normals, ascending, once each. The
 * ids are marked in a bitmap of the mesh's ids and read back in order from the lowest word
 * marked to the highest, each word cleared as it is read: the order a sort and a removal of
 * repeats would give, in time linear in the ids. */
static bool write_vta_shape(vta_writer *v, const smdmx_flex_shape *sh)
{
	const smdmx_mesh *m = &v->w->scene->meshes[sh->mesh];
	vta_mesh *vm = &v->meshes[sh->mesh];
	uint64_t *seen = v->seen;
	size_t lo = SIZE_MAX, hi = 0;
	for (size_t i = 0; i < sh->position_count; i++) {
		uint32_t p = sh->position_indices[i];
		vm->pos_map[p] = (int32_t)i;
		for (uint32_t k = vm->pos_first[p]; k < vm->pos_first[p + 1]; k++) {
			uint32_t id = vm->pos_ids[k];
			seen[id >> 6] |= (uint64_t)1 << (id & 63);
			lo = id >> 6 < lo ? id >> 6 : lo;
			hi = id >> 6 > hi ? id >> 6 : hi;
		}
	}
	for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++) {
		uint32_t q = sh->normal_indices[i];
		vm->nrm_map[q] = (int32_t)i;
		for (uint32_t k = vm->nrm_first[q]; k < vm->nrm_first[q + 1]; k++) {
			uint32_t id = vm->nrm_ids[k];
			seen[id >> 6] |= (uint64_t)1 << (id & 63);
			lo = id >> 6 < lo ? id >> 6 : lo;
			hi = id >> 6 > hi ? id >> 6 : hi;
		}
	}
	bool ok = true;
	for (size_t x = lo; x <= hi && lo != SIZE_MAX; x++) {
		for (uint64_t bits = seen[x]; ok && bits; bits &= bits - 1)
			ok = write_vta_line(v->w, m, vm, x * 64 + (size_t)__builtin_ctzll(bits), sh);
		seen[x] = 0;
	}
	for (size_t i = 0; i < sh->position_count; i++) vm->pos_map[sh->position_indices[i]] = -1;
	for (size_t i = 0; vm->nrm_first && i < sh->normal_count; i++) vm->nrm_map[sh->normal_indices[i]] = -1;
	return ok;
}

static bool write_time_name(writer *w, size_t frame, const char *name)
{
	SM_CHECK(sm_out_puts(&w->out, "time"));
	SM_CHECK(put_int(w, (int64_t)frame, true));
	if (name) {
		SM_CHECK(sm_out_puts(&w->out, " # "));
		SM_CHECK(sm_out_puts(&w->out, name));
	}
	return eol(w);
}

bool smdw_write_vta(writer *w)
{
	const smdmx_scene *s = w->scene;
	for (size_t i = 0; i < s->flex_shape_count; i++) SM_CHECK(smdw_check_text(w, s->flex_shapes[i].name, "flex shape", true));
	vta_writer v;
	memset(&v, 0, sizeof(v));
	v.w = w;
	/* the blocks: the mesh table, six per mesh, four for the groups, the id scratch */
	size_t bytes;
	bool ok = s->mesh_count < SIZE_MAX / 6 - 8 && sm_mul(6 * s->mesh_count + 8, sizeof(*v.blocks), &bytes);
	v.blocks = ok ? sm_malloc(&w->alloc, bytes) : NULL;
	if (!v.blocks) return sm_fail_oom(w->error);
	v.block_cap = 6 * s->mesh_count + 8;
	ok = vta_meshes(&v) && group_shapes(&v) && vta_budget(&v);
	size_t ng = ok ? v.group_count : 0;
	/* A VTA read keeps its frame numbers too (a QC names shapes by them), when they ascend. */
	bool numbered = s->source.format == SMDMX_SOURCE_VTA;
	for (size_t g = 0; numbered && g < ng; g++) {
		int32_t f = s->flex_shapes[v.shapes[v.group_first[g]]].frame;
		numbered = f >= 1 && (g == 0 || f > s->flex_shapes[v.shapes[v.group_first[g - 1]]].frame);
	}
	/* A VTA read with a pose in its frame 0 (Valve's exporters write the skeleton there) is
	 * written with it; otherwise frame 0 is empty, as Blender Source Tools writes it and as
	 * the reference carries the skeleton. */
	bool posed = false;
	for (size_t j = 0; s->source.format == SMDMX_SOURCE_VTA && j < s->joint_count && !posed; j++) {
		const smdmx_transform *t = &s->joints[j].bind;
		posed = t->position[0] != 0 || t->position[1] != 0 || t->position[2] != 0 || t->orientation[0] != 0 ||
		        t->orientation[1] != 0 || t->orientation[2] != 0 || t->orientation[3] != 1;
	}
	ok = ok && sm_out_puts(&w->out, "skeleton") && eol(w) && (posed ? smdw_write_bind_frame(w) : write_time_name(w, 0, NULL));
	for (size_t g = 0; ok && g < ng; g++) {
		const smdmx_flex_shape *first = &s->flex_shapes[v.shapes[v.group_first[g]]];
		ok = write_time_name(w, numbered ? (size_t)first->frame : g + 1, first->name);
	}
	ok = ok && sm_out_puts(&w->out, "end") && eol(w) && sm_out_puts(&w->out, "vertexanimation") && eol(w) && write_time_name(w, 0, NULL);
	for (size_t mi = 0; ok && mi < s->mesh_count; mi++)
		for (size_t id = 0; ok && id < v.meshes[mi].count; id++) ok = write_vta_line(w, &s->meshes[mi], &v.meshes[mi], id, NULL);
	for (size_t g = 0; ok && g < ng; g++) {
		const smdmx_flex_shape *first = &s->flex_shapes[v.shapes[v.group_first[g]]];
		ok = write_time_name(w, numbered ? (size_t)first->frame : g + 1, first->name);
		for (size_t k = v.group_first[g]; ok && k < v.group_first[g + 1]; k++) ok = write_vta_shape(&v, &s->flex_shapes[v.shapes[k]]);
	}
	vta_free(&v);
	return ok && sm_out_puts(&w->out, "end") && eol(w);
}
