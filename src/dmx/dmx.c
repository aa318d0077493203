/* DMX files, the one place that chooses the encoding: read whole into memory and handed to
 * the reader of the encoding their header names; written by the writer of the encoding the
 * options name (keyvalues2 or keyvalues2_flat: kv2_write.c; binary and binary_seqids:
 * dmxb_write.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "dmx/dm_internal.h"
#include "platform/os.h"

static bool word_eq(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static smdmx_dm *read_memory(const void *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error,
                             smdmx_warnings *warnings, bool mapped)
{
	memset(error, 0, sizeof(*error));
	const char *d = data ? data : "";
	if (!data) size = 0;
	/* Threads under a memory_limit or fail_after: their allocations (and the warnings')
	 * counted together, the limit the read's (the datamodel and the warnings leave the budget
	 * when they are handed back). */
	if (options && options->threads > 1 && (options->allocator.memory_limit || options->allocator.fail_after)) {
		sm_budget budget;
		smdmx_dmx_read_options counted = *options;
		counted.allocator = sm_budget_start(&budget, &options->allocator);
		sm_warnings_start(warnings, &counted.allocator);
		smdmx_dm *dm = read_memory(data, size, &counted, error, warnings, mapped);
		sm_warnings_leave(warnings, &budget);
		if (dm) sm_budget_leave(&budget, &dm->owner->mem->alloc);
		return dm;
	}
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	if (size == 0) {
		sm_fail(error, SMDMX_ERROR_EMPTY, 1, 1, "empty file");
		return NULL;
	}
	/* The encoding comes from the header, never from the file name: binary or keyvalues2. */
	sm_dmx_header h;
	if (!sm_dmx_parse_header(d, size, &h, error)) return NULL;
	smdmx_dm *dm;
	/* binary_seqids is binary 9 with its element ids numbered in order (B10a) */
	if (word_eq(h.encoding, h.encoding_len, "binary") || word_eq(h.encoding, h.encoding_len, "binary_seqids"))
		dm = sm_dmxb_read(d, size, &h, options, error, warnings, mapped);
	else
		dm = sm_kv2_read(d, size, options, error, warnings, mapped);
	if (dm && !sm_warnings_kept(warnings, error)) {
		smdmx_dm_free(dm);
		return NULL;
	}
	return dm;
}

smdmx_dm *smdmx_dmx_read_memory(const void *data, size_t size, const smdmx_dmx_read_options *options, smdmx_error *error,
                                 smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	return read_memory(data, size, options, error, warnings, false);
}

smdmx_dm *smdmx_dmx_read_file(const char *path, const smdmx_dmx_read_options *options, smdmx_error *error,
                               smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	if (!path) return sm_fail_null(error, __func__, "path"), NULL;
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	smdmx_dmx_read_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	smdmx_dm_limits limits = sm_dm_limits_resolve(&opts.limits);
	os_file fd = strcmp(path, "-") == 0 ? os_stdin() : os_open_read(path);
	if (fd == OS_NO_FILE) {
		sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot open: %s", os_error_text(errno));
		return NULL;
	}
	uint64_t file_size = 0;
	bool regular = os_file_size(fd, &file_size);
	/* A large regular file is mapped, not copied: the reader only reads it. Small files are
	 * read into memory instead: unmapping costs more than the copy, most of all in a process
	 * with several threads, where each unmap interrupts the other processors. */
	if (regular && file_size > ((uint64_t)4 << 20)) {
		if (file_size > limits.max_file_size) {
			os_close(fd);
			sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", limits.max_file_size);
			return NULL;
		}
		/* Its pages are read in as the reader comes to them, and given back behind it: both
		 * readers go forward (and copy what they keep), so that the file and the datamodel it
		 * becomes are never resident whole together. */
		const void *map = os_map(fd, (size_t)file_size);
		if (map) {
			os_close(fd);
			smdmx_dm *dm = read_memory(map, (size_t)file_size, options, error, warnings, true);
			os_unmap(map, (size_t)file_size);
			return dm;
		}
	}
	sm_alloc a;
	sm_alloc_init(&a, &opts.allocator);
	size_t cap = regular && file_size > 0 && file_size < limits.max_file_size ? (size_t)file_size + 1 : 1 << 16;
	if (cap > limits.max_file_size + 1) cap = limits.max_file_size + 1;
	char *buf = sm_malloc(&a, cap);
	size_t len = 0;
	bool ok = buf != NULL;
	if (!ok) sm_fail_oom(error);
	while (ok) {
		if (len == cap) {
			if (cap > limits.max_file_size) {
				ok = sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "file larger than %zu bytes", limits.max_file_size);
				break;
			}
			size_t ncap = cap * 2 > limits.max_file_size + 1 ? limits.max_file_size + 1 : cap * 2;
			char *nb = sm_realloc(&a, buf, cap, ncap);
			if (!nb) {
				ok = sm_fail_oom(error);
				break;
			}
			buf = nb;
			cap = ncap;
		}
		ptrdiff_t n = os_read(fd, buf + len, cap - len);
		if (n < 0) ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "read failed: %s", os_error_text(errno));
		if (n <= 0) break;
		len += (size_t)n;
	}
	os_close(fd);
	smdmx_dm *dm = NULL;
	if (ok) dm = smdmx_dmx_read_memory(buf, len, options, error, warnings);
	sm_free(&a, buf, cap);
	return dm;
}

/* ---- writing: the encoding chosen here, as for reading ---------------------------------- */

/* The types of a datamodel's attributes (prefix attributes included), as bits. */
static unsigned types_held(const smdmx_dm *dm)
{
	unsigned held = 0;
	for (size_t i = 0; i < dm->element_count; i++)
		for (size_t k = 0; k < dm->elements[i].attr_count; k++) held |= 1u << dm->elements[i].attrs[k].type;
	for (size_t k = 0; k < dm->prefix_attr_count; k++) held |= 1u << dm->prefix_attrs[k].type;
	return held;
}

int smdmx_dmx_default_version(const smdmx_dm *dm, const char *encoding)
{
	if (!dm) return 0;
	unsigned held = types_held(dm);
	bool wide = held & (1u << SMDMX_DM_UINT64 | 1u << SMDMX_DM_UINT8);
	if (encoding && !strcmp(encoding, "binary_seqids")) return 9; /* its only version (B10a) */
	if (!encoding || strcmp(encoding, "binary") != 0) return wide ? 4 : 1;
	/* binary 5 (Portal 2, SFM, CS:GO), else the version nearest it that holds every attribute:
	 * 9 for uint64, uint8 and prefix attributes (B9), 2 for the legacy objectid (B6) */
	if (wide || dm->prefix_attr_count) return 9;
	if (held & (1u << SMDMX_DM_OBJECTID)) return 2;
	return 5;
}

bool smdmx_dmx_write_options_check(const smdmx_dmx_write_options *options, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!options) return true;
	const char *e = options->encoding ? options->encoding : "keyvalues2";
	int v = options->encoding_version;
	bool seqids = strcmp(e, "binary_seqids") == 0, binary = seqids || strcmp(e, "binary") == 0;
	if (!binary && strcmp(e, "keyvalues2") != 0 && strcmp(e, "keyvalues2_flat") != 0)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0,
		               "--encoding is keyvalues2, keyvalues2_flat, binary or binary_seqids, not '%.40s'", e);
	if (v && seqids && v != 9) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--encoding binary_seqids is version 9 only, not %d", v);
	if (v && binary && !seqids && (v < 1 || (v > 5 && v != 9)))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--encoding binary is version 1 to 5 or 9, not %d", v);
	if (v && !binary && (v < 1 || v > 4)) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--encoding %s is version 1 to 4, not %d", e, v);
	if (options->format && (!*options->format || strpbrk(options->format, " \t\r\n")))
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "format name '%.40s' cannot be written", options->format);
	return true;
}

bool smdmx_dmx_write(smdmx_dm *dm, smdmx_write_fn write, void *user, const smdmx_dmx_write_options *options,
                     smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dm || !write) return sm_fail_null(error, __func__, !dm ? "dm" : "write");
	if (!smdmx_dmx_write_options_check(options, error)) return false;
	smdmx_dmx_write_options o;
	memset(&o, 0, sizeof(o));
	if (options) o = *options;
	const char *encoding = o.encoding ? o.encoding : "keyvalues2";
	bool seqids = strcmp(encoding, "binary_seqids") == 0, binary = seqids || strcmp(encoding, "binary") == 0;
	sm_alloc a;
	sm_alloc_init(&a, &o.allocator);
	sm_out *out = sm_malloc(&a, sizeof(sm_out));
	if (!out) return sm_fail_oom(error);
	out->write = write;
	out->user = user;
	out->error = error;
	out->len = 0;
	bool ok;
	if (!o.encoding_version) o.encoding_version = smdmx_dmx_default_version(dm, encoding);
	if (binary) {
		const char *format = o.format ? o.format : dm->format ? dm->format : "dmx";
		int fver = o.format_version ? o.format_version : dm->format_version;
		if (!*format || strpbrk(format, " \t\r\n"))
			ok = sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "format name '%.40s' cannot be written", format);
		else
			ok = sm_dmxb_write(dm, seqids, o.encoding_version, format, fver, out, &o.allocator, error) && sm_out_flush(out);
	} else {
		ok = sm_kv2_write(dm, out, &o, error);
	}
	sm_free(&a, out, sizeof(sm_out));
	return ok;
}

typedef struct dmx_job {
	smdmx_dm *dm;
	const smdmx_dmx_write_options *options;
} dmx_job;

static bool produce_dmx(void *ctx, smdmx_write_fn write, void *user, smdmx_error *error)
{
	dmx_job *j = ctx;
	return smdmx_dmx_write(j->dm, write, user, j->options, error);
}

bool smdmx_dmx_write_file(smdmx_dm *dm, const char *path, const smdmx_dmx_write_options *options, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!dm || !path) return sm_fail_null(error, __func__, !dm ? "dm" : "path");
	dmx_job j = { dm, options };
	return sm_write_file_atomic(path, produce_dmx, &j, error);
}
