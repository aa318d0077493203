/* The math functions the library computes printed numbers with (support/num.h: sm_sin,
 * sm_cos, sm_atan2, sm_acos, sm_hypot, sm_pow10i, sm_floor_log10), made of IEEE-754
 * double's own operations only (+, -, *, / and sqrt, each correctly rounded on every
 * system; floor, fabs and copysign, which are exact), in a fixed order: the same bits on every
 * system and compiler, where each C library's sin, atan2 or pow rounds its own way (a
 * rotation printed by smdmx on Windows and Linux differed in its seventh digit, the value
 * being a difference of nearly equal terms: doc/conventions.md, "Computed numbers").
 * The build keeps the compiler from fusing a multiply and an add (-ffp-contract=off).
 *
 * Accuracy: within 2 units in the last place of the C library's result (measured against
 * glibc's over 4 million arguments each) over the angles a model holds (|x| < 2^19 pi;
 * farther out sm_sin and sm_cos are reduced less exactly, still the same everywhere), far
 * finer than the float32 the results are printed as; signed zeros, infinities and NaN as
 * C's functions give them. */
#include <math.h>

#include "support/num.h"

/* pi/2 in three parts, the first two of 33 significant bits, so that k times either is
 * exact for |k| < 2^20 (Cody and Waite's reduction). */
static const double PIO2_1 = 1.57079632673412561417e+00;
static const double PIO2_2 = 6.07710050630396597660e-11;
static const double PIO2_3 = 2.02226624871116645580e-21;
static const double PI = 3.14159265358979311600e+00, PI_LO = 1.22464679914735317723e-16; /* pi = PI + PI_LO */
static const double PI_2 = 1.57079632679489655800e+00, PI_2_LO = 6.12323399573676588613e-17;

/* sin and cos of r, |r| <= pi/4 (about): polynomials of degree 13 and 14 whose coefficients
 * are the minimax ones for that interval (to within 2^-58 of sin and cos there; the same
 * numbers as in Sun's fdlibm, a fact of the functions), by Horner's rule. */
static const double SIN_C[6] = { -1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
	                         2.75573137070700676789e-06,  -2.50507602534068634195e-08, 1.58969099521155010221e-10 };
static const double COS_C[6] = { 4.16666666666666019037e-02,  -1.38888888888741095749e-03, 2.48015872894767294178e-05,
	                         -2.75573143513906633035e-07, 2.08757232129817482790e-09,  -1.13596475577881948265e-11 };

static double sin_kernel(double r)
{
	double s = r * r;
	double p = SIN_C[0] + s * (SIN_C[1] + s * (SIN_C[2] + s * (SIN_C[3] + s * (SIN_C[4] + s * SIN_C[5]))));
	return r + r * s * p;
}

static double cos_kernel(double r)
{
	double s = r * r;
	double p = COS_C[0] + s * (COS_C[1] + s * (COS_C[2] + s * (COS_C[3] + s * (COS_C[4] + s * COS_C[5]))));
	return (1 - 0.5 * s) + s * s * p;
}

/* x = k pi/2 + r, |r| <= pi/4 (about): r and k mod 4. */
static double reduce(double x, int *quadrant)
{
	if (fabs(x) <= 0.78539816339744827900) {
		*quadrant = 0;
		return x;
	}
	if (!(fabs(x) < 8.2e5)) x = fmod(x, 2 * PI); /* fmod is exact: the same everywhere */
	double k = floor(x * 6.36619772367581382433e-01 + 0.5);
	double r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
	*quadrant = (int)((long long)k & 3);
	return r;
}

double sm_sin(double x)
{
	if (isnan(x) || isinf(x)) return x - x;
	if (x == 0) return x; /* -0 stays -0 */
	int q;
	double r = reduce(x, &q);
	switch (q) {
	case 0: return sin_kernel(r);
	case 1: return cos_kernel(r);
	case 2: return -sin_kernel(r);
	default: return -cos_kernel(r);
	}
}

void sm_sincos(double x, double *s, double *c)
{
	if (isnan(x) || isinf(x)) {
		*s = *c = x - x;
		return;
	}
	if (x == 0) { /* -0 stays -0 */
		*s = x;
		*c = 1;
		return;
	}
	int q;
	double r = reduce(x, &q), sr = sin_kernel(r), cr = cos_kernel(r);
	switch (q) {
	case 0: *s = sr, *c = cr; break;
	case 1: *s = cr, *c = -sr; break;
	case 2: *s = -sr, *c = -cr; break;
	default: *s = -cr, *c = sr; break;
	}
}

double sm_cos(double x)
{
	if (isnan(x) || isinf(x)) return x - x;
	int q;
	double r = reduce(x, &q);
	switch (q) {
	case 0: return cos_kernel(r);
	case 1: return -sin_kernel(r);
	case 2: return -cos_kernel(r);
	default: return sin_kernel(r);
	}
}

/* atan of a, 0 <= a <= 1: near 1/2 and 1 by atan a = atan c + atan((a - c) / (1 + a c)), whose
 * numerator is exact there (c = 1/2: (2a - 1) / (2 + a); c = 1: (a - 1) / (a + 1)), then
 * t + t^3 p(t^2), p of the minimax polynomial of degree 23 for atan on |t| <= 7/16 (the
 * same numbers as fdlibm's). */
static double atan_01(double a)
{
	static const double C[11] = { -3.33333333333329318027e-01, 1.99999999998764832476e-01, -1.42857142725034663711e-01,
		                      1.11111104054623557880e-01,  -9.09088713343650656196e-02, 7.69187620504482999495e-02,
		                      -6.66107313738753120669e-02, 5.83357013379057348645e-02, -4.97687799461593236017e-02,
		                      3.65315727442169155270e-02,  -1.62858201153657823623e-02 };
	/* atan(1/2) and atan(1) = pi/4, each as a double and the rest */
	static const double HI[2] = { 4.63647609000806093515e-01, 7.85398163397448278999e-01 };
	static const double LO[2] = { 2.26987774529616870924e-17, 3.06161699786838301793e-17 };
	int k = -1;
	if (a > 0.6875) {
		a = (a - 1) / (a + 1);
		k = 1;
	} else if (a > 0.4375) {
		a = (2 * a - 1) / (2 + a);
		k = 0;
	}
	double s = a * a, p = C[10];
	for (int i = 9; i >= 0; i--) p = C[i] + s * p;
	double series = a * s * p;
	if (k < 0) return a + series;
	return HI[k] + ((LO[k] + series) + a);
}

double sm_atan2(double y, double x)
{
	if (isnan(x) || isnan(y)) return x + y;
	double ax = fabs(x), ay = fabs(y), r;
	if (ay == 0) {
		r = signbit(x) ? PI : 0; /* atan2(+-0, -0 or x < 0) = +-pi; (+-0, +0 or x > 0) = +-0 */
	} else if (isinf(ax) && isinf(ay)) {
		r = signbit(x) ? 3 * (PI / 4) : PI / 4;
	} else if (ay > ax) {
		double t = atan_01(ax / ay); /* the angle from the y axis */
		r = signbit(x) ? (PI_2 + t) + PI_2_LO : (PI_2 - t) + PI_2_LO;
	} else {
		double t = atan_01(ay / ax);
		r = signbit(x) ? (PI - t) + PI_LO : t;
	}
	return copysign(r, y);
}

double sm_acos(double x)
{
	if (isnan(x) || fabs(x) > 1) return (x - x) / (x - x);
	if (x == -1) return PI + PI_LO;
	/* acos x = 2 atan sqrt((1 - x) / (1 + x)); 1 - x is exact where it matters (x near 1) */
	double t = sqrt((1 - x) / (1 + x));
	return 2 * (t > 1 ? (PI_2 - atan_01(1 / t)) + PI_2_LO : atan_01(t));
}

double sm_hypot(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	if (isinf(a) || isinf(b)) return INFINITY;
	if (isnan(a) || isnan(b)) return a + b;
	if (a < b) {
		double t = a;
		a = b;
		b = t;
	}
	if (a == 0) return 0;
	double r = b / a;
	return a * sqrt(1 + r * r);
}

double sm_pow10i(int e)
{
	double v = 1;
	if (e < 0) {
		for (; e < -22; e += 22) v /= sm_pow10_exact[22];
		return v / sm_pow10_exact[-e];
	}
	while (e > 22) {
		v *= sm_pow10_exact[22];
		e -= 22;
	}
	return v * sm_pow10_exact[e];
}

int sm_floor_log10(double v)
{
	int e2;
	frexp(v, &e2);
	int e = (int)floor((e2 - 1) * 0.30102999566398119521);
	while (v >= sm_pow10i(e + 1)) e++;
	while (v < sm_pow10i(e)) e--;
	return e;
}
