/* All number parsing and printing: locale-independent, exact for float32, fast. */
#ifndef SMDMX_NUM_H
#define SMDMX_NUM_H

#include <stddef.h>
#include <stdint.h>

typedef enum sm_num_status {
	SM_NUM_OK = 0,
	SM_NUM_BAD,       /* not a number */
	SM_NUM_RANGE,     /* NaN, infinity, or beyond float32 / int range */
} sm_num_status;

/* Parses a decimal float (optional sign, digits with optional '.', optional exponent) at
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
 * otherwise). Used for Euler angles, which are computed, not stored. */
size_t sm_format_fixed6_double(double v, char *out);

/* Longest text of sm_format_float including the terminating NUL. */
#define SM_FLOAT_MAX 56

/* Writes v for SMD: six decimals when they read back as exactly v (always so for values
 * read from six-decimal text), else the fewest decimals up to 12 that do, else nine
 * significant digits ("1.40129846e-45"). A zero is "0.000000". Returns the length. */
size_t sm_format_float(float v, char *out);

/* Writes a signed integer. Returns the length (at most 20). */
size_t sm_format_int(int64_t v, char *out);

#endif
