/* Euler angles <-> quaternions (decision 1): R = Rz(rz) * Ry(ry) * Rx(rx).
 * Golden values are worked out by hand as the images of the unit axes; cglm's
 * glm_euler_zyx (an independent implementation of the same order) cross-checks the rest. */
#include <cglm/cglm.h>
#include <locale.h>
#include <math.h>

#include "util.h"

static const double PI = 3.14159265358979323846;

static void rotate(const double q[4], const double v[3], double out[3])
{
	double m[3][3];
	smdmx_quat_to_matrix(q, m);
	for (int i = 0; i < 3; i++) out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

static void assert_vec(const double *a, const double *b, int n, double tol)
{
	for (int i = 0; i < n; i++)
		if (fabs(a[i] - b[i]) > tol) fail_msg("component %d: %.17g vs %.17g", i, a[i], b[i]);
}

/* Hand-derived images of the axes:
 *  rx = 90 deg turns +Y into +Z; ry = 90 deg turns +Z into +X; rz = 90 deg turns +X into +Y;
 *  (90, 90, 0): X applied first, so +Y -> +Z (by X) -> +X (by Y);
 *  (0, 90, 90): +Z -> +X (by Y) -> +Y (by Z);
 *  (90, 0, 90): +Y -> +Z (by X) -> +Z (Z leaves it), and +X -> +X -> +Y. */
static void test_golden_axes(void **state)
{
	(void)state;
	const double h = PI / 2;
	struct {
		double e[3], v[3], img[3];
	} cases[] = {
		{ { h, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } },
		{ { h, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } },
		{ { 0, h, 0 }, { 0, 0, 1 }, { 1, 0, 0 } },
		{ { 0, h, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },
		{ { 0, 0, h }, { 1, 0, 0 }, { 0, 1, 0 } },
		{ { h, h, 0 }, { 0, 1, 0 }, { 1, 0, 0 } },
		{ { 0, h, h }, { 0, 0, 1 }, { 0, 1, 0 } },
		{ { h, 0, h }, { 0, 1, 0 }, { 0, 0, 1 } },
		{ { h, 0, h }, { 1, 0, 0 }, { 0, 1, 0 } },
		{ { PI, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 } },
		{ { 0, -h, 0 }, { 1, 0, 0 }, { 0, 0, 1 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double q[4], out[3];
		smdmx_euler_to_quat(cases[i].e, q);
		rotate(q, cases[i].v, out);
		assert_vec(out, cases[i].img, 3, 1e-15);
	}
	/* The quaternion of (90, 0, 0) is (sin 45, 0, 0, cos 45) (Valve's AngleQuaternion). */
	double q[4], want[4] = { sqrt(0.5), 0, 0, sqrt(0.5) };
	smdmx_euler_to_quat((double[3]){ h, 0, 0 }, q);
	assert_vec(q, want, 4, 1e-15);
}

static void assert_same_rotation(const double e[3], const double back[3], double tol)
{
	double ma[3][3], mb[3][3];
	smdmx_euler_to_matrix(e, ma);
	smdmx_euler_to_matrix(back, mb);
	for (int i = 0; i < 3; i++) assert_vec(ma[i], mb[i], 3, tol);
}

static void round_trip(const double e[3], double tol)
{
	double q[4], back[3], q2[4];
	smdmx_euler_to_quat(e, q);
	smdmx_quat_to_euler(q, NULL, back);
	for (int i = 0; i < 3; i++) {
		assert_true(back[i] > -PI && back[i] <= PI);
	}
	assert_true(back[1] >= -PI / 2 && back[1] <= PI / 2);
	assert_same_rotation(e, back, tol);
	/* and the quaternion again, up to sign */
	smdmx_euler_to_quat(back, q2);
	double d = q[0] * q2[0] + q[1] * q2[1] + q[2] * q2[2] + q[3] * q2[3];
	assert_true(fabs(fabs(d) - 1) < tol);
}

/* A grid with steps of 15 degrees that includes the gimbal poles ry = +-90. */
static void test_grid_with_poles(void **state)
{
	(void)state;
	for (int x = -12; x <= 12; x++)
		for (int y = -6; y <= 6; y++)
			for (int z = -12; z <= 12; z++) {
				double e[3] = { x * PI / 12, y * PI / 12, z * PI / 12 };
				round_trip(e, 1e-12);
			}
}

static uint64_t rng_state = 0x243F6A8885A308D3u;
static double rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717u) >> 11) / 9007199254740992.0;
}

static void test_random_angles(void **state)
{
	(void)state;
	for (int i = 0; i < 100000; i++) {
		double e[3] = { (rnd() * 2 - 1) * 4, (rnd() * 2 - 1) * 4, (rnd() * 2 - 1) * 4 };
		round_trip(e, 1e-10);
	}
	/* near the poles */
	for (int i = 0; i < 10000; i++) {
		double e[3] = { (rnd() * 2 - 1) * PI, PI / 2 - rnd() * 1e-7, (rnd() * 2 - 1) * PI };
		round_trip(e, 1e-8); /* near the pole rx and rz are ill-conditioned; still far below float32 */
	}
}

/* Cross-check with cglm's glm_euler_zyx: the same matrix at float precision. */
static void test_matches_cglm(void **state)
{
	(void)state;
	for (int i = 0; i < 10000; i++) {
		double e[3] = { (rnd() * 2 - 1) * PI, (rnd() * 2 - 1) * PI, (rnd() * 2 - 1) * PI };
		vec3 ef = { (float)e[0], (float)e[1], (float)e[2] };
		mat4 m;
		glm_euler_zyx(ef, m);
		double q[4], mq[3][3];
		smdmx_euler_to_quat(e, q);
		smdmx_quat_to_matrix(q, mq);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) /* cglm is column-major: m[col][row] */
				assert_true(fabs(mq[r][c] - (double)m[c][r]) < 2e-6);
	}
}

/* Along an animation the angles stay close to the previous frame's (no flips). */
static void test_continuity(void **state)
{
	(void)state;
	double prev[3] = { 0, 0, 0 };
	for (int f = 0; f <= 720; f++) {
		double a = f * PI / 180; /* rz turns twice around; ry passes through the pole */
		double e[3] = { 0.3, sin(a) * (PI / 2), a }, q[4], back[3];
		smdmx_euler_to_quat(e, q);
		smdmx_quat_to_euler(q, f ? prev : NULL, back);
		assert_same_rotation(e, back, 1e-9);
		if (f) {
			for (int i = 0; i < 3; i++)
				if (fabs(back[i] - prev[i]) > 0.2) fail_msg("frame %d axis %d jumps %.6f -> %.6f", f, i, prev[i], back[i]);
		}
		memcpy(prev, back, sizeof(prev));
	}
	/* unwrapped: rz followed the turn past pi */
	assert_true(prev[2] > 10.0);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_axes),
		cmocka_unit_test(test_grid_with_poles),
		cmocka_unit_test(test_random_angles),
		cmocka_unit_test(test_matches_cglm),
		cmocka_unit_test(test_continuity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
