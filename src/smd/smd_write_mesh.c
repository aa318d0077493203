/* A mesh as the SMD writer's blocks write it (smd_write.c's triangles, smd_write_vta.c's
 * shapes): its placement in model space (decision 8), its corners in the order they are
 * written (decision 9), and a name checked for what SMD's text can hold. */
#include "smd/smd_write.h"

bool smdw_check_text(writer *w, const char *s, const char *what, bool allow_quote)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r' || (*p == '"' && !allow_quote))
			return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0,
			               "%s '%s' holds a character SMD cannot write", what, s);
	}
	if (!*s) return sm_fail(w->error, SMDMX_ERROR_INVALID_SCENE, 0, 0, "empty %s name", what);
	return true;
}

/* ---- transforms ------------------------------------------------------------------------ */

static void xform_of(const smdmx_transform *tr, xform *x)
{
	double q[4] = { tr->orientation[0], tr->orientation[1], tr->orientation[2], tr->orientation[3] };
	smdmx_quat_to_matrix(q, x->r);
	for (int i = 0; i < 3; i++) x->t[i] = tr->position[i];
}

/* out = a * b */
static void xform_mul(const xform *a, const xform *b, xform *out)
{
	xform o;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) o.r[i][j] = a->r[i][0] * b->r[0][j] + a->r[i][1] * b->r[1][j] + a->r[i][2] * b->r[2][j];
		o.t[i] = a->r[i][0] * b->t[0] + a->r[i][1] * b->t[1] + a->r[i][2] * b->t[2] + a->t[i];
	}
	*out = o;
}

static bool is_identity(const smdmx_transform *t)
{
	return t->position[0] == 0 && t->position[1] == 0 && t->position[2] == 0 && t->orientation[0] == 0 &&
	       t->orientation[1] == 0 && t->orientation[2] == 0 && t->orientation[3] == 1;
}

/* Model-space placement of a mesh (decision 8); false when it is the identity. */
bool smdw_mesh_xform(const smdmx_scene *s, const smdmx_mesh *m, xform *out)
{
	if (m->parent_joint == SMDMX_NONE && is_identity(&m->transform)) return false;
	xform_of(&m->transform, out);
	for (uint32_t j = m->parent_joint; j != SMDMX_NONE; j = s->joints[j].parent) {
		xform p;
		xform_of(&s->joints[j].bind, &p);
		xform_mul(&p, out, out);
	}
	return true;
}

void smdw_apply(const xform *x, const float *v, bool translate, float *out)
{
	for (int i = 0; i < 3; i++)
		out[i] = (float)(x->r[i][0] * v[0] + x->r[i][1] * v[1] + x->r[i][2] * v[2] + (translate ? x->t[i] : 0));
}

/* ---- corners in written order ----------------------------------------------------------- */

/* Calls emit for every triangle corner in written order: polygons by first corner, each
 * fanned from its first corner (decision 9). For a mesh without faces, every corner. */
bool smdw_for_each_written_corner(writer *w, const smdmx_mesh *m, corner_fn emit, void *ctx)
{
	if (m->face_set_count == 0) {
		for (size_t k = 0; k < m->corner_count; k++) SM_CHECK(emit(w, m, (uint32_t)k, SIZE_MAX, ctx));
		return true;
	}
	sm_poly_ref *order;
	size_t n;
	if (!sm_polygon_order(&w->alloc, m, &order, &n)) return sm_fail_oom(w->error);
	bool ok = true;
	for (size_t i = 0; ok && i < n; i++) {
		const smdmx_face_set *fs = &m->face_sets[order[i].face_set];
		const uint32_t *c = fs->corners + fs->offsets[order[i].polygon];
		uint32_t nc = fs->offsets[order[i].polygon + 1] - fs->offsets[order[i].polygon];
		for (uint32_t k = 1; ok && k + 1 < nc; k++) {
			ok = emit(w, m, c[0], order[i].face_set, ctx) && emit(w, m, c[k], order[i].face_set, ctx) &&
			     emit(w, m, c[k + 1], order[i].face_set, ctx);
		}
	}
	sm_free(&w->alloc, order, n * sizeof(sm_poly_ref));
	return ok;
}
