/* Internals of the datamodel shared by dm.c and the codecs. */
#ifndef SMDMX_DM_INTERNAL_H
#define SMDMX_DM_INTERNAL_H

#include "internal.h"
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

/* The keyvalues2 reader (kv2_read.c): data is the whole file. */
smdmx_dm *sm_kv2_read(const char *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error);

void sm_sha1(const void *data, size_t n, uint8_t out[20]);

static inline smdmx_dm_limits sm_dm_limits_resolve(const smdmx_dm_limits *in)
{
	smdmx_dm_limits l = { 0, 0, 0 };
	if (in) l = *in;
	if (!l.max_depth) l.max_depth = SMDMX_DM_DEFAULT_MAX_DEPTH;
	if (!l.max_elements) l.max_elements = SMDMX_DM_DEFAULT_MAX_ELEMENTS;
	if (!l.max_file_size) l.max_file_size = SMDMX_DM_DEFAULT_MAX_FILE_SIZE;
	return l;
}

#endif
