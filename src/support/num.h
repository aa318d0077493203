/* All number parsing and printing: locale-independent, exact for float32, fast. */
#ifndef SMDMX_NUM_H
#define SMDMX_NUM_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum sm_num_status {
	SM_NUM_OK = 0,
	SM_NUM_BAD,       /* not a number */
	SM_NUM_RANGE,     /* NaN, infinity, or beyond float32 / int range */
	SM_NUM_TOO_LONG,  /* a number of SM_NUM_MAX_LENGTH characters or more that needs exact
	                     conversion (more than 19 significant digits) */
} sm_num_status;

#define SM_NUM_MAX_LENGTH 128

extern const double sm_pow10_exact[23];
extern const float sm_pow10_float[11]; /* 10^0 to 10^10, each exact in float (5^10 < 2^24) */
extern const uint64_t sm_pow10_u64[20];

static inline bool sm_is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* SWAR over 8 characters read as one little-endian word v (the first in the low byte): the
 * count of digits it starts with (8 when all are), and the value of its first k (1 to 8)
 * characters, all digits, with three multiplications. */
static inline size_t sm_swar_digit_count(uint64_t v)
{
	uint64_t nd = ((v + UINT64_C(0x4646464646464646)) | (v - UINT64_C(0x3030303030303030))) & UINT64_C(0x8080808080808080);
	return nd ? (size_t)__builtin_ctzll(nd) >> 3 : 8;
}

static inline uint32_t sm_swar_digits(uint64_t v, size_t k)
{
	if (k < 8) v = (v << (8 * (8 - k))) | (UINT64_C(0x3030303030303030) >> (8 * k));
	v -= UINT64_C(0x3030303030303030);
	v = (v * 10) + (v >> 8);
	return (uint32_t)((((v & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x000F424000000064)) +
	                   (((v >> 16) & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x0000271000000001))) >> 32);
}
#endif

/* Plain "[-]digits[.digits]" with at most 19 digits and no exponent: the form of nearly
 * every number in real files. Its digits as one integer w, the count of them after the
 * point, the sign and the end; false for any other form (the general path's). */
static inline bool sm_scan_plain(const char *p, const char *end, uint64_t *w_out, size_t *frac_out, bool *neg_out,
                                 const char **next)
{
	const char *s = p;
	bool neg = false;
	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	const char *d0 = s;
	uint64_t w = 0;
	while (s < end && sm_is_digit(*s)) w = w * 10 + (uint64_t)(*s++ - '0');
	size_t digits = (size_t)(s - d0), frac = 0;
	if (s < end && *s == '.') {
		const char *f0 = ++s;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* Up to 8 fraction digits at once (SWAR): flag the non-digit bytes, convert the
		 * digits before the first one with three multiplications. No loop exit to
		 * mispredict on the usual six decimals. */
		if (end - s >= 8) {
			uint64_t v;
			memcpy(&v, s, 8);
			size_t k = sm_swar_digit_count(v);
			if (k) {
				w = w * sm_pow10_u64[k] + sm_swar_digits(v, k);
				s += k;
			}
			if (k == 8)
				while (s < end && sm_is_digit(*s)) w = w * 10 + (uint64_t)(*s++ - '0');
		} else
#endif
		{
			while (s < end && sm_is_digit(*s)) w = w * 10 + (uint64_t)(*s++ - '0');
		}
		frac = (size_t)(s - f0);
		digits += frac;
	}
	if (digits == 0 || digits > 19 || frac > 22 || (s < end && (*s == 'e' || *s == 'E' || *s == '#'))) return false;
	*w_out = w;
	*frac_out = frac;
	*neg_out = neg;
	*next = s;
	return true;
}

/* sm_parse_float's value of a plain number (sm_scan_plain); false to defer to it. */
static inline bool sm_parse_float_fast(const char *p, const char *end, float *out, const char **next)
{
	uint64_t w;
	size_t frac;
	bool neg;
	const char *s;
	if (!sm_scan_plain(p, end, &w, &frac, &neg, &s)) return false;
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
	/* Digits below 2^24 and at most 10 decimals (the usual "-12.345678"): both w and 10^frac
	 * are exact in float, so their float quotient, rounded once, is the correctly rounded
	 * value of the text (Clinger's fast path, in single precision): one float division, no
	 * double and no check for a double rounding. Where float arithmetic is wider than float
	 * (FLT_EVAL_METHOD not 0) the double path below does it. */
	if (w < (UINT64_C(1) << 24) && frac <= 10) {
		float f = (float)w / sm_pow10_float[frac];
		*out = neg ? -f : f;
		*next = s;
		return true;
	}
#endif
	if (w >= (UINT64_C(1) << 53)) return false;
	double d = (double)w / sm_pow10_exact[frac];
	if (d != 0 && (d < (double)FLT_MIN || d > (double)FLT_MAX)) return false;
	uint64_t bits;
	memcpy(&bits, &d, sizeof(bits));
	if ((bits & ((UINT64_C(1) << 29) - 1)) == (UINT64_C(1) << 28)) return false;
	float f = (float)d;
	*out = neg ? -f : f;
	*next = s;
	return true;
}

/* sm_parse_double's value of a plain number (sm_scan_plain) whose digits are below 2^53: the
 * quotient of two exact doubles, as sm_parse_double computes it; false to defer to it. */
static inline bool sm_parse_double_fast(const char *p, const char *end, double *out, const char **next)
{
	uint64_t w;
	size_t frac;
	bool neg;
	const char *s;
	if (!sm_scan_plain(p, end, &w, &frac, &neg, &s) || w >= (UINT64_C(1) << 53)) return false;
	double d = (double)w / sm_pow10_exact[frac];
	*out = neg ? -d : d;
	*next = s;
	return true;
}

/* One to four digits followed by something that is not '.', 'e' or a digit (needs five
 * readable bytes); false defers to sm_parse_int. */
static inline bool sm_parse_int_fast(const char *p, const char *end, int64_t *out, const char **next)
{
	if (end - p < 5 || !sm_is_digit(p[0])) return false;
	int64_t v = p[0] - '0';
	const char *q = p + 1;
	if (sm_is_digit(*q)) {
		v = v * 10 + (*q++ - '0');
		if (sm_is_digit(*q)) {
			v = v * 10 + (*q++ - '0');
			if (sm_is_digit(*q)) v = v * 10 + (*q++ - '0');
		}
	}
	if (sm_is_digit(*q) || *q == '.' || *q == 'e' || *q == 'E') return false;
	*out = v;
	*next = q;
	return true;
}

/* sm_parse_float_fast is the inline part of sm_parse_float: it handles plain numbers and
 * returns false for everything else, which sm_parse_float then handles.
 *
 * Parses a decimal float (optional sign, digits with optional '.', optional exponent) at
 * p, not reading at or past end, and rounds it correctly to float32. *next is set past
 * the number. Text like "nan" or "inf" gives SM_NUM_RANGE. */
sm_num_status sm_parse_float(const char *p, const char *end, float *out, const char **next);

/* The same rounded to double (correctly within double precision for up to 19 digits). */
sm_num_status sm_parse_double(const char *p, const char *end, double *out, const char **next);

/* Parses an integer, optional sign. A value written with a zero fraction ("1.0", "2.")
 * is accepted; any other fraction gives SM_NUM_BAD. */
sm_num_status sm_parse_int(const char *p, const char *end, int64_t *out, const char **next);

/* Longest text of sm_format_fixed6 including the terminating NUL. */
#define SM_FIXED6_MAX 56

/* Writes v with exactly six decimals, correctly rounded (ties to even), like "%.6f" in the
 * C locale; a value that rounds to zero is written without a sign. Returns the length. */
size_t sm_format_fixed6(float v, char *out);

/* The same for a double (exactly rounded for a float32 value; within 1e-16 relative
 * otherwise). Used for Euler angles, which are computed, not stored. A finite v beyond the
 * float range (|v| > FLT_MAX, which no angle is) is written as FLT_MAX with its sign. */
size_t sm_format_fixed6_double(double v, char *out);

/* Longest text of sm_format_float including the terminating NUL. */
#define SM_FLOAT_MAX 56

/* Writes v for SMD: six decimals when they read back as exactly v (always so for values
 * read from six-decimal text), else the fewest decimals up to 12 that do, else nine
 * significant digits ("1.40129846e-45"). A zero is "0.000000". Returns the length. */
size_t sm_format_float(float v, char *out);

/* Writes v in the fewest significant digits that read back as exactly v (at most 9), fixed
 * notation for exponents -5 to 14 ("0.5", "1", "-16211.593"), else "1.5e-7". Returns the
 * length. v must be finite. */
size_t sm_format_shortest(float v, char *out);

/* Writes a signed integer. Returns the length (at most 20). */
size_t sm_format_int(int64_t v, char *out);

/* ---- math (fmath.c) -------------------------------------------------------------------------
 * What every computed value the library prints is made with, in place of the C library's:
 * the same bits on every system (IEEE-754 double's own operations in a fixed order), within
 * 2 units in the last place. */
double sm_sin(double x);
double sm_cos(double x);
/* sm_sin and sm_cos of x at once, the same bits, x reduced once. */
void sm_sincos(double x, double *s, double *c);
double sm_atan2(double y, double x);
double sm_acos(double x);
double sm_hypot(double a, double b);
/* 10^e: exact for 0 <= e <= 22, correctly rounded to 44, the same everywhere beyond. */
double sm_pow10i(int e);
/* floor(log10 v) for finite v > 0, by comparison with sm_pow10i. */
int sm_floor_log10(double v);

#endif
