/* Rigid transforms in doubles for the glTF writer: a joint's bind pose in model space, a
 * mesh's place, the inverse bind matrices. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"
#include "support/num.h"

/* ---- transforms ----------------------------------------------------------------------------- */

void gl_quat_mul(const double a[4], const double b[4], double out[4])
{
	double r[4] = { a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
		        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2] };
	memcpy(out, r, sizeof(r));
}

void gl_quat_rotate(const double q[4], const double v[3], double out[3])
{
	/* v + 2 q.xyz x (q.xyz x v + w v) */
	double c[3] = { q[1] * v[2] - q[2] * v[1] + q[3] * v[0], q[2] * v[0] - q[0] * v[2] + q[3] * v[1],
		        q[0] * v[1] - q[1] * v[0] + q[3] * v[2] };
	double r[3] = { v[0] + 2 * (q[1] * c[2] - q[2] * c[1]), v[1] + 2 * (q[2] * c[0] - q[0] * c[2]),
		        v[2] + 2 * (q[0] * c[1] - q[1] * c[0]) };
	memcpy(out, r, sizeof(r));
}

rigid gl_rigid_of(const smdmx_transform *t)
{
	rigid r;
	double n = sqrt((double)t->orientation[0] * t->orientation[0] + (double)t->orientation[1] * t->orientation[1] +
	                (double)t->orientation[2] * t->orientation[2] + (double)t->orientation[3] * t->orientation[3]);
	for (int k = 0; k < 4; k++) r.q[k] = t->orientation[k] / n;
	for (int k = 0; k < 3; k++) r.t[k] = t->position[k];
	return r;
}

/* a then b (b relative to a). */
rigid gl_rigid_then(const rigid *a, const rigid *b)
{
	rigid r;
	gl_quat_mul(a->q, b->q, r.q);
	gl_quat_rotate(a->q, b->t, r.t);
	for (int k = 0; k < 3; k++) r.t[k] += a->t[k];
	return r;
}

bool gl_rigid_identity(const rigid *r)
{
	return r->q[0] == 0 && r->q[1] == 0 && r->q[2] == 0 && r->t[0] == 0 && r->t[1] == 0 && r->t[2] == 0;
}

/* The column-major 4x4 matrix of the inverse of r. */
void gl_inverse_matrix(const rigid *r, float m[16])
{
	double x = r->q[0], y = r->q[1], z = r->q[2], s = r->q[3];
	double R[3][3] = { { 1 - 2 * (y * y + z * z), 2 * (x * y - z * s), 2 * (x * z + y * s) },
		           { 2 * (x * y + z * s), 1 - 2 * (x * x + z * z), 2 * (y * z - x * s) },
		           { 2 * (x * z - y * s), 2 * (y * z + x * s), 1 - 2 * (x * x + y * y) } };
	/* inverse: R^T, -R^T t; column-major: m[col * 4 + row] */
	for (int row = 0; row < 3; row++) {
		for (int col = 0; col < 3; col++) m[col * 4 + row] = (float)R[col][row];
		m[12 + row] = (float)-(R[0][row] * r->t[0] + R[1][row] * r->t[1] + R[2][row] * r->t[2]);
		m[row * 4 + 3] = 0;
	}
	m[15] = 1;
}

/* The node's "translation" and "rotation" of t (left out where zero). */
void gl_put_trs(gw *w, gbuf *b, const rigid *t)
{
	float tr[3] = { (float)t->t[0], (float)t->t[1], (float)t->t[2] };
	float q[4] = { (float)t->q[0], (float)t->q[1], (float)t->q[2], (float)t->q[3] };
	if (tr[0] != 0 || tr[1] != 0 || tr[2] != 0) {
		gl_puts(w, b, ",\"translation\":");
		gl_put_floats(w, b, tr, 3);
	}
	if (q[0] != 0 || q[1] != 0 || q[2] != 0) {
		gl_puts(w, b, ",\"rotation\":");
		gl_put_floats(w, b, q, 4);
	}
}
