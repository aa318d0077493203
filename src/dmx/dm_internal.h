/* Internals of the datamodel shared by dm.c and the codecs. */
#ifndef SMDMX_DM_INTERNAL_H
#define SMDMX_DM_INTERNAL_H

#include "support/internal.h"
#include "smdmx/dm.h"

struct smdmx_dm_owner {
	sm_owner *mem;        /* every byte of the datamodel */
	sm_vec elements;      /* smdmx_dm_element */
	sm_vec attrs;         /* sm_vec of smdmx_dm_attr, one per element */
	sm_vec id_slots;      /* open-addressing index of ids */
	bool id_index_valid;
};

/* Adds an element whose type and name strings the datamodel already owns. */
uint32_t sm_dm_add_element(smdmx_dm *dm, const char *type, const char *name, const uint8_t *id, smdmx_error *error);
/* Appends a zeroed attribute to an element (name and value are the caller's to set). */
smdmx_dm_attr *sm_dm_push_attr(smdmx_dm *dm, uint32_t element, smdmx_error *error);
/* Gives an array attribute room for count zeroed items. */
SM_NODISCARD bool sm_dm_alloc_array(smdmx_dm *dm, smdmx_dm_attr *a, size_t count, smdmx_error *error);
SM_NODISCARD bool sm_dm_index_ids(smdmx_dm *dm, smdmx_error *error);
uint32_t sm_dm_lookup_id(const smdmx_dm *dm, const uint8_t id[16]);
/* The element of that id, or a stub element made for it (an element of another file, known
 * only by its id: Valve's datamodel keeps such a reference as a handle to an element not
 * loaded). SMDMX_NONE on failure. The id index stays built. */
uint32_t sm_dm_stub(smdmx_dm *dm, const uint8_t id[16], smdmx_error *error);
/* The warning both readers give for the references to stubs, with the first one's id. */
#define SM_STUB_WARNING                                                                                                  \
	"a reference to element %s, which this file does not hold (an element of another file, as SFM writes them): "  \
	"kept by its id in a DMX written from this one, no element to a conversion; nothing to do"

/* The header line of a DMX file (doc/formats.md A1, A2, B1): slices into the data. body is the
 * offset after the line's newline. Fails with SMDMX_ERROR_HEADER at 1:1. */
typedef struct sm_dmx_header {
	const char *encoding;
	size_t encoding_len;
	int encoding_version;
	const char *format;
	size_t format_len;
	int format_version;
	size_t body;
} sm_dmx_header;
SM_NODISCARD bool sm_dmx_parse_header(const char *data, size_t size, sm_dmx_header *h, smdmx_error *error);

/* The binary reader (dmxb_read.c); mapped: data is a file mapping whose pages behind the
 * reader may be given back. */
smdmx_dm *sm_dmxb_read(const char *data, size_t size, const sm_dmx_header *h, const smdmx_dmx_read_options *options,
                       smdmx_error *error, smdmx_warnings *warnings, bool mapped);
/* The keyvalues2 writer (kv2_write.c): keyvalues2 or keyvalues2_flat (o->encoding, chosen
 * in dmx.c) into out, flushed at the end. */
SM_NODISCARD bool sm_kv2_write(smdmx_dm *dm, sm_out *out, const smdmx_dmx_write_options *o, smdmx_error *error);
/* The binary writer (dmxb_write.c); seqids: binary_seqids, ids numbered in order (B10a). */
SM_NODISCARD bool sm_dmxb_write(smdmx_dm *dm, bool seqids, int version, const char *format, int format_version, sm_out *out,
                                const smdmx_allocator *allocator, smdmx_error *error);

/* The keyvalues2 reader (kv2_read.c): data is the whole file; mapped: a file mapping
 * (os_map) whose pages it may give back as it reads. */
smdmx_dm *sm_kv2_read(const char *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error,
                      smdmx_warnings *warnings, bool mapped);

/* Item i of two attributes of one type (scalars are item 0) holds the same value: floats
 * equal as float32 values, references by their targets' ids, quaternions as rotations within
 * rot_tol when it is above 0. */
bool sm_dm_items_equal(const smdmx_dm *a, const smdmx_dm_attr *x, const smdmx_dm *b, const smdmx_dm_attr *y, size_t i,
                       double rot_tol);

static inline smdmx_dm_limits sm_dm_limits_resolve(const smdmx_dm_limits *in)
{
	smdmx_dm_limits l = { 0, 0, 0, 0, 0 };
	if (in) l = *in;
	if (!l.max_depth) l.max_depth = SMDMX_DM_DEFAULT_MAX_DEPTH;
	if (!l.max_elements) l.max_elements = SMDMX_DM_DEFAULT_MAX_ELEMENTS;
	if (!l.max_file_size) l.max_file_size = SMDMX_DM_DEFAULT_MAX_FILE_SIZE;
	if (!l.max_attributes) l.max_attributes = SMDMX_DM_DEFAULT_MAX_ATTRIBUTES;
	if (!l.max_array_items) l.max_array_items = SMDMX_DM_DEFAULT_MAX_ARRAY_ITEMS;
	return l;
}

#endif
