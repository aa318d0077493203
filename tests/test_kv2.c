/* The datamodel and the keyvalues2 encoding: every type and layout at exact values, every
 * error at its code, line and column, the corpus round trip, determinism. (Truncation and
 * allocation failures: test_sweeps.) */
#define _GNU_SOURCE
#include <inttypes.h>
#include <locale.h>
#include <math.h>


#include "../src/dmx/dm_internal.h" /* first: util.h's threads helpers need it */
#include "../src/dmx/kv2_read.h" /* sm_kv2_part_min */
#include "../src/support/sha1.h"
#include "util.h"

static smdmx_dm *read_ok(const char *rel)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(test_path(rel), NULL, &err, NULL);
	if (!dm) fail_msg("%s:%u:%u: %s", rel, err.line, err.column, err.message);
	return dm;
}

static const smdmx_dm_attr *attr(const smdmx_dm *dm, uint32_t e, const char *name)
{
	const smdmx_dm_attr *a = smdmx_dm_find_attr(dm, e, name);
	if (!a) fail_msg("no attribute '%s'", name);
	return a;
}

static uint32_t id_of(const smdmx_dm *dm, const char *text)
{
	uint8_t id[16];
	assert_true(smdmx_dm_id_from_text(text, strlen(text), id));
	return smdmx_dm_find_id(dm, id);
}

static void test_types(void **state)
{
	(void)state;
	smdmx_dm *dm = read_ok("testdata/kv2/ok/types.dmx");
	assert_string_equal(dm->encoding, "keyvalues2");
	assert_int_equal(dm->encoding_version, 4);
	assert_string_equal(dm->format, "dmx");
	assert_int_equal(dm->format_version, 2);
	uint32_t r = dm->root;
	assert_int_equal(r, id_of(dm, "11111111-2222-3333-4444-555555555555"));
	assert_string_equal(dm->elements[r].name, "types");
	assert_int_equal(attr(dm, r, "i")->value.i, INT32_MIN);
	assert_true(attr(dm, r, "f")->value.f == 0.1f);
	assert_true(attr(dm, r, "b")->value.b);
	assert_string_equal(attr(dm, r, "s")->value.s, "a \"quoted\" \\ back\nslash");
	const smdmx_dm_attr *bin = attr(dm, r, "bin");
	assert_int_equal(bin->value.bin.size, 3);
	assert_memory_equal(bin->value.bin.data, "\x00\xff\x1a", 3);
	assert_int_equal(attr(dm, r, "t")->value.i, 15001); /* floor(10000 * 1.5001 + 0.5) */
	assert_memory_equal(attr(dm, r, "c")->value.color, "\x01\x02\x03\xff", 4);
	const float *v3 = attr(dm, r, "v3")->value.v;
	assert_true(v3[0] == 1000.0f && v3[1] == 0.5f && v3[2] == 0.0f && signbit(v3[2]));
	assert_true(attr(dm, r, "q")->value.v[3] == 0.7071068f);
	const float *m = attr(dm, r, "m")->value.matrix;
	for (int i = 0; i < 16; i++) assert_true(m[i] == (i % 5 == 0 ? 1.0f : 0.0f));
	assert_true(attr(dm, r, "u64")->value.u64 == UINT64_MAX);
	assert_int_equal(attr(dm, r, "u8")->value.u8, 255);
	assert_int_equal(attr(dm, r, "oid")->type, SMDMX_DM_OBJECTID);
	assert_int_equal(attr(dm, r, "oid")->value.id[0], 0xaa);
	const smdmx_dm_attr *ia = attr(dm, r, "ia");
	assert_true(ia->is_array && ia->type == SMDMX_DM_INT && ia->value.array.count == 3);
	assert_int_equal(((int32_t *)ia->value.array.data)[2], 3);
	assert_int_equal(attr(dm, r, "fa")->value.array.count, 0);
	assert_int_equal(((uint8_t *)attr(dm, r, "ba")->value.array.data)[1], 1);
	assert_string_equal(((const char **)attr(dm, r, "sa")->value.array.data)[1], "y");
	const smdmx_dm_binary *bins = attr(dm, r, "bina")->value.array.data;
	assert_int_equal(bins[0].size, 0);
	assert_int_equal(bins[1].data[1], 2);
	const int32_t *times = attr(dm, r, "ta")->value.array.data;
	assert_int_equal(times[1], 333);
	assert_int_equal(times[2], -10000);
	assert_true(((float *)attr(dm, r, "v3a")->value.array.data)[5] == 6.0f);
	assert_true(((uint64_t *)attr(dm, r, "u64a")->value.array.data)[0] == 16);
	assert_int_equal(((uint8_t *)attr(dm, r, "u8a")->value.array.data)[1], 128);
	/* order kept, "id" and "name" not among the attributes */
	assert_int_equal(dm->elements[r].attr_count, 32);
	assert_string_equal(dm->elements[r].attrs[0].name, "i");
	assert_string_equal(dm->elements[r].attrs[31].name, "oida");
	smdmx_dm_free(dm);
}

/* Every type's name, and its array's, read back as that type (the aliases too); what is no
 * type's name is none, an element type among them. */
static void test_type_names(void **state)
{
	(void)state;
	smdmx_dm_type t;
	bool arr;
	for (int type = SMDMX_DM_NONE + 1; type < SMDMX_DM_TYPE_COUNT; type++) {
		for (int a = 0; a <= 1; a++) {
			const char *name = smdmx_dm_type_name((smdmx_dm_type)type, a);
			assert_non_null(name);
			t = SMDMX_DM_NONE;
			if (!smdmx_dm_type_from_name(name, strlen(name), &t, &arr)) fail_msg("'%s' is not read", name);
			assert_int_equal(t, type);
			assert_int_equal(arr, a);
		}
	}
	static const struct {
		const char *name;
		smdmx_dm_type type;
		bool array;
	} aliases[] = { { "angle", SMDMX_DM_QANGLE, false },
	                { "angle_array", SMDMX_DM_QANGLE, true },
	                { "objectid", SMDMX_DM_OBJECTID, false },
	                { "objectid_array", SMDMX_DM_OBJECTID, true } };
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		assert_true(smdmx_dm_type_from_name(aliases[i].name, strlen(aliases[i].name), &t, &arr));
		assert_int_equal(t, aliases[i].type);
		assert_int_equal(arr, aliases[i].array);
	}
	static const char *const none[] = { "DmeModel", "", "in", "Int", "int_arrays", "quaternion_arrayx", "elementid_" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (smdmx_dm_type_from_name(none[i], strlen(none[i]), &t, &arr)) fail_msg("'%s' is read as a type", none[i]);
	/* the length given counts, not a NUL: "int" inside "integer" */
	assert_true(smdmx_dm_type_from_name("integer", 3, &t, &arr) && t == SMDMX_DM_INT && !arr);
}

static void test_layout(void **state)
{
	(void)state;
	smdmx_dm *dm = read_ok("testdata/kv2/ok/layout.dmx");
	assert_int_equal(dm->element_count, 4);
	uint32_t root = dm->root, child = id_of(dm, "00000000-0000-0000-0000-000000000002"),
	         shared = id_of(dm, "00000000-0000-0000-0000-000000000003"), item = id_of(dm, "00000000-0000-0000-0000-000000000004");
	assert_int_equal(root, id_of(dm, "00000000-0000-0000-0000-000000000001"));
	/* a reference to an element defined later, a null, an inline child that points back */
	assert_int_equal(attr(dm, root, "forward")->value.element, shared);
	assert_int_equal(attr(dm, root, "null")->value.element, SMDMX_NONE);
	assert_int_equal(attr(dm, root, "inline")->value.element, child);
	assert_int_equal(attr(dm, child, "back")->value.element, root);
	/* an element array mixing an inline element, references and a null */
	const smdmx_dm_attr *mixed = attr(dm, root, "mixed");
	assert_int_equal(mixed->value.array.count, 4);
	const uint32_t *ix = mixed->value.array.data;
	assert_int_equal(ix[0], item);
	assert_int_equal(ix[1], shared);
	assert_int_equal(ix[2], SMDMX_NONE);
	assert_int_equal(ix[3], child);
	/* the escape set: \t \v \b \r \f \a \? \' \\ \" (an unknown escape: test_other_writers) */
	assert_string_equal(attr(dm, shared, "esc")->value.s, "\t\v\b\r\f\a?'\\x\"");
	smdmx_dm_free(dm);
}

static void test_prefix_and_legacy(void **state)
{
	(void)state;
	smdmx_dm *dm = read_ok("testdata/kv2/ok/prefix.dmx");
	assert_int_equal(dm->prefix_attr_count, 2);
	assert_string_equal(dm->prefix_attrs[0].name, "anim_frameRate");
	assert_true(dm->prefix_attrs[0].value.f == 30.0f);
	assert_int_equal(dm->prefix_attrs[1].value.i, 7000);
	assert_int_equal(dm->element_count, 1);
	assert_string_equal(dm->elements[dm->root].name, "root");
	smdmx_dm_free(dm);
	dm = read_ok("testdata/kv2/ok/legacy.dmx");
	assert_string_equal(dm->encoding, "keyvalues2");
	assert_int_equal(dm->encoding_version, 1);
	assert_string_equal(dm->elements[0].name, "legacy");
	assert_false(dm->elements[0].has_id);
	assert_int_equal(attr(dm, 0, "value")->value.i, 7);
	smdmx_dm_free(dm);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		smdmx_error_code code;
		uint32_t line, col;
	} cases[] = {
		{ "duplicate_id.dmx", SMDMX_ERROR_DUPLICATE_ID, 4, 29 },
		{ "bad_int.dmx", SMDMX_ERROR_BAD_VALUE, 3, 12 },
		{ "components.dmx", SMDMX_ERROR_BAD_VALUE, 3, 16 },
		{ "unterminated_string.dmx", SMDMX_ERROR_UNTERMINATED, 3, 15 },
		{ "unterminated_brace.dmx", SMDMX_ERROR_UNTERMINATED, 2, 5 },
		{ "unterminated_bracket.dmx", SMDMX_ERROR_UNTERMINATED, 3, 18 },
		{ "unknown_type.dmx", SMDMX_ERROR_UNKNOWN_TYPE, 3, 6 },
		{ "not_dmx.dmx", SMDMX_ERROR_HEADER, 1, 1 },
		{ "binary.dmx", SMDMX_ERROR_HEADER, 0, 0 }, /* a binary header without its NUL byte (byte offset) */
		{ "nan.dmx", SMDMX_ERROR_BAD_VALUE, 3, 14 },
		{ "bad_id.dmx", SMDMX_ERROR_BAD_VALUE, 3, 16 },
		{ "stray.dmx", SMDMX_ERROR_SYNTAX, 3, 6 },
		{ "no_element.dmx", SMDMX_ERROR_EMPTY, 2, 1 },
		/* unquoted words: only a value type's name standing for an empty value is read */
		{ "bare_unknown_type.dmx", SMDMX_ERROR_SYNTAX, 3, 6 },
		{ "bare_value.dmx", SMDMX_ERROR_SYNTAX, 3, 12 },
		{ "bare_name.dmx", SMDMX_ERROR_SYNTAX, 3, 2 },
		{ "bare_item.dmx", SMDMX_ERROR_SYNTAX, 3, 25 },
		{ "bare_element_item.dmx", SMDMX_ERROR_SYNTAX, 3, 24 },
		{ "bare_id.dmx", SMDMX_ERROR_SYNTAX, 3, 7 },
		{ "bare_element_type.dmx", SMDMX_ERROR_SYNTAX, 2, 1 },
		/* an unescaped quote followed by a space closes the string: the rest is a bare word */
		{ "loose_quote.dmx", SMDMX_ERROR_SYNTAX, 3, 22 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "testdata/kv2/bad/%s", cases[i].file);
		smdmx_error err;
		smdmx_dm *dm = smdmx_dmx_read_file(test_path(rel), NULL, &err, NULL);
		if (dm) fail_msg("%s: read without error", cases[i].file);
		if (err.code != cases[i].code || err.line != cases[i].line || err.column != cases[i].col)
			fail_msg("%s: got %s at %u:%u (%s), want %s at %u:%u", cases[i].file, smdmx_error_code_name(err.code), err.line,
			         err.column, err.message, smdmx_error_code_name(cases[i].code), cases[i].line, cases[i].col);
	}
	static const struct {
		const char *file, *message;
	} messages[] = {
		{ "bare_unknown_type.dmx",
		  "expected a quoted attribute type, found the unquoted word 'foo' (only a value type's name may stand unquoted, for "
		  "an empty value)" },
		{ "bare_value.dmx", "expected a value, found the unquoted word '5' (keyvalues2 quotes every string)" },
		{ "bare_element_item.dmx", "expected an element or ']', found the unquoted word 'element' (keyvalues2 quotes every string)" },
		{ "bare_id.dmx", "an element's \"id\" needs its type and value quoted" },
		{ "stray.dmx",
		  "expected a quoted attribute type, found the unquoted word '=' (only a value type's name may stand unquoted, for an "
		  "empty value)" },
	};
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "testdata/kv2/bad/%s", messages[i].file);
		smdmx_error err;
		assert_null(smdmx_dmx_read_file(test_path(rel), NULL, &err, NULL));
		assert_string_equal(err.message, messages[i].message);
	}
	/* an empty file, a NUL byte, a header too short */
	smdmx_error err;
	assert_null(smdmx_dmx_read_memory("", 0, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_EMPTY);
	const char nul[] = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" { \"s\" \"string\" \"a\0b\" }\n";
	assert_null(smdmx_dmx_read_memory(nul, sizeof(nul) - 1, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_NUL_BYTE);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 22);
	/* int arrays: the extremes read, one past them is an error at the item */
	const char *ints = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" { \"a\" \"int_array\" [ \"2147483647\", \"-2147483648\" ] }\n";
	smdmx_dm *dm = smdmx_dmx_read_memory(ints, strlen(ints), NULL, &err, NULL);
	assert_non_null(dm);
	assert_int_equal(((int32_t *)dm->elements[0].attrs[0].value.array.data)[1], INT32_MIN);
	smdmx_dm_free(dm);
	/* every length of 1 to 10 digits, with and without a sign and leading zeros, each read as
	 * strtol reads it (the fast form takes up to 7 digits at once, more one at a time) */
	{
		static const char *const items[] = { "0", "7", "-7", "42", "-0", "007", "123", "4567", "-89012", "345678",
			                             "1234567", "-7654321", "0000001", "12345678", "-87654321", "00000000",
			                             "123456789", "-987654321", "1000000000", "2000000000", "-2000000001",
			                             "0123456789", "99999999", "1", "2", "3" };
		char text[1024];
		size_t n = sizeof(items) / sizeof(items[0]), k = (size_t)snprintf(text, sizeof(text),
		                                                              "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" { \"a\" \"int_array\" [ ");
		for (size_t i = 0; i < n; i++) k += (size_t)snprintf(text + k, sizeof(text) - k, "\"%s\"%s", items[i], i + 1 < n ? ", " : " ] }\n");
		dm = smdmx_dmx_read_memory(text, k, NULL, &err, NULL);
		if (!dm) fail_msg("%s", err.message);
		assert_int_equal(dm->elements[0].attrs[0].value.array.count, n);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(((int32_t *)dm->elements[0].attrs[0].value.array.data)[i], (int32_t)strtol(items[i], NULL, 10));
		smdmx_dm_free(dm);
	}
	const char *big = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" { \"a\" \"int_array\" [ \"1\", \"2147483648\" ] }\n";
	assert_null(smdmx_dmx_read_memory(big, strlen(big), NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_BAD_VALUE);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 30);
	assert_null(smdmx_dmx_read_memory("<!-- -->", 8, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_HEADER);
	const char *v5 = "<!-- dmx encoding keyvalues2 5 format dmx 1 -->\n";
	assert_null(smdmx_dmx_read_memory(v5, strlen(v5), NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
}

/* Inline nesting at the depth limit reads; one deeper fails at the '{' that passes it. */
static void test_depth_limit(void **state)
{
	(void)state;
	for (int extra = 0; extra <= 1; extra++) {
		char text[4096];
		size_t n = (size_t)snprintf(text, sizeof(text), "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" {");
		int levels = 7 + extra; /* with the root: 8 or 9 frames */
		for (int i = 0; i < levels; i++) n += (size_t)snprintf(text + n, sizeof(text) - n, " \"c\" \"A\" {");
		for (int i = 0; i <= levels; i++) n += (size_t)snprintf(text + n, sizeof(text) - n, " }");
		smdmx_dmx_read_options o = { .limits = { .max_depth = 8 } };
		smdmx_error err;
		smdmx_dm *dm = smdmx_dmx_read_memory(text, n, &o, &err, NULL);
		if (!extra) {
			assert_non_null(dm);
			assert_int_equal(dm->element_count, 8);
			smdmx_dm_free(dm);
		} else {
			assert_null(dm);
			assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
			assert_int_equal(err.line, 2);
			assert_int_equal(err.column, 5 + 10 * 8); /* the ninth '{' */
		}
	}
}

/* The writers' sink of util.h, under shorter names. */
typedef test_sink sink;
#define sink_write test_sink_write

static smdmx_dm *write_read(smdmx_dm *dm, const smdmx_dmx_write_options *o, sink *out)
{
	smdmx_error err;
	out->size = 0;
	if (!smdmx_dmx_write(dm, sink_write, out, o, &err)) fail_msg("write: %s", err.message);
	smdmx_dm *back = smdmx_dmx_read_memory(out->data, out->size, NULL, &err, NULL);
	if (!back) fail_msg("re-read: %u:%u: %s", err.line, err.column, err.message);
	return back;
}

static void round_trip(const char *path, const char *label)
{
	smdmx_error err;
	smdmx_dm *a = smdmx_dmx_read_file(path, NULL, &err, NULL);
	if (!a) fail_msg("%s:%u:%u: %s", label, err.line, err.column, err.message);
	static const char *const encodings[2] = { "keyvalues2", "keyvalues2_flat" };
	for (int e = 0; e < 2; e++) {
		for (int v = 1; v <= 4; v++) {
			bool has_uint = false;
			for (size_t i = 0; i < a->element_count; i++)
				for (size_t k = 0; k < a->elements[i].attr_count; k++)
					has_uint |= a->elements[i].attrs[k].type == SMDMX_DM_UINT64 || a->elements[i].attrs[k].type == SMDMX_DM_UINT8;
			if (has_uint && v < 4) continue;
			smdmx_dmx_write_options o = { .encoding = encodings[e], .encoding_version = v };
			sink s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
			smdmx_dm *b = write_read(a, &o, &s1);
			char diff[256];
			if (!smdmx_dm_equal(a, b, diff, sizeof(diff))) fail_msg("%s (%s %d): %s", label, encodings[e], v, diff);
			assert_string_equal(b->encoding, encodings[e]);
			assert_int_equal(b->encoding_version, v);
			assert_string_equal(b->format, a->format);
			assert_int_equal(b->format_version, a->format_version);
			/* deterministic, and a second generation gives the same bytes */
			smdmx_dm *c = write_read(a, &o, &s2);
			smdmx_dm *d = write_read(b, &o, &s3);
			if (s1.size != s2.size || memcmp(s1.data, s2.data, s1.size)) fail_msg("%s: output not deterministic", label);
			if (s1.size != s3.size || memcmp(s1.data, s3.data, s1.size)) fail_msg("%s: second generation differs", label);
			smdmx_dm_free(b);
			smdmx_dm_free(c);
			smdmx_dm_free(d);
			free(s1.data);
			free(s2.data);
			free(s3.data);
		}
	}
	smdmx_dm_free(a);
}

static bool is_kv2(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return false;
	char head[64] = { 0 };
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	return n > 0 && strstr(head, "keyvalues2") != NULL;
}

static void test_corpus_round_trip(void **state)
{
	(void)state;
	static const char *const dirs[] = { "dmx_kv2_model", "dmx_kv2_anim", "other" };
	size_t files = 0;
	for (size_t d = 0; d < 3; d++) {
		size_t n;
		char **paths = test_corpus_files(dirs[d], &n);
		for (size_t i = 0; i < n; i++) {
			if (!strstr(paths[i], ".dmx") || !is_kv2(paths[i])) continue;
			round_trip(paths[i], test_base_name(paths[i]));
			files++;
		}
		test_free_list(paths, n);
	}
	assert_true(files >= 8);
	/* and the project's own files */
	static const char *const own[] = { "testdata/kv2/ok/types.dmx", "testdata/kv2/ok/layout.dmx",
		                               "testdata/kv2/ok/prefix.dmx", "testdata/kv2/ok/legacy.dmx" };
	for (size_t i = 0; i < 4; i++) round_trip(test_path(own[i]), own[i]);
}

/* The layout of written files (A10): root first, a once-referenced element inline, a
 * shared one at top level, nulls as "", tab indentation. */
static void test_writer_layout(void **state)
{
	(void)state;
	smdmx_dm *dm = read_ok("testdata/kv2/ok/layout.dmx");
	sink s = { 0 };
	smdmx_error err;
	assert_true(smdmx_dmx_write(dm, sink_write, &s, NULL, &err));
	test_sink_text(&s);
	const char *want =
	    "<!-- dmx encoding keyvalues2 1 format model 18 -->\n"
	    "\"DmElement\"\n{\n"
	    "\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000001\"\n"
	    "\t\"name\" \"string\" \"root\"\n"
	    "\t\"forward\" \"element\" \"00000000-0000-0000-0000-000000000003\"\n"
	    "\t\"null\" \"element\" \"\"\n"
	    "\t\"inline\" \"element\" \"00000000-0000-0000-0000-000000000002\"\n"
	    "\t\"mixed\" \"element_array\"\n\t[\n"
	    "\t\t\"DmeItem\"\n\t\t{\n"
	    "\t\t\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000004\"\n"
	    "\t\t\t\"name\" \"string\" \"item\"\n"
	    "\t\t},\n"
	    "\t\t\"element\" \"00000000-0000-0000-0000-000000000003\",\n"
	    "\t\t\"element\" \"\",\n"
	    "\t\t\"element\" \"00000000-0000-0000-0000-000000000002\"\n"
	    "\t]\n"
	    "}\n\n"
	    "\"DmeChild\"\n{\n"
	    "\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000002\"\n"
	    "\t\"name\" \"string\" \"child\"\n"
	    "\t\"back\" \"element\" \"00000000-0000-0000-0000-000000000001\"\n"
	    "}\n\n"
	    "\"DmeShared\"\n{\n"
	    "\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000003\"\n"
	    "\t\"name\" \"string\" \"shared\"\n"
	    "\t\"esc\" \"string\" \"\t\v\b\r\f\a?'\\\\x\\\"\"\n"
	    "}\n";
	assert_string_equal(s.data, want);
	/* uint64 needs keyvalues2 4 */
	smdmx_dm *t = read_ok("testdata/kv2/ok/types.dmx");
	smdmx_dmx_write_options o = { .encoding_version = 3 };
	assert_false(smdmx_dmx_write(t, sink_write, &s, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
	o.encoding = "binary";
	o.encoding_version = 4;
	assert_false(smdmx_dmx_write(t, sink_write, &s, &o, &err));
	assert_int_equal(err.code, SMDMX_ERROR_ENCODING);
	smdmx_dm_free(t);
	smdmx_dm_free(dm);
	free(s.data);
}

/* SHA-1, which makes element ids: FIPS 180's examples (one block, none, two blocks, a
 * million bytes fed in uneven pieces), and the processor's instructions (where it has them)
 * against the portable compression over the same blocks. */
static void test_sha1(void **state)
{
	(void)state;
	uint8_t d[20];
	sm_sha1("abc", 3, d);
	assert_memory_equal(d, "\xa9\x99\x3e\x36\x47\x06\x81\x6a\xba\x3e\x25\x71\x78\x50\xc2\x6c\x9c\xd0\xd8\x9d", 20);
	sm_sha1("", 0, d);
	assert_memory_equal(d, "\xda\x39\xa3\xee\x5e\x6b\x4b\x0d\x32\x55\xbf\xef\x95\x60\x18\x90\xaf\xd8\x07\x09", 20);
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes: padding in a block of its own */
	sm_sha1(two, strlen(two), d);
	assert_memory_equal(d, "\x84\x98\x3e\x44\x1c\x3b\xd2\x6e\xba\xae\x4a\xa1\xf9\x51\x29\xe5\xe5\x46\x70\xf1", 20);
	static char million[1000000];
	memset(million, 'a', sizeof(million));
	sm_sha1_ctx s;
	sm_sha1_init(&s);
	for (size_t at = 0, k = 1; at < sizeof(million); at += k, k = k * 7 % 997 + 1)
		sm_sha1_update(&s, million + at, k < sizeof(million) - at ? k : sizeof(million) - at);
	sm_sha1_final(&s, d);
	assert_memory_equal(d, "\x34\xaa\x97\x3c\xd4\xc4\xda\xa4\xf6\x1e\xeb\x2b\xdb\xad\x27\x31\x65\x34\x01\x6f", 20);
	/* "abc" padded by hand, through the portable compression alone */
	uint8_t block[64] = { 'a', 'b', 'c', 0x80 };
	block[63] = 24;
	uint32_t h[5] = { 0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u };
	sm_sha1_blocks_portable(h, block, 1);
	assert_int_equal(h[0], 0xa9993e36u);
	assert_int_equal(h[4], 0x9cd0d89du);
	/* both compressions over 1 to 9 blocks of varied bytes */
	uint8_t data[9 * 64];
	for (size_t i = 0; i < sizeof(data); i++) data[i] = (uint8_t)(i * 151 + (i >> 3) * 7);
	for (size_t n = 1; n <= 9; n++) {
		uint32_t a[5] = { 1, 2, 3, 4, 5 }, b[5] = { 1, 2, 3, 4, 5 };
		sm_sha1_blocks_portable(a, data, n);
		if (!sm_sha1_blocks_x86(b, data, n)) {
			assert_false(sm_sha1_has_x86());
			continue;
		}
		assert_memory_equal(a, b, sizeof(a));
	}
	if (!sm_sha1_has_x86()) print_message("note: this processor has no SHA-1 instructions; the portable path alone checked\n");
}

/* Graphs built through the API: deterministic name-based ids, cycles no element reaches
 * from the root, and chains deeper than the writer's inline limit. */
static void test_built_graphs(void **state)
{
	(void)state;
	uint8_t sha[20];
	sm_sha1("abc", 3, sha);
	assert_memory_equal(sha, "\xa9\x99\x3e\x36\x47\x06\x81\x6a\xba\x3e\x25\x71\x78\x50\xc2\x6c\x9c\xd0\xd8\x9d", 20);
	smdmx_error err;
	smdmx_dm *dm = smdmx_dm_create(NULL, &err);
	uint32_t root = smdmx_dm_add_element(dm, "DmElement", "root", NULL, &err);
	uint32_t a = smdmx_dm_add_element(dm, "DmeA", "a", NULL, &err);
	uint32_t b = smdmx_dm_add_element(dm, "DmeB", "b", NULL, &err);
	uint32_t chain = smdmx_dm_add_element(dm, "DmeLink", "link0", NULL, &err);
	assert_int_equal(root, 0);
	smdmx_dm_add_attr(dm, a, "next", SMDMX_DM_ELEMENT, false, 0, &err)->value.element = b;
	smdmx_dm_add_attr(dm, b, "next", SMDMX_DM_ELEMENT, false, 0, &err)->value.element = a;
	smdmx_dm_add_attr(dm, root, "chain", SMDMX_DM_ELEMENT, false, 0, &err)->value.element = chain;
	uint32_t prev = chain;
	for (int i = 1; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof(name), "link%d", i);
		uint32_t c = smdmx_dm_add_element(dm, "DmeLink", name, NULL, &err);
		smdmx_dm_add_attr(dm, prev, "next", SMDMX_DM_ELEMENT, false, 0, &err)->value.element = c;
		prev = c;
	}
	smdmx_dm_attr *fa = smdmx_dm_add_attr(dm, root, "values", SMDMX_DM_FLOAT, true, 3, &err);
	((float *)fa->value.array.data)[1] = 2.5f;
	smdmx_dm_attr *sa = smdmx_dm_add_attr(dm, root, "label", SMDMX_DM_STRING, false, 0, &err);
	sa->value.s = smdmx_dm_strdup(dm, "x", &err);
	smdmx_dmx_write_options o = { .max_depth = 10 };
	sink s1 = { 0 }, s2 = { 0 };
	smdmx_dm *back = write_read(dm, &o, &s1);
	char diff[256];
	if (!smdmx_dm_equal(dm, back, diff, sizeof(diff))) fail_msg("%s", diff);
	/* The same graph always gets the same ids: a fixed value, so that they never change
	 * between releases. Python agrees: uuid.uuid5(UUID(bytes=smdmx's namespace),
	 * "\0" * 16 + "$root\0" + "0\0" + "DmElement\0" + "root\0"). */
	char id[37];
	smdmx_dm_id_to_text(dm->elements[root].id, id);
	assert_string_equal(id, "43ed0803-3889-5e95-a968-8de96a17ebd9");
	smdmx_dm_free(back);
	back = write_read(dm, &o, &s2);
	assert_int_equal(s1.size, s2.size);
	assert_memory_equal(s1.data, s2.data, s1.size);
	/* deepest inline nesting is 10 tabs; the cycle a <-> b is written once each */
	assert_null(strstr(test_sink_text(&s1), "\t\t\t\t\t\t\t\t\t\t\t\""));
	assert_non_null(strstr(s1.data, "\"DmeA\"\n{\n"));
	smdmx_dm_free(back);
	smdmx_dm_free(dm);
	free(s1.data);
	free(s2.data);
}

static void test_dump(void **state)
{
	(void)state;
	smdmx_dm *dm = read_ok("testdata/kv2/ok/layout.dmx");
	sink s = { 0 };
	smdmx_error err;
	assert_true(smdmx_dm_dump(dm, false, sink_write, &s, &err));
	test_sink_text(&s);
	const char *want =
	    "encoding keyvalues2 1, format model 18, 4 elements\n"
	    "DmElement \"root\" 00000000-0000-0000-0000-000000000001\n"
	    "  forward: element = DmeShared \"shared\" 00000000-0000-0000-0000-000000000003\n"
	    "    esc: string = \"\\t\\x0b\\x08\\r\\x0c\\x07?'\\\\x\\\"\"\n"
	    "  null: element = null\n"
	    "  inline: element = DmeChild \"child\" 00000000-0000-0000-0000-000000000002\n"
	    "    back: element = DmElement \"root\" 00000000-0000-0000-0000-000000000001 (listed above)\n"
	    "  mixed: element_array [4]\n"
	    "    [0] DmeItem \"item\" 00000000-0000-0000-0000-000000000004\n"
	    "    [1] DmeShared \"shared\" 00000000-0000-0000-0000-000000000003 (listed above)\n"
	    "    [2] null\n"
	    "    [3] DmeChild \"child\" 00000000-0000-0000-0000-000000000002 (listed above)\n";
	assert_string_equal(s.data, want);
	free(s.data);
	smdmx_dm_free(dm);
}

/* Every DMX limit at its value and one past it: elements, attributes of one element, items
 * of one array, file size and memory (nesting depth: test_depth_limit). */
static const char limits_text[] =
    "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n"
    "\"DmElement\"\n"
    "{\n"
    "\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000001\"\n"
    "\t\"a\" \"int\" \"1\"\n"
    "\t\"b\" \"int_array\" [ \"1\", \"2\", \"3\" ]\n"
    "\t\"c\" \"element_array\" [ \"DmElement\" { \"id\" \"elementid\" \"00000000-0000-0000-0000-000000000002\" }, "
    "\"element\" \"00000000-0000-0000-0000-000000000001\" ]\n"
    "}\n";

static void expect_limit(smdmx_dm_limits limits, bool ok, uint32_t line, uint32_t col, const char *message)
{
	smdmx_dmx_read_options o = { .limits = limits };
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &o, &err, NULL);
	if (ok) {
		if (!dm) fail_msg("at the limit: %s", err.message);
		smdmx_dm_free(dm);
		return;
	}
	assert_null(dm);
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_int_equal(err.line, line);
	assert_int_equal(err.column, col);
	assert_string_equal(err.message, message);
}

static void test_limits(void **state)
{
	(void)state;
	expect_limit((smdmx_dm_limits){ .max_elements = 2 }, true, 0, 0, NULL);
	expect_limit((smdmx_dm_limits){ .max_elements = 1 }, false, 7, 24, "more than 1 elements");
	expect_limit((smdmx_dm_limits){ .max_attributes = 3 }, true, 0, 0, NULL);
	expect_limit((smdmx_dm_limits){ .max_attributes = 2 }, false, 7, 2, "more than 2 attributes in one element");
	expect_limit((smdmx_dm_limits){ .max_array_items = 3 }, true, 0, 0, NULL);
	expect_limit((smdmx_dm_limits){ .max_array_items = 2 }, false, 6, 30, "more than 2 items in one array");
	/* the file size, through a file */
	char *path = test_temp_file("limit", limits_text, sizeof(limits_text) - 1);
	smdmx_dmx_read_options o = { .limits = { .max_file_size = sizeof(limits_text) - 1 } };
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(path, &o, &err, NULL);
	assert_non_null(dm);
	smdmx_dm_free(dm);
	o.limits.max_file_size--;
	assert_null(smdmx_dmx_read_file(path, &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_string_equal(err.message, "file larger than 317 bytes");
	os_remove(path);
	free(path);
	/* memory: the limit is the most the reader holds at once, to the byte */
	test_counter c = { 0, 0, 0 };
	smdmx_dmx_read_options m = { .allocator = test_allocator(&c) };
	dm = smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &m, &err, NULL);
	assert_non_null(dm);
	smdmx_dm_free(dm);
	assert_true(c.peak > 0 && c.live == 0);
	m.allocator.memory_limit = (size_t)c.peak;
	dm = smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &m, &err, NULL);
	assert_non_null(dm);
	smdmx_dm_free(dm);
	m.allocator.memory_limit = (size_t)c.peak - 1;
	assert_null(smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &m, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(c.live, 0);
}

/* Reads a file expecting success, with its warnings. */
static smdmx_dm *read_warned(const char *path, smdmx_warnings *w)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(path, NULL, &err, w);
	if (!dm) fail_msg("%s:%u:%u: %s", path, err.line, err.column, err.message);
	return dm;
}

/* The warning of a code, or NULL. */
static void expect_warning(const smdmx_warnings *w, smdmx_warning_code code, size_t count, uint32_t line, uint32_t col)
{
	const smdmx_warning *x = test_warning_of(w, code);
	if (!x) {
		fail_msg("no warning of code %d", (int)code);
		return;
	}
	if (x->count != count || x->line != line || x->column != col)
		fail_msg("warning %d: %zu times at %u:%u, want %zu at %u:%u (%s)", (int)code, x->count, x->line, x->column, count, line,
		         col, x->message);
}

/* A testdata file that reads with exactly one warning, of that code, count and position. */
static smdmx_dm *read_one_warning(const char *rel, smdmx_warning_code code, size_t count, uint32_t line, uint32_t col)
{
	TEST_WARNINGS(w);
	smdmx_dm *dm = read_warned(test_path(rel), &w);
	assert_int_equal(w.count, 1);
	expect_warning(&w, code, count, line, col);
	return dm;
}

/* keyvalues2 as Valve's reader tokenizes it (A12): quoted strings whose escapes are all in
 * its set, { } [ ], commas and whitespace, nothing else. Returns the offset of the first
 * byte outside that grammar, or SIZE_MAX. */
static size_t valve_strict(const char *text, size_t size)
{
	size_t p = (size_t)(strchr(text, '\n') - text) + 1; /* after the header line */
	while (p < size) {
		char c = text[p];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']') {
			p++;
			continue;
		}
		if (c != '"') return p;
		for (p++; p < size && text[p] != '"'; p++) {
			if (text[p] != '\\') continue;
			if (p + 1 >= size || !strchr("ntvbrfa\\?'\"", text[p + 1])) return p;
			p++;
		}
		if (p >= size) return p;
		p++;
		/* what follows a closing quote is a separator, a bracket or the end */
		if (p < size && !strchr(" \t\r\n,{}[]", text[p])) return p;
	}
	return SIZE_MAX;
}

/* Written as keyvalues2 by smdmx: strict Valve syntax, no bare words, and it reads back with
 * no warning to the same datamodel. */
static void expect_strict_rewrite(const smdmx_dm *dm, const char *label)
{
	sink s = { 0 };
	smdmx_error err;
	smdmx_dmx_write_options o = { .encoding_version = !strcmp(dm->encoding, "keyvalues2") ? dm->encoding_version : 1 };
	if (!smdmx_dmx_write((smdmx_dm *)dm, sink_write, &s, &o, &err)) fail_msg("%s: write: %s", label, err.message);
	test_sink_text(&s);
	size_t bad = valve_strict(s.data, s.size);
	if (bad != SIZE_MAX) fail_msg("%s: written keyvalues2 leaves Valve's grammar at byte %zu: %.40s", label, bad, s.data + bad);
	TEST_WARNINGS(w);
	smdmx_dm *back = smdmx_dmx_read_memory(s.data, s.size, NULL, &err, &w);
	if (!back) fail_msg("%s: re-read: %u:%u: %s", label, err.line, err.column, err.message);
	if (w.count) fail_msg("%s: the written file reads with a warning: %s", label, w.data[0].message);
	char diff[256];
	if (!smdmx_dm_equal(dm, back, diff, sizeof(diff))) fail_msg("%s: re-read differs: %s", label, diff);
	smdmx_dm_free(back);
	free(s.data);
}

/* Decision 14: a bare type word is that type's empty value (Valve's default for a new
 * attribute: SDK dmattributetypes.h), for every type, arrays included; the next token is the
 * next attribute. One warning counts them, at the first. */
static void test_bare_types(void **state)
{
	(void)state;
	smdmx_dm *dm = read_one_warning("testdata/kv2/ok/bare.dmx", SMDMX_WARNING_BARE_TYPE, 39, 4, 6);
	assert_int_equal(dm->prefix_attr_count, 1);
	assert_int_equal(dm->prefix_attrs[0].type, SMDMX_DM_FLOAT);
	assert_true(dm->prefix_attrs[0].value.f == 0.0f);
	uint32_t r = dm->root;
	assert_string_equal(dm->elements[r].name, "");
	assert_int_equal(dm->elements[r].attr_count, 37);
	assert_int_equal(attr(dm, r, "e")->type, SMDMX_DM_ELEMENT);
	assert_int_equal(attr(dm, r, "e")->value.element, SMDMX_NONE);
	assert_int_equal(attr(dm, r, "i")->value.i, 0);
	assert_true(attr(dm, r, "f")->value.f == 0.0f);
	assert_false(attr(dm, r, "b")->value.b);
	assert_int_equal(attr(dm, r, "s")->type, SMDMX_DM_STRING);
	assert_string_equal(attr(dm, r, "s")->value.s, "");
	assert_int_equal(attr(dm, r, "bin")->value.bin.size, 0);
	assert_int_equal(attr(dm, r, "t")->type, SMDMX_DM_TIME);
	assert_int_equal(attr(dm, r, "t")->value.i, 0);
	assert_memory_equal(attr(dm, r, "c")->value.color, "\x00\x00\x00\xff", 4);
	static const char *const zero_vectors[] = { "v2", "v3", "v4", "qa", "a" };
	for (size_t i = 0; i < 5; i++) {
		const smdmx_dm_attr *v = attr(dm, r, zero_vectors[i]);
		for (size_t k = 0; k < smdmx_dm_item_size(v->type) / sizeof(float); k++) assert_true(v->value.v[k] == 0.0f);
	}
	assert_int_equal(attr(dm, r, "a")->type, SMDMX_DM_QANGLE);
	const float *q = attr(dm, r, "q")->value.v;
	assert_true(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f);
	const float *m = attr(dm, r, "m")->value.matrix;
	for (int i = 0; i < 16; i++) assert_true(m[i] == (i % 5 == 0 ? 1.0f : 0.0f));
	assert_true(attr(dm, r, "u64")->value.u64 == 0);
	assert_int_equal(attr(dm, r, "u8")->value.u8, 0);
	assert_int_equal(attr(dm, r, "oid")->type, SMDMX_DM_OBJECTID);
	assert_memory_equal(attr(dm, r, "oid")->value.id, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	/* every array type, empty */
	size_t arrays = 0;
	for (size_t i = 0; i < dm->elements[r].attr_count; i++) {
		const smdmx_dm_attr *a = &dm->elements[r].attrs[i];
		if (!a->is_array) continue;
		assert_int_equal(a->value.array.count, 0);
		arrays++;
	}
	assert_int_equal(arrays, 17);
	assert_int_equal(attr(dm, r, "ma")->type, SMDMX_DM_MATRIX);
	/* inside an inline element, and the attribute after the last bare word */
	uint32_t child = attr(dm, r, "child")->value.element;
	assert_string_equal(dm->elements[child].name, "child");
	assert_string_equal(attr(dm, child, "text")->value.s, "");
	assert_int_equal(attr(dm, child, "next")->value.element, SMDMX_NONE);
	assert_int_equal(attr(dm, r, "after")->value.i, 7);
	expect_strict_rewrite(dm, "bare.dmx");
	smdmx_dm_free(dm);
	/* the file itself leaves Valve's grammar at its first bare word, line 4 */
	size_t size = 0;
	char *text = test_slurp(test_path("testdata/kv2/ok/bare.dmx"), &size);
	assert_non_null(text);
	const char *line4 = strstr(text, "\t\"p\" float");
	assert_non_null(line4);
	assert_int_equal(valve_strict(text, size), (size_t)(line4 - text) + 5);
	free(text);
	/* warnings may be NULL */
	smdmx_error err;
	dm = smdmx_dmx_read_file(test_path("testdata/kv2/ok/bare.dmx"), NULL, &err, NULL);
	assert_non_null(dm);
	smdmx_dm_free(dm);
}

/* A reference to an id no element of the file has names an element of another file, as
 * Valve's datamodel reads it (a stub, SFM's files hold them): kept by id, one warning that
 * counts the references, written back as the same reference in every encoding, and no
 * element to a model conversion. */
static void test_stubs(void **state)
{
	(void)state;
	smdmx_dm *dm = read_one_warning("testdata/kv2/ok/stub.dmx", SMDMX_WARNING_STUB, 3, 3, 16);
	assert_int_equal(dm->element_count, 4);
	assert_int_equal(smdmx_dm_stub_count(dm), 2);
	uint32_t r = attr(dm, dm->root, "r")->value.element;
	const uint32_t *list = attr(dm, dm->root, "list")->value.array.data;
	assert_true(dm->elements[r].stub);
	assert_int_equal(list[1], r); /* one stub per id */
	assert_true(dm->elements[list[0]].stub);
	assert_false(dm->elements[list[2]].stub);
	assert_int_equal(list[2], attr(dm, dm->root, "b")->value.element);
	assert_string_equal(dm->elements[r].type, "");
	assert_int_equal(dm->elements[r].attr_count, 0);
	char id[37];
	smdmx_dm_id_to_text(dm->elements[r].id, id);
	assert_string_equal(id, "00000000-0000-0000-0000-00000000000f");
	static const struct {
		const char *encoding;
		int version;
		const char *says; /* how the reference is written */
		size_t says_size;
	} outs[] = {
		{ "keyvalues2", 1, "\"r\" \"element\" \"00000000-0000-0000-0000-00000000000f\"", 52 },
		{ "keyvalues2_flat", 1, "\"r\" \"element\" \"00000000-0000-0000-0000-00000000000f\"", 52 },
		{ "binary", 2, "\xfe\xff\xff\xff" "00000000-0000-0000-0000-00000000000f", 41 },
		{ "binary", 5, "\xfe\xff\xff\xff" "00000000-0000-0000-0000-00000000000f", 41 },
		{ "binary", 9, "\xfe\xff\xff\xff" "00000000-0000-0000-0000-00000000000f", 41 },
	};
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		test_sink out = { 0 };
		smdmx_error err;
		smdmx_dmx_write_options o = { .encoding = outs[i].encoding, .encoding_version = outs[i].version };
		if (!smdmx_dmx_write(dm, test_sink_write, &out, &o, &err)) fail_msg("%s %d: %s", outs[i].encoding, outs[i].version, err.message);
		if (!test_memmem(out.data, out.size, outs[i].says, outs[i].says_size))
			fail_msg("%s %d: the reference is not written by id", outs[i].encoding, outs[i].version);
		TEST_WARNINGS(w);
		smdmx_dm *back = smdmx_dmx_read_memory(out.data, out.size, NULL, &err, &w);
		if (!back) fail_msg("%s %d read back: %s", outs[i].encoding, outs[i].version, err.message);
		char diff[256];
		if (!smdmx_dm_equal(dm, back, diff, sizeof(diff))) fail_msg("%s %d: %s", outs[i].encoding, outs[i].version, diff);
		const smdmx_warning *sw = test_warning_of(&w, SMDMX_WARNING_STUB);
		assert_non_null(sw);
		assert_int_equal(sw ? sw->count : 0, 3);
		/* written as an element nowhere: one element of type A, one of type B */
		assert_int_equal(back->element_count, 4);
		smdmx_dm_free(back);
		free(out.data);
	}
	smdmx_dm_free(dm);
}

/* What other writers do to strings: datamodel.py escapes nothing, so its quotes and
 * backslashes stand as written (doc/formats.md A8); a file that shows it (a bare type word, an
 * unescaped quote, a backslash that starts no escape) is read with backslashes as
 * characters, and a file that only reads so (a path ending in a backslash) too. */
static void test_other_writers(void **state)
{
	(void)state;
	TEST_WARNINGS(w);
	smdmx_dm *dm = read_warned(test_path("testdata/kv2/ok/bare_datamodelpy.dmx"), &w);
	assert_int_equal(w.count, 3);
	expect_warning(&w, SMDMX_WARNING_BARE_TYPE, 3, 6, 10);
	expect_warning(&w, SMDMX_WARNING_UNESCAPED_QUOTE, 2, 12, 49);
	expect_warning(&w, SMDMX_WARNING_RAW_BACKSLASH, 5, 11, 24);
	uint32_t r = dm->root;
	assert_int_equal(attr(dm, r, "model")->value.element, SMDMX_NONE);
	uint32_t tags = attr(dm, r, "exportTags")->value.element;
	assert_string_equal(dm->elements[tags].name, "");
	assert_string_equal(attr(dm, tags, "source")->value.s, "..\\..\\Maya\\animation\\walk.ma");
	assert_string_equal(attr(dm, tags, "cmdLine")->value.s, "vsDmxIO -export -filename \"C:/My Documents/walk.dmx\";");
	assert_string_equal(attr(dm, tags, "note")->value.s, "tab\\there");
	const smdmx_dm_attr *ts = attr(dm, r, "transforms");
	assert_int_equal(ts->value.array.count, 2);
	uint32_t t0 = ((const uint32_t *)ts->value.array.data)[0];
	assert_string_equal(dm->elements[t0].name, "");
	assert_int_equal(((const uint32_t *)ts->value.array.data)[1], SMDMX_NONE);
	expect_strict_rewrite(dm, "bare_datamodelpy.dmx");
	smdmx_dm_free(dm);

	/* "C:\models\" swallows its closing quote when read with escapes: read as written */
	dm = read_one_warning("testdata/kv2/ok/raw_backslash.dmx", SMDMX_WARNING_RAW_BACKSLASH, 5, 6, 20);
	assert_string_equal(attr(dm, dm->root, "dir")->value.s, "C:\\models\\");
	assert_string_equal(attr(dm, dm->root, "file")->value.s, "C:\\models\\new\\arm.smd");
	expect_strict_rewrite(dm, "raw_backslash.dmx");
	smdmx_dm_free(dm);

	/* an unknown escape, alone: kept as written */
	dm = read_one_warning("testdata/kv2/ok/unknown_escape.dmx", SMDMX_WARNING_RAW_BACKSLASH, 2, 6, 21);
	assert_string_equal(attr(dm, dm->root, "path")->value.s, "C:\\Maya\\x");
	smdmx_dm_free(dm);

	/* a file that escapes reads with its escapes and no warning */
	dm = read_warned(test_path("testdata/kv2/ok/layout.dmx"), &w);
	assert_int_equal(w.count, 0);
	smdmx_dm_free(dm);
	/* a closing quote right before a comment, a bracket or a comma is still a closing quote */
	const char *tight = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\"{\"s\" \"string\" \"x\"// c\n\"a\" \"int_array\"[\"1\",\"2\"]}\n";
	smdmx_error err;
	dm = smdmx_dmx_read_memory(tight, strlen(tight), NULL, &err, &w);
	assert_non_null(dm);
	assert_int_equal(w.count, 0);
	assert_string_equal(attr(dm, 0, "s")->value.s, "x");
	assert_int_equal(attr(dm, 0, "a")->value.array.count, 2);
	smdmx_dm_free(dm);
}

/* ---- the corpus of keyvalues2 written by Blender Source Tools' datamodel.py ---------------- */

/* What datamodel.py's keyvalues2 leaves out of a datamodel it read from a binary file. */
typedef struct twin_losses {
	size_t empty_as_null;  /* an empty string written as a bare `element` (a null reference) */
	size_t prefix;         /* binary 9 prefix attributes, not written */
	size_t unreached;      /* elements no reference reaches from the root, not written */
} twin_losses;

/* Compares a datamodel read from datamodel.py's keyvalues2 with its binary twin: every
 * element (by id) with its type, name and attributes in order at equal values, except the
 * losses counted in *out; anything else fails the test. */
static void compare_twin(const smdmx_dm *kv, const smdmx_dm *bin, const char *label, twin_losses *out)
{
	memset(out, 0, sizeof(*out));
	assert_memory_equal(kv->elements[kv->root].id, bin->elements[bin->root].id, 16);
	assert_string_equal(kv->format, bin->format);
	assert_int_equal(kv->format_version, bin->format_version);
	if (kv->prefix_attr_count == 0) out->prefix = bin->prefix_attr_count;
	else assert_int_equal(kv->prefix_attr_count, bin->prefix_attr_count);
	uint8_t *matched = calloc(bin->element_count + 1, 1);
	for (size_t i = 0; i < kv->element_count; i++) {
		const smdmx_dm_element *x = &kv->elements[i];
		uint32_t j = smdmx_dm_find_id(bin, x->id);
		if (j == SMDMX_NONE) fail_msg("%s: element %zu '%s' is not in the binary twin", label, i, x->name);
		matched[j] = 1;
		const smdmx_dm_element *y = &bin->elements[j];
		if (strcmp(x->type, y->type) || strcmp(x->name, y->name))
			fail_msg("%s: element %s \"%s\" vs %s \"%s\"", label, x->type, x->name, y->type, y->name);
		if (x->attr_count != y->attr_count) fail_msg("%s: %s has %zu attributes vs %zu", label, x->name, x->attr_count, y->attr_count);
		for (size_t k = 0; k < x->attr_count; k++) {
			const smdmx_dm_attr *p = &x->attrs[k], *q = &y->attrs[k];
			if (strcmp(p->name, q->name)) fail_msg("%s: %s: attribute '%s' vs '%s'", label, x->name, p->name, q->name);
			if (p->type == SMDMX_DM_ELEMENT && !p->is_array && p->value.element == SMDMX_NONE && q->type == SMDMX_DM_STRING &&
			    !q->is_array && q->value.s[0] == '\0') {
				out->empty_as_null++;
				continue;
			}
			if (p->type != q->type || p->is_array != q->is_array)
				fail_msg("%s: %s.%s: %s vs %s", label, x->name, p->name, smdmx_dm_type_name(p->type, p->is_array),
				         smdmx_dm_type_name(q->type, q->is_array));
			size_t n = p->is_array ? p->value.array.count : 1;
			if (p->is_array && n != q->value.array.count)
				fail_msg("%s: %s.%s: %zu items vs %zu", label, x->name, p->name, n, q->value.array.count);
			for (size_t t = 0; t < n; t++)
				if (!sm_dm_items_equal(kv, p, bin, q, t, 0)) fail_msg("%s: %s.%s differs at item %zu", label, x->name, p->name, t);
		}
	}
	/* what was left out is what no reference reaches from the root */
	uint8_t *reached = calloc(bin->element_count + 1, 1);
	uint32_t *queue = malloc((bin->element_count + 1) * sizeof(uint32_t));
	size_t head = 0, tail = 0;
	queue[tail++] = bin->root;
	reached[bin->root] = 1;
	while (head < tail) {
		const smdmx_dm_element *e = &bin->elements[queue[head++]];
		for (size_t k = 0; k < e->attr_count; k++) {
			const smdmx_dm_attr *a = &e->attrs[k];
			if (a->type != SMDMX_DM_ELEMENT) continue;
			size_t n = a->is_array ? a->value.array.count : 1;
			const uint32_t *ix = a->is_array ? a->value.array.data : &a->value.element;
			for (size_t t = 0; t < n; t++)
				if (ix[t] != SMDMX_NONE && !reached[ix[t]]) {
					reached[ix[t]] = 1;
					queue[tail++] = ix[t];
				}
		}
	}
	for (size_t j = 0; j < bin->element_count; j++) {
		if (matched[j]) continue;
		if (reached[j]) fail_msg("%s: element %zu '%s' of the binary twin is missing", label, j, bin->elements[j].name);
		out->unreached++;
	}
	free(matched);
	free(reached);
	free(queue);
}

static void test_datamodelpy_corpus(void **state)
{
	(void)state;
	/* per file: bare type words, unescaped quotes and backslashes read (the warnings' counts),
	 * and what datamodel.py left out against the binary twin */
	static const struct {
		const char *name;
		size_t bare, quotes, backslashes;
		twin_losses lost;
	} files[] = {
		{ "Artfunkel__BlenderSourceTools__Cube_Armature_Cube.dmx", 1, 0, 0, { 0, 0, 0 } },
		{ "Artfunkel__BlenderSourceTools__X_Axis.dmx", 1, 0, 0, { 0, 0, 0 } },
		{ "Artfunkel__BlenderSourceTools__walkn.dmx", 1084, 0, 0, { 309, 2, 1 } },
		{ "Artfunkel__Datamodel.NET__binary4.dmx", 979, 0, 4, { 283, 0, 0 } },
		{ "TeamSpen210__srctools__tf_movies.dmx", 5, 2, 0, { 0, 0, 0 } },
	};
	size_t n;
	char **paths = test_corpus_files("dmx_kv2_datamodelpy", &n);
	assert_int_equal(n, sizeof(files) / sizeof(files[0]));
	for (size_t i = 0; i < n; i++) {
		const char *name = test_base_name(paths[i]);
		assert_string_equal(name, files[i].name);
		TEST_WARNINGS(w);
		smdmx_dm *kv = read_warned(paths[i], &w);
		const smdmx_warning *bare = test_warning_of(&w, SMDMX_WARNING_BARE_TYPE), *quotes = test_warning_of(&w, SMDMX_WARNING_UNESCAPED_QUOTE),
		                    *raw = test_warning_of(&w, SMDMX_WARNING_RAW_BACKSLASH);
		if ((bare ? bare->count : 0) != files[i].bare || (quotes ? quotes->count : 0) != files[i].quotes ||
		    (raw ? raw->count : 0) != files[i].backslashes)
			fail_msg("%s: read %zu bare words, %zu unescaped quotes, %zu backslashes as written", name, bare ? bare->count : 0,
			         quotes ? quotes->count : 0, raw ? raw->count : 0);
		char twin_rel[512];
		snprintf(twin_rel, sizeof(twin_rel), "dmx_binary/%s", name);
		smdmx_dm *bin = read_warned(test_corpus_path(twin_rel), &w);
		assert_int_equal(w.count, 0);
		twin_losses lost;
		compare_twin(kv, bin, name, &lost);
		if (lost.empty_as_null != files[i].lost.empty_as_null || lost.prefix != files[i].lost.prefix ||
		    lost.unreached != files[i].lost.unreached)
			fail_msg("%s: %zu empty strings as null, %zu prefix attributes and %zu unreached elements left out", name,
			         lost.empty_as_null, lost.prefix, lost.unreached);
		expect_strict_rewrite(kv, name);
		smdmx_dm_free(kv);
		smdmx_dm_free(bin);
	}
	test_free_list(paths, n);
}

/* ---- number arrays on several threads --------------------------------------------------------- */

/* Reads the text on one thread and on TEST_READ_THREADS (arrays cut into parts of at least
 * part_min bytes): the datamodel, or the error, and the warnings are the same. */
static void kv2_threads_same(const char *text, size_t size, const char *label, uint64_t part_min, smdmx_dm_limits limits)
{
	uint64_t saved = sm_kv2_part_min;
	sm_kv2_part_min = part_min;
	smdmx_dmx_read_options o = { .threads = 1, .limits = limits };
	smdmx_error e1, e;
	TEST_WARNINGS(w1); TEST_WARNINGS(w);
	smdmx_dm *one = smdmx_dmx_read_memory(text, size, &o, &e1, &w1);
	static const unsigned counts[] = TEST_READ_THREADS;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		o.threads = counts[k];
		smdmx_dm *dm = smdmx_dmx_read_memory(text, size, &o, &e, &w);
		if ((dm == NULL) != (one == NULL)) fail_msg("%s, %u threads: %s", label, counts[k], dm ? "read" : e.message);
		if (!dm && (e.code != e1.code || e.line != e1.line || e.column != e1.column || strcmp(e.message, e1.message)))
			fail_msg("%s, %u threads: %u:%u %s; one thread: %u:%u %s", label, counts[k], e.line, e.column, e.message,
			         e1.line, e1.column, e1.message);
		if (w.count != w1.count || (w.count && memcmp(w.data, w1.data, w.count * sizeof(w.data[0]))))
			fail_msg("%s, %u threads: other warnings", label, counts[k]);
		char diff[256];
		if (dm && !smdmx_dm_equal(one, dm, diff, sizeof(diff))) fail_msg("%s, %u threads: %s", label, counts[k], diff);
		smdmx_dm_free(dm);
	}
	smdmx_dm_free(one);
	sm_kv2_part_min = saved;
}


static void kv2_file_threads_same(const char *path, uint64_t part_min)
{
	size_t n = 0;
	char *text = test_slurp(path, &n);
	if (!text) fail_msg("cannot read %s", path);
	kv2_threads_same(text, n, path, part_min, (smdmx_dm_limits){ 0 });
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(text, n, NULL, &err, NULL);
	if (dm) {
		/* parts of about a 16th and a 4th of the largest array: several rounds of each */
		size_t most = 0;
		for (size_t e = 0; e < dm->element_count; e++)
			for (size_t i = 0; i < dm->elements[e].attr_count; i++)
				if (dm->elements[e].attrs[i].is_array && dm->elements[e].attrs[i].value.array.count > most)
					most = dm->elements[e].attrs[i].value.array.count;
		test_write_threads_same(dm, test_write_dmx, path, most / 16 + 1);
		test_write_threads_same(dm, test_write_dmx, path, most / 4 + 1);
		smdmx_dm_free(dm);
	}
	free(text);
}

/* A model-like file of n items per array, as one line or a line each, with what the fast
 * form does not take at item bad_at: 1 an exponent, 2 a comment, 3 a bad value, 4 a '['
 * never closed, 5 an item with an escape. */
static char *kv2_arrays_case(size_t n, bool lines, int odd, size_t bad_at, size_t *len)
{
	char *locale = test_c_numbers_begin();
	size_t cap = 4096 + n * 120;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t k = 0;
#define PUT(...) (k += (size_t)snprintf(t + k, cap - k, __VA_ARGS__))
	PUT("<!-- dmx encoding keyvalues2 1 format model 18 -->\n\"DmElement\"\n{\n"
	    "\t\"id\" \"elementid\" \"00000000-0000-0000-0000-000000000001\"\n\t\"name\" \"string\" \"arrays\"\n");
	static const char *const kinds[] = { "int_array", "float_array", "vector2_array", "vector3_array", "quaternion_array" };
	for (int a = 0; a < 5; a++) {
		PUT("\t\"a%d\" \"%s\" [%s", a, kinds[a], lines ? "\n" : " ");
		for (size_t i = 0; i < n; i++) {
			const char *sep = i + 1 < n ? (lines ? ",\n" : ", ") : (lines ? "\n" : " ");
			const char *pre = lines ? "\t\t" : "";
			if (i == bad_at && a == 3 && odd) {
				if (odd == 1) PUT("%s\"1e-05 2.5 -3\"%s", pre, sep);
				else if (odd == 2) PUT("%s// a comment\n%s\"1 2 3\"%s", pre, pre, sep);
				else if (odd == 3) PUT("%s\"1 2 x3\"%s", pre, sep);
				else if (odd == 4) PUT("%s\"1 2 3\"", pre);
				else PUT("%s\"1 2\\t 3\"%s", pre, sep);
				if (odd == 4) break;
				continue;
			}
			double v = (double)(i % 977) * 0.125 - 17.5;
			switch (a) {
			case 0: PUT("%s\"%d\"%s", pre, (int)(i * 7919 % 100003) - (int)(i % 3 == 0), sep); break;
			case 1: PUT("%s\"%.6g\"%s", pre, v, sep); break;
			case 2: PUT("%s\"%.6g %.4f\"%s", pre, v, (double)(i % 101) / 100, sep); break;
			case 3: PUT("%s\"%.6g %.4f -%.3f\"%s", pre, v, (double)(i % 13) / 7, (double)(i % 5) / 3, sep); break;
			default: PUT("%s\"0 0 %.4f 1\"%s", pre, (double)(i % 3) / 9, sep); break;
			}
		}
		if (odd == 4 && a == 3) break;
		PUT("%s]\n", lines ? "\t" : "");
	}
	if (odd != 4) PUT("}\n");
#undef PUT
	test_c_numbers_end(locale);
	*len = k;
	return t;
}

/* Int arrays are read 64 bytes at a time (kv2_read.h, fast_int_run): every form an item may
 * take (up to 10 digits, a sign, '+', leading zeros, -0), every separator and a comment between
 * items, at every place against the windows, read as the text says, what follows the array
 * read in its place; a bad item at any place said at its opening quote, a bad separator at
 * itself. */
static uint64_t int_items_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_int_items(void **state)
{
	(void)state;
	static const char *const seps[] = { ",", " ", ",\n\t\t", "\n", ", ,", "\t, ", ",  ", ", // c\n", "\r\n" };
	static const char *const bad[] = { "12x", "-", "", "1 2", "12345678901", "2147483648", "-2147483649", "1.5", "0x1", "1-" };
	uint64_t seed = UINT64_C(0x9e3779b97f4a7c15);
	for (int round = 0; round < 600; round++) {
		size_t n = 1 + int_items_next(&seed) % 300, cap = 256 + n * 40, len = 0;
		char *t = malloc(cap);
		int32_t *want = malloc(n * sizeof(*want));
		assert_true(t && want);
		/* the last 200 rounds have one bad item each */
		size_t bad_at = round >= 400 ? int_items_next(&seed) % n : SIZE_MAX, bad_offset = 0;
		smdmx_error_code bad_code = SMDMX_ERROR_BAD_VALUE;
		len += (size_t)snprintf(t + len, cap - len, "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n\"A\" {\n\t\"a\" \"int_array\" [");
		for (size_t i = 0; i < n; i++) {
			uint64_t r = int_items_next(&seed);
			const char *sep = i == 0 ? " " : r % 10 < 7 ? ", " : seps[(r >> 8) % (sizeof(seps) / sizeof(*seps))];
			len += (size_t)snprintf(t + len, cap - len, "%s", sep);
			if (i == bad_at && (r >> 12) % 4 == 0) {
				/* a separator that is none: the error names the word */
				bad_offset = len;
				bad_code = SMDMX_ERROR_SYNTAX;
				len += (size_t)snprintf(t + len, cap - len, "; \"1\"");
				continue;
			}
			if (i == bad_at) {
				bad_offset = len;
				len += (size_t)snprintf(t + len, cap - len, "\"%s\"", bad[(r >> 16) % (sizeof(bad) / sizeof(*bad))]);
				continue;
			}
			int64_t v;
			const char *zeros = "";
			switch ((r >> 24) % 8) {
			case 0: v = (int64_t)((r >> 32) % 4294967296u) - INT64_C(2147483648); break; /* up to 10 digits */
			case 1: v = (int64_t)((r >> 32) % 1000); zeros = (r >> 40) % 2 ? "000" : "+"; break;
			case 2: v = -1; break;
			case 3: v = -(int64_t)((r >> 32) % 10000000); break;
			default: v = (int64_t)((r >> 32) % ((r >> 40) % 2 ? 10000000 : 100)); break;
			}
			want[i] = (int32_t)v;
			if ((r >> 24) % 8 == 3 && v == 0)
				len += (size_t)snprintf(t + len, cap - len, "\"-0\""); /* -0: zero */
			else
				len += (size_t)snprintf(t + len, cap - len, "\"%s%" PRId64 "\"", zeros, v);
		}
		len += (size_t)snprintf(t + len, cap - len, " ]\n\t\"b\" \"int\" \"7\"\n}\n");
		assert_true(len < cap);
		smdmx_error err;
		smdmx_dm *dm = smdmx_dmx_read_memory(t, len, NULL, &err, NULL);
		if (bad_at == SIZE_MAX) {
			if (!dm) fail_msg("round %d: %u:%u: %s", round, err.line, err.column, err.message);
			const smdmx_dm_attr *a = smdmx_dm_find_attr(dm, 0, "a");
			assert_non_null(a);
			assert_int_equal(a->value.array.count, n);
			const int32_t *got = a->value.array.data;
			for (size_t i = 0; i < n; i++)
				if (got[i] != want[i]) fail_msg("round %d item %zu: %d, not %d", round, i, got[i], want[i]);
			assert_int_equal(attr(dm, 0, "b")->value.i, 7);
			smdmx_dm_free(dm);
		} else {
			if (dm) fail_msg("round %d: read, with a bad item at %zu: %.*s", round, bad_at, (int)len, t);
			uint32_t line = 1, col = 1;
			for (size_t i = 0; i < bad_offset; i++) {
				if (t[i] == '\n') {
					line++;
					col = 1;
				} else {
					col++;
				}
			}
			if (err.line != line || err.column != col || err.code != bad_code || err.byte != 0)
				fail_msg("round %d: %u:%u (%d) %s, not at %u:%u", round, err.line, err.column, (int)err.code, err.message, line, col);
		}
		free(want);
		free(t);
	}
}

static void test_threads(void **state)
{
	(void)state;
	size_t files = 0;
	static const char *const dirs[] = { "testdata/kv2/ok", "testdata/kv2/bad", "testdata/bad", "testdata/model" };
	for (size_t d = 0; d < 4; d++) {
		size_t n;
		char **paths = test_list_dir(test_path(dirs[d]), &n);
		for (size_t i = 0; i < n; i++) {
			if (!test_ends_with(paths[i], ".dmx")) continue;
			kv2_file_threads_same(paths[i], 16);
			files++;
		}
		test_free_list(paths, n);
	}
	assert_true(files >= 36); /* testdata's own */
	static const char *const corpus[] = { "dmx_kv2_model", "dmx_kv2_anim", "dmx_kv2_datamodelpy" };
	for (size_t d = 0; d < 3 && test_have_corpus(); d++) {
		size_t n;
		char **paths = test_corpus_tree(corpus[d], &n);
		for (size_t i = 0; i < n; i++) {
			kv2_file_threads_same(paths[i], 64);
			kv2_file_threads_same(paths[i], 4096);
			files++;
		}
		test_free_list(paths, n);
	}
	for (int lines = 0; lines < 2; lines++)
		for (int odd = 0; odd <= 5; odd++)
			for (size_t at = 0; at < 3; at++) {
				size_t n = 2000, len;
				char *text = kv2_arrays_case(n, lines, odd, at == 0 ? 1 : at == 1 ? n / 2 : n - 2, &len);
				char label[64];
				snprintf(label, sizeof(label), "case %d %d %zu", lines, odd, at);
				for (uint64_t part = 256; part <= 65536; part *= 16) kv2_threads_same(text, len, label, part, (smdmx_dm_limits){ 0 });
				if (odd == 0) {
					/* the arrays read on threads, at their values */
					uint64_t saved = sm_kv2_part_min;
					sm_kv2_part_min = 256;
					smdmx_dmx_read_options o = { .threads = 4 };
					smdmx_error err;
					smdmx_dm *dm = smdmx_dmx_read_memory(text, len, &o, &err, NULL);
					sm_kv2_part_min = saved;
					if (!dm) fail_msg("%s", err.message);
					const smdmx_dm_attr *a = attr(dm, 0, "a3");
					assert_int_equal(a->value.array.count, n);
					const float *v = (const float *)a->value.array.data + 3 * 1234;
					assert_true(v[0] == 14.625f && v[2] == -1.333f); /* "14.625 0.1429 -1.333" */
					const int32_t *ix = attr(dm, 0, "a0")->value.array.data;
					assert_int_equal(ix[1999], (int)(1999 * 7919 % 100003) - (1999 % 3 == 0));
					smdmx_dm_free(dm);
					/* too many items: the limit's error, as on one thread */
					kv2_threads_same(text, len, "limit", 256, (smdmx_dm_limits){ .max_array_items = n - 1 });
					/* written on threads, and a float that is not finite in a large array: the
					 * error of one thread */
					dm = smdmx_dmx_read_memory(text, len, NULL, &err, NULL);
					test_write_threads_same(dm, test_write_dmx, label, 100);
					float *f = (float *)attr(dm, 0, "a3")->value.array.data;
					f[3 * 1500 + 1] = NAN;
					test_write_threads_same(dm, test_write_dmx, "not finite", 100);
					smdmx_dm_free(dm);
				}
				free(text);
			}
	/* fail_after and memory_limit with two threads count every thread's allocations: out of
	 * memory past them, all given back; read under a limit they fit */
	test_counter c = { 0, 0, 0 };
	smdmx_dmx_read_options o = { .threads = 2, .allocator = test_allocator(&c) };
	o.allocator.fail_after = 10;
	smdmx_error err;
	assert_null(smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_int_equal(atomic_load(&c.live), 0);
	o.allocator.fail_after = 0;
	o.allocator.memory_limit = (size_t)1 << 30;
	smdmx_dm *dm = smdmx_dmx_read_memory(limits_text, sizeof(limits_text) - 1, &o, &err, NULL);
	if (!dm) fail_msg("two threads under a limit: %s", err.message);
	assert_true(atomic_load(&c.live) > 0);
	smdmx_dm_free(dm);
	assert_int_equal(atomic_load(&c.live), 0);
}

/* Where elements stand, for messages: in keyvalues2 their line and column from the text; in
 * binary their way from the root; an element no way reaches said so. */
static void test_places(void **state)
{
	(void)state;
	static const char text[] = "<!-- dmx encoding keyvalues2 1 format dmx 1 -->\n"
	                           "\"DmElement\" {\n"
	                           "\t\"list\" \"element_array\" [\n"
	                           "\t\t\"DmeJoint\" { \"name\" \"string\" \"hip\" },\n"
	                           "\t\t\"DmeJoint\" { \"name\" \"string\" \"knee\" }\n"
	                           "\t]\n"
	                           "\t\"one\" \"DmeMesh\" { \"name\" \"string\" \"m\" }\n"
	                           "}\n";
	smdmx_error err;
	/* the places in the datamodel's memory: its allocator's, all given back */
	test_counter counted = { 0, 0, 0 };
	smdmx_dmx_read_options ro = { .allocator = test_allocator(&counted) };
	smdmx_dm *dm = smdmx_dmx_read_memory(text, sizeof(text) - 1, &ro, &err, NULL);
	assert_non_null(dm);
	assert_int_equal(dm->element_count, 4);
	size_t calls = counted.calls;
	long long live = counted.live;
	smdmx_dm_places *p = smdmx_dm_places_new(dm, text, sizeof(text) - 1);
	assert_non_null(p);
	assert_int_equal(counted.calls - calls, 6); /* the struct, the lines, the walk's three lists and its queue */
	uint32_t line, column;
	char way[128];
	uint32_t knee = SMDMX_NONE, mesh = SMDMX_NONE;
	for (uint32_t e = 0; e < dm->element_count; e++) {
		if (!strcmp(dm->elements[e].name, "knee")) knee = e;
		if (!strcmp(dm->elements[e].name, "m")) mesh = e;
	}
	smdmx_dm_place(p, knee, &line, &column, way, sizeof(way));
	assert_int_equal(line, 5);
	assert_int_equal(column, 3);
	assert_string_equal(way, "");
	smdmx_dm_place(p, mesh, &line, &column, way, sizeof(way));
	assert_int_equal(line, 7);
	assert_int_equal(column, 8); /* its type's first byte */
	smdmx_dm_places_free(p);
	assert_int_equal(counted.live, live);
	/* the same in binary: no lines, the way from the root */
	sink s = { 0 };
	smdmx_dmx_write_options bin = { .encoding = "binary" };
	smdmx_dm *b = write_read(dm, &bin, &s);
	p = smdmx_dm_places_new(b, NULL, 0);
	assert_non_null(p);
	for (uint32_t e = 0; e < b->element_count; e++) {
		smdmx_dm_place(p, e, &line, &column, way, sizeof(way));
		assert_int_equal(line, 0);
		if (!strcmp(b->elements[e].name, "knee")) assert_string_equal(way, "root.list[1] (DmeJoint 'knee')");
		if (!strcmp(b->elements[e].name, "m")) assert_string_equal(way, "root.one (DmeMesh 'm')");
	}
	smdmx_dm_place(p, SMDMX_NONE, &line, &column, way, sizeof(way));
	assert_string_equal(way, "");
	smdmx_dm_places_free(p);
	/* an element no way reaches */
	uint32_t alone = smdmx_dm_add_element(b, "DmeJoint", "stray", NULL, &err);
	assert_int_not_equal(alone, SMDMX_NONE);
	p = smdmx_dm_places_new(b, NULL, 0);
	smdmx_dm_place(p, alone, &line, &column, way, sizeof(way));
	assert_string_equal(way, "DmeJoint 'stray' (not under the root)");
	smdmx_dm_places_free(p);
	smdmx_dm_free(b);
	smdmx_dm_free(dm);
	free(s.data);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_prefix_and_legacy),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_corpus_round_trip),
		cmocka_unit_test(test_writer_layout),
		cmocka_unit_test(test_sha1),
		cmocka_unit_test(test_built_graphs),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_bare_types),
		cmocka_unit_test(test_stubs),
		cmocka_unit_test(test_other_writers),
		cmocka_unit_test(test_datamodelpy_corpus),
		cmocka_unit_test(test_int_items),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_places),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
