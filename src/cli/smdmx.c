/* smdmx: the command-line program. Thin: parsing arguments and printing diagnostics in
 * the compiler format "path:line:col: error: message"; the work is in the library.
 *
 * Exit codes: 0 success, 1 invalid input, 2 bad command line, 3 input/output failure,
 * 4 a limit or the memory was exhausted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "smdmx/smdmx.h"

enum { EXIT_INVALID = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_RESOURCE = 4 };

static const char usage[] =
    "usage: smdmx convert IN -o OUT [options]\n"
    "       smdmx dump FILE.dmx [--full]\n"
    "       smdmx --version | --help\n"
    "\n"
    "convert   by the extensions: SMD family (.smd, .sma, .phys, .vta) to SMD family; SMD to\n"
    "          a model DMX (smd2dmx); a model or animation DMX to SMD (dmx2smd); DMX to DMX\n"
    "          (re-encode). .vta output writes vertex animation.\n"
    "  -o OUT                 output file ('-' for standard output)\n"
    "  --lf                   SMD: LF line ends instead of CRLF\n"
    "  --frame-rate N         SMD: frames per second of an animation (default 30)\n"
    "  --encoding E           DMX: keyvalues2 (default), keyvalues2_flat or binary\n"
    "  --encoding-version N   DMX: keyvalues2 1 (default) to 4; binary 1 to 5 (default) or 9\n"
    "  --model-version N      DMX model format: 1, 15, 18 (default) or 22\n"
    "  --vta FLEX.vta         SMD to DMX: the reference's flex shapes (written back as\n"
    "                         OUT.vta beside OUT.smd by DMX to SMD)\n"
    "  --keys all|reduce      DMX animation: every key, or leave out what interpolation\n"
    "                         reproduces exactly (default)\n"
    "  --key-tolerance F      DMX animation: a left-out key may be off by F (units, quaternion\n"
    "                         components) for smaller files; 0 (default) is exact\n"
    "  --fps N                the frame rate of an SMD animation (default 30); as --frame-rate\n"
    "  --target T             DMX: the encoding and model format a game wants (decision 4):\n"
    "                         sdk2013, tf2, gmod (binary 2, model 1), l4d2 (binary 4, model 15),\n"
    "                         portal2, csgo, sfm (binary 5, model 18), source2 (binary 9, model 22)\n"
    "  --clips                SMD to DMX: every input is an animation; one clip each, named\n"
    "                         after its file, on the first file's bones\n"
    "  --clip NAME            DMX to SMD: only this clip (else one SMD per clip, OUT_clip.smd)\n"
    "  --goldsrc              SMD: GoldSrc flavour (no weight links, .bmp materials, names of at\n"
    "                         most 63 characters)\n"
    "  --scale F              multiply every length by F\n"
    "  --up-axis X|Y|Z        the source's up axis; the output is Z up, as Source expects\n"
    "  --verbose              say what was read and written\n"
    "dump      list a DMX file's elements and attributes; arrays are shortened unless --full\n"
    "\n"
    "exit codes: 0 success, 1 invalid input, 2 bad command line, 3 input/output failure,\n"
    "            4 a limit or the memory was exhausted\n";

static int exit_code_for(smdmx_error_code code)
{
	switch (code) {
	case SMDMX_ERROR_IO: return EXIT_IO;
	case SMDMX_ERROR_OUT_OF_MEMORY:
	case SMDMX_ERROR_LIMIT: return EXIT_RESOURCE;
	case SMDMX_ERROR_USAGE: return EXIT_USAGE;
	default: return EXIT_INVALID;
	}
}

static void print_diag(const char *path, const char *kind, uint32_t line, uint32_t col, const char *msg)
{
	if (line) fprintf(stderr, "%s:%u:%u: %s: %s\n", path, line, col ? col : 1, kind, msg);
	else fprintf(stderr, "%s: %s: %s\n", path, kind, msg);
}

static int report(const char *path, const smdmx_error *e)
{
	print_diag(path, "error", e->line, e->column, e->message);
	return exit_code_for(e->code);
}

static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	if (!dot || (slash && dot < slash)) return "";
	return dot + 1;
}

static bool is_smd_family(const char *ext)
{
	return !strcasecmp(ext, "smd") || !strcasecmp(ext, "sma") || !strcasecmp(ext, "phys") || !strcasecmp(ext, "vta");
}

/* One line on stderr: what was read, and where it went. */
static void describe(const smdmx_scene *s, const char *in, const char *out)
{
	static const char *const kinds[] = { "reference SMD", "animation SMD", "VTA" };
	size_t corners = 0, polygons = 0;
	for (size_t i = 0; i < s->mesh_count; i++) {
		corners += s->meshes[i].corner_count;
		for (size_t f = 0; f < s->meshes[i].face_set_count; f++) polygons += s->meshes[i].face_sets[f].polygon_count;
	}
	size_t frames = 0;
	if (s->clip_count && s->clips[0].channel_count) frames = s->clips[0].channels[0].position_count;
	fprintf(stderr,
	        "%s: %s, %zu joints, %zu polygons, %zu corners, %zu materials, %zu flex shapes, %zu frames -> wrote %s\n",
	        in, kinds[s->source.smd_kind], s->joint_count, polygons, corners, s->material_count, s->flex_shape_count,
	        frames, out);
}

static int convert_dmx(const char *in, const char *out, const smdmx_dmx_write_options *opts, bool verbose)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(in, NULL, &err);
	if (!dm) return report(in, &err);
	bool ok = smdmx_dmx_write_file(dm, out, opts, &err);
	if (ok && verbose)
		fprintf(stderr, "%s: %s %d, format %s %d, %zu elements -> wrote %s (%s %d)\n", in, dm->encoding,
		        dm->encoding_version, dm->format, dm->format_version, dm->element_count, out,
		        opts->encoding ? opts->encoding : "keyvalues2",
		        opts->encoding_version ? opts->encoding_version
		                               : (opts->encoding && !strcmp(opts->encoding, "binary") ? 5 : 1));
	smdmx_dm_free(dm);
	return ok ? 0 : report(out, &err);
}

static void print_warnings(const char *path, const smdmx_warnings *warn)
{
	for (size_t i = 0; i < warn->count; i++) {
		char msg[256];
		if (warn->data[i].count > 1)
			snprintf(msg, sizeof(msg), "%s (%zu times)", warn->data[i].message, warn->data[i].count);
		else
			snprintf(msg, sizeof(msg), "%s", warn->data[i].message);
		print_diag(path, "warning", warn->data[i].line, warn->data[i].column, msg);
	}
}

typedef struct shaping {
	double scale;   /* 1: none */
	char up_axis;   /* 0: none */
} shaping;

static bool apply_shaping(smdmx_scene *scene, const shaping *sh, smdmx_error *err)
{
	if (sh->scale == 1.0 && !sh->up_axis) return true;
	return smdmx_scene_transform(scene, sh->scale, sh->up_axis, err);
}

/* SMD (reference or animation) into a model DMX. */
static int smd_to_dmx(const char *const *inputs, int nin, const char *vta, const char *out,
                      const smdmx_smd_read_options *ropts, const smdmx_model_options *mopts,
                      const smdmx_dmx_write_options *dopts, const shaping *sh, bool verbose)
{
	smdmx_error err;
	smdmx_warnings warn;
	const char *in = inputs[0];
	smdmx_scene *scene = smdmx_smd_read_file(in, ropts, &err, &warn);
	print_warnings(in, &warn);
	if (!scene) return report(in, &err);
	/* --clips: the animations of the other files, one clip each, on the first one's bones. */
	for (int i = 1; i < nin; i++) {
		smdmx_scene *more = smdmx_smd_read_file(inputs[i], ropts, &err, &warn);
		print_warnings(inputs[i], &warn);
		bool ok = more && smdmx_scene_add_clips(scene, more, &err);
		smdmx_scene_free(more);
		if (!ok) {
			smdmx_scene_free(scene);
			return report(inputs[i], &err);
		}
	}
	if (vta) {
		/* Decision 10: the VTA's shapes become delta states of the reference. */
		smdmx_scene *flex = smdmx_smd_read_file(vta, ropts, &err, &warn);
		print_warnings(vta, &warn);
		if (!flex) {
			smdmx_scene_free(scene);
			return report(vta, &err);
		}
		bool ok = smdmx_scene_attach_vta(scene, flex, &err, &warn);
		print_warnings(vta, &warn);
		smdmx_scene_free(flex);
		if (!ok) {
			smdmx_scene_free(scene);
			return report(vta, &err);
		}
	}
	if (!apply_shaping(scene, sh, &err)) {
		smdmx_scene_free(scene);
		return report(in, &err);
	}
	smdmx_dm *dm = smdmx_model_from_scene(scene, mopts, &err, &warn);
	print_warnings(in, &warn);
	smdmx_scene_free(scene);
	if (!dm) return report(in, &err);
	bool ok = smdmx_dmx_write_file(dm, out, dopts, &err);
	if (ok && verbose)
		fprintf(stderr, "%s: %zu elements, model format %d -> wrote %s\n", in, dm->element_count, dm->format_version, out);
	smdmx_dm_free(dm);
	return ok ? 0 : report(out, &err);
}

/* OUT with "_suffix" before its extension. */
static char *path_with_suffix(const char *out, const char *suffix, const char *new_ext)
{
	const char *ext = extension(out);
	size_t stem = *ext ? (size_t)(ext - out) - 1 : strlen(out);
	const char *e = new_ext ? new_ext : (*ext ? ext - 1 : "");
	size_t n = stem + (suffix ? strlen(suffix) + 1 : 0) + strlen(e) + 1;
	char *p = malloc(n);
	if (!p) return NULL;
	snprintf(p, n, "%.*s%s%s%s", (int)stem, out, suffix ? "_" : "", suffix ? suffix : "", e);
	return p;
}

/* A model or animation DMX into SMD: a reference (and its VTA beside it when the model has
 * shapes), or one SMD per clip (--clip NAME for one). */
static int dmx_to_smd(const char *in, const char *out, const smdmx_smd_write_options *wopts, const char *clip_name,
                      const shaping *sh, bool verbose)
{
	smdmx_error err;
	smdmx_warnings warn;
	smdmx_dm *dm = smdmx_dmx_read_file(in, NULL, &err);
	if (!dm) return report(in, &err);
	smdmx_scene *scene = smdmx_model_to_scene(dm, NULL, &err, &warn);
	smdmx_dm_free(dm);
	print_warnings(in, &warn);
	if (!scene) return report(in, &err);
	if (!apply_shaping(scene, sh, &err)) {
		smdmx_scene_free(scene);
		return report(in, &err);
	}
	smdmx_smd_write_options o = *wopts;
	if (o.kind == SMDMX_SMD_WRITE_AUTO) o.kind = scene->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	int rc = 0;
	if (o.kind == SMDMX_SMD_WRITE_ANIMATION && scene->clip_count) {
		/* One SMD per clip, or the one asked for. */
		size_t first = 0, last = scene->clip_count;
		if (clip_name) {
			while (first < scene->clip_count && strcmp(scene->clips[first].name, clip_name)) first++;
			if (first == scene->clip_count) {
				fprintf(stderr, "%s: error: no clip named '%s' (the file has", in, clip_name);
				for (size_t c = 0; c < scene->clip_count; c++) fprintf(stderr, " '%s'", scene->clips[c].name);
				fprintf(stderr, ")\n");
				smdmx_scene_free(scene);
				return EXIT_USAGE;
			}
			last = first + 1;
		}
		for (size_t c = first; c < last && !rc; c++) {
			char *path = last - first > 1 ? path_with_suffix(out, scene->clips[c].name, NULL) : NULL;
			o.clip = c;
			if (!smdmx_smd_write_file(scene, path ? path : out, &o, &err)) rc = report(path ? path : out, &err);
			else if (verbose) fprintf(stderr, "%s: clip '%s' -> wrote %s\n", in, scene->clips[c].name, path ? path : out);
			free(path);
		}
		smdmx_scene_free(scene);
		return rc;
	}
	smdmx_warnings losses;
	memset(&losses, 0, sizeof(losses));
	smdmx_smd_report_losses(scene, true, &losses);
	print_warnings(out, &losses);
	bool ok = smdmx_smd_write_file(scene, out, &o, &err);
	if (!ok) rc = report(out, &err);
	else if (verbose) describe(scene, in, out);
	/* Shapes go to a VTA beside the SMD (decision 10). */
	if (!rc && scene->flex_shape_count && o.kind == SMDMX_SMD_WRITE_REFERENCE) {
		char *vta = path_with_suffix(out, NULL, ".vta");
		o.kind = SMDMX_SMD_WRITE_VTA;
		if (!vta) rc = EXIT_RESOURCE;
		else if (!smdmx_smd_write_file(scene, vta, &o, &err)) rc = report(vta, &err);
		else if (verbose) fprintf(stderr, "%s: %zu flex shapes -> wrote %s\n", in, scene->flex_shape_count, vta);
		free(vta);
	}
	smdmx_scene_free(scene);
	return rc;
}

#if !defined(SMDMX_TOOL_SMD2DMX) && !defined(SMDMX_TOOL_DMX2SMD)
static bool stdout_write(void *user, const void *data, size_t size)
{
	(void)user;
	return fwrite(data, 1, size, stdout) == size;
}

static int cmd_dump(int argc, char **argv)
{
	const char *in = NULL;
	bool full = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--full")) full = true;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "smdmx: error: unknown option '%s'\n%s", argv[i], usage);
			return EXIT_USAGE;
		} else if (!in) in = argv[i];
		else {
			fprintf(stderr, "smdmx: error: more than one input\n");
			return EXIT_USAGE;
		}
	}
	if (!in) {
		fprintf(stderr, "smdmx: error: dump needs a file\n%s", usage);
		return EXIT_USAGE;
	}
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(in, NULL, &err);
	if (!dm) return report(in, &err);
	bool ok = smdmx_dm_dump(dm, full, stdout_write, NULL, &err);
	smdmx_dm_free(dm);
	if (fflush(stdout) != 0) return EXIT_IO;
	return ok ? 0 : report("<stdout>", &err);
}
#endif

static int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	const char *inputs[256];
	int nin = 0;
	bool verbose = false, clips = false, explicit_encoding = false, explicit_version = false, explicit_model = false;
	const char *target = NULL, *clip_name = NULL;
	shaping sh = { 1.0, 0 };
	smdmx_dmx_write_options dopts;
	memset(&dopts, 0, sizeof(dopts));
	smdmx_model_options mopts;
	memset(&mopts, 0, sizeof(mopts));
	const char *vta = NULL;
	smdmx_smd_read_options ropts;
	smdmx_smd_write_options wopts;
	memset(&ropts, 0, sizeof(ropts));
	memset(&wopts, 0, sizeof(wopts));
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--encoding") && i + 1 < argc) {
			dopts.encoding = argv[++i];
			explicit_encoding = true;
			if (strcmp(dopts.encoding, "keyvalues2") && strcmp(dopts.encoding, "keyvalues2_flat") &&
			    strcmp(dopts.encoding, "binary")) {
				fprintf(stderr, "smdmx: error: --encoding is keyvalues2, keyvalues2_flat or binary\n");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--encoding-version") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 9) {
				fprintf(stderr, "smdmx: error: --encoding-version is 1 to 4 (keyvalues2) or 1 to 5 or 9 (binary)\n");
				return EXIT_USAGE;
			}
			dopts.encoding_version = (int)v;
			explicit_version = true;
		} else if (!strcmp(argv[i], "--model-version") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || (v != 1 && v != 15 && v != 18 && v != 22)) {
				fprintf(stderr, "smdmx: error: --model-version is 1, 15, 18 or 22\n");
				return EXIT_USAGE;
			}
			mopts.model_version = (int)v;
			explicit_model = true;
		} else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
			target = argv[++i];
		} else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
			char *end;
			sh.scale = strtod(argv[++i], &end);
			if (*end || !(sh.scale > 0) || sh.scale > 1e6) {
				fprintf(stderr, "smdmx: error: --scale wants a positive number\n");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--up-axis") && i + 1 < argc) {
			const char *a = argv[++i];
			if (strlen(a) != 1 || (a[0] != 'X' && a[0] != 'Y' && a[0] != 'Z')) {
				fprintf(stderr, "smdmx: error: --up-axis is X, Y or Z\n");
				return EXIT_USAGE;
			}
			sh.up_axis = a[0];
		} else if (!strcmp(argv[i], "--goldsrc")) {
			wopts.goldsrc = true;
		} else if (!strcmp(argv[i], "--clips")) {
			clips = true;
		} else if (!strcmp(argv[i], "--clip") && i + 1 < argc) {
			clip_name = argv[++i];
		} else if (!strcmp(argv[i], "--vta") && i + 1 < argc) {
			vta = argv[++i];
		} else if (!strcmp(argv[i], "--keys") && i + 1 < argc) {
			const char *k = argv[++i];
			if (!strcmp(k, "all")) mopts.all_keys = true;
			else if (strcmp(k, "reduce")) {
				fprintf(stderr, "smdmx: error: --keys is all or reduce\n");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--key-tolerance") && i + 1 < argc) {
			char *end;
			mopts.key_tolerance = strtod(argv[++i], &end);
			if (*end || !(mopts.key_tolerance >= 0) || mopts.key_tolerance > 1e6) {
				fprintf(stderr, "smdmx: error: --key-tolerance wants a number of units (0: exact)\n");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--fps") && i + 1 < argc) {
			char *end;
			ropts.frame_rate = strtod(argv[++i], &end);
			if (*end || !(ropts.frame_rate > 0) || ropts.frame_rate > 10000) {
				fprintf(stderr, "smdmx: error: --fps wants a number in (0, 10000]\n");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--lf")) {
			wopts.lf_line_ends = true;
		} else if (!strcmp(argv[i], "--frame-rate") && i + 1 < argc) {
			char *end;
			ropts.frame_rate = strtod(argv[++i], &end);
			if (*end || !(ropts.frame_rate > 0) || ropts.frame_rate > 10000) {
				fprintf(stderr, "smdmx: error: --frame-rate wants a number in (0, 10000]\n");
				return EXIT_USAGE;
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "smdmx: error: unknown option '%s'\n%s", argv[i], usage);
			return EXIT_USAGE;
		} else if (nin < 256) {
			inputs[nin++] = argv[i];
			if (!in) in = argv[i];
		} else {
			fprintf(stderr, "smdmx: error: too many inputs\n");
			return EXIT_USAGE;
		}
	}
	if (nin > 1 && !clips) {
		fprintf(stderr, "smdmx: error: more than one input (--clips puts several animations into one DMX)\n");
		return EXIT_USAGE;
	}
	if (target) {
		/* Decision 4: each engine branch's encoding and model format. */
		static const struct {
			const char *name;
			int encoding, model;
		} targets[] = { { "sdk2013", 2, 1 }, { "tf2", 2, 1 },   { "gmod", 2, 1 },  { "l4d2", 4, 15 },
			            { "portal2", 5, 18 }, { "csgo", 5, 18 }, { "sfm", 5, 18 }, { "source2", 9, 22 } };
		size_t t = 0;
		while (t < sizeof(targets) / sizeof(targets[0]) && strcmp(targets[t].name, target)) t++;
		if (t == sizeof(targets) / sizeof(targets[0])) {
			fprintf(stderr, "smdmx: error: unknown --target '%s' (sdk2013, tf2, gmod, l4d2, portal2, csgo, sfm, source2)\n",
			        target);
			return EXIT_USAGE;
		}
		if (!explicit_encoding) dopts.encoding = "binary";
		if (!explicit_version && (!explicit_encoding || !strcmp(dopts.encoding, "binary")))
			dopts.encoding_version = targets[t].encoding;
		if (!explicit_model) mopts.model_version = targets[t].model;
	}
	if (!in || !out) {
		fprintf(stderr, "smdmx: error: convert needs IN and -o OUT\n%s", usage);
		return EXIT_USAGE;
	}
	bool in_dmx = !strcasecmp(extension(in), "dmx"), out_dmx = !strcasecmp(extension(out), "dmx");
	if (in_dmx && out_dmx) return convert_dmx(in, out, &dopts, verbose);
	if (out_dmx) {
		if (strcmp(in, "-") && !is_smd_family(extension(in))) {
			fprintf(stderr, "smdmx: error: '%s': unknown input extension\n", in);
			return EXIT_USAGE;
		}
		for (int k = 0; k < nin; k++)
			if (strcmp(inputs[k], "-") && !is_smd_family(extension(inputs[k]))) {
				fprintf(stderr, "smdmx: error: '%s': unknown input extension\n", inputs[k]);
				return EXIT_USAGE;
			}
		return smd_to_dmx(inputs, nin, vta, out, &ropts, &mopts, &dopts, &sh, verbose);
	}
	if (in_dmx) {
		if (!is_smd_family(extension(out))) {
			fprintf(stderr, "smdmx: error: '%s': unknown output extension\n", out);
			return EXIT_USAGE;
		}
		return dmx_to_smd(in, out, &wopts, clip_name, &sh, verbose);
	}
	if (strcmp(in, "-") && !is_smd_family(extension(in))) {
		fprintf(stderr, "smdmx: error: '%s': unknown input extension (.smd, .sma, .phys, .vta)\n", in);
		return EXIT_USAGE;
	}
	if (strcmp(out, "-") && !is_smd_family(extension(out))) {
		fprintf(stderr, "smdmx: error: '%s': unknown output extension (.smd, .sma, .phys, .vta)\n", out);
		return EXIT_USAGE;
	}
	if (!strcasecmp(extension(out), "vta")) wopts.kind = SMDMX_SMD_WRITE_VTA;

	smdmx_error err;
	smdmx_warnings warn;
	smdmx_scene *scene = smdmx_smd_read_file(in, &ropts, &err, &warn);
	if (scene && !apply_shaping(scene, &sh, &err)) {
		smdmx_scene_free(scene);
		scene = NULL;
	}
	for (size_t i = 0; i < warn.count; i++) {
		char msg[256];
		if (warn.data[i].count > 1)
			snprintf(msg, sizeof(msg), "%s (%zu times)", warn.data[i].message, warn.data[i].count);
		else
			snprintf(msg, sizeof(msg), "%s", warn.data[i].message);
		print_diag(in, "warning", warn.data[i].line, warn.data[i].column, msg);
	}
	if (!scene) return report(in, &err);
	if (wopts.kind == SMDMX_SMD_WRITE_VTA && scene->flex_shape_count == 0 && scene->mesh_count == 0) {
		smdmx_scene_free(scene);
		fprintf(stderr, "%s: error: nothing to write as VTA (no mesh)\n", in);
		return EXIT_INVALID;
	}
	bool ok = smdmx_smd_write_file(scene, out, &wopts, &err);
	if (ok && verbose) describe(scene, in, out);
	smdmx_scene_free(scene);
	if (!ok) return report(out, &err);
	return 0;
}

#if defined(SMDMX_TOOL_SMD2DMX) || defined(SMDMX_TOOL_DMX2SMD)
/* smd2dmx and dmx2smd: convert in one direction, with the same options. */
int main(int argc, char **argv)
{
#ifdef SMDMX_TOOL_SMD2DMX
	const char *name = "smd2dmx", *want_out = "dmx";
#else
	const char *name = "dmx2smd", *want_out = "smd";
#endif
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout, "usage: %s IN -o OUT [options]: see 'smdmx --help'\n", name);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	for (int i = 1; i + 1 < argc; i++) {
		if (strcmp(argv[i], "-o")) continue;
		const char *ext = extension(argv[i + 1]);
		bool ok = !strcmp(want_out, "dmx") ? !strcasecmp(ext, "dmx") : is_smd_family(ext);
		if (!ok) {
			fprintf(stderr, "%s: error: '%s': the output must be %s\n", name, argv[i + 1],
			        !strcmp(want_out, "dmx") ? ".dmx" : ".smd, .sma, .phys or .vta");
			return EXIT_USAGE;
		}
	}
	return cmd_convert(argc - 1, argv + 1);
}
#else
int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("smdmx %s\n", SMDMX_VERSION_STRING);
		return 0;
	}
	if (!strcmp(argv[1], "convert")) return cmd_convert(argc - 2, argv + 2);
	if (!strcmp(argv[1], "dump")) return cmd_dump(argc - 2, argv + 2);
	fprintf(stderr, "smdmx: error: unknown command '%s'\n%s", argv[1], usage);
	return EXIT_USAGE;
}
#endif
