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
	smdmx_warnings w;
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
	o.encoding_version = 6;
	assert_false(smdmx_dmx_write(dm, test_sink_write, &s, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
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

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_srctools_encodings),
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_writer),
		cmocka_unit_test(test_default_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
