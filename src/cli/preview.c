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

#define preview_usage(...) usage_of(CMD_PREVIEW, __VA_ARGS__)

/* The command line of smdmx preview being read. */
typedef struct preview_args {
	preview *p;
	const char **out, **dir;
	bool frame_given, views_given;
} preview_args;

static int preview_option(void *ctx, const cli_option *opt, const char *v, double n)
{
	preview_args *a = ctx;
	preview *p = a->p;
	switch (opt->id) {
	case OP_OUT: *a->out = v; break;
	case OP_OUTDIR: *a->dir = v; break;
	case OP_VIEWS:
		p->ro.view = sm_view_find(v);
		a->views_given = true;
		break;
	case OP_SIZE: p->ro.size = (uint32_t)n; break;
	case OP_FRAME:
		p->ro.frame = (int64_t)n;
		a->frame_given = true;
		break;
	case OP_JOBS: p->o.jobs = (unsigned)n; break;
	case OP_SHAPE: p->ro.shape = v; break;
	case OP_CLIP: p->ro.clip = v; break;
	case OP_MODEL: p->model = v; break;
	case OP_BODYGROUP: {
		const char **g = have(realloc(p->o.bodygroups, (p->o.bodygroup_count + 1) * sizeof(*g)));
		p->o.bodygroups = g;
		g[p->o.bodygroup_count++] = v;
		break;
	}
	case OP_NAME: stdin_name = v; break;
	case OP_SKELETON: p->ro.skeleton = true; break;
	case OP_SHAPES: p->ro.shapes = true; break;
	case OP_UV: p->ro.uv = true; break;
	case OP_FORCE: p->o.force = true; break;
	case OP_QUIET: p->o.quiet = true; break;
	default: break;
	}
	return -1;
}

static int preview_input(void *ctx, const char *a)
{
	preview *p = ((preview_args *)ctx)->p;
	if (p->count && !strcasecmp(os_path_extension(a), "vta") && strcasecmp(os_path_extension(p->pics[p->count - 1].in), "vta") &&
	    !p->pics[p->count - 1].vta) {
		p->pics[p->count - 1].vta = a; /* an SMD's shapes: the VTA given after it */
		return -1;
	}
	picture *g = have(realloc(p->pics, (p->count + 1) * sizeof(*g)));
	p->pics = g;
	memset(&p->pics[p->count], 0, sizeof(*g));
	p->pics[p->count++].in = a;
	return -1;
}

/* The options of smdmx preview into p and the inputs (FILE and the VTAs after them) into
 * p->pics; -o and -d into out and dir. EXIT_OK, or a usage error. */
static int preview_options(preview *p, int argc, char **argv, const char **out, const char **dir)
{
	preview_args args = { p, out, dir, false, false };
	p->ro.view = SM_VIEW_THREE_QUARTER;
	opt_reader r = { CMD_PREVIEW, argc, argv, preview_option, preview_input, &args };
	int rc = opt_read(&r);
	if (rc >= 0) return rc == EXIT_OK ? -1 : rc;
	bool frame_given = args.frame_given, views_given = args.views_given;
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
