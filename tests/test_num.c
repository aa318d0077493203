/* The number module: float32 parsing exact against glibc's correctly rounded strtof in
 * the C locale, six-decimal printing identical to printf's in the C locale, whatever the
 * process locale (main sets it from the environment). */
#define _GNU_SOURCE
#include <locale.h>
#include <float.h>
#include <math.h>

#include "util.h"
#include "../src/support/num.h"
#include "c_numbers.h"

static float ref_parse(const char *s)
{
	return c_strtof(s);
}

static void ref_fixed6(float v, char *out, size_t n)
{
	c_numbers_state old = c_numbers_begin();
	snprintf(out, n, "%.6f", (double)v);
	c_numbers_end(old);
	if (strcmp(out, "-0.000000") == 0) strcpy(out, "0.000000");
}

static float parse_ok(const char *s)
{
	float f = -12345.0f;
	const char *next;
	assert_int_equal(sm_parse_float(s, s + strlen(s), &f, &next), SM_NUM_OK);
	assert_ptr_equal(next, s + strlen(s));
	return f;
}

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static void test_parse_forms(void **state)
{
	(void)state;
	assert_true(parse_ok("0") == 0.0f);
	assert_int_equal(bits(parse_ok("-0")), 0x80000000u);
	assert_true(parse_ok("1") == 1.0f);
	assert_true(parse_ok("1.") == 1.0f);
	assert_true(parse_ok(".25") == 0.25f);
	assert_true(parse_ok("+2.5") == 2.5f);
	assert_true(parse_ok("1.5e3") == 1500.0f);
	assert_true(parse_ok("1.5E+3") == 1500.0f);
	assert_true(parse_ok("-2e-1") == -0.2f);
	assert_true(parse_ok("0.000000") == 0.0f);
	assert_true(parse_ok("-6.253017") == -6.253017f);
	assert_true(parse_ok("3.4028234e38") == 3.4028234e38f);
	/* A float midpoint written exactly: 1 + 2^-24 rounds to even (1.0), and just above
	 * it rounds up. */
	assert_int_equal(bits(parse_ok("1.000000059604644775390625")), bits(1.0f));
	assert_int_equal(bits(parse_ok("1.000000059604644775390626")), bits(1.0f) + 1);
	/* Subnormal and underflow */
	assert_int_equal(bits(parse_ok("1e-45")), 1u);
	assert_true(parse_ok("1e-60") == 0.0f);
	/* the eight-digit fraction path: runs of 1 to 12 digits inside a long buffer */
	const char *longs = "0.5 x-0.1234567 1.12345678 2.123456789012 7. ";
	float f;
	const char *next;
	assert_int_equal(sm_parse_float(longs, longs + strlen(longs), &f, &next), SM_NUM_OK);
	assert_true(f == 0.5f && next == longs + 3);
	assert_int_equal(sm_parse_float(longs + 5, longs + strlen(longs), &f, &next), SM_NUM_OK);
	assert_true(f == -0.1234567f && next == longs + 15);
	assert_int_equal(sm_parse_float(longs + 16, longs + strlen(longs), &f, &next), SM_NUM_OK);
	assert_true(f == 1.12345678f && next == longs + 26);
	assert_int_equal(sm_parse_float(longs + 27, longs + strlen(longs), &f, &next), SM_NUM_OK);
	assert_true(f == 2.123456789012f && next == longs + 41);
	assert_int_equal(sm_parse_float(longs + 42, longs + strlen(longs), &f, &next), SM_NUM_OK);
	assert_true(f == 7.0f && next == longs + 44);
}

static void test_parse_errors(void **state)
{
	(void)state;
	const char *bad[] = { "", "-", ".", "e5", "1e", "1e+", "x", "--1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		float f;
		const char *next;
		assert_int_equal(sm_parse_float(bad[i], bad[i] + strlen(bad[i]), &f, &next), SM_NUM_BAD);
	}
	const char *range[] = { "nan", "NaN", "-nan", "inf", "-Infinity", "1e39", "3.5e38", "1.#INF", "1.#QNAN" };
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++) {
		float f;
		const char *next;
		assert_int_equal(sm_parse_float(range[i], range[i] + strlen(range[i]), &f, &next), SM_NUM_RANGE);
	}
	/* The parser stops at the end it is given, never past it. */
	float f;
	const char *next;
	const char *s = "12345";
	assert_int_equal(sm_parse_float(s, s + 2, &f, &next), SM_NUM_OK);
	assert_true(f == 12.0f);
	assert_ptr_equal(next, s + 2);
}

static void test_parse_int(void **state)
{
	(void)state;
	int64_t v;
	const char *next;
	const char *s = "-42";
	assert_int_equal(sm_parse_int(s, s + 3, &v, &next), SM_NUM_OK);
	assert_int_equal(v, -42);
	s = "1.0";
	assert_int_equal(sm_parse_int(s, s + 3, &v, &next), SM_NUM_OK);
	assert_int_equal(v, 1);
	s = "1.5";
	assert_int_equal(sm_parse_int(s, s + 3, &v, &next), SM_NUM_BAD);
	s = "99999999999999999999999";
	assert_int_equal(sm_parse_int(s, s + strlen(s), &v, &next), SM_NUM_RANGE);
	s = "x";
	assert_int_equal(sm_parse_int(s, s + 1, &v, &next), SM_NUM_BAD);
	/* the inline fast path (five readable bytes) and its hand-over to the full parser */
	s = "1234 x";
	assert_int_equal(sm_parse_int(s, s + 6, &v, &next), SM_NUM_OK);
	assert_int_equal(v, 1234);
	assert_ptr_equal(next, s + 4);
	s = "12345 ";
	assert_int_equal(sm_parse_int(s, s + 6, &v, &next), SM_NUM_OK);
	assert_int_equal(v, 12345);
	s = "12.0  ";
	assert_int_equal(sm_parse_int(s, s + 6, &v, &next), SM_NUM_OK);
	assert_int_equal(v, 12);
	s = "3e5   ";
	assert_int_equal(sm_parse_int(s, s + 6, &v, &next), SM_NUM_BAD);
	s = "7\t\t\t\t";
	assert_int_equal(sm_parse_int(s, s + 5, &v, &next), SM_NUM_OK);
	assert_int_equal(v, 7);
	assert_ptr_equal(next, s + 1);
}

/* xorshift64*: a fixed-seed generator so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717u;
}

static void test_parse_random_exact(void **state)
{
	(void)state;
	char buf[64];
	c_numbers_state old = c_numbers_begin();
	for (int i = 0; i < 300000; i++) {
		uint64_t r = rng();
		switch (i % 4) {
		case 0: /* SMD-style six decimals */
			snprintf(buf, sizeof(buf), "%s%llu.%06llu", (r & 1) ? "-" : "", (unsigned long long)((r >> 1) % 100000),
			         (unsigned long long)((r >> 20) % 1000000));
			break;
		case 1: { /* any float, printed with 9 significant digits */
			uint32_t u = (uint32_t)r;
			float f;
			memcpy(&f, &u, 4);
			if (!isfinite(f)) f = 1.0f;
			snprintf(buf, sizeof(buf), "%.9g", (double)f);
			break;
		}
		case 2: /* long mantissas and exponents */
			snprintf(buf, sizeof(buf), "%llu.%llue%d", (unsigned long long)(r % 1000000000000ull),
			         (unsigned long long)(r >> 40), (int)((r >> 8) % 60) - 40);
			break;
		default: /* near float midpoints: a float plus half an ulp, 17 digits */
		{
			float f = (float)((double)(r % 1000000) / 997.0);
			double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
			snprintf(buf, sizeof(buf), "%.17g", mid);
		}
		}
		c_numbers_end(old);
		float got = parse_ok(buf), want = ref_parse(buf);
		old = c_numbers_begin();
		if (bits(got) != bits(want)) fail_msg("'%s': got %a, want %a", buf, (double)got, (double)want);
	}
	c_numbers_end(old);
}

/* The text of w / 10^frac in plain notation, written with digits digits at least (leading
 * zeros: "0012.5"), a '-' first when neg. Its length. */
static size_t plain_text(char *buf, uint64_t w, int frac, int digits, bool neg)
{
	char d[40];
	int nd = snprintf(d, sizeof(d), "%0*llu", digits > frac + 1 ? digits : frac + 1, (unsigned long long)w);
	size_t k = 0;
	if (neg) buf[k++] = '-';
	memcpy(buf + k, d, (size_t)(nd - frac));
	k += (size_t)(nd - frac);
	if (frac) {
		buf[k++] = '.';
		memcpy(buf + k, d + nd - frac, (size_t)frac);
		k += (size_t)frac;
	}
	buf[k] = '\0';
	return k;
}

/* The float fast path's domain (digits below 2^24, at most 10 decimals: one float division)
 * and its edges: every text parses to strtof's float, on both sides of 2^24 and of 10
 * decimals. */
static void test_parse_float_division(void **state)
{
	(void)state;
	char buf[64];
	c_numbers_state old = c_numbers_begin();
	for (int frac = 0; frac <= 12; frac++) {
		for (int i = 0; i < 40000; i++) {
			uint64_t r = rng();
			/* half near 2^24, half anywhere below 2^25 */
			uint64_t w = i % 2 ? (1u << 24) - 2000 + r % 4000 : r % (1u << 25);
			plain_text(buf, w, frac, 0, r >> 63);
			c_numbers_end(old);
			float got = parse_ok(buf), want = ref_parse(buf);
			old = c_numbers_begin();
			if (bits(got) != bits(want)) fail_msg("'%s': got %a, want %a", buf, (double)got, (double)want);
		}
	}
	c_numbers_end(old);
}

/* Doubles (skeleton rotations) in plain notation with digits below 2^53: the quotient of two
 * exact doubles, so strtod's correctly rounded value, whether the inline path or the general
 * one reads them; leading zeros, signs, 0 to 22 decimals. */
static void test_parse_double_plain(void **state)
{
	(void)state;
	char buf[64];
	for (int i = 0; i < 200000; i++) {
		uint64_t r = rng();
		int frac = (int)(r % 23);
		uint64_t w = (rng() >> 11) >> (r >> 8) % 50; /* below 2^53, of every length */
		size_t k = plain_text(buf, w, frac, frac + 1 + (int)((r >> 16) % 3), (r >> 20) & 1);
		double got, want = c_strtod(buf);
		const char *next;
		if (sm_parse_double(buf, buf + k, &got, &next) != SM_NUM_OK || next != buf + k)
			fail_msg("'%s' did not read", buf);
		if (memcmp(&got, &want, sizeof(got)) != 0) fail_msg("'%s': got %a, want %a", buf, got, want);
	}
}

static void test_format_fixed6(void **state)
{
	(void)state;
	char got[SM_FIXED6_MAX], want[128];
	float cases[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.0078125f, 0.5e-6f, -0.4e-6f, 123456.789f, 3.4028235e38f,
	                  -3.4028235e38f, 9.3e12f, 1e-45f, 16777216.0f, 0.1f };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = sm_format_fixed6(cases[i], got);
		ref_fixed6(cases[i], want, sizeof(want));
		assert_string_equal(got, want);
		assert_int_equal(n, strlen(want));
	}
	for (int i = 0; i < 300000; i++) {
		uint32_t u = (uint32_t)rng();
		float f;
		if (i % 2) {
			memcpy(&f, &u, 4);
			if (!isfinite(f)) continue;
		} else {
			f = (float)((double)(int32_t)u / 4096.0);
		}
		sm_format_fixed6(f, got);
		ref_fixed6(f, want, sizeof(want));
		if (strcmp(got, want) != 0) fail_msg("%a: got %s, want %s", (double)f, got, want);
	}
	/* a double beyond the float range: FLT_MAX with its sign (the cast to float would be
	 * undefined, and its digits would not fit) */
	ref_fixed6(FLT_MAX, want, sizeof(want));
	sm_format_fixed6_double(1e39, got);
	assert_string_equal(got, want);
	sm_format_fixed6_double(-DBL_MAX, got);
	assert_string_equal(got + 1, want);
	assert_int_equal(got[0], '-');
}

static void test_fixed6_round_trip(void **state)
{
	(void)state;
	/* Text with six decimals read, printed and read again gives the same float. */
	char buf[64], out[SM_FIXED6_MAX];
	for (int i = 0; i < 200000; i++) {
		uint64_t r = rng();
		snprintf(buf, sizeof(buf), "%s%llu.%06llu", (r & 1) ? "-" : "", (unsigned long long)((r >> 1) % 10000000),
		         (unsigned long long)((r >> 30) % 1000000));
		float a = parse_ok(buf);
		sm_format_fixed6(a, out);
		float b = parse_ok(out);
		if (bits(a) != bits(b) && !(a == 0 && b == 0)) fail_msg("%s -> %s", buf, out);
	}
}

/* The SMD float: six decimals when exact, else more; always reads back bit-identical. */
static void test_format_float_exact(void **state)
{
	(void)state;
	char out[SM_FLOAT_MAX];
	sm_format_float(0.12345678f, out);
	assert_string_equal(out, "0.12345678");
	sm_format_float(1.5f, out);
	assert_string_equal(out, "1.500000");
	sm_format_float(-6.253017f, out);
	assert_string_equal(out, "-6.253017");
	sm_format_float(1e-45f, out);
	assert_string_equal(out, "1.40129846e-45");
	/* tiny magnitudes as "%.9g" writes them (formatted in integers, not by printf): nine
	 * digits rounded half to even, trailing zeros dropped, a two-digit exponent at least */
	sm_format_float(1.17549435e-38f, out);
	assert_string_equal(out, "1.17549435e-38");
	sm_format_float(1.23456789e-8f, out);
	assert_string_equal(out, "1.23456791e-08");
	sm_format_float(-ldexpf(1.0f, -40), out);
	assert_string_equal(out, "-9.09494702e-13");
	sm_format_float(3.3e-20f, out);
	assert_string_equal(out, "3.2999999e-20"); /* a trailing zero dropped */
	sm_format_float(ldexpf(1.0f, -20), out); /* 9.5367431640625e-07, its tenth digit a 6 */
	assert_string_equal(out, "9.53674316e-07");
	/* v 10^k a hair above a half, its product in double a half exactly: the product cannot
	 * decide the rounding, and the integers do (up) */
	const struct {
		uint32_t bits;
		const char *text;
	} near_half[] = { { 0x03855f84u, "7.83896675e-37" }, { 0x05f79a70u, "2.32844998e-35" }, { 0x079ac086u, "2.32844998e-34" } };
	for (size_t i = 0; i < sizeof(near_half) / sizeof(near_half[0]); i++) {
		float f;
		memcpy(&f, &near_half[i].bits, 4);
		sm_format_float(f, out);
		assert_string_equal(out, near_half[i].text);
		sm_format_float(-f, out);
		assert_true(out[0] == '-' && !strcmp(out + 1, near_half[i].text));
	}
	/* and 200,000 random ones below 1e-4 (every one was checked once against "%.9g": 0 < |v| < 1,
	 * both signs) */
	for (int i = 0; i < 200000; i++) {
		uint32_t u = (uint32_t)rng() % 0x38d1b717u; /* below 1e-4f */
		float f;
		memcpy(&f, &u, 4);
		if (i & 1) f = -f;
		if (f == 0) continue;
		sm_format_float(f, out);
		if (!strchr(out, 'e')) continue;
		char want[64];
		snprintf(want, sizeof(want), "%.9g", (double)f);
		for (char *c = want; *c; c++)
			if (*c == ',') *c = '.'; /* (the suite also runs in a comma-decimal locale) */
		if (strcmp(out, want)) fail_msg("%a: %s, \"%%.9g\" %s", (double)f, out, want);
	}
	sm_format_float(3.4028235e38f, out);
	assert_true(parse_ok(out) == 3.4028235e38f);
	/* every power of two and its neighbours, where the float spacing changes */
	for (int k = -149; k <= 127; k++) {
		float p2 = ldexpf(1.0f, k);
		float cases[6] = { p2, nextafterf(p2, 0), nextafterf(p2, INFINITY), -p2, -nextafterf(p2, 0),
		                   -nextafterf(p2, INFINITY) };
		for (int c = 0; c < 6; c++) {
			if (!isfinite(cases[c]) || cases[c] == 0) continue; /* zero is written unsigned */
			sm_format_float(cases[c], out);
			float back = parse_ok(out);
			if (bits(back) != bits(cases[c])) fail_msg("%a -> %s -> %a", (double)cases[c], out, (double)back);
		}
	}
	for (int i = 0; i < 400000; i++) {
		uint32_t u = (uint32_t)rng();
		float f;
		if (i % 3 == 0) {
			memcpy(&f, &u, 4);
			if (!isfinite(f)) continue;
		} else if (i % 3 == 1) {
			f = (float)((double)(int32_t)u / 1e5);
		} else {
			f = (float)((double)(int32_t)u / 7e8);
		}
		size_t n = sm_format_float(f, out);
		assert_int_equal(n, strlen(out));
		float back = parse_ok(out);
		if (bits(back) != bits(f) && !(f == 0 && back == 0)) fail_msg("%a -> %s -> %a", (double)f, out, (double)back);
	}
}

/* The fewest significant digits that read back as f: for each count, printf's correctly
 * rounded digits, else the next ones up or down (at a power of two the interval is lopsided).
 * The nearest of that count wins. */
static int ref_shortest(float f, double *value)
{
	c_numbers_state old = c_numbers_begin();
	char buf[64];
	int p = 1;
	for (; p <= 9; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, fabs((double)f));
		long long m = 0;
		int e;
		for (const char *q = buf; *q != 'e'; q++)
			if (*q >= '0' && *q <= '9') m = m * 10 + (*q - '0');
		e = atoi(strchr(buf, 'e') + 1) - (p - 1);
		long long tries[3] = { m, m + 1, m - 1 };
		for (int t = 0; t < 3; t++) {
			snprintf(buf, sizeof(buf), "%s%llde%d", f < 0 ? "-" : "", tries[t], e);
			if (bits(strtof(buf, NULL)) == bits(f)) {
				*value = strtod(buf, NULL);
				c_numbers_end(old);
				return p;
			}
		}
	}
	c_numbers_end(old);
	fail_msg("%a: no reference", (double)f);
	return 0;
}

static void check_shortest(float f)
{
	char out[40];
	size_t n = sm_format_shortest(f, out);
	assert_int_equal(n, strlen(out));
	float back = parse_ok(out);
	if (bits(back) != bits(f)) fail_msg("%a -> %s -> %a", (double)f, out, (double)back);
	double want;
	int p = ref_shortest(f, &want);
	/* the same number as printf's shortest: as few digits, and the closest of that many */
	c_numbers_state old = c_numbers_begin();
	double got = strtod(out, NULL);
	c_numbers_end(old);
	if (got != want) fail_msg("%a: %s, want %d digits: %.17g", (double)f, out, p, want);
}

/* The DMX float: fewest digits that read back exactly, checked against printf over every
 * power of two with its neighbours and random values. */
static void test_format_shortest(void **state)
{
	(void)state;
	char out[40];
	static const struct {
		float v;
		const char *text;
	} known[] = { { 0.1f, "0.1" },       { -16211.5928f, "-16211.593" }, { 16777216.0f, "16777216" }, { 1.5e-7f, "1.5e-7" },
		          { -0.0f, "-0" },       { 1e-45f, "1e-45" },            { 3.4028235e38f, "3.4028235e38" },
		          /* an end of the interval exactly halfway to the next float, which reads back
		           * (the significand is even): seven digits, not eight */
		          { 0x1.0943b8p+37f, "142412800000" },
		          /* 1.01946066500000008e-16: above the midpoint of the nine-digit pair */
		          { 0x1.d624acp-54f, "1.01946067e-16" } };
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		sm_format_shortest(known[k].v, out);
		assert_string_equal(out, known[k].text);
	}
	for (int k = -149; k <= 127; k++) {
		float p2 = ldexpf(1.0f, k);
		float cases[4] = { p2, nextafterf(p2, 0), nextafterf(p2, INFINITY), -p2 };
		for (int c = 0; c < 4; c++)
			if (cases[c] != 0 && isfinite(cases[c])) check_shortest(cases[c]);
	}
	for (int i = 0; i < 200000; i++) {
		uint32_t u = (uint32_t)rng();
		float f;
		if (i % 3 == 0) {
			memcpy(&f, &u, 4);
			if (!isfinite(f) || f == 0) continue;
		} else if (i % 3 == 1) {
			f = (float)((double)(int32_t)u / 1e6); /* six-decimal values, as SMD holds */
		} else {
			f = (float)((double)(int32_t)u / 7e8);
		}
		if (f != 0) check_shortest(f);
	}
}

static void test_format_int(void **state)
{
	(void)state;
	char buf[24];
	buf[sm_format_int(0, buf)] = '\0';
	assert_string_equal(buf, "0");
	buf[sm_format_int(-1, buf)] = '\0';
	assert_string_equal(buf, "-1");
	buf[sm_format_int(INT64_MIN, buf)] = '\0';
	assert_string_equal(buf, "-9223372036854775808");
}


/* The math functions printed numbers come from (support/fmath.c): these bits on every
 * system (the same test runs under Wine on the Windows build), C's rules for signed zeros,
 * infinities and NaN, exact powers of ten. */
static void test_math_same_bits(void **state)
{
	(void)state;
	static const struct {
		const char *what;
		uint64_t bits;
	} want[] = {
	{ "sin 0.5", 0x3fdeaee8744b05f0ull }, /* 0.47942553860420301 */
	{ "sin 3", 0x3fc210386db6d55bull }, /* 0.14112000805986721 */
	{ "sin -100.25", 0x3fd1bf00980dc35dull }, /* 0.27728285645485135 */
	{ "sin 1e5", 0x3fa24daa9c527e96ull }, /* 0.035748797972016508 */
	{ "cos 0.5", 0x3fec1528065b7d50ull }, /* 0.87758256189037276 */
	{ "cos 2", 0xbfdaa22657537205ull }, /* -0.41614683654714241 */
	{ "cos -7.75", 0x3fba924459c41abdull }, /* 0.10379435721925297 */
	{ "cos pi/2", 0x3c91a62633145c00ull }, /* 6.1232339957367574e-17 */
	{ "atan2 1 2", 0x3fddac670561bb4full }, /* 0.46364760900080609 */
	{ "atan2 -3 -0.5", 0xbffbc66e44cbc074ull }, /* -1.7359450042095235 */
	{ "atan2 1e-20 -1", 0x400921fb54442d18ull }, /* 3.1415926535897931 */
	{ "atan2 0.7 0.69", 0x3fe95cea7e4b836dull }, /* 0.7925922838877405 */
	{ "acos 0.999999", 0x3f572ba46065af16ull }, /* 0.0014142136802445852 */
	{ "acos -0.3", 0x3ffe0200bbc96ad9ull }, /* 1.8754889808102944 */
	{ "hypot 3e200 4e200", 0x699a20df0dcd3af0ull }, /* 4.9999999999999995e+200 */
	{ "hypot 1 1e-9", 0x3ff0000000000000ull }, /* 1 */
	{ "pow10 -30", 0x39b4484bfeebc2a0ull }, /* 1.0000000000000001e-30 */
	{ "pow10 40", 0x483d6329f1c35ca5ull }, /* 1e+40 */
	};
	const double got[] = { sm_sin(0.5), sm_sin(3), sm_sin(-100.25), sm_sin(1e5), sm_cos(0.5), sm_cos(2), sm_cos(-7.75),
		               sm_cos(1.5707963267948966), sm_atan2(1, 2), sm_atan2(-3, -0.5), sm_atan2(1e-20, -1),
		               sm_atan2(0.7, 0.69), sm_acos(0.999999), sm_acos(-0.3), sm_hypot(3e200, 4e200), sm_hypot(1, 1e-9),
		               sm_pow10i(-30), sm_pow10i(40) };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t bits;
		memcpy(&bits, &got[i], 8);
		if (bits != want[i].bits) fail_msg("%s: %016llx, not %016llx", want[i].what, (unsigned long long)bits, (unsigned long long)want[i].bits);
	}
	assert_true(signbit(sm_sin(-0.0)) && sm_sin(-0.0) == 0);
	assert_true(signbit(sm_atan2(-0.0, 1)) && sm_atan2(-0.0, 1) == 0);
	assert_true(sm_atan2(0.0, -0.0) == sm_atan2(0.0, -1) && sm_atan2(0.0, -1) > 3.14159);
	assert_true(sm_atan2(-1, 0) == -sm_atan2(1, 0));
	assert_true(sm_atan2(1, INFINITY) == 0 && sm_atan2(INFINITY, 1) == sm_acos(0));
	assert_true(isnan(sm_sin(INFINITY)) && isnan(sm_cos(NAN)) && isnan(sm_atan2(NAN, 1)) && isnan(sm_acos(1.5)));
	assert_true(sm_acos(1) == 0 && sm_acos(-1) == sm_atan2(0, -1));
	assert_true(sm_hypot(-3, 4) == 5 && sm_hypot(0, 0) == 0 && isinf(sm_hypot(NAN, INFINITY)));
	for (int e = 0; e <= 22; e++) assert_true(sm_pow10i(e) == sm_pow10_exact[e]);
	assert_true(sm_pow10i(23) == 1e23 && sm_pow10i(-5) == 1e-5);
	assert_int_equal(sm_floor_log10(1), 0);
	assert_int_equal(sm_floor_log10(9.999999), 0);
	assert_int_equal(sm_floor_log10(10), 1);
	assert_int_equal(sm_floor_log10(0.1), -1);
	assert_int_equal(sm_floor_log10(0.099999), -2);
	assert_int_equal(sm_floor_log10(123456), 5);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_parse_random_exact),
		cmocka_unit_test(test_parse_float_division),
		cmocka_unit_test(test_parse_double_plain),
		cmocka_unit_test(test_format_fixed6),
		cmocka_unit_test(test_fixed6_round_trip),
		cmocka_unit_test(test_format_float_exact),
		cmocka_unit_test(test_format_shortest),
		cmocka_unit_test(test_format_int),
		cmocka_unit_test(test_math_same_bits),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	return rc;
}
