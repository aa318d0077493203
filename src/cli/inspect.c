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

typedef struct info_args {
	const char *path;
	bool json;
} info_args;

static int info_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	(void)number;
	if (opt->id == OP_JSON) ((info_args *)ctx)->json = true;
	else if (opt->id == OP_NAME) stdin_name = value;
	return -1;
}

static int info_input(void *ctx, const char *arg)
{
	return one_input(&((info_args *)ctx)->path, CMD_INFO, arg);
}

int cmd_info(int argc, char **argv)
{
	info_args args = { NULL, false };
	opt_reader r = { CMD_INFO, argc, argv, info_option, info_input, &args };
	int rc = opt_read(&r);
	if (rc >= 0) return rc;
	const char *path = args.path;
	bool json = args.json;
	if (!path) return usage_of(CMD_INFO, "info needs a file");
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

/* What smdmx diff was told. */
typedef struct diff_args {
	const char *paths[2], *vtas[2];
	size_t npaths;
	smdmx_compare_options opts;
	diff_out out;
	bool quiet;
	double fps;
} diff_args;

static int diff_option(void *ctx, const cli_option *opt, const char *value, double number)
{
	diff_args *d = ctx;
	switch (opt->id) {
	case OP_NAME: stdin_name = value; break;
	case OP_TOLERANCE: d->opts.value_tolerance = number; break;
	case OP_ROTATION_TOLERANCE: d->opts.rotation_tolerance = number; break;
	case OP_MAX: d->out.limit = (size_t)number; break;
	case OP_QUIET: d->quiet = true; break;
	case OP_STRICT: d->opts.strict = true; break;
	case OP_FPS: d->fps = number; break;
	default: break;
	}
	return -1;
}

static int diff_input(void *ctx, const char *a)
{
	diff_args *d = ctx;
	if (d->npaths && !strcasecmp(os_path_extension(a), "vta") && strcasecmp(os_path_extension(d->paths[d->npaths - 1]), "vta") &&
	    !d->vtas[d->npaths - 1]) {
		d->vtas[d->npaths - 1] = a; /* an SMD's shapes: the VTA given after it */
	} else if (d->npaths < 2) {
		d->paths[d->npaths++] = a;
	} else {
		say("smdmx", "error", "diff compares two models (each an SMD with its VTA after it, or a DMX)");
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	diff_args args;
	memset(&args, 0, sizeof(args));
	args.out.limit = 50;
	smdmx_diff_options(NULL, NULL, &args.opts);
	opt_reader reader = { CMD_DIFF, argc, argv, diff_option, diff_input, &args };
	int read = opt_read(&reader);
	if (read >= 0) return read;
	const char **paths = args.paths, **vtas = args.vtas;
	size_t npaths = args.npaths;
	smdmx_compare_options opts = args.opts;
	diff_out out = args.out;
	bool quiet = args.quiet;
	double fps = args.fps;
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

