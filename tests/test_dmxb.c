/* Binary DMX: every corpus file reads, converts to keyvalues2 and back to its own version
 * and reads back identical; every version written reads back identical; srctools' four
 * encodings of one content agree; output is byte-identical across runs; bad input fails
 * with the byte offset. (Truncation and allocation failures: test_sweeps.) */
#define _GNU_SOURCE
#include <locale.h>

#include "util.h"

static smdmx_dm *read_path(const char *path)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(path, NULL, &err, NULL);
	if (!dm) fail_msg("%s: %s", path, err.message);
	return dm;
}

static smdmx_dm *write_read(smdmx_dm *dm, const char *encoding, int version, test_sink *out)
{
	smdmx_error err;
	smdmx_dmx_write_options o = { .encoding = encoding, .encoding_version = version };
	out->size = 0;
	if (!smdmx_dmx_write(dm, test_sink_write, out, &o, &err)) fail_msg("write %s %d: %s", encoding, version, err.message);
	smdmx_dm *back = smdmx_dmx_read_memory(out->data, out->size, NULL, &err, NULL);
	if (!back) fail_msg("re-read %s %d: %s", encoding, version, err.message);
	return back;
}

static bool has_type(const smdmx_dm *dm, smdmx_dm_type t)
{
	for (size_t i = 0; i < dm->element_count; i++)
		for (size_t k = 0; k < dm->elements[i].attr_count; k++)
			if (dm->elements[i].attrs[k].type == t) return true;
	return false;
}

/* Whether binary `version` can hold every type of the graph (B6). */
static bool fits(const smdmx_dm *dm, int version)
{
	if (version <= 2 && has_type(dm, SMDMX_DM_TIME)) return false;
	if (version >= 3 && has_type(dm, SMDMX_DM_OBJECTID)) return false;
	if (version < 9 && (has_type(dm, SMDMX_DM_UINT64) || has_type(dm, SMDMX_DM_UINT8))) return false;
	if (version < 9 && dm->prefix_attr_count) return false; /* only 9 has a prefix block */
	return true;
}

static void test_corpus(void **state)
{
	(void)state;
	size_t files = 0, n;
	char **paths = test_corpus_files("dmx_binary", &n);
	for (size_t f = 0; f < n; f++) {
		if (!strstr(paths[f], ".dmx")) continue;
		const char *name = test_base_name(paths[f]);
		smdmx_dm *a = read_path(paths[f]);
		assert_string_equal(a->encoding, "binary");
		test_sink s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
		char diff[256];
		/* to keyvalues2 and back to its own binary version */
		smdmx_dm *k = write_read(a, "keyvalues2", a->encoding_version == 9 ? 4 : 1, &s1);
		smdmx_dm *b = write_read(k, "binary", a->encoding_version, &s2);
		if (!smdmx_dm_equal(a, b, diff, sizeof(diff))) fail_msg("%s via keyvalues2: %s", name, diff);
		assert_int_equal(b->encoding_version, a->encoding_version);
		assert_string_equal(b->format, a->format);
		assert_int_equal(b->format_version, a->format_version);
		/* every version that can hold its types, and the same bytes twice */
		static const int versions[6] = { 1, 2, 3, 4, 5, 9 };
		for (int v = 0; v < 6; v++) {
			if (!fits(a, versions[v])) continue;
			smdmx_dm *c = write_read(a, "binary", versions[v], &s2);
			if (!smdmx_dm_equal(a, c, diff, sizeof(diff))) fail_msg("%s as binary %d: %s", name, versions[v], diff);
			smdmx_dm *d = write_read(c, "binary", versions[v], &s3);
			if (s2.size != s3.size || memcmp(s2.data, s3.data, s2.size) != 0)
				fail_msg("%s as binary %d: a second generation differs", name, versions[v]);
			smdmx_dm_free(c);
			smdmx_dm_free(d);
		}
		smdmx_dm_free(a);
		smdmx_dm_free(k);
		smdmx_dm_free(b);
		free(s1.data);
		free(s2.data);
		free(s3.data);
		files++;
	}
	test_free_list(paths, n);
	assert_int_equal(files, 20);
}

/* srctools wrote one content in keyvalues2 and binary 1 to 5. Its writers normalise
 * quaternions from binary 3 on, so those compare as rotations; all else is exact. */
static void test_srctools_encodings(void **state)
{
	(void)state;
	smdmx_dm *text = read_path(test_corpus_path("other/TeamSpen210__srctools__keyvalues2.dmx"));
	static const char *const bins[] = {
		"dmx_binary/TeamSpen210__srctools__binary_v2.dmx", "dmx_binary/TeamSpen210__srctools__binary_v4.dmx",
		"dmx_binary/TeamSpen210__srctools__binary_v5.dmx", "dmx_binary/TeamSpen210__srctools__test_export_regression_binary_v1_.dmx",
		"dmx_binary/TeamSpen210__srctools__test_export_regression_binary_v3_.dmx",
	};
	char diff[256];
	for (size_t i = 0; i < 5; i++) {
		smdmx_dm *b = read_path(test_corpus_path(bins[i]));
		if (!smdmx_dm_equal_rotations(text, b, 1e-6, diff, sizeof(diff))) fail_msg("%s: %s", bins[i], diff);
		smdmx_dm_free(b);
	}
	smdmx_dm *v2 = read_path(test_corpus_path(bins[0]));
	assert_true(smdmx_dm_equal(text, v2, diff, sizeof(diff))); /* binary 2 is exact */
	smdmx_dm_free(v2);
	smdmx_dm_free(text);
}

/* ---- hand-built files -------------------------------------------------------------------- */

typedef struct buf {
	uint8_t d[512];
	size_t n;
} buf;

static size_t put(buf *b, const void *p, size_t n)
{
	size_t at = b->n;
	memcpy(b->d + b->n, p, n);
	b->n += n;
	return at;
}

static size_t put32(buf *b, int32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)((uint32_t)v >> 8), (uint8_t)((uint32_t)v >> 16), (uint8_t)((uint32_t)v >> 24) };
	return put(b, x, 4);
}

static size_t put8(buf *b, uint8_t v)
{
	return put(b, &v, 1);
}

/* A binary 5 file: strings "A" "x" "e"; one element of type A named x; its attributes come
 * from the caller. Returns the offset of the attribute count. */
static size_t v5_start(buf *b, const char *header_version)
{
	char h[96];
	int n = snprintf(h, sizeof(h), "<!-- dmx encoding binary %s format dmx 1 -->\n", header_version);
	b->n = 0;
	put(b, h, (size_t)n + 1); /* and the NUL */
	put32(b, 3);
	put(b, "A\0x\0e\0", 6);
	put32(b, 1);              /* elements */
	put32(b, 0);              /* type "A" */
	put32(b, 1);              /* name "x" */
	uint8_t id[16] = { 0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x34, 0x12, 1, 2, 3, 4, 5, 6, 7, 8 };
	put(b, id, 16);
	return b->n;
}

static void expect_fail(const buf *b, smdmx_error_code code, size_t offset)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(b->d, b->n, NULL, &err, NULL);
	if (dm) fail_msg("read without error");
	char want[32];
	snprintf(want, sizeof(want), "byte %zu:", offset);
	if (err.code != code || strncmp(err.message, want, strlen(want)) != 0)
		fail_msg("got %s '%s', want %s at byte %zu", smdmx_error_code_name(err.code), err.message, smdmx_error_code_name(code), offset);
	/* the place in its own field too: a byte offset + 1, no line */
	assert_int_equal(err.byte, offset + 1);
	assert_int_equal(err.line, 0);
}

static void test_hand_built(void **state)
{
	(void)state;
	buf b;
	smdmx_error err;
	/* a good one: an int attribute, and the GUID in Windows byte order */
	v5_start(&b, "5");
	put32(&b, 2);
	put32(&b, 1);
	put8(&b, 2);
	put32(&b, 5);
	put32(&b, 2);             /* "e": a stub reference to the element itself */
	put8(&b, 1);
	put32(&b, -2);
	put(&b, "12345678-1234-1234-0102-030405060708", 37);
	smdmx_dm *dm = smdmx_dmx_read_memory(b.d, b.n, NULL, &err, NULL);
	if (!dm) fail_msg("%s", err.message);
	char id[37];
	smdmx_dm_id_to_text(dm->elements[0].id, id);
	assert_string_equal(id, "12345678-1234-1234-0102-030405060708");
	assert_string_equal(dm->elements[0].type, "A");
	assert_string_equal(dm->elements[0].name, "x");
	assert_int_equal(dm->elements[0].attrs[0].value.i, 5);
	assert_int_equal(dm->elements[0].attrs[1].value.element, 0);
	smdmx_dm_free(dm);

	/* a string index out of range */
	size_t at = v5_start(&b, "5");
	put32(&b, 1);
	size_t bad = put32(&b, 9);
	put8(&b, 2);
	put32(&b, 5);
	expect_fail(&b, SMDMX_ERROR_BAD_VALUE, bad);
	(void)at;
	/* an element index out of range */
	v5_start(&b, "5");
	put32(&b, 1);
	put32(&b, 1);
	put8(&b, 1);
	bad = put32(&b, 3);
	expect_fail(&b, SMDMX_ERROR_BAD_VALUE, bad);
	/* a negative count, and a huge one that the remaining bytes cannot justify */
	v5_start(&b, "5");
	bad = put32(&b, -1);
	expect_fail(&b, SMDMX_ERROR_BAD_VALUE, bad);
	v5_start(&b, "5");
	put32(&b, 1);
	put32(&b, 1);
	put8(&b, 2 + 14);          /* int_array */
	bad = put32(&b, 0x7fffffff);
	expect_fail(&b, SMDMX_ERROR_BAD_VALUE, bad);
	/* an unknown type id */
	v5_start(&b, "5");
	put32(&b, 1);
	put32(&b, 1);
	bad = put8(&b, 40);
	expect_fail(&b, SMDMX_ERROR_UNKNOWN_TYPE, bad);
	/* a stub reference to an element that is not in the file: an element of another file,
	 * kept by id, with a warning at its byte; one with a malformed id fails there */
	v5_start(&b, "5");
	put32(&b, 1);
	put32(&b, 1);
	put8(&b, 1);
	size_t stub_at = put32(&b, -2);
	put(&b, "00000000-0000-0000-0000-0000000000ff", 37);
	TEST_WARNINGS(w);
	smdmx_dm *stubbed = smdmx_dmx_read_memory(b.d, b.n, NULL, &err, &w);
	if (!stubbed) fail_msg("a stub: %s", err.message);
	assert_int_equal(stubbed->element_count, 2);
	assert_true(stubbed->elements[1].stub);
	assert_int_equal(stubbed->elements[0].attrs[0].value.element, 1);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_STUB);
	char at_text[32];
	snprintf(at_text, sizeof(at_text), "byte %zu: ", stub_at);
	assert_non_null(strstr(w.data[0].message, at_text));
	smdmx_dm_free(stubbed);
	v5_start(&b, "5");
	put32(&b, 1);
	put32(&b, 1);
	put8(&b, 1);
	bad = put32(&b, -2);
	put(&b, "00000000-0000-zzzz-0000-0000000000ff", 37);
	expect_fail(&b, SMDMX_ERROR_BAD_VALUE, bad);
	/* trailing garbage */
	v5_start(&b, "5");
	put32(&b, 0);
	bad = put(&b, "xyz", 3);
	expect_fail(&b, SMDMX_ERROR_SYNTAX, bad);
	/* a header that lies about the version: a binary 5 body read as binary 2 */
	v5_start(&b, "2");
	put32(&b, 0);
	assert_null(smdmx_dmx_read_memory(b.d, b.n, NULL, &err, NULL));
	assert_true(err.code != SMDMX_ERROR_NONE);
	/* a header without its NUL, and an unknown version */
	const char *nonul = "<!-- dmx encoding binary 5 format dmx 1 -->\nxxxx";
	assert_null(smdmx_dmx_read_memory(nonul, strlen(nonul), NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_HEADER);
	const char *v7 = "<!-- dmx encoding binary 7 format dmx 1 -->\n";
	assert_null(smdmx_dmx_read_memory(v7, strlen(v7) + 1, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
}

/* The writer refuses what a version cannot hold, and its output is the same every time. */
static void test_writer(void **state)
{
	(void)state;
	smdmx_dm *dm = read_path(SMDMX_SOURCE_ROOT "/testdata/kv2/ok/types.dmx");
	test_sink s = { 0 };
	smdmx_error err;
	smdmx_dmx_write_options o = { .encoding = "binary", .encoding_version = 5 };
	assert_false(smdmx_dmx_write(dm, test_sink_write, &s, &o, &err)); /* uint64 needs 9 */
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
	o.encoding_version = 6; /* a version binary has not: the options refused, nothing written */
	assert_false(smdmx_dmx_write_options_check(&o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "--encoding binary is version 1 to 5 or 9, not 6");
	size_t before = s.size;
	assert_false(smdmx_dmx_write(dm, test_sink_write, &s, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_int_equal(s.size, before);
	o.encoding_version = 5;
	assert_true(smdmx_dmx_write_options_check(&o, &err)); /* the options are; the datamodel's uint64 is not */
	smdmx_dmx_write_options kv = { .encoding = "keyvalues2", .encoding_version = 5 };
	assert_false(smdmx_dmx_write_options_check(&kv, &err));
	assert_string_equal(err.message, "--encoding keyvalues2 is version 1 to 4, not 5");
	kv.encoding = "text";
	kv.encoding_version = 0;
	assert_false(smdmx_dmx_write_options_check(&kv, &err));
	assert_string_equal(err.message, "--encoding is keyvalues2, keyvalues2_flat, binary or binary_seqids, not 'text'");
	kv.encoding = "binary";
	kv.format = "two words";
	assert_false(smdmx_dmx_write_options_check(&kv, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_true(smdmx_dmx_write_options_check(NULL, &err));
	/* version 9 holds every type but objectid */
	smdmx_dm *layout = read_path(SMDMX_SOURCE_ROOT "/testdata/kv2/ok/prefix.dmx");
	test_sink a = { 0 }, b2 = { 0 };
	smdmx_dm *back = write_read(layout, "binary", 9, &a);
	char diff[256];
	if (!smdmx_dm_equal(layout, back, diff, sizeof(diff))) fail_msg("%s", diff);
	assert_int_equal(back->prefix_attr_count, 2);
	smdmx_dm_free(back);
	/* versions before 9 have no prefix block: the prefix attributes are left out */
	test_sink c5 = { 0 };
	back = write_read(layout, "binary", 5, &c5);
	assert_int_equal(back->prefix_attr_count, 0);
	assert_int_equal(back->element_count, 1);
	smdmx_dm_free(back);
	free(c5.data);
	back = write_read(layout, "binary", 9, &b2);
	assert_int_equal(a.size, b2.size);
	assert_memory_equal(a.data, b2.data, a.size);
	/* the header: text, newline, NUL */
	const char *head = "<!-- dmx encoding binary 9 format model 22 -->\n";
	assert_memory_equal(a.data, head, strlen(head) + 1);
	smdmx_dm_free(back);
	smdmx_dm_free(layout);
	smdmx_dm_free(dm);
	free(s.data);
	free(a.data);
	free(b2.data);
}

/* A binary file over the mapping threshold (4 MiB) is read from a mapping whose pages behind
 * the reader are given back every 8 MiB: three 6 MB arrays with elements and strings between
 * and after them read the same as from memory, the last bytes included. */
static void test_large_file(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dm_create(NULL, &err);
	uint32_t root = smdmx_dm_add_element(dm, "DmElement", "root", NULL, &err);
	static const char *const names[] = { "part0", "part1", "part2" };
	for (int k = 0; k < 3; k++) {
		const char *name = names[k];
		uint32_t e = smdmx_dm_add_element(dm, "DmElement", name, NULL, &err);
		float *v = smdmx_dm_add_attr(dm, e, "values", SMDMX_DM_FLOAT, true, 1500000, &err)->value.array.data;
		for (size_t i = 0; i < 1500000; i++) v[i] = (float)(i % 1000) + 0.25f * (float)k;
		smdmx_dm_add_attr(dm, e, "after", SMDMX_DM_STRING, false, 0, &err)->value.s = name;
		smdmx_dm_add_attr(dm, root, name, SMDMX_DM_ELEMENT, false, 0, &err)->value.element = e;
	}
	test_sink out = { 0 };
	smdmx_dm *mem = write_read(dm, "binary", 5, &out);
	assert_true(out.size > 18000000);
	char *path = test_temp_file("large.dmx", out.data, out.size);
	smdmx_dm *file = read_path(path);
	char diff[256];
	if (!smdmx_dm_equal(mem, file, diff, sizeof(diff))) fail_msg("%s", diff);
	const smdmx_dm_attr *last = smdmx_dm_find_attr(file, 3, "values");
	assert_non_null(last);
	assert_true(((const float *)last->value.array.data)[1499999] == 999.5f);
	assert_string_equal(smdmx_dm_find_attr(file, 3, "after")->value.s, "part2");
	os_remove(path);
	free(path);
	smdmx_dm_free(file);
	smdmx_dm_free(mem);
	smdmx_dm_free(dm);
	free(out.data);
}

/* The DMX limits in the binary reader, at their values and one past them. */
static void test_limits(void **state)
{
	(void)state;
	static const char text[] =
	    "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n"
	    "\"DmElement\" { \"id\" \"elementid\" \"00000000-0000-0000-0000-000000000001\" \"a\" \"int\" \"1\"\n"
	    "\"b\" \"int_array\" [ \"1\", \"2\", \"3\" ]\n"
	    "\"c\" \"element_array\" [ \"DmElement\" { \"id\" \"elementid\" \"00000000-0000-0000-0000-000000000002\" } ] }\n";
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(text, sizeof(text) - 1, NULL, &err, NULL);
	assert_non_null(dm);
	test_sink bin = { 0 };
	smdmx_dmx_write_options wo = { .encoding = "binary", .encoding_version = 5 };
	assert_true(smdmx_dmx_write(dm, test_sink_write, &bin, &wo, &err));
	smdmx_dm_free(dm);
	static const struct {
		smdmx_dm_limits limits;
		const char *message; /* NULL: reads */
	} cases[] = {
		{ { .max_elements = 2 }, NULL },
		{ { .max_elements = 1 }, "byte 66: 2 elements; the limit is 1" },
		{ { .max_attributes = 3 }, NULL },
		{ { .max_attributes = 2 }, "byte 118: 3 attributes in one element; the limit is 2" },
		{ { .max_array_items = 3 }, NULL },
		{ { .max_array_items = 2 }, "byte 136: 3 items in one array; the limit is 2" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		smdmx_dmx_read_options o = { .limits = cases[i].limits };
		dm = smdmx_dmx_read_memory(bin.data, bin.size, &o, &err, NULL);
		if (!cases[i].message) {
			if (!dm) fail_msg("case %zu: %s", i, err.message);
			smdmx_dm_free(dm);
			continue;
		}
		assert_null(dm);
		assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
		assert_string_equal(err.message, cases[i].message); /* at the byte offset of the count */
		assert_int_equal(err.byte, strtoull(cases[i].message + 5, NULL, 10) + 1);
	}
	free(bin.data);
}

/* The version written when none is asked: keyvalues2 1 and binary 5, or the version the
 * datamodel's attributes need; it writes and reads back the same graph. */
static void test_default_version(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dm_create(NULL, &err);
	uint32_t root = smdmx_dm_add_element(dm, "DmElement", "root", NULL, &err);
	assert_non_null(smdmx_dm_add_attr(dm, root, "n", SMDMX_DM_INT, false, 0, &err));
	assert_int_equal(smdmx_dmx_default_version(dm, "binary"), 5);
	assert_int_equal(smdmx_dmx_default_version(dm, "keyvalues2"), 1);
	assert_int_equal(smdmx_dmx_default_version(dm, NULL), 1);
	smdmx_dm_attr *oid = smdmx_dm_add_attr(dm, root, "oid", SMDMX_DM_OBJECTID, false, 0, &err);
	assert_non_null(oid);
	assert_int_equal(smdmx_dmx_default_version(dm, "binary"), 2);
	assert_int_equal(smdmx_dmx_default_version(dm, "keyvalues2_flat"), 1);
	test_sink out = { 0 };
	smdmx_dmx_write_options o = { .encoding = "binary" };
	assert_true(smdmx_dmx_write(dm, test_sink_write, &out, &o, &err));
	assert_memory_equal(out.data, "<!-- dmx encoding binary 2 ", 27);
	assert_non_null(smdmx_dm_add_attr(dm, root, "u8", SMDMX_DM_UINT8, true, 3, &err));
	assert_int_equal(smdmx_dmx_default_version(dm, "keyvalues2"), 4);
	assert_int_equal(smdmx_dmx_default_version(dm, "binary"), 9); /* and 9 cannot hold the objectid */
	out.size = 0;
	assert_false(smdmx_dmx_write(dm, test_sink_write, &out, &o, &err));
	assert_string_equal(err.message, "attribute 'oid' is elementid, which binary 9 cannot hold (1 and 2 can)");
	free(out.data);
	smdmx_dm_free(dm);
}

/* ---- binary_seqids (doc/formats.md B10a) ------------------------------------------------- */

/* The folder of s&box's binary_seqids files: ../shared/incoming/dmx_seqids, real files (MIT)
 * that xezno/sbox-instagib's model editor extracted (its MANIFEST.tsv says where from), kept
 * beside the corpus until smdmx read them; the corpus's own dmx_seqids/ once they are in it.
 * Missing as the corpus is: skipped, or failed under SMDMX_REQUIRE_CORPUS. */
static const char *seqids_dir(void)
{
	static char dir[4096];
	const char *corpus = test_corpus_dir();
	snprintf(dir, sizeof(dir), "%s/../incoming/dmx_seqids", corpus);
	os_stat st;
	if (os_stat_path(dir, &st) && st.kind == OS_DIRECTORY) return dir;
	snprintf(dir, sizeof(dir), "%s/dmx_seqids", corpus);
	if (!os_stat_path(dir, &st) || st.kind != OS_DIRECTORY) fail_msg("no dmx_seqids folder beside the corpus or in it");
	return dir;
}

/* Element k of the index (from 1) has the id k in its first four bytes, little-endian in the
 * file (text "0000000k-0000-..."), as s&box numbers them. */
static void expect_seqids(const smdmx_dm *dm, const char *label)
{
	for (size_t i = 0; i < dm->element_count; i++) {
		uint8_t want[16] = { (uint8_t)((i + 1) >> 24), (uint8_t)((i + 1) >> 16), (uint8_t)((i + 1) >> 8), (uint8_t)(i + 1) };
		if (memcmp(dm->elements[i].id, want, 16) != 0) fail_msg("%s: element %zu is not numbered %zu", label, i, i + 1);
	}
}

/* The three real files read as binary 9 reads (their counts as s&box wrote them), convert to
 * scenes, and re-encode: binary 9, keyvalues2 and binary_seqids each read back the same graph,
 * and binary_seqids twice gives the same bytes. */
static void test_seqids_real(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		size_t elements, joints, meshes, corners, clips, dropped;
	} files[] = {
		{ "xezno__sbox-instagib___idle_0.dmx", 178, 21, 0, 0, 1, 0 },
		{ "xezno__sbox-instagib__wpn_qc_railgun_bg_trigger2_lod0.dmx", 75, 21, 1, 426, 0, 0 },
		/* a physics mesh: 146 + 64 + 112 + 58 triangles, their faces numbering positions, its
		 * corner arrays 438 + 192 + 336 + 174 long, three a triangle */
		{ "xezno__sbox-instagib__wpn_qc_railgun_phy.dmx", 24, 0, 4, 75 + 34 + 58 + 31, 0, 438 + 192 + 336 + 174 - 198 },
	};
	const char *dir = seqids_dir();
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", dir, files[f].file);
		smdmx_dm *dm = read_path(path);
		assert_string_equal(dm->encoding, "binary_seqids");
		assert_int_equal(dm->encoding_version, 9);
		assert_int_equal(dm->format_version, 22);
		assert_int_equal(dm->element_count, files[f].elements);
		expect_seqids(dm, files[f].file);
		smdmx_error err;
		TEST_WARNINGS(w);
		smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, &w);
		if (!s) fail_msg("%s: %s", files[f].file, err.message);
		assert_int_equal(s->joint_count, files[f].joints);
		assert_int_equal(s->mesh_count, files[f].meshes);
		assert_int_equal(s->clip_count, files[f].clips);
		size_t corners = 0, dropped = 0;
		for (size_t m = 0; m < s->mesh_count; m++) corners += s->meshes[m].corner_count;
		assert_int_equal(corners, files[f].corners);
		for (size_t i = 0; i < w.count; i++)
			if (w.data[i].code == SMDMX_WARNING_DROPPED) dropped = w.data[i].count;
		assert_int_equal(dropped, files[f].dropped);
		smdmx_scene_free(s);
		test_sink a = { 0 }, b = { 0 };
		static const struct {
			const char *encoding;
			int version;
		} outs[] = { { "binary", 9 }, { "keyvalues2", 1 }, { "binary_seqids", 0 } };
		char diff[256];
		for (size_t o = 0; o < 3; o++) {
			smdmx_dm *back = write_read(dm, outs[o].encoding, outs[o].version, &a);
			if (!smdmx_dm_equal(dm, back, diff, sizeof(diff))) fail_msg("%s as %s: %s", files[f].file, outs[o].encoding, diff);
			assert_string_equal(back->encoding, outs[o].encoding);
			smdmx_dm_free(back);
		}
		smdmx_dm *again = write_read(dm, "binary_seqids", 9, &b);
		assert_int_equal(a.size, b.size);
		assert_memory_equal(a.data, b.data, a.size);
		assert_memory_equal(a.data, "<!-- dmx encoding binary_seqids 9 format ", 41);
		smdmx_dm_free(again);
		free(a.data);
		free(b.data);
		smdmx_dm_free(dm);
	}
}

static void o_binary9(smdmx_dm *dm, test_sink *out)
{
	smdmx_error err;
	smdmx_dmx_write_options o = { .encoding = "binary", .encoding_version = 9 };
	if (!smdmx_dmx_write(dm, test_sink_write, out, &o, &err)) fail_msg("%s", err.message);
}

static bool holds(const test_sink *t, const uint8_t bytes[16])
{
	for (size_t i = 0; i + 16 <= t->size; i++)
		if (!memcmp((const uint8_t *)t->data + i, bytes, 16)) return true;
	return false;
}

/* A graph of other ids written as binary_seqids: numbered 1 to n in the written order (the
 * root first), the same graph otherwise; its only version is 9, and a reference to an
 * element of another file whose id it would give one of its own is refused. */
static void test_seqids_write(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_dm *dm = smdmx_dm_create(NULL, &err);
	uint32_t root = smdmx_dm_add_element(dm, "DmElement", "root", NULL, &err);
	uint8_t id[16] = { 0x12, 0x34, 0x56, 0x78, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	uint32_t child = smdmx_dm_add_element(dm, "DmeChild", "c", id, &err);
	smdmx_dm_attr *a = smdmx_dm_add_attr(dm, root, "child", SMDMX_DM_ELEMENT, false, 0, &err);
	a->value.element = child;
	smdmx_dm_attr *back_ref = smdmx_dm_add_attr(dm, child, "up", SMDMX_DM_ELEMENT, true, 2, &err);
	((uint32_t *)back_ref->value.array.data)[0] = root;
	((uint32_t *)back_ref->value.array.data)[1] = child;
	assert_int_equal(smdmx_dmx_default_version(dm, "binary_seqids"), 9);
	test_sink out = { 0 };
	smdmx_dm *s = write_read(dm, "binary_seqids", 0, &out);
	assert_int_equal(s->element_count, 2);
	expect_seqids(s, "written");
	assert_string_equal(s->elements[1].type, "DmeChild");
	assert_int_equal(smdmx_dm_find_attr(s, 0, "child")->value.element, 1);
	const uint32_t *up = smdmx_dm_find_attr(s, 1, "up")->value.array.data;
	assert_int_equal(up[0], 0);
	assert_int_equal(up[1], 1);
	/* the ids in the file: 1 and 2, little-endian, where binary 9 has the graph's own */
	static const uint8_t one[16] = { 1 }, two[16] = { 2 };
	assert_true(holds(&out, one) && holds(&out, two) && 
	            !holds(&out, (const uint8_t[16]){ 0x78, 0x56, 0x34, 0x12, 10, 9, 12, 11, 13, 14, 15, 16, 17, 18, 19, 20 }));
	out.size = 0;
	o_binary9(dm, &out);
	assert_true(holds(&out, (const uint8_t[16]){ 0x78, 0x56, 0x34, 0x12, 10, 9, 12, 11, 13, 14, 15, 16, 17, 18, 19, 20 }));
	smdmx_dmx_write_options o = { .encoding = "binary_seqids", .encoding_version = 5 };
	out.size = 0;
	assert_false(smdmx_dmx_write(dm, test_sink_write, &out, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "--encoding binary_seqids is version 9 only, not 5");
	/* a stub numbered 2: the child would take its id */
	smdmx_dm_free(s);
	static const char stub_file[] = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n"
	                                "\"DmElement\" { \"id\" \"elementid\" \"00000001-0000-0000-0000-000000000000\" "
	                                "\"a\" \"element\" \"00000009-0000-0000-0000-000000000000\" "
	                                "\"b\" \"element\" \"00000002-0000-0000-0000-000000000000\" }\n"
	                                "\"DmElement\" { \"id\" \"elementid\" \"00000009-0000-0000-0000-000000000000\" }\n";
	smdmx_dm *st = smdmx_dmx_read_memory(stub_file, sizeof(stub_file) - 1, NULL, &err, NULL);
	if (!st) fail_msg("%s", err.message);
	assert_int_equal(smdmx_dm_stub_count(st), 1);
	o.encoding_version = 9;
	out.size = 0;
	assert_false(smdmx_dmx_write(st, test_sink_write, &out, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_DUPLICATE_ID);
	assert_string_equal(err.message, "a reference to element 00000002-0000-0000-0000-000000000000 of another file, which "
	                                 "binary_seqids gives an element of this one; write binary 9");
	smdmx_dm_free(st);
	free(out.data);
	smdmx_dm_free(dm);
	/* a header of binary_seqids in another version is refused at 1:1 */
	static const char v5[] = "<!-- dmx encoding binary_seqids 5 format dmx 22 -->\n";
	assert_null(smdmx_dmx_read_memory(v5, sizeof(v5), NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
	assert_string_equal(err.message, "binary_seqids version 5 (9 is read)");
	assert_int_equal(err.line, 1);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_srctools_encodings),
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_large_file),
		cmocka_unit_test(test_default_version),
		cmocka_unit_test(test_seqids_real),
		cmocka_unit_test(test_seqids_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
