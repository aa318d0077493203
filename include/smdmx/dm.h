/* smdmx: the DMX datamodel, a graph of typed elements with ordered, typed attributes.
 *
 * It knows nothing of models: the model schema is mapped on top of it elsewhere. Elements
 * live in one array and refer to each other by index (SMDMX_NONE is a null reference), so
 * shared elements and reference cycles are plain data; nothing in smdmx walks the graph by
 * recursion. All memory belongs to the smdmx_dm and is freed by smdmx_dm_free. */
#ifndef SMDMX_DM_H
#define SMDMX_DM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Attribute value types (the array flag is separate). */
typedef enum smdmx_dm_type {
	SMDMX_DM_NONE = 0,
	SMDMX_DM_ELEMENT,    /* uint32_t element index, SMDMX_NONE for null */
	SMDMX_DM_INT,        /* int32_t */
	SMDMX_DM_FLOAT,      /* float */
	SMDMX_DM_BOOL,       /* bool (uint8_t in arrays) */
	SMDMX_DM_STRING,     /* const char *, NUL-terminated */
	SMDMX_DM_BINARY,     /* smdmx_dm_binary */
	SMDMX_DM_TIME,       /* int32_t ticks of 1/10000 s */
	SMDMX_DM_COLOR,      /* uint8_t[4]: r g b a */
	SMDMX_DM_VECTOR2,    /* float[2] */
	SMDMX_DM_VECTOR3,    /* float[3] */
	SMDMX_DM_VECTOR4,    /* float[4] */
	SMDMX_DM_QANGLE,     /* float[3], degrees: pitch yaw roll */
	SMDMX_DM_QUATERNION, /* float[4]: x y z w */
	SMDMX_DM_MATRIX,     /* float[16], row by row */
	SMDMX_DM_UINT64,     /* uint64_t (keyvalues2 4, binary 9) */
	SMDMX_DM_UINT8,      /* uint8_t (keyvalues2 4, binary 9) */
	SMDMX_DM_OBJECTID,   /* uint8_t[16], the legacy type of binary 1 and 2 */
	SMDMX_DM_TYPE_COUNT
} smdmx_dm_type;

typedef struct smdmx_dm_binary {
	uint8_t *data;
	size_t size;
} smdmx_dm_binary;

/* One attribute. For an array, `array` holds `count` items of the type's item layout
 * (see smdmx_dm_item_size); the scalar fields are unused. */
typedef struct smdmx_dm_attr {
	const char *name;
	smdmx_dm_type type;
	bool is_array;
	union {
		uint32_t element;
		int32_t i;            /* int and time */
		float f;
		bool b;
		const char *s;
		smdmx_dm_binary bin;
		uint8_t color[4];
		float v[4];           /* vector2, vector3, vector4, qangle, quaternion */
		float *matrix;        /* 16 floats */
		uint64_t u64;
		uint8_t u8;
		uint8_t id[16];
		struct {
			void *data;
			size_t count;
		} array;
	} value;
} smdmx_dm_attr;

typedef struct smdmx_dm_element {
	const char *type;       /* e.g. "DmeModel" */
	const char *name;
	uint8_t id[16];         /* GUID bytes in text order (the 8-4-4-4-12 hex digits) */
	bool has_id;            /* false until an id is read or assigned */
	bool stub;              /* an element of another file, known only by its id (a binary
	                           reference -2, or a keyvalues2 id no element of the file has):
	                           type and name are "", it has no attributes, and it is written
	                           back as a reference by id, never as an element of the file */
	smdmx_dm_attr *attrs;   /* in order; "id" and "name" are not among them */
	size_t attr_count;
	size_t source_offset;   /* keyvalues2 read: the byte offset of its type in the file; else SIZE_MAX */
} smdmx_dm_element;

typedef struct smdmx_dm {
	smdmx_dm_element *elements; /* may move when elements are added */
	size_t element_count;
	uint32_t root;              /* SMDMX_NONE when empty */
	const char *encoding;       /* e.g. "keyvalues2", "keyvalues2_flat", "binary", "binary_seqids" */
	int encoding_version;
	const char *format;         /* e.g. "model", "dmx" */
	int format_version;
	smdmx_dm_attr *prefix_attrs; /* file-level prefix attributes (binary 9, "$prefix_element$") */
	size_t prefix_attr_count;
	struct smdmx_dm_owner *owner; /* private */
} smdmx_dm;

/* Limits of DMX reading. A zero field takes the default. */
typedef struct smdmx_dm_limits {
	size_t max_depth;       /* nesting of inline elements and arrays, default 4096 */
	size_t max_elements;    /* default 2^24 */
	size_t max_file_size;   /* bytes, default 2^32 */
	size_t max_attributes;  /* attributes of one element, default 2^16 */
	size_t max_array_items; /* items of one array attribute, default 2^30 */
} smdmx_dm_limits;

#define SMDMX_DM_DEFAULT_MAX_DEPTH ((size_t)4096)
#define SMDMX_DM_DEFAULT_MAX_ELEMENTS ((size_t)1 << 24)
#define SMDMX_DM_DEFAULT_MAX_FILE_SIZE ((size_t)1 << 32)
#define SMDMX_DM_DEFAULT_MAX_ATTRIBUTES ((size_t)1 << 16)
#define SMDMX_DM_DEFAULT_MAX_ARRAY_ITEMS ((size_t)1 << 30)

/* An empty datamodel. allocator may be NULL. */
SMDMX_API smdmx_dm *smdmx_dm_create(const smdmx_allocator *allocator, smdmx_error *error);
SMDMX_API void smdmx_dm_free(smdmx_dm *dm);

/* Adds an element; the first one added becomes the root. id may be NULL: such elements get
 * deterministic name-based ids when written (smdmx_dm_assign_ids). Returns its index, or
 * SMDMX_NONE on failure. Pointers into dm->elements are invalidated. */
SMDMX_API uint32_t smdmx_dm_add_element(smdmx_dm *dm, const char *type, const char *name, const uint8_t *id,
                                        smdmx_error *error);

/* Adds an attribute to an element (replacing one of the same name, in place) and returns it
 * for filling; an array gets room for `count` zeroed items. Strings must be made with
 * smdmx_dm_strdup. Returns NULL on failure. */
SMDMX_API smdmx_dm_attr *smdmx_dm_add_attr(smdmx_dm *dm, uint32_t element, const char *name, smdmx_dm_type type,
                                           bool is_array, size_t count, smdmx_error *error);

/* A copy of s owned by dm. */
SMDMX_API const char *smdmx_dm_strdup(smdmx_dm *dm, const char *s, smdmx_error *error);

/* The attribute of that name, or NULL. */
SMDMX_API const smdmx_dm_attr *smdmx_dm_find_attr(const smdmx_dm *dm, uint32_t element, const char *name);

/* How many of dm's elements are stubs (elements of another file, known by id only). */
SMDMX_API size_t smdmx_dm_stub_count(const smdmx_dm *dm);

/* The element with that id, or SMDMX_NONE. */
SMDMX_API uint32_t smdmx_dm_find_id(const smdmx_dm *dm, const uint8_t id[16]);

/* Compares two datamodels as graphs: the same elements (matched by id), types, names,
 * attribute order, types and values (floats equal as float32 values; references by the id
 * of their target), root and prefix attributes. Writes the first difference to diff. */
SMDMX_API bool smdmx_dm_equal(const smdmx_dm *a, const smdmx_dm *b, char *diff, size_t diff_size);

/* The same with quaternions compared as rotations: normalised and up to sign, within
 * rotation_tolerance per component (for files whose writers normalise them). */
SMDMX_API bool smdmx_dm_equal_rotations(const smdmx_dm *a, const smdmx_dm *b, double rotation_tolerance, char *diff,
                                        size_t diff_size);

/* Gives every element without an id a name-based UUID (version 5) derived from the ids and
 * attribute names on its path from an element that has one, or from the root. Deterministic. */
SMDMX_API bool smdmx_dm_assign_ids(smdmx_dm *dm, smdmx_error *error);

/* Type names as in files: "int", "vector3_array", "time", "objectid"... and back. Returns
 * NULL / false for an unknown name. */
SMDMX_API const char *smdmx_dm_type_name(smdmx_dm_type type, bool is_array);
SMDMX_API bool smdmx_dm_type_from_name(const char *name, size_t len, smdmx_dm_type *type, bool *is_array);

/* Bytes of one item of an array of this type. */
SMDMX_API size_t smdmx_dm_item_size(smdmx_dm_type type);

/* GUID text (36 characters and a NUL) and back. */
SMDMX_API void smdmx_dm_id_to_text(const uint8_t id[16], char out[37]);
SMDMX_API bool smdmx_dm_id_from_text(const char *text, size_t len, uint8_t id[16]);

/* A readable indented listing of the graph from the root: types, names, ids, attributes
 * and values; arrays shortened to their first items unless full. */
SMDMX_API bool smdmx_dm_dump(const smdmx_dm *dm, bool full, smdmx_write_fn write, void *user, smdmx_error *error);

/* Where elements stand in their file, for messages: in a keyvalues2 file, an element's line
 * and column, from the file's text (text, size: its bytes; NULL for a binary file); otherwise
 * its way from the root. smdmx_dm_places_new finds them all, in the datamodel's memory (its
 * allocator's; NULL when memory runs out); the datamodel must outlive them. smdmx_dm_place
 * gives element e's line and column (1-based), or 0 and 0 and in path (size bytes) its way
 * and what it is: "root.model.children[2] (DmeJoint 'hip')", or "DmeJoint 'hip' (not under
 * the root)". */
typedef struct smdmx_dm_places smdmx_dm_places;
SMDMX_API smdmx_dm_places *smdmx_dm_places_new(const smdmx_dm *dm, const char *text, size_t size);
SMDMX_API void smdmx_dm_place(const smdmx_dm_places *p, uint32_t e, uint32_t *line, uint32_t *column, char *path, size_t size);
SMDMX_API void smdmx_dm_places_free(smdmx_dm_places *p);

/* Reading and writing DMX files. */
typedef struct smdmx_dmx_read_options {
	smdmx_allocator allocator;
	smdmx_dm_limits limits;
	unsigned threads;    /* threads that read a keyvalues2 file's large number arrays at once;
	                        0 or 1: the calling thread alone. The result, errors and warnings
	                        are the same at any count. An array of 2 MiB or more is read in
	                        parts of at least 1 MiB. The allocator's hooks are then called from
	                        several threads; memory_limit and fail_after count over all of them. */
	smdmx_progress progress; /* the bytes read, as they are */
} smdmx_dmx_read_options;

/* Reads a DMX file in any encoding smdmx supports: keyvalues2, keyvalues2_flat, binary 1 to 5
 * and 9, and binary_seqids 9 (s&box's binary 9, ids numbered in order), told by the header,
 * never by the file name. Forms other writers use that
 * bend the format are read with a warning (warnings may be NULL; it is cleared first): in
 * keyvalues2, a bare type word without a value (Blender Source Tools' datamodel.py writes
 * `"name" element` and `"name" string`) is that type's empty value (decision 14). */
SMDMX_API smdmx_dm *smdmx_dmx_read_file(const char *path, const smdmx_dmx_read_options *options, smdmx_error *error,
                                        smdmx_warnings *warnings);
SMDMX_API smdmx_dm *smdmx_dmx_read_memory(const void *data, size_t size, const smdmx_dmx_read_options *options,
                                          smdmx_error *error, smdmx_warnings *warnings);

typedef struct smdmx_dmx_write_options {
	const char *encoding;   /* "keyvalues2" (default), "keyvalues2_flat", "binary" or "binary_seqids"
	                           (binary 9 whose element k of the index, from 1, has the id k in
	                           its first four bytes, the rest 0: the graph's ids are not written) */
	int encoding_version;   /* keyvalues2: 1 to 4; binary: 1 to 5 or 9; binary_seqids: 9; 0: the default that holds
	                           the datamodel (smdmx_dmx_default_version) */
	const char *format;     /* NULL: the datamodel's own, else "dmx" */
	int format_version;     /* 0: the datamodel's own */
	smdmx_allocator allocator;
	size_t max_depth;       /* deepest inline nesting written, default SMDMX_DM_DEFAULT_MAX_DEPTH / 2 */
	unsigned threads;       /* threads that format a keyvalues2 file's large number arrays (32,768
	                           items or more) at once; 0 or 1: the calling thread alone. The
	                           bytes are the same at any count. */
} smdmx_dmx_write_options;

/* The encoding version written when none is asked: keyvalues2 1, or 4 when the datamodel holds
 * uint64 or uint8 attributes; binary 5, or 9 when it holds uint64, uint8 or prefix attributes,
 * or 2 when it holds the legacy objectid (which 3 and later do not hold). */
SMDMX_API int smdmx_dmx_default_version(const smdmx_dm *dm, const char *encoding);

/* Whether options (NULL: the defaults) can be written: an encoding smdmx writes, a version it
 * has (keyvalues2 1 to 4; binary 1 to 5 or 9; binary_seqids 9; 0 the default), a format name
 * of one word. False with SMDMX_ERROR_USAGE in error, naming the programs' option
 * ("--encoding binary is version 1 to 5 or 9, not 7"). smdmx_dmx_write checks them first, as
 * smdmx_convert, smdmx_batch_convert and smdmx_projects_convert do before any work. */
SMDMX_API bool smdmx_dmx_write_options_check(const smdmx_dmx_write_options *options, smdmx_error *error);

SMDMX_API bool smdmx_dmx_write(smdmx_dm *dm, smdmx_write_fn write, void *user, const smdmx_dmx_write_options *options,
                               smdmx_error *error);
SMDMX_API bool smdmx_dmx_write_file(smdmx_dm *dm, const char *path, const smdmx_dmx_write_options *options,
                                    smdmx_error *error);

#ifdef __cplusplus
}
#endif

#endif
