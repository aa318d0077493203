/* smdmx info (what a model file holds, as text or JSON) and smdmx diff (two models compared
 * numerically); the model file read (the library's smdmx_model_file) as they, smdmx check
 * (check.c) and the pictures read it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

bool load_model(const char *path, loaded *l, diag_buf *d, smdmx_warnings *warnings, double fps, bool lines)
{
	smdmx_smd_read_options ro = { .frame_rate = fps, .record_lines = lines };
	const void *data = NULL;
	size_t size = 0;
	if (!strcmp(path, "-")) {
		char why[256];
		ro.name = stdin_name;
		if (!(data = stdin_data(&size, why, sizeof(why)))) {
			memset(l, 0, sizeof(*l));
			smdmx_warnings_free(warnings);
			diag_add(d, NULL, path, 0, 0, "error", "%s", why);
			return false;
		}
	}
	smdmx_error err;
	if (smdmx_model_file_read(path, data, size, &ro, l, &err, warnings)) return true;
	diag_error(d, path, &err);
	return false;
}

void unload_model(loaded *l)
{
	smdmx_model_file_free(l);
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_length(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4)) return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80) return 0;
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0; /* overlong, surrogate */
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
	return n;
}

/* A JSON string. Bytes that are not UTF-8 (names from old tools are often Latin-1) become
 * U+FFFD, so that the output always parses. */
static void json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	os_puts("\"", stdout);
	while (*s) {
		size_t n = utf8_length(s);
		if (!n) {
			os_puts("\\ufffd", stdout);
			s++;
		} else if (*s == '"' || *s == '\\') {
			os_printf(stdout, "\\%c", *s++);
		} else if (*s < 0x20) {
			os_printf(stdout, "\\u%04x", *s++);
		} else {
			os_write_text(stdout, (const char *)s, n);
			s += n;
		}
	}
	os_puts("\"", stdout);
}

/* The meshes of s that hold corner field f. */
int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) json = true;
		else if (value_missing("info", argv[i], i + 1 == argc, (const char *const[]){ "--name", NULL })) return EXIT_USAGE;
		else if (!strcmp(argv[i], "--name") && name_refused(argv[i + 1])) {
			say("smdmx", "error", "%s (try 'smdmx info --help')", name_refused(argv[i + 1]));
			return EXIT_USAGE;
		} else if (!strcmp(argv[i], "--name")) stdin_name = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			os_printf(stdout, "%s\n", "usage: smdmx info FILE [--json]\n"
			     "Says what a model file holds: its kind, encoding and format version, joints, meshes,\n"
			     "vertices, faces, materials, flex shapes and controllers, clips with frames and rate.\n"
			     "A QC: the files it includes, its $model blocks and rigs, every file it names and\n"
			     "whether it exists.");
			return EXIT_OK;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			os_printf(stderr, "smdmx: error: unknown option '%s' (try 'smdmx info --help')\n", argv[i]);
			return EXIT_USAGE;
		} else if (!path) path = argv[i];
		else {
			os_printf(stderr, "smdmx: error: info takes one file\n");
			return EXIT_USAGE;
		}
	}
	if (!path) {
		os_printf(stderr, "smdmx: error: info needs a file (try 'smdmx info --help')\n");
		return EXIT_USAGE;
	}
	if (!strcasecmp(os_path_extension(path), "qc") || !strcasecmp(os_path_extension(path), "qci")) return qc_info(path, json);
	loaded l;
	diag_buf d = { 0 };
	if (!load_model(path, &l, &d, NULL, 0, false)) {
		os_puts(d.text ? d.text : "", stderr);
		diag_free(&d);
		return EXIT_FAILED;
	}
	const smdmx_scene *s = l.scene;
	smdmx_model_info in;
	if (!smdmx_model_file_info(&l, &in)) {
		unload_model(&l);
		return EXIT_FAILED;
	}
	if (json) {
		os_printf(stdout, "{\"file\": ");
		json_string(path);
		os_printf(stdout, ", \"kind\": ");
		json_string(in.kind);
		if (in.encoding) {
			os_printf(stdout, ", \"encoding\": ");
			json_string(in.encoding);
			os_printf(stdout, ", \"encoding_version\": %d, \"format\": ", in.encoding_version);
			json_string(in.format);
			os_printf(stdout, ", \"format_version\": %d, \"elements\": %zu, \"elements_of_other_files\": %zu", in.format_version,
			       in.elements, in.elements_of_other_files);
		} else {
			os_printf(stdout, ", \"version\": %d", in.smd_version);
		}
		if (s) {
			os_printf(stdout, ", \"joints\": %zu, \"meshes\": %zu, \"vertices\": %zu, \"corners\": %zu, \"faces\": %zu, "
			       "\"triangles\": %zu, \"materials\": %zu, \"flex_shapes\": %zu, \"flex_controllers\": %zu, "
			       "\"attachments\": %zu, \"clips\": [",
			       in.joints, in.meshes, in.vertices, in.corners, in.faces, in.triangles, in.materials, in.flex_shapes,
			       in.flex_controllers, in.attachments);
			for (size_t i = 0; i < s->clip_count; i++) {
				os_printf(stdout, "%s{\"name\": ", i ? ", " : "");
				json_string(s->clips[i].name);
				os_printf(stdout, ", \"frames\": %lld, \"frame_rate\": %.17g}", smdmx_clip_frames(&s->clips[i]), s->clips[i].frame_rate);
			}
			os_printf(stdout, "], \"corner_fields\": {");
			for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++)
				os_printf(stdout, "%s\"%s\": %zu", f ? ", " : "", smdmx_corner_field_describe(f)->name, in.meshes_with[f]);
			os_printf(stdout, "}");
			if (l.dm)
				os_printf(stdout, ", \"uv_v_turned\": %zu, \"uv_v_unflagged\": %zu", s->source.dmx_v_flag_false, s->source.dmx_v_flag_missing);
		} else {
			os_printf(stdout, ", \"model\": null, \"why\": ");
			json_string(l.not_model);
		}
		os_printf(stdout, "}\n");
	} else {
		os_printf(stdout, "%s: %s", path, in.kind);
		if (in.elements_of_other_files)
			os_printf(stdout, ", %s %d, format %s %d, %zu elements and references to %zu of other files\n", in.encoding,
			       in.encoding_version, in.format, in.format_version, in.elements, in.elements_of_other_files);
		else if (in.encoding)
			os_printf(stdout, ", %s %d, format %s %d, %zu elements\n", in.encoding, in.encoding_version, in.format,
			       in.format_version, in.elements);
		else
			os_printf(stdout, ", version %d\n", in.smd_version);
		if (s) {
			os_printf(stdout, "  joints %zu\n  meshes %zu\n  vertices %zu\n  corners %zu\n", in.joints, in.meshes, in.vertices, in.corners);
			os_printf(stdout, "  corner fields (meshes holding them):");
			for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++)
				os_printf(stdout, "%s %s %zu", f ? "," : "", smdmx_corner_field_describe(f)->name, in.meshes_with[f]);
			os_printf(stdout, "\n  faces %zu (%zu triangles)\n  materials %zu\n  flex shapes %zu\n  flex controllers %zu\n  attachments %zu\n"
			       "  clips %zu\n",
			       in.faces, in.triangles, in.materials, in.flex_shapes, in.flex_controllers, in.attachments, in.clips);
			for (size_t i = 0; i < s->clip_count; i++)
				os_printf(stdout, "    '%s': %lld frames at %g fps\n", s->clips[i].name, smdmx_clip_frames(&s->clips[i]), s->clips[i].frame_rate);
			if (s->source.dmx_v_flag_false)
				os_printf(stdout, "  UV V turned (1 - v) in %zu meshes: flipVCoordinates false\n", s->source.dmx_v_flag_false);
			if (s->source.dmx_v_flag_missing)
				os_printf(stdout, "  UV V as stored in %zu meshes without flipVCoordinates: read as Source 1 writes it\n",
				       s->source.dmx_v_flag_missing);
		} else {
			os_printf(stdout, "  not a model: %s\n", l.not_model);
		}
	}
	unload_model(&l);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}

/* ---- smdmx diff -------------------------------------------------------------------------- */

typedef struct diff_out {
	size_t shown, limit;
} diff_out;

static void print_difference(void *user, const char *message)
{
	diff_out *d = user;
	if (d->limit && d->shown >= d->limit) return;
	d->shown++;
	os_printf(stdout, "%s\n", message);
}


/* A note of a file's that names several things alike (smdmx_scene_repeated_names). */
static void say_repeated(void *user, const char *message)
{
	os_printf(stderr, "%s: note: %s\n", (const char *)user, message);
}

/* Two scenes compared and the differences printed: the exit code. */
static int diff_scenes(const smdmx_scene *a, const smdmx_scene *b, const char *const paths[2], smdmx_compare_options *opts,
                       diff_out *out, bool quiet)
{
	const smdmx_scene *s[2] = { a, b };
	smdmx_diff_options(a, b, opts);
	/* bones, meshes, shapes, controllers, rules, attachments and clips of one name pair in
	 * their order: said once per name */
	smdmx_error error;
	for (int k = 0; k < 2 && !quiet; k++)
		if (smdmx_scene_repeated_names(s[k], k ? a : NULL, NULL, say_repeated, (void *)paths[k], &error) == SIZE_MAX)
			return say("smdmx", "error", "%s", error.message), EXIT_USAGE;
	if (quiet) out->limit = 0, out->shown = 0;
	size_t n = smdmx_scene_diff(a, b, opts, quiet ? NULL : print_difference, out, &error);
	/* as diff(1): 2 for trouble, never a count of differences it could not finish */
	if (n == SIZE_MAX) return fflush(stdout), say("smdmx", "error", "%s", error.message), EXIT_USAGE;
	if (!quiet && n > out->shown) os_printf(stdout, "... and %zu more differences (--max)\n", n - out->shown);
	if (!quiet && n) os_printf(stdout, "%zu difference%s\n", n, n == 1 ? "" : "s");
	if (fflush(stdout) != 0) return EXIT_FAILED;
	return n ? EXIT_FAILED : EXIT_OK;
}

/* Two QCs: their models as their files hold them (smdmx_qc_scene_options.as_files), as a
 * report compares two QCs. */
static int diff_qcs(const char *const paths[2], const char *const vtas[2], smdmx_compare_options *opts, diff_out *out,
                    bool quiet)
{
	if (vtas[0] || vtas[1]) {
		say("smdmx", "error", "a VTA goes with an SMD, not with the QC '%s' (its flexfile is read from it)", vtas[0] ? paths[0] : paths[1]);
		return EXIT_USAGE;
	}
	diag_buf d = { 0 };
	smdmx_scene *s[2] = { NULL, NULL };
	for (int k = 0; k < 2; k++) {
		picture_input in = { .path = paths[k], .as_files = true };
		s[k] = cli_picture_scene(&in, &d, NULL, NULL);
	}
	int rc = EXIT_USAGE; /* as diff(1): 2 for trouble */
	if (d.text && (!s[0] || !s[1])) os_puts(d.text, stderr); /* what reading said, where it failed (as for files) */
	if (s[0] && s[1]) rc = diff_scenes(s[0], s[1], paths, opts, out, quiet);
	diag_free(&d);
	smdmx_scene_free(s[0]);
	smdmx_scene_free(s[1]);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	const char *paths[2] = { NULL, NULL };
	size_t npaths = 0;
	smdmx_compare_options opts;
	smdmx_diff_options(NULL, NULL, &opts);
	diff_out out = { 0, 50 };
	bool quiet = false;
	double fps = 0;
	const char *vtas[2] = { NULL, NULL };
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			os_printf(stdout, "%s\n", "usage: smdmx diff A [A.vta] B [B.vta] [--tolerance F] [--rotation-tolerance F] [--max N]\n"
			     "                  [--fps N] [--strict] [-q]\n"
			     "Compares two models by meaning, SMD (with its VTA after it) or DMX in any mix, or two\n"
			     "QCs (their models as their files hold them, as smdmx report compares them): joints,\n"
			     "flex shapes, attachments and clips matched by name; polygons as a set over all meshes (a\n"
			     "polygon equals its fan of triangles, corners up to rotation, materials by name) at\n"
			     "float32 (or within --tolerance); weights as a DMX side holds them; rotations as matrices\n"
			     "(entries within --rotation-tolerance, default 2e-6: SMD prints angles to six decimals);\n"
			     "animation frame by frame from each clip's first (--fps: the rate SMD animations are\n"
			     "read at); flex controllers and rules. Models of two up axes are compared turned to Z\n"
			     "up; a model without joints equals it on one root bone that holds every vertex.\n"
			     "--strict pairs meshes by name and compares them polygon by polygon in order, and calls\n"
			     "two up axes a difference. Every difference is counted; at most --max are listed\n"
			     "(default 50; 0: all). Exit codes: 0 equal, 1 different, 2 a usage error, a file that\n"
			     "cannot be read as a model, or a comparison that cannot be made (out of memory, a clip\n"
			     "past the limits of a comparison).");
			return EXIT_OK;
		} else if (value_missing("diff", a, !v,
		                         (const char *const[]){ "--name", "--tolerance", "--rotation-tolerance", "--max", "--fps", NULL })) {
			return EXIT_USAGE;
		} else if (!strcmp(a, "--name")) {
			if (name_refused(v)) return say("smdmx", "error", "%s (try 'smdmx diff --help')", name_refused(v)), EXIT_USAGE;
			stdin_name = v;
			i++;
		} else if (!strcmp(a, "--tolerance")) {
			opts.value_tolerance = strtod(v, &end);
			if (!*v || *end || !(opts.value_tolerance >= 0))
				return say("smdmx", "error", "--tolerance wants a number >= 0, not '%s'", v), EXIT_USAGE;
			i++;
		} else if (!strcmp(a, "--rotation-tolerance")) {
			opts.rotation_tolerance = strtod(v, &end);
			if (!*v || *end || !(opts.rotation_tolerance > 0))
				return say("smdmx", "error", "--rotation-tolerance wants a number > 0, not '%s'", v), EXIT_USAGE;
			i++;
		} else if (!strcmp(a, "--max")) {
			double n = strtod(v, &end);
			if (!*v || *end || !(n >= 0) || n > 1e9) return say("smdmx", "error", "--max wants a count, not '%s'", v), EXIT_USAGE;
			out.limit = (size_t)n;
			i++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "--strict")) {
			opts.strict = true;
		} else if (!strcmp(a, "--fps")) {
			fps = strtod(v, &end);
			if (!*v || *end || !(fps > 0) || fps > 10000)
				return say("smdmx", "error", "--fps wants a number in (0, 10000], not '%s'", v), EXIT_USAGE;
			i++;
		} else if (a[0] == '-' && a[1]) {
			say("smdmx", "error", "unknown option '%s' (try 'smdmx diff --help')", a);
			return EXIT_USAGE;
		} else if (npaths && !strcasecmp(os_path_extension(a), "vta") && strcasecmp(os_path_extension(paths[npaths - 1]), "vta") &&
		           !vtas[npaths - 1]) {
			vtas[npaths - 1] = a; /* an SMD's shapes: the VTA given after it */
		} else if (npaths < 2) {
			paths[npaths++] = a;
		} else {
			say("smdmx", "error", "diff compares two models (each an SMD with its VTA after it, or a DMX)");
			return EXIT_USAGE;
		}
	}
	if (npaths != 2) {
		say("smdmx", "error", "diff compares two files (try 'smdmx diff --help')");
		return EXIT_USAGE;
	}
	bool qc[2] = { !strcasecmp(os_path_extension(paths[0]), "qc"), !strcasecmp(os_path_extension(paths[1]), "qc") };
	if (qc[0] != qc[1]) {
		say("smdmx", "error",
		    "diff compares a QC with a QC (their models as their files hold them), not with the model file '%s': give the "
		    "QC's model file, or convert the QC first (smd2dmx --qc)", qc[0] ? paths[1] : paths[0]);
		return EXIT_USAGE;
	}
	if (qc[0]) return diff_qcs(paths, vtas, &opts, &out, quiet);
	loaded l[2];
	diag_buf d = { 0 };
	bool ok0 = load_model(paths[0], &l[0], &d, NULL, fps, false), ok1 = ok0 && load_model(paths[1], &l[1], &d, NULL, fps, false);
	/* an SMD reference with its VTA after it: the shapes onto the reference */
	for (int k = 0; k < 2 && ok1; k++) {
		if (!vtas[k]) continue;
		loaded v;
		if (l[k].is_dmx) {
			diag_add(&d, NULL, vtas[k], 0, 0, "error", "a VTA goes with an SMD, not with the DMX '%s'", paths[k]);
			ok1 = false;
		} else if (!load_model(vtas[k], &v, &d, NULL, fps, false)) {
			ok1 = false;
		} else {
			smdmx_error err;
			if (!smdmx_scene_attach_vta(l[k].scene, v.scene, &err, NULL)) {
				diag_error(&d, vtas[k], &err);
				ok1 = false;
			}
			unload_model(&v);
		}
	}
	for (int k = 0; k < 2 && ok1; k++)
		if (!l[k].scene) {
			diag_add(&d, NULL, paths[k], 0, 0, "error", "not a model: %s", l[k].not_model);
			ok1 = false;
		}
	if (!ok1) {
		os_puts(d.text ? d.text : "", stderr);
		diag_free(&d);
		if (ok0) unload_model(&l[0]);
		if (ok0 && (l[1].dm || l[1].scene)) unload_model(&l[1]);
		return EXIT_USAGE; /* as diff(1): 2 for trouble */
	}
	int rc = diff_scenes(l[0].scene, l[1].scene, paths, &opts, &out, quiet);
	unload_model(&l[0]);
	unload_model(&l[1]);
	return rc;
}

