/* smdmx: errors, warnings, allocation hooks and limits shared by every reader and writer. */
#ifndef SMDMX_ERROR_H
#define SMDMX_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions the shared library exports; everything else stays internal. Defined
 * already, it is left as it is: a binding generator defines it away (cffi's cdef reads these
 * headers run through `cpp -P -DSMDMX_API=`, their <...> includes left out). */
#ifndef SMDMX_API
#if defined(__GNUC__)
#define SMDMX_API __attribute__((visibility("default")))
#else
#define SMDMX_API
#endif
#endif

/* The version of these headers (the library's own: smdmx_version). */
#define SMDMX_VERSION_MAJOR 0
#define SMDMX_VERSION_MINOR 1
#define SMDMX_VERSION_PATCH 0
#define SMDMX_VERSION_STRING "0.1.0"

/* The version of the library itself, as it was built ("0.1.0"), and its parts when the
 * pointers are not NULL: what a program or a binding linked to a shared libsmdmx compares
 * with the headers it was built against (a library of another major version, or of an older
 * minor one, lacks what they declare). */
SMDMX_API const char *smdmx_version(int *major, int *minor, int *patch);

/* No index: a null reference (an element, a parent joint), or "not found". */
#define SMDMX_NONE UINT32_MAX

/* Stable error codes. The numeric values never change; new codes are appended. */
typedef enum smdmx_error_code {
	SMDMX_ERROR_NONE = 0,
	SMDMX_ERROR_IO = 1,              /* a file could not be opened, read or written */
	SMDMX_ERROR_OUT_OF_MEMORY = 2,   /* an allocation failed or the memory limit was reached */
	SMDMX_ERROR_LIMIT = 3,           /* an explicit limit (smdmx_limits) was exceeded */
	SMDMX_ERROR_EMPTY = 4,           /* the input holds no data */
	SMDMX_ERROR_NUL_BYTE = 5,        /* a NUL byte in a text file */
	SMDMX_ERROR_LINE_TOO_LONG = 6,   /* a line longer than smdmx_limits.max_line_length */
	SMDMX_ERROR_SYNTAX = 7,          /* unexpected token or missing value */
	SMDMX_ERROR_BAD_NUMBER = 8,      /* a number that does not parse */
	SMDMX_ERROR_NOT_FINITE = 9,      /* NaN, infinity, or a value outside float32 range */
	SMDMX_ERROR_VERSION = 10,        /* an unsupported format version */
	SMDMX_ERROR_UNKNOWN_BLOCK = 11,  /* an SMD block other than nodes, skeleton, triangles, vertexanimation */
	SMDMX_ERROR_MISSING_END = 12,    /* a block not closed by "end" before the end of the file */
	SMDMX_ERROR_BONE_UNDEFINED = 13, /* a bone id used but never defined in "nodes" */
	SMDMX_ERROR_BONE_REDEFINED = 14, /* a bone id defined twice */
	SMDMX_ERROR_PARENT_CYCLE = 15,   /* the joint hierarchy has a cycle */
	SMDMX_ERROR_TRIANGLE = 16,       /* a triangle with fewer than 3 vertices */
	SMDMX_ERROR_LINKS = 17,          /* a weight link count that the line does not hold */
	SMDMX_ERROR_TIME = 18,           /* a frame number that does not increase, or is out of range */
	SMDMX_ERROR_INVALID_SCENE = 19,  /* a scene failed smdmx_scene_validate */
	SMDMX_ERROR_VERTEX_ID = 20,      /* a VTA vertex id out of range or not in the base frame */
	SMDMX_ERROR_USAGE = 21,          /* bad arguments to a function or the command line */
	SMDMX_ERROR_HEADER = 22,         /* the file does not start with a DMX header */
	SMDMX_ERROR_ENCODING = 23,       /* a DMX encoding or encoding version smdmx does not read */
	SMDMX_ERROR_DUPLICATE_ID = 24,   /* two elements share one id */
	SMDMX_ERROR_UNKNOWN_ID = 25,     /* a reference to an id that no element has */
	SMDMX_ERROR_UNTERMINATED = 26,   /* a string, brace or bracket that is never closed */
	SMDMX_ERROR_UNKNOWN_TYPE = 27,   /* an unknown value type used as a value */
	SMDMX_ERROR_BAD_VALUE = 28,      /* a value that does not parse for its type */
	SMDMX_ERROR_EXISTS = 29,         /* an output's path holds a file the call may not replace */
	SMDMX_ERROR_WARNINGS = 30,       /* warnings where they fail the job (warnings_fail, -W error) */
	SMDMX_ERROR_CODE_COUNT
} smdmx_error_code;

/* The first failure of a call. line and column are 1-based; 0 means "not known"
 * (errors that are not about a position in a file, such as running out of memory). */
typedef struct smdmx_error {
	smdmx_error_code code;
	uint32_t line;
	uint32_t column;
	uint64_t byte;      /* a binary file's place, which has no lines: its byte offset + 1 (line
	                       and column 0); 0 when the error is not about a byte of one */
	char message[256];
	char file[256];     /* the file line and column are in when it is not the one the call was
	                       given (a QC's included file); "" otherwise */
} smdmx_error;

/* Short constant name of a code, e.g. "syntax". Never NULL. */
SMDMX_API const char *smdmx_error_code_name(smdmx_error_code code);

typedef enum smdmx_warning_code {
	SMDMX_WARNING_MISSING_BONE_FIRST_FRAME = 0, /* a bone absent from the first frame took its default */
	SMDMX_WARNING_MISSING_FRAME = 1,            /* frame numbers skip values */
	SMDMX_WARNING_WEIGHT_REMAINDER = 2,         /* weights summed below 1; the rest went to the parent bone */
	SMDMX_WARNING_WEIGHT_OVERFLOW = 3,          /* weights summed above 1 */
	SMDMX_WARNING_VERSION = 4,                  /* a version other than 1 was read */
	SMDMX_WARNING_DUPLICATE_NAME = 5,           /* two bones share one name */
	SMDMX_WARNING_NO_SKELETON_FRAME = 6,        /* a skeleton block without any frame */
	SMDMX_WARNING_LINKS_TRUNCATED = 7,          /* more weight links than the output format holds */
	SMDMX_WARNING_VTA_CONFLICT = 8,             /* corners on one position or normal whose VTA vertices move differently */
	SMDMX_WARNING_DROPPED = 9,                  /* something read could not be kept (an unknown flex rule type) */
	/* What SMD cannot hold, one code per kind so that each is reported with its own count: */
	SMDMX_WARNING_DROPPED_BALANCE = 10,         /* stereo balance */
	SMDMX_WARNING_DROPPED_WRINKLE = 11,         /* wrinkle data */
	SMDMX_WARNING_DROPPED_ATTACHMENTS = 12,     /* attachments */
	SMDMX_WARNING_DROPPED_CONTROLLERS = 13,     /* flex controllers */
	SMDMX_WARNING_DROPPED_RULES = 14,           /* flex and domination rules */
	SMDMX_WARNING_DROPPED_SHAPES = 15,          /* flex shapes without a VTA to hold them */
	SMDMX_WARNING_DROPPED_CLIPS = 16,           /* clips beyond the one an SMD holds */
	SMDMX_WARNING_BARE_TYPE = 17,               /* keyvalues2: a bare type word without a value, read as
	                                               that type's empty value (decision 14) */
	SMDMX_WARNING_UNESCAPED_QUOTE = 18,         /* keyvalues2: a quote inside a string that was not escaped */
	SMDMX_WARNING_RAW_BACKSLASH = 19,           /* keyvalues2: backslashes that are not escapes, read as written */
	SMDMX_WARNING_BOM = 20,                     /* SMD: a UTF-8 byte order mark at the start, skipped */
	SMDMX_WARNING_VTA_UNMATCHED = 21,           /* VTA vertices at no corner of the reference: their motion is lost */
	SMDMX_WARNING_VTA_UNREACHED = 22,           /* corners of the reference no VTA vertex reaches: they do not move */
	SMDMX_WARNING_VTA_NEAREST = 23,             /* corners that took the nearest VTA vertex, not one at their position */
	SMDMX_WARNING_QC_NOCASE = 24,               /* QC: a file found only by ignoring the case of its name */
	SMDMX_WARNING_QC_BENT = 25,                 /* QC: something studiomdl reads otherwise or refuses, read anyway */
	SMDMX_WARNING_QC_LOST_KEYS = 26,            /* QC to DMX: flex keys at other positions than 1, decay */
	SMDMX_WARNING_QC_PAIR_CUT = 27,             /* QC and DMX: a stereo shape written as its two halves (the same model) */
	SMDMX_WARNING_QC_LOST_FRAMES = 28,          /* QC to DMX: VTA frames no flex line names */
	SMDMX_WARNING_QC_LOST_GROUPS = 29,          /* QC to DMX: flex controller groups beside DMX flex rules */
	SMDMX_WARNING_QC_ONLY = 30,                 /* QC to DMX: lines that stay in the QC (eyeball, eyelid, mouth;
	                                               attachments on bones the model lacks) */
	SMDMX_WARNING_QC_LOST_CONTROLS = 31,        /* DMX to QC: controls a QC cannot say (eyelid, multi-way, ranges
	                                               studiomdl ignores, wrinkle scales, dominators beside flex rules) */
	SMDMX_WARNING_QC_LOST_ATTACHMENTS = 32,     /* DMX to QC: attachments on the model itself, not on a bone */
	SMDMX_WARNING_QC_UNDRIVEN = 33,             /* DMX to QC: a shape studiomdl drives with nothing */
	SMDMX_WARNING_NODE_RENAMED = 34,            /* DMX: a mesh's node named otherwise than the mesh, because a bone
	                                               has its name (readers match base poses by name) */
	SMDMX_WARNING_GOLDSRC_LINKS = 35,           /* GoldSrc SMD: vertices of several links put on their strongest bone */
	SMDMX_WARNING_GOLDSRC_MATERIALS = 36,       /* GoldSrc SMD: materials that become one texture name */
	SMDMX_WARNING_DROPPED_UV_SETS = 37,         /* SMD: extra UV sets the output cannot hold (GoldSrc) */
	SMDMX_WARNING_FRAME_RATE = 38,              /* SMD: clips of another rate than 30 fps, which SMD cannot say */
	SMDMX_WARNING_DROPPED_VERTEX_DATA = 39,     /* DMX: vertex data fields smdmx does not carry (vertex paint,
	                                               cloth, tangents) */
	SMDMX_WARNING_UP_AXIS = 40,                 /* SMD: a model not Z up, which SMD cannot say (the QC's $upaxis can) */
	SMDMX_WARNING_FANNED = 41,                  /* SMD: polygons of more than 3 corners written as triangle fans */
	SMDMX_WARNING_MESHES_MERGED = 42,           /* SMD: meshes written as one (SMD has no mesh names) */
	SMDMX_WARNING_SKIPPED_TRIANGLES = 43,       /* SMD: triangles whose material line is blank, skipped as
	                                               studiomdl skips them */
	SMDMX_WARNING_SHAPE_RENAMED = 44,           /* VTA: frames of one name, each a shape of its own name (a frame
	                                               is a shape by its number) */
	SMDMX_WARNING_WEIGHTS_SCALED = 45,          /* SMD: weights that sum below 1 written scaled to 1 (an SMD reader
	                                               would give the rest to the parent bone) */
	SMDMX_WARNING_STUB = 46,                    /* DMX: references to elements of another file (stubs), kept by id */
	SMDMX_WARNING_ROTATION_NOT_UNIT = 47,       /* DMX: orientations that are not unit quaternions, taken as the
	                                               rotation studiomdl makes of them */
	SMDMX_WARNING_MATERIAL_SPACE = 48,          /* material names with white space at their start (kept) or end
	                                               (which an SMD cannot hold) */
	SMDMX_WARNING_UP_AXIS_CONFLICT = 49,        /* DMX: a model's upAxis string and axis system disagree */
	SMDMX_WARNING_BIND_POSE = 50,               /* SMD: an animation whose bind pose is not its first frame (an
	                                               SMD animation holds frames only) */
	SMDMX_WARNING_GOLDSRC_TEXTURES = 51,        /* GoldSrc SMD: materials written as the .bmp files GoldSrc names
	                                               textures by */
	SMDMX_WARNING_FRAME_AGAIN = 52,             /* SMD: a skeleton frame listed again (its number repeats or goes
	                                               back), its bone lines replacing the earlier ones as studiomdl
	                                               reads them */
	SMDMX_WARNING_QC_BLOCK_OPEN = 53,           /* QC: a skipped command's block open where the QC ends, read to
	                                               the end as studiomdl reads it */
	SMDMX_WARNING_BALANCE_UNUSED = 54,          /* SMD: stereo balance that no stereo control uses, left out (the
	                                               compiled model is the same) */
	SMDMX_WARNING_NORMALS_ZERO = 55,            /* glTF: zero normals written (0, 0, 1) */
	SMDMX_WARNING_NORMALS_SCALED = 56,          /* glTF: normals not unit length made so */
	SMDMX_WARNING_NAMES_LATIN1 = 57,            /* glTF: names not UTF-8 written as Latin-1 characters */
	SMDMX_WARNING_UNWEIGHTED = 58,              /* glTF: vertices without a weight link put on their mesh's bone */
	SMDMX_WARNING_KEYS_MERGED = 59,             /* glTF: keys closer than a float holds in seconds merged */
	SMDMX_WARNING_MESHES_EMPTY = 60,            /* glTF: meshes without a polygon left out */
	SMDMX_WARNING_CORRECTIVE_PLAIN = 61,        /* glTF: corrective shapes written as plain morph targets */
	SMDMX_WARNING_CODE_COUNT
} smdmx_warning_code;

/* Warnings are collected, not printed: one entry per code, with the position of the
 * first occurrence and the number of occurrences. */
typedef struct smdmx_warning {
	smdmx_warning_code code;
	uint32_t line;
	uint32_t column;
	size_t count;
	char message[384];
	char file[256];     /* as smdmx_error.file: set for a QC's included file, else "" */
} smdmx_warning;

/* Output sink of the writers: returns false on failure (the writer then stops with
 * SMDMX_ERROR_IO). */
typedef bool (*smdmx_write_fn)(void *user, const void *data, size_t size);

/* Told as a file is read: bytes more of it read since the last call (about every 4 MiB, and
 * what is left at the end), from the thread reading, or from the threads reading parts of
 * one file, one call at a time (their sum is the bytes read). Zero-initialised means no
 * call. */
typedef struct smdmx_progress {
	void (*fn)(void *user, uint64_t bytes);
	void *user;
} smdmx_progress;

/* Allocation hooks. All three or none. Zero-initialised means malloc/realloc/free. */
typedef struct smdmx_allocator {
	void *(*alloc_fn)(void *user, size_t size);
	void *(*realloc_fn)(void *user, void *ptr, size_t old_size, size_t new_size);
	void (*free_fn)(void *user, void *ptr, size_t size);
	void *user;
	/* Fail with SMDMX_ERROR_OUT_OF_MEMORY once this many bytes are live. 0: no limit. */
	size_t memory_limit;
	/* Fail the allocation after this many have succeeded (for tests). 0: never. */
	size_t fail_after;
} smdmx_allocator;

/* The warnings of a call: a list as long as it needs to be (one entry per kind said, at most
 * SMDMX_WARNING_CODE_COUNT), in the order first said. Start it zeroed (= {0}); a call that
 * takes it empties it first, keeping its room, and takes room for its entries from the
 * call's allocator (its hooks, memory_limit and fail_after count the list's own blocks); free
 * it with smdmx_warnings_free. A call whose warning found no room fails out of memory, the
 * warning counted in lost. */
typedef struct smdmx_warnings {
	smdmx_warning *data;
	size_t count;
	size_t lost;               /* warnings said that found no room (the call failed) */
	size_t capacity;           /* entries data has room for */
	size_t blocks;             /* blocks the list has asked its allocator for (fail_after) */
	smdmx_allocator allocator; /* whose memory data is: the call's that filled it */
} smdmx_warnings;

/* Gives back the list's room (through the allocator that made it) and zeroes it. NULL:
 * nothing. */
SMDMX_API void smdmx_warnings_free(smdmx_warnings *warnings);

/* Explicit limits. A zero field takes the documented default. */
typedef struct smdmx_limits {
	size_t max_line_length; /* bytes per text line, default 65536 */
	size_t max_joints;      /* bones in one file, default 65536 */
	size_t max_links;       /* weight links on one vertex line, default 256 */
	size_t max_frames;      /* frames in one animation or VTA, default 1000000 */
	size_t max_corners;     /* triangle corners (or VTA vertices) in one file, default 2^31 */
	size_t max_keys;        /* bone poses of one animation, frames times bones, default 2^26 */
	size_t max_file_size;   /* bytes of one SMD or VTA read, default 2^36 */
} smdmx_limits;

#define SMDMX_DEFAULT_MAX_LINE_LENGTH ((size_t)65536)
#define SMDMX_DEFAULT_MAX_JOINTS ((size_t)65536)
#define SMDMX_DEFAULT_MAX_LINKS ((size_t)256)
#define SMDMX_DEFAULT_MAX_FRAMES ((size_t)1000000)
#define SMDMX_DEFAULT_MAX_CORNERS ((size_t)1 << 31)
#define SMDMX_DEFAULT_MAX_KEYS ((size_t)1 << 26)
#define SMDMX_DEFAULT_MAX_FILE_SIZE ((size_t)1 << 36)

#ifdef __cplusplus
}
#endif

#endif
