/* Number parsing and printing.
 *
 * Parsing takes the fast path of Clinger's algorithm: at most 19 significant digits give an
 * exact integer mantissa w, and when w < 2^53 and |exponent| <= 22 one IEEE multiplication
 * or division by an exact power of ten gives the correctly rounded double. Rounding that
 * double to float can only go wrong when it lands exactly on a float midpoint (double
 * rounding); that case, subnormals, and long mantissas go to the C library's correctly
 * rounded strtof in the C locale (os_strtod_c), so results never depend on LC_NUMERIC.
 *
 * Printing six decimals: v * 1e6 is exact in double (a 24-bit significand times
 * 15625 * 2^6 needs at most 38 bits), so rounding it to an integer with nearbyint (ties to
 * even, as printf) gives the correctly rounded result without any string conversion. */
#define _GNU_SOURCE
#include "support/num.h"
#include "platform/os.h"
#include "support/num_pow10.h"


#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SM_NUM_LIKELY(x) __builtin_expect(!!(x), 1)

const uint64_t sm_pow10_u64[20] = {
	1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
	10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
	1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
	10000000000000000000u,
};

const double sm_pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

const float sm_pow10_float[11] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f };

typedef struct scan {
	uint64_t w;        /* significant digits, at most 19 */
	int exp10;         /* value = w * 10^exp10 (before truncation) */
	bool neg;
	bool truncated;    /* digits beyond 19 were dropped */
	const char *end;   /* past the number */
} scan;

static inline bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* Lexes the number syntax; false when there is no number at p. */
static sm_num_status scan_number(const char *p, const char *end, scan *s)
{
	s->w = 0;
	s->exp10 = 0;
	s->neg = false;
	s->truncated = false;
	if (p < end && (*p == '-' || *p == '+')) {
		s->neg = *p == '-';
		p++;
	}
	int sig = 0;
	bool any = false;
	while (p < end && is_digit(*p)) {
		any = true;
		if (sig < 19) {
			s->w = s->w * 10 + (uint64_t)(*p - '0');
			if (s->w) sig++;
		} else {
			s->exp10++;
			if (*p != '0') s->truncated = true;
		}
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && is_digit(*p)) {
			any = true;
			if (sig < 19) {
				s->w = s->w * 10 + (uint64_t)(*p - '0');
				if (s->w) sig++;
				s->exp10--;
			} else if (*p != '0') {
				s->truncated = true;
			}
			p++;
		}
	}
	if (!any) {
		/* "nan", "inf", "infinity", "1.#INF" style words are numbers out of range */
		const char *w = p;
		while (w < end && ((*w | 0x20) >= 'a' && (*w | 0x20) <= 'z')) w++;
		size_t wl = (size_t)(w - p);
		if ((wl == 3 && (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0)) ||
		    (wl == 8 && strncasecmp(p, "infinity", 8) == 0)) {
			s->end = w;
			return SM_NUM_RANGE;
		}
		s->end = p;
		return SM_NUM_BAD;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		bool eneg = false;
		if (q < end && (*q == '-' || *q == '+')) {
			eneg = *q == '-';
			q++;
		}
		if (q < end && is_digit(*q)) {
			int e = 0;
			while (q < end && is_digit(*q)) {
				if (e < 100000) e = e * 10 + (*q - '0');
				q++;
			}
			s->exp10 += eneg ? -e : e;
			p = q;
		} else {
			s->end = q;
			return SM_NUM_BAD;
		}
	}
	/* "1.#INF" / "1.#QNAN" as written by some Windows exporters */
	if (p < end && *p == '#') {
		while (p < end && (*p == '#' || ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z'))) p++;
		s->end = p;
		return SM_NUM_RANGE;
	}
	s->end = p;
	return SM_NUM_OK;
}

/* The rare cases (float midpoints, subnormals, more than 19 digits, large exponents): the C
 * library's correctly rounded strtof / strtod, read as in the C locale (os_strtod_c). Text
 * of SM_NUM_MAX_LENGTH characters or more is refused: a documented limit, not a number any
 * exporter writes. */
static sm_num_status slow_parse(const char *start, const char *stop, bool as_float, double *out)
{
	char buf[SM_NUM_MAX_LENGTH];
	size_t n = (size_t)(stop - start);
	if (n >= sizeof(buf)) return SM_NUM_TOO_LONG;
	memcpy(buf, start, n);
	buf[n] = '\0';
	double v;
	if (!os_strtod_c(buf, as_float, &v)) return SM_NUM_BAD;
	if (!isfinite(v)) return SM_NUM_RANGE;
	*out = v;
	return SM_NUM_OK;
}

sm_num_status sm_parse_float(const char *p, const char *end, float *out, const char **next)
{
	if (SM_NUM_LIKELY(sm_parse_float_fast(p, end, out, next))) return SM_NUM_OK;
	scan s;
	sm_num_status st = scan_number(p, end, &s);
	*next = s.end;
	if (st != SM_NUM_OK) return st;
	if (s.w == 0) {
		*out = s.neg ? -0.0f : 0.0f;
		return SM_NUM_OK;
	}
	if (!s.truncated && s.w < (UINT64_C(1) << 53) && s.exp10 >= -22 && s.exp10 <= 22) {
		double d = (double)s.w;
		d = s.exp10 < 0 ? d / sm_pow10_exact[-s.exp10] : d * sm_pow10_exact[s.exp10];
		if (d >= (double)FLT_MIN && d <= (double)FLT_MAX) {
			uint64_t bits;
			memcpy(&bits, &d, sizeof(bits));
			/* 29 dropped bits exactly 100..0: d sits on a float midpoint; rounding again
			 * could go the wrong way. */
			if ((bits & ((UINT64_C(1) << 29) - 1)) != (UINT64_C(1) << 28)) {
				float f = (float)d;
				if (!isfinite(f)) return SM_NUM_RANGE;
				*out = s.neg ? -f : f;
				return SM_NUM_OK;
			}
		}
		if (d > (double)FLT_MAX * 2) return SM_NUM_RANGE;
	}
	/* Decimal exponent far beyond float range: decide without strtof. */
	int mag = s.exp10;
	for (uint64_t w = s.w; w >= 10; w /= 10) mag++;
	if (mag > 39) return SM_NUM_RANGE;
	if (mag < -50) {
		*out = s.neg ? -0.0f : 0.0f;
		return SM_NUM_OK;
	}
	double v;
	st = slow_parse(p, s.end, true, &v);
	if (st == SM_NUM_OK) *out = (float)v;
	return st;
}

sm_num_status sm_parse_double(const char *p, const char *end, double *out, const char **next)
{
	if (SM_NUM_LIKELY(sm_parse_double_fast(p, end, out, next))) return SM_NUM_OK;
	scan s;
	sm_num_status st = scan_number(p, end, &s);
	*next = s.end;
	if (st != SM_NUM_OK) return st;
	if (s.w == 0) {
		*out = s.neg ? -0.0 : 0.0;
		return SM_NUM_OK;
	}
	if (!s.truncated && s.w < (UINT64_C(1) << 53) && s.exp10 >= -22 && s.exp10 <= 22) {
		double d = (double)s.w;
		d = s.exp10 < 0 ? d / sm_pow10_exact[-s.exp10] : d * sm_pow10_exact[s.exp10];
		*out = s.neg ? -d : d;
		return SM_NUM_OK;
	}
	return slow_parse(p, s.end, false, out);
}

sm_num_status sm_parse_int(const char *p, const char *end, int64_t *out, const char **next)
{
	if (sm_parse_int_fast(p, end, out, next)) return SM_NUM_OK;
	const char *q = p;
	bool neg = false;
	if (q < end && (*q == '-' || *q == '+')) {
		neg = *q == '-';
		q++;
	}
	if (q >= end || !is_digit(*q)) {
		*next = q;
		return SM_NUM_BAD;
	}
	uint64_t v = 0;
	while (q < end && is_digit(*q)) {
		if (v > (UINT64_C(1) << 62)) {
			while (q < end && is_digit(*q)) q++;
			*next = q;
			return SM_NUM_RANGE;
		}
		v = v * 10 + (uint64_t)(*q - '0');
		q++;
	}
	if (q < end && *q == '.') {
		/* "1.0": a float-looking integer, as some exporters write version and time */
		q++;
		while (q < end && *q == '0') q++;
		if (q < end && is_digit(*q)) {
			*next = q;
			return SM_NUM_BAD;
		}
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		*next = q;
		return SM_NUM_BAD;
	}
	*next = q;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return SM_NUM_OK;
}

static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static void format_fixed_digits(uint64_t v, int digits, char *out);

/* Decimal digits of v: counted, then written as format_fixed_digits writes them. */
static size_t format_u64(uint64_t v, char *out)
{
	int n = 1;
	while (n < 20 && v >= sm_pow10_u64[n]) n++;
	format_fixed_digits(v, n, out);
	return (size_t)n;
}

/* The four digits of g (g < 10000): its two halves apart, neither waiting on the other. */
static void put_four(uint32_t g, char *out)
{
	uint32_t hi = g / 100, lo = g - hi * 100;
	memcpy(out, digit_pairs + 2 * hi, 2);
	memcpy(out + 2, digit_pairs + 2 * lo, 2);
}

/* Exactly `digits` decimal digits of v (v < 10^digits), leading zeros kept: four at a time from
 * the end, so that a number's chain of divisions is one a group of four, not one a pair. */
static void format_fixed_digits(uint64_t v, int digits, char *out)
{
	int i = digits;
	while (i >= 4) {
		uint64_t q = v / 10000;
		i -= 4;
		put_four((uint32_t)(v - q * 10000), out + i);
		v = q;
	}
	uint32_t w = (uint32_t)v; /* below 1000 */
	if (i == 3) {
		out[0] = (char)('0' + w / 100);
		memcpy(out + 1, digit_pairs + 2 * (w % 100), 2);
	} else if (i == 2) {
		memcpy(out, digit_pairs + 2 * w, 2);
	} else if (i == 1) {
		out[0] = (char)('0' + w);
	}
}

size_t sm_format_int(int64_t v, char *out)
{
	if (v < 0) {
		out[0] = '-';
		return 1 + format_u64((uint64_t)0 - (uint64_t)v, out + 1);
	}
	return format_u64((uint64_t)v, out);
}

/* Exact decimal digits of an integer-valued float >= 2^63 (m * 2^e): schoolbook doubling
 * on a little-endian base-10^9 number. */
static size_t format_big_integer(double v, char *out)
{
	int e;
	double m = frexp(v, &e); /* v = m * 2^e, 0.5 <= m < 1; v is a float32, 24 bits */
	uint64_t mant = (uint64_t)ldexp(m, 24);
	e -= 24;
	uint32_t limbs[6] = { 0 };
	size_t nl = 0;
	while (mant) {
		limbs[nl++] = (uint32_t)(mant % 1000000000u);
		mant /= 1000000000u;
	}
	for (; e > 0; e--) {
		uint32_t carry = 0;
		for (size_t i = 0; i < nl; i++) {
			uint32_t x = limbs[i] * 2 + carry;
			carry = x >= 1000000000u;
			limbs[i] = carry ? x - 1000000000u : x;
		}
		if (carry) limbs[nl++] = 1;
	}
	size_t n = format_u64(limbs[nl - 1], out);
	for (size_t i = nl - 1; i-- > 0;) {
		uint32_t x = limbs[i];
		for (int d = 8; d >= 0; d--) {
			out[n + (size_t)d] = (char)('0' + x % 10);
			x /= 10;
		}
		n += 9;
	}
	return n;
}

/* Round to the nearest integer, ties to even, as nearbyint in the default rounding mode:
 * adding and subtracting 1.5 * 2^52 does it in two additions for |x| < 2^51. */
static inline double round_even(double x)
{
	if (fabs(x) < 2251799813685248.0) {
		const double magic = 6755399441055744.0;
		return x >= 0 ? (x + magic) - magic : (x - magic) + magic;
	}
	return nearbyint(x);
}

size_t sm_format_fixed6(float v, char *out)
{
	return sm_format_fixed6_double((double)v, out);
}

size_t sm_format_fixed6_double(double v, char *out)
{
	double x = v * 1e6;
	double r = round_even(x);
	size_t n = 0;
	if (r == 0) {
		memcpy(out, "0.000000", 9);
		return 8;
	}
	if (r < 0) {
		out[n++] = '-';
		r = -r;
	}
	if (r < 9.2e18) {
		uint64_t u = (uint64_t)r;
		n += format_u64(u / 1000000u, out + n);
		out[n++] = '.';
		format_fixed_digits(u % 1000000u, 6, out + n);
		n += 6;
	} else {
		/* |v| >= 9.2e12 is an integer in float32: its digits, then six zeros (beyond the
		 * float range, the cast to float would be undefined: FLT_MAX) */
		double a = fabs(v);
		n += format_big_integer(a <= FLT_MAX ? (double)(float)a : FLT_MAX, out + n);
		memcpy(out + n, ".000000", 7);
		n += 7;
	}
	out[n] = '\0';
	return n;
}

/* 10^k, k from 0 to 60, each the double nearest (as the compiler rounds a literal): exact up
 * to 10^22 */
static const double pow10_double[61] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
	1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47,
	1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60,
};

/* Fixed notation with d decimals (6 to 12), when the text reads back as v (v != 0): the least
 * such d, and in *r the integer v 10^d rounds to; 0 when none does.
 * x = v * 10^d is exact in double for d <= 12 (24 bits times 5^d < 2^28, times 2^d), so
 * the distance from x to the printed integer r is exact and decides the round trip:
 * the decimal r / 10^d reads back as v when it lies within half an ulp of v. */
static int fixed_decimals(float v, double *r_out)
{
	/* Half an ulp of v, from its exponent bits (frexp convention: v = m 2^e, m in [0.5, 1)). */
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	int be = (int)((bits >> 23) & 0xff);
	int e = be ? be - 126 : -125;
	uint64_t hb = (uint64_t)(e - 25 + 1023) << 52;
	double half_ulp_v;
	memcpy(&half_ulp_v, &hb, sizeof(half_ulp_v));
	bool power_of_two = be > 1 && (bits & 0x7fffff) == 0;
	for (int d = 6; d <= 12; d++) {
		double x = (double)v * pow10_double[d];
		double r = round_even(x);
		if (fabs(r) >= 9.0e18) return 0;
		double half_ulp = half_ulp_v * pow10_double[d];
		/* Below a power of two the next float is half as far. */
		if (power_of_two && fabs(r) < fabs(x)) half_ulp /= 2;
		if (fabs(r - x) < half_ulp && r != 0) {
			*r_out = r;
			return d;
		}
	}
	return 0;
}

/* q and m of u = q 10^d + m, the divisor a constant (a multiplication) for each d. */
#define SPLIT_CASE(d, p)        \
	case d:                     \
		*m = u % p;             \
		return u / p
static uint64_t split_decimals(uint64_t u, int d, uint64_t *m)
{
	switch (d) {
		SPLIT_CASE(7, 10000000u);
		SPLIT_CASE(8, 100000000u);
		SPLIT_CASE(9, 1000000000u);
		SPLIT_CASE(10, 10000000000u);
		SPLIT_CASE(11, 100000000000u);
		SPLIT_CASE(12, 1000000000000u);
		default:
			*m = u % 1000000u;
			return u / 1000000u;
	}
}
#undef SPLIT_CASE

/* r (a whole number, |r| < 9e18) / 10^d in fixed notation. */
static size_t put_fixed(double r, int d, char *out)
{
	size_t n = 0;
	if (r < 0) {
		out[n++] = '-';
		r = -r;
	}
	uint64_t m, q = split_decimals((uint64_t)r, d, &m);
	n += format_u64(q, out + n);
	out[n++] = '.';
	format_fixed_digits(m, d, out + n);
	n += (size_t)d;
	out[n] = '\0';
	return n;
}

/* Bit i of the number in 32-bit limbs l[0..used). */
static unsigned limb_bit(const uint32_t *l, int used, int i)
{
	return i / 32 < used ? (l[i / 32] >> (i % 32)) & 1u : 0u;
}

/* The nine digits q (10^8 <= q < 10^9) of v = m 2^e2 rounded half to even at 10^(x - 8), x
 * the exponent of the rounded value (estimated, settled here), in integers: v 10^k = m 5^k
 * 2^(e2 + k) shifted down with its remainder in view. False for what is not a nine-digit
 * quotient of at most 60 powers of five. */
static bool g9_digits_exact(uint32_t m, int e2, int *x_io, uint64_t *q_out)
{
	int x = *x_io;
	uint64_t q = 0;
	for (int tries = 0;; tries++) {
		int k = 8 - x, t = -(e2 + k);
		if (tries == 3 || k < 0 || k > 60 || t <= 0) return false;
		uint32_t l[7] = { m, 0, 0, 0, 0, 0, 0 }; /* m 5^k: at most 24 + 140 bits */
		int used = 1;
		for (int i = 0; i < k; i++) {
			uint64_t carry = 0;
			for (int j = 0; j < used; j++) {
				uint64_t y = (uint64_t)l[j] * 5 + carry;
				l[j] = (uint32_t)y;
				carry = y >> 32;
			}
			if (carry) l[used++] = (uint32_t)carry;
		}
		int top = used * 32 - 1;
		while (top >= 0 && !limb_bit(l, used, top)) top--;
		if (top - t >= 40) return false; /* a quotient of more than 40 bits: not a nine-digit one */
		q = 0;
		for (int i = top; i >= t; i--) q = (q << 1) | limb_bit(l, used, i);
		unsigned half = limb_bit(l, used, t - 1), sticky = 0;
		for (int i = t - 2; i >= 0 && !sticky; i--) sticky = limb_bit(l, used, i);
		if (half && (sticky || (q & 1))) q++;
		if (q < 100000000u) x--;
		else if (q >= 1000000000u) x++;
		else break;
	}
	*x_io = x;
	*q_out = q;
	return true;
}

/* The same digits, most often from one product in double: |v| (exact) times 10^k (exact up to
 * 10^22, else within half an ulp) is within 2^-52 of v 10^k, less than 2.3e-7 below 10^9, so
 * its rounding to an integer is v 10^k's unless its fraction is within 1e-6 of a half (then
 * the integers decide). */
static bool g9_digits(uint32_t m, int e2, double av, int *x_io, uint64_t *q_out)
{
	int x = *x_io;
	for (int tries = 0; tries < 3; tries++) {
		int k = 8 - x;
		if (k < 0 || k > 60) return false;
		double y = av * pow10_double[k], whole = floor(y), frac = y - whole;
		if (fabs(frac - 0.5) < 1e-6) return g9_digits_exact(m, e2, x_io, q_out);
		uint64_t q = (uint64_t)whole + (frac > 0.5);
		if (q < 100000000u) x--;
		else if (q >= 1000000000u) x++;
		else {
			*x_io = x;
			*q_out = q;
			return true;
		}
	}
	return false;
}

/* "%.9g" of v, as the C library prints it (ISO C 7.21.6.1: nine significant digits, rounded
 * half to even from v's exact value; style e when the rounded value's exponent X is below -4
 * or 9 or more, else style f with 8 - X decimals; trailing zeros and a bare point dropped),
 * for the magnitudes sm_format_float leaves to it (0 < |v| < 1); 0 for any other, which
 * snprintf then prints. The C library's printf was an eighth of dmx2smd -r over the corpus's
 * animations and VTAs; the integers alone (g9_digits_exact), 108 ns a number, still 9% of it. */
static size_t format_g9(float v, char *out)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	uint32_t be = (bits >> 23) & 0xff, m = bits & 0x7fffff;
	if (be == 0xff || (be == 0 && m == 0)) return 0;
	int e2 = be ? (int)be - 150 : -149;
	if (be) m |= 0x800000;
	double av = fabs((double)v);
	if (!(av < 1)) return 0;
	/* The exponent, perhaps one off (settled below): about E log10 2, 2^E <= |v| < 2^(E+1)
	 * (E < 0, from the double's exponent: |v| is a normal double), 1233 / 4096 a little below
	 * log10 2, rounded down. */
	uint64_t dbits;
	memcpy(&dbits, &av, sizeof(dbits));
	int e = 1023 - (int)((dbits >> 52) & 0x7ff);
	int x = -((e * 1233 + 4095) / 4096);
	uint64_t q = 0;
	if (!g9_digits(m, e2, av, &x, &q)) return 0;
	if (x >= 0) return 0; /* rounded up to 1 */
	char d[9];
	format_fixed_digits(q, 9, d);
	int nd = 9;
	while (nd > 1 && d[nd - 1] == '0') nd--;
	size_t n = 0;
	if (v < 0) out[n++] = '-';
	if (x < -4) { /* style e: d.ddde-XX */
		out[n++] = d[0];
		if (nd > 1) {
			out[n++] = '.';
			memcpy(out + n, d + 1, (size_t)nd - 1);
			n += (size_t)nd - 1;
		}
		out[n++] = 'e';
		out[n++] = '-';
		int ex = -x;
		if (ex < 10) out[n++] = '0';
		n += format_u64((uint64_t)ex, out + n);
	} else { /* style f, x from -4 to -1: 0.000ddd */
		memcpy(out + n, "0.0000", (size_t)(1 - x));
		n += (size_t)(1 - x);
		memcpy(out + n, d, (size_t)nd);
		n += (size_t)nd;
	}
	out[n] = '\0';
	return n;
}

size_t sm_format_float(float v, char *out)
{
	if (v == 0) {
		memcpy(out, "0.000000", 9);
		return 8;
	}
	double r;
	int d = fixed_decimals(v, &r);
	if (SM_NUM_LIKELY(d == 6)) return put_fixed(r, 6, out);
	if (fabsf(v) >= 9.2e12f) return sm_format_fixed6(v, out); /* an integer: exact */
	if (d) return put_fixed(r, d, out);
	/* Tiny magnitudes: nine significant digits always identify a float32. */
	size_t n = format_g9(v, out);
	if (n) return n;
	int k = snprintf(out, SM_FLOAT_MAX, "%.9g", (double)v);
	/* digits, a sign, 'e' and the locale's decimal point, which becomes '.' */
	for (int i = 0; i < k; i++)
		if (out[i] == ',') out[i] = '.';
	return k > 0 ? (size_t)k : 0;
}

/* Digits of n (exactly p of them, n < 10^p, the last not 0 unless p is 1) placed for a
 * value of n * 10^(e10 - p + 1): fixed notation for moderate exponents, else "d.ddde-N". */
static size_t place_digits(uint32_t n, int p, int e10, bool neg, char *out)
{
	char dig[10];
	format_fixed_digits(n, p, dig);
	size_t k = neg;
	out[0] = '-';
	if (e10 >= -5 && e10 < 15) {
		if (e10 < 0) { /* 0.000ddd */
			memcpy(out + k, "0.00000", (size_t)(1 - e10));
			k += (size_t)(1 - e10);
			memcpy(out + k, dig, (size_t)p);
			k += (size_t)p;
		} else if (p <= e10 + 1) { /* ddd000 */
			memcpy(out + k, dig, (size_t)p);
			memset(out + k + (size_t)p, '0', (size_t)(e10 + 1 - p));
			k += (size_t)e10 + 1;
		} else { /* dd.ddd */
			memcpy(out + k, dig, (size_t)e10 + 1);
			k += (size_t)e10 + 1;
			out[k++] = '.';
			memcpy(out + k, dig + e10 + 1, (size_t)(p - e10 - 1));
			k += (size_t)(p - e10 - 1);
		}
	} else {
		out[k++] = dig[0];
		if (p > 1) {
			out[k++] = '.';
			memcpy(out + k, dig + 1, (size_t)p - 1);
			k += (size_t)p - 1;
		}
		out[k++] = 'e';
		if (e10 < 0) {
			out[k++] = '-';
			e10 = -e10;
		}
		k += format_u64((uint64_t)e10, out + k);
	}
	out[k] = '\0';
	return k;
}

/* The shortest decimal of a float, Giulietti's Schubfach ("The Schubfach way to render
 * doubles", 2020) on float32, in integers alone. v = c 2^q; its rounding interval, scaled by
 * 4, runs from cbl to cbr 2^(q-2) around cb = 4c (its lower half as wide as the upper, or
 * half of it when c is the first significand of a binade). k is chosen so that 10^-k 2^q lies
 * in [1, 10): the interval holds at least one multiple of 10^k and at most one of 10^(k+1).
 * Each end is multiplied by the table's 10^-k, rounded to odd: the lowest bit of a result
 * then tells whether it was exact, which is all the comparisons with multiples of 4 need.
 * The one multiple of 10^(k+1) inside, if there is one, is the shortest; else the multiple
 * of 10^k nearest v (ties to even). The ends count when c is even: a decimal exactly halfway
 * reads back, rounding to even, as v. Gives the digits and k; trailing zeros are the
 * caller's. */
static uint32_t round_to_odd(uint64_t g, uint32_t cp)
{
	uint64_t lo = (g & 0xFFFFFFFFu) * cp, hi = (g >> 32) * cp + (lo >> 32); /* g cp / 2^32 */
	uint32_t y1 = (uint32_t)(hi >> 32), y0 = (uint32_t)hi;
	return y1 | (y0 > 1);
}

static uint32_t shortest_digits(uint32_t bits, int *k_out)
{
	uint32_t frac = bits & 0x7FFFFFu, bexp = bits >> 23 & 0xFFu;
	uint32_t c = bexp ? frac | 0x800000u : frac;
	int32_t q = bexp ? (int32_t)bexp - 150 : -149;
	bool even = (c & 1) == 0, closer = frac == 0 && bexp > 1;
	uint32_t cbl = 4 * c - 2 + closer, cb = 4 * c, cbr = 4 * c + 2;
	/* floor(log10 2^q), or floor(log10 (3/4 2^q)) when the lower end is closer; floor(log2
	 * 10^-k): fixed-point logarithms exact over the exponents a float has */
	int32_t k = closer ? (q * 1262611 - 524031) >> 22 : (q * 1262611) >> 22;
	int32_t h = q + ((-k * 1741647) >> 19) + 1;
	uint64_t g = sm_pow10_g[-k - SM_POW10_G_MIN];
	uint32_t vbl = round_to_odd(g, cbl << h), vb = round_to_odd(g, cb << h), vbr = round_to_odd(g, cbr << h);
	uint32_t lower = vbl + !even, upper = vbr - !even;
	uint32_t s = vb / 4;
	if (s >= 10) {
		uint32_t sp = s / 10;
		bool up_in = lower <= 40 * sp, wp_in = 40 * sp + 40 <= upper;
		if (up_in != wp_in) {
			*k_out = k + 1;
			return sp + wp_in;
		}
	}
	bool u_in = lower <= 4 * s, w_in = 4 * s + 4 <= upper;
	*k_out = k;
	if (u_in != w_in) return s + w_in;
	uint32_t mid = 4 * s + 2;
	return s + (vb > mid || (vb == mid && (s & 1) != 0));
}

size_t sm_format_shortest(float v, char *out)
{
	uint32_t bits;
	memcpy(&bits, &v, 4);
	bool neg = bits >> 31;
	if ((bits & 0x7FFFFFFFu) == 0) {
		memcpy(out, neg ? "-0" : "0", 3 - !neg);
		return 2 - !neg;
	}
	int k;
	uint32_t d = shortest_digits(bits & 0x7FFFFFFFu, &k);
	while (d % 10 == 0) {
		d /= 10;
		k++;
	}
	int p = 1; /* d < 10^9 */
	for (uint32_t t = 10; p < 9 && d >= t; t *= 10) p++;
	return place_digits(d, p, k + p - 1, neg, out);
}
