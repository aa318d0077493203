/* Euler angles <-> quaternions for SMD rotations (decision 1).
 *
 * (rx, ry, rz) is R = Rz(rz) * Ry(ry) * Rx(rx), column vectors: Valve's AngleMatrix of a
 * RadianEuler, which maps it to QAngle(pitch = ry, yaw = rz, roll = rx). Everything is in
 * double so that float32 data survives conversion both ways. */
#include <math.h>
#include <stddef.h>

#include "smdmx/math.h"
#include "support/num.h"

static const double PI = 3.14159265358979323846;

void smdmx_euler_to_quat(const double e[3], double q[4])
{
	if (!e || !q) return;
	double sx, cx, sy, cy, sz, cz;
	sm_sincos(e[0] * 0.5, &sx, &cx);
	sm_sincos(e[1] * 0.5, &sy, &cy);
	sm_sincos(e[2] * 0.5, &sz, &cz);
	/* q = qz * qy * qx */
	q[0] = sx * cy * cz - cx * sy * sz;
	q[1] = cx * sy * cz + sx * cy * sz;
	q[2] = cx * cy * sz - sx * sy * cz;
	q[3] = cx * cy * cz + sx * sy * sz;
	if (q[3] < 0) {
		for (int i = 0; i < 4; i++) q[i] = -q[i];
	}
}

void smdmx_quat_to_matrix(const double q[4], double m[3][3])
{
	if (!q || !m) return;
	double x = q[0], y = q[1], z = q[2], w = q[3];
	/* Normalise so that float32 quaternions slightly off unit length give a rotation. */
	double n = x * x + y * y + z * z + w * w;
	double s = n > 0 ? 2.0 / n : 0.0;
	m[0][0] = 1 - s * (y * y + z * z);
	m[0][1] = s * (x * y - z * w);
	m[0][2] = s * (x * z + y * w);
	m[1][0] = s * (x * y + z * w);
	m[1][1] = 1 - s * (x * x + z * z);
	m[1][2] = s * (y * z - x * w);
	m[2][0] = s * (x * z - y * w);
	m[2][1] = s * (y * z + x * w);
	m[2][2] = 1 - s * (x * x + y * y);
}

void smdmx_euler_to_matrix(const double e[3], double m[3][3])
{
	if (!e || !m) return;
	double sx, cx, sy, cy, sz, cz;
	sm_sincos(e[0], &sx, &cx);
	sm_sincos(e[1], &sy, &cy);
	sm_sincos(e[2], &sz, &cz);
	m[0][0] = cy * cz;
	m[0][1] = sx * sy * cz - cx * sz;
	m[0][2] = cx * sy * cz + sx * sz;
	m[1][0] = cy * sz;
	m[1][1] = sx * sy * sz + cx * cz;
	m[1][2] = cx * sy * sz - sx * cz;
	m[2][0] = -sy;
	m[2][1] = sx * cy;
	m[2][2] = cx * cy;
}

/* Into (-pi, pi]. (fmod of a below 2 pi in magnitude is a itself, exactly: the call is
 * skipped there, as it nearly always is, atan2 giving -pi to pi.) */
static double wrap_pi(double a)
{
	if (!(fabs(a) < 2 * PI)) a = fmod(a, 2 * PI);
	if (a <= -PI) a += 2 * PI;
	else if (a > PI) a -= 2 * PI;
	return a;
}

/* The angle equal to a modulo 2 pi that is closest to ref. */
static double closest(double a, double ref)
{
	return ref + wrap_pi(a - ref);
}

void smdmx_quat_to_euler(const double q[4], const double *near, double e[3])
{
	if (!q || !e) return;
	double m[3][3];
	smdmx_quat_to_matrix(q, m);
	double cy = sm_hypot(m[0][0], m[1][0]);
	double y = sm_atan2(-m[2][0], cy);
	if (cy > 1e-9) {
		e[1] = y;
		e[2] = wrap_pi(sm_atan2(m[1][0], m[0][0]));
		/* rx from the residual Rx = (Rz * Ry)^T * M: its entries are O(1), so rx stays
		 * accurate near the poles where m21 and m22 both vanish. */
		double sy, cyy, sz, cz;
		sm_sincos(y, &sy, &cyy);
		sm_sincos(e[2], &sz, &cz);
		/* rows 1 and 2 of (Rz Ry)^T are (-sz, cz, 0) and (sy cz, sy sz, cy) */
		double a21 = sy * cz * m[0][1] + sy * sz * m[1][1] + cyy * m[2][1];
		double a11 = -sz * m[0][1] + cz * m[1][1];
		e[0] = wrap_pi(sm_atan2(a21, a11));
		if (near) {
			/* The other solution of the same matrix: (rx + pi, pi - ry, rz + pi). */
			double a[3] = { closest(e[0], near[0]), closest(e[1], near[1]), closest(e[2], near[2]) };
			double b[3] = { closest(e[0] + PI, near[0]), closest(PI - e[1], near[1]),
			                closest(e[2] + PI, near[2]) };
			double da = fabs(a[0] - near[0]) + fabs(a[1] - near[1]) + fabs(a[2] - near[2]);
			double db = fabs(b[0] - near[0]) + fabs(b[1] - near[1]) + fabs(b[2] - near[2]);
			const double *best = db < da ? b : a;
			e[0] = best[0];
			e[1] = best[1];
			e[2] = best[2];
		}
		return;
	}
	/* Gimbal pole: sin ry = +-1. Only rx - rz (ry = pi/2) or rx + rz (ry = -pi/2) is fixed:
	 * c = sm_atan2(-m01, m11) is rz when rx = 0. */
	double c = sm_atan2(-m[0][1], m[1][1]);
	double sy = y > 0 ? 1.0 : -1.0;
	e[1] = sy * PI / 2;
	if (!near) {
		e[0] = 0;
		e[2] = wrap_pi(c);
		return;
	}
	e[0] = near[0];
	/* ry = +pi/2: R depends on rx - rz, so rz = rx - (-c) ... keep the same matrix */
	e[2] = sy > 0 ? closest(e[0] + c, near[2]) : closest(c - e[0], near[2]);
	e[1] = closest(e[1], near[1]);
}
