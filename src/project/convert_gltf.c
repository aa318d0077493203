/* A model into glTF 2.0 (SMDMX_CONVERT_TO_GLTF; doc/gltf.md): an SMD with the animations of
 * more SMDs and a VTA's shapes, or a DMX lifted into the scene, --scale and --up-axis applied,
 * written as GLB (an output ending .glb, or standard output when gltf.binary says) or as glTF
 * with its buffer inside; what the lift and glTF leave out said with counts. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gltf/gltf_valid.h"
#include "project/project_internal.h"
#include "smdmx/convert.h"
#include "support/internal.h"

/* A DMX's model as a scene (the lift's warnings said: what the scene does not carry). */
static smdmx_scene *dmx_scene(cv_run *r, const char *in)
{
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = cv_read_dmx(r, in, &err, &w);
	cv_warn(r, in, &w);
	if (!dm) return cv_fail(r, in, &err), NULL;
	smdmx_model_options lift = { .allocator = r->hooks };
	smdmx_scene *scene = smdmx_model_to_scene(dm, &lift, &err, &w);
	cv_warn(r, in, &w);
	smdmx_dm_free(dm);
	if (!scene) return cv_fail(r, in, &err), NULL;
	if (!cv_shape(r, scene, in)) {
		smdmx_scene_free(scene);
		return NULL;
	}
	cv_animation_options(r, scene, in);
	return scene;
}

/* Whether the input is a DMX: by its name, or standard input's bytes by their header. */
static bool input_is_dmx(const cv_run *r, const char *in)
{
	if (strcmp(in, "-")) return !strcasecmp(os_path_extension(in), "dmx");
	return r->o->input_data && r->o->input_size >= 4 && !memcmp(r->o->input_data, "<!--", 4);
}

bool cv_to_gltf(cv_run *r)
{
	const smdmx_convert_options *o = r->o;
	const char *in = o->inputs[0];
	bool dmx = input_is_dmx(r, in);
	/* what applies to SMD input alone: refused for a DMX, never left unsaid */
	if (dmx && o->vta) return cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "'--vta' does not apply to a DMX (a DMX holds its shapes itself)");
	if (dmx && (o->given & SMDMX_CONVERT_GIVEN_FPS))
		return cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "'--fps' does not apply to a DMX (a DMX's clips carry their frame rate)");
	if (dmx && o->input_count > 1)
		return cv_fail_msg(r, SMDMX_ERROR_USAGE, in, "--clips gathers SMD animations: a DMX holds its clips itself");
	smdmx_scene *scene = dmx ? dmx_scene(r, in) : cv_smd_scene(r);
	if (!scene) return false;
	smdmx_gltf_write_options go = o->gltf;
	if (strcmp(o->output, "-")) go.binary = !strcasecmp(os_path_extension(o->output), "glb");
	bool ok = cv_warnings_allowed(r, in);
	pj_output *out = ok ? cv_open_out(r, o->output) : NULL;
	ok = out != NULL;
	if (ok) {
		smdmx_error err;
		smdmx_warnings w = { 0 };
		/* the scene comes from the readers, the lift or the scene operations, each of which
		 * validated it (doc/speed.md, "One validation") */
		ok = sm_gltf_write_valid(scene, pj_output_write, out, &go, &err, &w);
		cv_warn(r, in, &w);
		if (!ok) cv_fail_write(r, out, &err);
		ok = ok && cv_warnings_allowed(r, in);
	}
	if (ok) cv_note_scene(r, in, scene);
	smdmx_scene_free(scene);
	return ok;
}
