/* num_check: smdmx's float parser against the C library's correctly rounded strtof_l (C
 * locale), on N inputs (default 10^8) of nine kinds, and the shortest printer against the
 * parser. A benchmark-class test: `meson test -C build --benchmark num-exact` (not part of
 * the default suite; it takes about a minute).
 *
 *   0  a random float32 (any bits but NaN and infinity) printed shortest by smdmx
 *   1  a random float32 printed with "%.9g"
 *   2  six decimals, as SMD writers print ("%.6f" of a random value below 10^4)
 *   3  the exact midpoint of two adjacent floats, to 41 significant digits (the hard case
 *      of rounding: ties and values a hair away from them)
 *   4  the midpoint to 17 digits, and moved by one unit in the last digit
 *   5  a subnormal float32, to 9 and to 41 digits
 *   6  20-digit mantissas with a point anywhere and an exponent from -60 to 45
 *   7  1 to 8 digits with an exponent from -50 to 45 ("3e-7", "-12.5E+20")
 *   8  the midpoint of two adjacent floats from 1 to 2^23 in plain notation to 16
 *      significant digits, kept or moved by one unit in the last digit: the fast path's
 *      case, where a double quotient can land exactly on a midpoint the text is not on
 *
 * Every input must give the bits strtof_l gives (SM_NUM_RANGE where it overflows), and
 * every shortest text must read back as its float, in as few digits as any text that does
 * and, of those, the one nearest the float (against glibc's correctly rounded printf: for
 * 1 to 9 digits, the nearest decimal and its neighbours in the last digit). Prints the
 * counts; exits 1 on any mismatch, listing the first ones. */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"

static uint64_t state = 0x9E3779B97F4A7C15u;

static uint64_t next_random(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545F4914F6CDD1Du;
}

static float random_float(void)
{
	for (;;) {
		uint32_t b = (uint32_t)next_random();
		float f;
		memcpy(&f, &b, 4);
		if (isfinite(f)) return f;
	}
}

static float made; /* kind 0's float */

static size_t make_input(int kind, char *t)
{
	switch (kind) {
	case 0: made = random_float(); return sm_format_shortest(made, t);
	case 1: return (size_t)snprintf(t, 64, "%.9g", (double)random_float());
	case 2: return (size_t)snprintf(t, 64, "%.6f", ((double)(next_random() >> 11) / 9007199254740992.0 - 0.5) * 2e4);
	case 3:
	case 4: {
		float f = random_float();
		if (fabsf(f) == FLT_MAX) f = 1.0f;
		double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
		if (kind == 3) return (size_t)snprintf(t, 96, "%.40e", mid);
		size_t n = (size_t)snprintf(t, 96, "%.16e", mid);
		/* one unit up or down in the last digit of the mantissa */
		char *e = strchr(t, 'e');
		char *d = e - 1;
		if (next_random() & 1) {
			while (*d == '9') *d-- = '0';
			if (*d != '.') (*d)++;
		} else {
			while (*d == '0') *d-- = '9';
			if (*d != '.') (*d)--;
		}
		return n;
	}
	case 5: {
		uint32_t b = (uint32_t)next_random() & 0x807FFFFFu;
		float f;
		memcpy(&f, &b, 4);
		return (size_t)snprintf(t, 96, next_random() & 1 ? "%.8e" : "%.40e", (double)f);
	}
	case 6: {
		size_t n = 0;
		if (next_random() & 1) t[n++] = '-';
		int point = (int)(next_random() % 21);
		for (int i = 0; i < 20; i++) {
			if (i == point) t[n++] = '.';
			t[n++] = (char)('0' + next_random() % 10);
		}
		n += (size_t)snprintf(t + n, 16, "e%d", (int)(next_random() % 106) - 60);
		return n;
	}
	case 8: {
		float f;
		do f = random_float(); while (!(fabsf(f) >= 1.0f && fabsf(f) < 0x1p23f));
		double mid = ((double)f + (double)nextafterf(f, f < 0 ? -INFINITY : INFINITY)) / 2;
		int p = 15 - (int)floor(log10(fabs(mid)));
		if (p < 0) p = 0;
		if (p > 22) p = 22;
		size_t n = (size_t)snprintf(t, 96, "%.*f", p, mid);
		uint64_t r = next_random() % 3;
		char *d = t + n - 1;
		if (r == 1) {
			while (*d == '9') *d-- = '0';
			if (*d != '.' && *d != '-') (*d)++;
		} else if (r == 2) {
			while (*d == '0') *d-- = '9';
			if (*d != '.' && *d != '-') (*d)--;
		}
		return n;
	}
	default: {
		size_t n = 0;
		if (next_random() & 1) t[n++] = '-';
		int digits = 1 + (int)(next_random() % 8);
		int point = (int)(next_random() % (uint64_t)(digits + 1));
		for (int i = 0; i < digits; i++) {
			if (i == point && i) t[n++] = '.';
			t[n++] = (char)('0' + next_random() % 10);
		}
		n += (size_t)snprintf(t + n, 16, next_random() & 1 ? "E%+d" : "e%d", (int)(next_random() % 96) - 50);
		return n;
	}
	}
}

/* Whether a decimal of p significant digits reads back as f (by glibc's correctly rounded
 * printf and strtof): the nearest, else (where the interval is lopsided, at a power of two)
 * one of its neighbours in the last digit; *value: the one found, the nearest first. */
static bool p_digits_read_back(float f, int p, locale_t c, double *value)
{
	char t[64];
	snprintf(t, sizeof(t), "%.*e", p - 1, (double)f);
	double near = strtod_l(t, NULL, c);
	if (strtof_l(t, NULL, c) == f) {
		*value = near;
		return true;
	}
	double unit = pow(10, atoi(strchr(t, 'e') + 1) - (p - 1));
	for (int side = -1; side <= 1; side += 2) {
		snprintf(t, sizeof(t), "%.*e", p - 1, near + side * unit);
		if (strtof_l(t, NULL, c) == f) {
			*value = strtod_l(t, NULL, c);
			return true;
		}
	}
	return false;
}

static int digits_of(const char *t)
{
	int n = 0, lead = 1, zeros = 0;
	for (; *t && *t != 'e' && *t != 'E'; t++) {
		if (*t < '0' || *t > '9') continue;
		if (lead && *t == '0') continue;
		lead = 0;
		n++;
		zeros = *t == '0' ? zeros + 1 : 0;
	}
	return n - zeros ? n - zeros : 1;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "C");
	uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000u;
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	uint64_t per_kind[9] = { 0 }, bad = 0, shortest = 0, ranges = 0;
	char t[128];
	for (uint64_t i = 0; i < total; i++) {
		int kind = (int)(i % 9);
		size_t n = make_input(kind, t);
		t[n] = '\0';
		per_kind[kind]++;
		errno = 0;
		char *stop;
		float want = strtof_l(t, &stop, c);
		float got = 0;
		const char *next = NULL;
		sm_num_status st = sm_parse_float(t, t + n, &got, &next);
		bool ok;
		if (isinf(want)) {
			ok = st == SM_NUM_RANGE;
			ranges++;
		} else {
			ok = st == SM_NUM_OK && next == t + n && memcmp(&got, &want, 4) == 0;
		}
		if (ok && kind == 0) {
			/* the shortest text was made from a float: it reads back as that float */
			ok = memcmp(&got, &made, 4) == 0;
			/* no fewer digits read back; of as many, the nearest is this one */
			double ref, fewer;
			int p = digits_of(t);
			if (ok && ((p > 1 && p_digits_read_back(made, p - 1, c, &fewer)) || !p_digits_read_back(made, p, c, &ref) ||
			           strtod_l(t, NULL, c) != ref)) {
				ok = false;
				if (bad < 10) printf("NOT SHORTEST OR NEAREST %s (%a)\n", t, (double)made);
			}
			shortest += ok;
		}
		if (!ok && bad++ < 10)
			printf("MISMATCH %s: strtof_l %.9g (%a), smdmx %.9g (%a), status %d\n", t, (double)want, (double)want,
			       (double)got, (double)got, (int)st);
	}
	freelocale(c);
	printf("num_check: %llu inputs (%llu per kind, kinds 0 to 8), %llu beyond float range, %llu shortest texts read back, shortest and nearest: "
	       "%llu mismatches\n",
	       (unsigned long long)total, (unsigned long long)per_kind[0], (unsigned long long)ranges,
	       (unsigned long long)shortest, (unsigned long long)bad);
	return bad ? 1 : 0;
}
