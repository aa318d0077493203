/* smdmx preview: a picture of each model (report/, render/), written as PNG, all or nothing
 * (write_files_whole, output.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* ---- smdmx preview -------------------------------------------------------------------------- */

typedef struct picture {
	const char *in, *vta;
	char *out;
	diag_buf diag;
	bool ok;
	char legend[2048];
} picture;

typedef struct preview {
	conv_opts o; /* the batch's: -f, -q, --max-warnings */
	sm_render_options ro;
	const char *model;
	picture *pics;
	size_t count;
} preview;

static void draw_one(void *ctx, size_t i)
{
	preview *p = ctx;
	picture *pic = &p->pics[i];
	picture_input in = { .path = pic->in, .vta = pic->vta, .model = p->model, .bodygroups = p->o.bodygroups,
		             .bodygroup_count = p->o.bodygroup_count };
	bool posed = false;
	smdmx_scene *s = cli_picture_scene(&in, &pic->diag, &p->o, &posed);
	if (!s) return;
	if ((p->model || p->o.bodygroup_count) && strcasecmp(os_path_extension(pic->in), "qc"))
		diag_add(&pic->diag, &p->o, pic->in, 0, 0, "warning", "%s picks in a QC's model, and this is no QC: drawn whole; nothing to do",
		         p->model ? "--model" : "--bodygroup");
	uint8_t *png = NULL;
	size_t size = 0;
	smdmx_error err;
	uint32_t empty = 0;
	/* an animation over a model: at its first frame, unless --clip says */
	sm_render_options ro = p->ro;
	if (posed && !ro.clip) ro.clip = s->clips[0].name, ro.frame = 0;
	bool ok = picture_png(s, &ro, &png, &size, pic->legend, sizeof(pic->legend), &empty, &err);
	smdmx_scene_free(s);
	if (ok && empty)
		diag_add(&pic->diag, &p->o, pic->in, 0, 0, "warning",
		         "the picture shows nothing in %u of its views (its polygons are edge-on there, or each smaller than a "
		         "pixel); use another view, or --skeleton", empty);
	if (!ok) {
		diag_error(&pic->diag, pic->in, &err);
		return;
	}
	char why[1024];
	char *ins[2] = { (char *)pic->in, (char *)pic->vta };
	ok = write_file_whole(pic->out, png, size, ins, pic->vta ? 2 : 1, p->o.force, why, sizeof(why));
	free(png);
	if (!ok) diag_add(&pic->diag, NULL, pic->out, 0, 0, "error", "%s", why);
	pic->ok = ok;
}

static const char preview_help[] =
	"usage: smdmx preview FILE [FILE.vta]... [-o OUT.png | -d DIR] [options]\n"
	"Draws a picture of each model (an SMD with its VTA after it, a DMX, or a QC's $model) as\n"
	"PNG: shaded polygons lit from the viewer, each material in its own colour, Source's Z up,\n"
	"the model framed to fit. Without -o or -d, FILE.png beside each FILE ('-': standard input,\n"
	"drawn to standard output; -o - writes any picture there).\n"
	"  --views V       front, side, top, three-quarter (the default) or all (four in one picture)\n"
	"  --size N        pixels of one view's square, 16 to 4096 (default 512)\n"
	"  --skeleton      the bones as lines over the mesh\n"
	"  --shape NAME    the mesh with that flex shape applied; --shapes: a sheet of every shape\n"
	"  --clip NAME     the mesh posed by that clip, skinned by its weights, at --frame N (0)\n"
	"  --uv            the UV layout of each material in the unit square, V up\n"
	"  --model NAME    of a QC, that $model or body part alone (default: the whole model, every\n"
	"                  $body, $model and the first choice of each $bodygroup)\n"
	"  --bodygroup PART=CHOICE  of a QC, that choice of a $bodygroup (its number from 0, blank,\n"
	"                  or its file's name); given again for another\n"
	"  --name NAME     the name of a model read from standard input (default: stdin)\n"
	"  -f              replace pictures that are there; -j N pictures at once; -q quiet\n"
	"Exit codes: 0 every picture written, 1 a file failed, 2 a usage error.";

static int preview_usage(const char *fmt, ...) __attribute__((format(OS_PRINTF, 1, 2)));
static int preview_usage(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	say("smdmx", "error", "%s (try 'smdmx preview --help')", msg);
	return EXIT_USAGE;
}

static bool number_arg(const char *v, double lo, double hi, double *out)
{
	char *end = NULL;
	double n = strtod(v, &end);
	if (!*v || *end || !(n >= lo && n <= hi) || n != (double)(long long)n) return false;
	*out = n;
	return true;
}

/* The options of smdmx preview into p and the inputs (FILE and the VTAs after them) into
 * p->pics; -o and -d into out and dir. EXIT_OK, or a usage error. */
static int preview_options(preview *p, int argc, char **argv, const char **out, const char **dir)
{
	bool frame_given = false, views_given = false;
	p->ro.view = SM_VIEW_THREE_QUARTER;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double n;
		if (value_missing("preview", a, !v,
		                  (const char *const[]){ "-o", "-d", "--views", "--size", "--shape", "--clip", "--frame", "--model", "--name",
		                                         "--bodygroup", "-j", NULL }))
			return EXIT_USAGE;
		if (!strcmp(a, "--name") && name_refused(v)) return preview_usage("%s", name_refused(v));
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			os_printf(stdout, "%s\n", preview_help);
			return -1;
		} else if (!strcmp(a, "-o")) *out = argv[++i];
		else if (!strcmp(a, "-d")) *dir = argv[++i];
		else if (!strcmp(a, "--views")) {
			p->ro.view = sm_view_find(argv[++i]);
			views_given = true;
			if (p->ro.view > SM_VIEW_ALL) return preview_usage("--views is front, side, top, three-quarter or all, not '%s'", v);
		} else if (!strcmp(a, "--size")) {
			if (!number_arg(argv[++i], SM_RENDER_MIN_SIZE, SM_RENDER_MAX_SIZE, &n))
				return preview_usage("--size is a whole number of pixels from 16 to 4096, not '%s'", v);
			p->ro.size = (uint32_t)n;
		} else if (!strcmp(a, "--frame")) {
			if (!number_arg(argv[++i], 0, 1e9, &n)) return preview_usage("--frame is a frame number, 0 or more, not '%s'", v);
			p->ro.frame = (int64_t)n;
			frame_given = true;
		} else if (!strcmp(a, "-j") || (!strncmp(a, "-j", 2) && a[2])) {
			const char *count = a[2] ? a + 2 : argv[++i];
			if (!number_arg(count, 1, 256, &n)) return preview_usage("-j is a count from 1 to 256, not '%s'", count);
			p->o.jobs = (unsigned)n;
		} else if (!strcmp(a, "--shape")) p->ro.shape = argv[++i];
		else if (!strcmp(a, "--clip")) p->ro.clip = argv[++i];
		else if (!strcmp(a, "--model")) p->model = argv[++i];
		else if (!strcmp(a, "--bodygroup")) {
			const char **g = realloc(p->o.bodygroups, (p->o.bodygroup_count + 1) * sizeof(*g));
			if (!g) return EXIT_FAILED;
			p->o.bodygroups = g;
			g[p->o.bodygroup_count++] = argv[++i];
		}
		else if (!strcmp(a, "--name")) stdin_name = argv[++i];
		else if (!strcmp(a, "--skeleton")) p->ro.skeleton = true;
		else if (!strcmp(a, "--shapes")) p->ro.shapes = true;
		else if (!strcmp(a, "--uv")) p->ro.uv = true;
		else if (!strcmp(a, "-f") || !strcmp(a, "--force")) p->o.force = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) p->o.quiet = true;
		else if (a[0] == '-' && a[1]) return preview_usage("unknown option '%s'", a);
		else if (p->count && !strcasecmp(os_path_extension(a), "vta") && strcasecmp(os_path_extension(p->pics[p->count - 1].in), "vta") &&
		         !p->pics[p->count - 1].vta)
			p->pics[p->count - 1].vta = a; /* an SMD's shapes: the VTA given after it */
		else {
			picture *g = realloc(p->pics, (p->count + 1) * sizeof(*g));
			if (!g) return EXIT_FAILED;
			p->pics = g;
			memset(&p->pics[p->count], 0, sizeof(*g));
			p->pics[p->count++].in = a;
		}
	}
	if (!p->count) return preview_usage("%s", "preview needs a model file");
	bool qc = false;
	for (size_t i = 0; i < p->count; i++) qc = qc || !strcasecmp(os_path_extension(p->pics[i].in), "qc");
	if ((p->model || p->o.bodygroup_count) && !qc)
		return preview_usage("%s picks in a QC's model, and no QC is given", p->model ? "--model" : "--bodygroup");
	if (frame_given && !p->ro.clip) return preview_usage("%s", "--frame is a frame of the clip --clip names");
	if (p->ro.shape && p->ro.shapes) return preview_usage("%s", "--shape draws one shape and --shapes all of them: give one");
	if (p->ro.shapes && p->ro.view == SM_VIEW_ALL) return preview_usage("%s", "--shapes lays out shapes, --views all views: give one");
	if (p->ro.uv && (views_given || p->ro.skeleton || p->ro.shape || p->ro.shapes || p->ro.clip))
		return preview_usage("%s", "--uv draws the UV layout alone: no --views, --skeleton, --shape(s) or --clip with it");
	if (*out && *dir) return preview_usage("%s", "-o names one picture and -d a folder for them: give one");
	if (*out && p->count > 1) return preview_usage("%s", "-o names one picture: give -d DIR for several models");
	return EXIT_OK;
}

/* Where each picture goes; two inputs that would write one picture are a usage error. */
static int plan_pictures(preview *p, const char *out, const char *dir)
{
	for (size_t i = 0; i < p->count; i++) {
		picture *pic = &p->pics[i];
		if (out) pic->out = xstrdup(out);
		else if (!strcmp(pic->in, "-")) /* standard input: as the conversions, to standard output or DIR/NAME.png */
			pic->out = dir ? xasprintf("%s%c%s.png", dir, os_path_separator_of(dir), stdin_name) : xstrdup("-");
		else {
			char *png = path_with_extension(pic->in, "png");
			const char *sep = os_last_separator(png);
			pic->out = dir ? path_join(dir, sep ? sep + 1 : png) : xstrdup(png);
			free(png);
		}
		for (size_t k = 0; k < i; k++)
			if (!os_path_compare(p->pics[k].out, pic->out)) {
				if (dir) /* -d given: their names meet in it */
					say("smdmx", "error", "'%s' and '%s' would both be drawn to '%s': draw one of them at a time with -o",
					    p->pics[k].in, pic->in, pic->out);
				else
					say("smdmx", "error", "'%s' and '%s' would both be drawn to '%s': give them apart (-d, or one at a time with -o)",
					    p->pics[k].in, pic->in, pic->out);
				return EXIT_USAGE;
			}
	}
	return EXIT_OK;
}

int cmd_preview(int argc, char **argv)
{
	preview p;
	memset(&p, 0, sizeof(p));
	p.o.tool = TOOL_SMDMX;
	p.o.name = "smdmx";
	const char *out = NULL, *dir = NULL;
	int rc = preview_options(&p, argc, argv, &out, &dir);
	if (rc == EXIT_OK) rc = plan_pictures(&p, out, dir);
	if (rc == EXIT_OK) {
		output_init();
		run_parallel(p.o.jobs, p.count, draw_one, &p);
		size_t failed = 0, partial = 0;
		for (size_t i = 0; i < p.count; i++) {
			picture *pic = &p.pics[i];
			os_puts(pic->diag.text ? pic->diag.text : "", stderr);
			if (!pic->ok) failed++;
			/* a QC whose files are not all there: what is there drawn, the rest said */
			else if (pic->diag.errors) partial++;
			if (pic->ok && !p.o.quiet && strcmp(pic->out, "-")) os_printf(stdout, "%s -> %s (%s)\n", pic->in, pic->out, pic->legend);
		}
		if (failed && p.count > 1) say("smdmx", "error", "%zu of %zu models not drawn", failed, p.count);
		rc = failed || partial ? EXIT_FAILED : EXIT_OK;
		if (fflush(stdout) != 0) rc = EXIT_FAILED;
	}
	for (size_t i = 0; i < p.count; i++) {
		free(p.pics[i].out);
		diag_free(&p.pics[i].diag);
	}
	free(p.pics);
	free(p.o.bodygroups);
	return rc < 0 ? EXIT_OK : rc;
}
