/* One job through the library (smdmx_convert, smdmx/convert.h): the command line's options
 * in the library's terms, standard input's bytes for "-", and what the conversion said and
 * wrote back into the job (its messages rendered with -W, -q and --max-warnings). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Which side of the conversion a path is on: DMX or the SMD family. "-" is told by the
 * program and --to. */
static bool input_is_dmx(const conv_opts *o, const char *in)
{
	if (!strcmp(in, "-")) return o->tool == TOOL_DMX2SMD || (o->tool == TOOL_SMDMX && stdin_is_dmx());
	return !strcasecmp(os_path_extension(in), "dmx");
}

static bool output_is_dmx(const conv_opts *o, const char *out, bool in_dmx)
{
	if (strcmp(out, "-")) return !strcasecmp(os_path_extension(out), "dmx");
	if (o->to) return !strcasecmp(o->to, "dmx");
	if (o->tool == TOOL_SMD2DMX) return true;
	if (o->tool == TOOL_DMX2SMD) return false;
	return in_dmx;
}

void job_dep(job *j, const char *path)
{
	for (size_t k = 0; k < j->dep_count; k++)
		if (!strcmp(j->deps[k], path)) return;
	for (size_t k = 0; k < j->input_count; k++)
		if (!strcmp(j->inputs[k], path)) return;
	char **d = realloc(j->deps, (j->dep_count + 1) * sizeof(char *));
	if (!d) return;
	j->deps = d;
	j->deps[j->dep_count++] = xstrdup(path);
}

direction job_direction(const conv_opts *o, const job *j)
{
	bool in_dmx = input_is_dmx(o, j->inputs[0]), out_dmx = output_is_dmx(o, j->out, in_dmx);
	return in_dmx ? (out_dmx ? DIR_DMX_TO_DMX : DIR_DMX_TO_SMD) : (out_dmx ? DIR_SMD_TO_DMX : DIR_SMD_TO_SMD);
}

/* The command line's options (OPT_*) and the library's (SMDMX_CONVERT_GIVEN_*), both ways. */
static const struct {
	unsigned opt, given;
} option_pairs[] = {
	{ OPT_FPS, SMDMX_CONVERT_GIVEN_FPS },
	{ OPT_KEYS, SMDMX_CONVERT_GIVEN_KEYS },
	{ OPT_KEY_TOLERANCE, SMDMX_CONVERT_GIVEN_KEY_TOLERANCE },
	{ OPT_MODEL_VERSION, SMDMX_CONVERT_GIVEN_MODEL_VERSION },
	{ OPT_TARGET, SMDMX_CONVERT_GIVEN_TARGET },
	{ OPT_SCALE, SMDMX_CONVERT_GIVEN_SCALE },
	{ OPT_UP_AXIS, SMDMX_CONVERT_GIVEN_UP_AXIS },
};

static unsigned given_of(unsigned opts)
{
	unsigned g = 0;
	for (size_t i = 0; i < sizeof(option_pairs) / sizeof(option_pairs[0]); i++)
		if (opts & option_pairs[i].opt) g |= option_pairs[i].given;
	return g;
}

static unsigned opts_of(unsigned given)
{
	unsigned o = 0;
	for (size_t i = 0; i < sizeof(option_pairs) / sizeof(option_pairs[0]); i++)
		if (given & option_pairs[i].given) o |= option_pairs[i].opt;
	return o;
}

/* The job in the library's terms; false (said) when standard input cannot be read. */
static bool options_of(const conv_opts *o, job *j, smdmx_convert_way way, smdmx_convert_options *c)
{
	memset(c, 0, sizeof(*c));
	c->way = way;
	c->inputs = (const char *const *)j->inputs;
	c->input_count = j->input_count;
	c->vta = j->vta;
	c->output = j->out;
	c->qc = way == SMDMX_CONVERT_DMX_TO_SMD ? o->qc : NULL;
	c->model = o->model;
	c->clip = o->clip_name;
	c->scale = o->scale;
	c->up_axis = o->up_axis;
	c->rig_in_qc = o->rig_in_qc;
	c->given = given_of(o->given);
	c->alone = j->alone;
	c->force = o->force || j->replace;
	c->warnings_fail = o->werror;
	c->notes = o->verbose;
	c->smd_read = o->ropts;
	c->dmx_read = o->xopts;
	c->smd_write = o->wopts;
	c->model_options = o->mopts;
	c->dmx_write = o->dopts;
	/* smdmx convert --to vta: an SMD's shapes as a VTA */
	if (way == SMDMX_CONVERT_SMD_TO_SMD && o->to && !strcasecmp(o->to, "vta")) c->smd_write.kind = SMDMX_SMD_WRITE_VTA;
	for (size_t i = 0; i < j->input_count; i++) {
		if (strcmp(j->inputs[i], "-")) continue;
		char why[256];
		c->input_data = stdin_data(&c->input_size, why, sizeof(why));
		if (!c->input_data) {
			diag_add(&j->diag, NULL, "-", 0, 0, "error", "%s", why);
			return false;
		}
		if (!c->smd_read.name) c->smd_read.name = stdin_name;
	}
	return true;
}

/* What the library's run said and wrote, into the job. */
static bool take_result(const conv_opts *o, job *j, smdmx_convert_result *res)
{
	if (!res) {
		diag_add(&j->diag, NULL, j->inputs[0], 0, 0, "error", "out of memory");
		return false;
	}
	/* standard output's reader is gone (| head): where no signal ended the program, it ends
	 * here, as quietly */
	if (res->broken_pipe) os_exit_broken_pipe();
	diag_take(&j->diag, o, res->messages, res->message_count);
	for (size_t i = 0; i < res->dep_count; i++) job_dep(j, res->deps[i]);
	j->used |= opts_of(res->used);
	for (size_t i = 0; i < res->written_count; i++) {
		char **w = have(realloc(j->written, (j->written_count + 1) * sizeof(char *)));
		j->written = w;
		w[j->written_count++] = xstrdup(res->written[i]);
	}
	if (res->pending) j->pending = (outputs){ .set = res->pending, .force = o->force || j->replace };
	return res->ok;
}

smdmx_scene *qc_model_scene(const conv_opts *o, job *j)
{
	smdmx_convert_options c;
	if (!options_of(o, j, SMDMX_CONVERT_QC_SCENE, &c)) return NULL;
	smdmx_convert_result *res = smdmx_convert(&c, NULL);
	smdmx_scene *scene = res ? res->scene : NULL;
	take_result(o, j, res);
	smdmx_convert_result_free(res);
	return scene;
}

void job_run(const conv_opts *o, job *j, bool defer)
{
	bool in_dmx = input_is_dmx(o, j->inputs[0]), out_dmx = output_is_dmx(o, j->out, in_dmx);
	smdmx_convert_way way = o->qc && o->tool == TOOL_SMD2DMX ? SMDMX_CONVERT_QC_TO_DMX
	                      : in_dmx ? (out_dmx ? SMDMX_CONVERT_DMX_TO_DMX : SMDMX_CONVERT_DMX_TO_SMD)
	                               : (out_dmx ? SMDMX_CONVERT_SMD_TO_DMX : SMDMX_CONVERT_SMD_TO_SMD);
	smdmx_convert_options c;
	bool ok = options_of(o, j, way, &c);
	if (ok) {
		c.defer = defer;
		smdmx_convert_result *res = smdmx_convert(&c, NULL);
		ok = take_result(o, j, res);
		smdmx_convert_result_free(res);
	}
	j->status = ok ? EXIT_OK : EXIT_FAILED; /* the worker marks it ran, under the batch's lock */
	diag_finish(&j->diag, o, j->inputs[0]);
}
