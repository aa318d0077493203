/* A model file of any kind read as the programs show it (smdmx_model_file_read): an SMD or
 * VTA read into a scene, or a DMX (by its name, or by its header under another name) read
 * and lifted, its datamodel kept beside the scene. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "platform/os.h"
#include "smdmx/model.h"
#include "smdmx/scene.h"
#include "support/internal.h"

/* A DMX by its name, or by its first bytes ("<!-- dmx") under another. */
static bool is_dmx(const char *path, const void *data, size_t size)
{
	if (!strcasecmp(os_path_extension(path), "dmx")) return true;
	char head[8] = { 0 };
	if (data) {
		memcpy(head, data, size < sizeof(head) ? size : sizeof(head));
		/* standard input: "<!--" tells a DMX of any header, as the programs tell it */
		if (!strcmp(path, "-")) return size >= 4 && !memcmp(head, "<!--", 4);
	} else {
		FILE *f = os_fopen(path, "rb");
		if (f) {
			size_t n = fread(head, 1, sizeof(head), f);
			(void)n;
			fclose(f);
		}
	}
	return !memcmp(head, "<!-- dmx", 8);
}

bool smdmx_model_file_read(const char *path, const void *data, size_t size, const smdmx_smd_read_options *smd,
                           smdmx_model_file *out, smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, smd ? &smd->allocator : NULL);
	if (!out) return sm_fail_null(error, __func__, "out");
	if (!path) return memset(out, 0, sizeof(*out)), sm_fail_null(error, __func__, "path");
	memset(out, 0, sizeof(*out));
	out->is_dmx = is_dmx(path, data, size);
	if (!out->is_dmx) {
		out->scene = data ? smdmx_smd_read_memory(data, size, smd, error, warnings)
		                  : smdmx_smd_read_file(path, smd, error, warnings);
		return out->scene != NULL;
	}
	/* a DMX's memory, and its lift's, are smd's allocator's too */
	smdmx_dmx_read_options dro;
	memset(&dro, 0, sizeof(dro));
	smdmx_model_options mo;
	memset(&mo, 0, sizeof(mo));
	if (smd) dro.allocator = mo.allocator = smd->allocator;
	out->dm = data ? smdmx_dmx_read_memory(data, size, &dro, error, warnings)
	               : smdmx_dmx_read_file(path, &dro, error, warnings);
	if (!out->dm) return false;
	/* the file's warnings first, then the lift's (their codes differ) */
	smdmx_warnings lifted = { 0 };
	smdmx_error lift;
	out->scene = smdmx_model_to_scene(out->dm, &mo, &lift, warnings ? &lifted : NULL);
	sm_warnings_merge(warnings, &lifted, 0, "");
	/* a lift that ran out of memory fails the reading; another failure says the file is no
	 * model */
	if (!out->scene && lift.code == SMDMX_ERROR_OUT_OF_MEMORY) *error = lift;
	if ((!out->scene && lift.code == SMDMX_ERROR_OUT_OF_MEMORY) || !sm_warnings_kept(warnings, error)) {
		smdmx_model_file_free(out);
		return false;
	}
	if (!out->scene) snprintf(out->not_model, sizeof(out->not_model), "%s", lift.message);
	return true;
}

void smdmx_model_file_free(smdmx_model_file *m)
{
	if (!m) return;
	smdmx_scene_free(m->scene);
	smdmx_dm_free(m->dm);
	memset(m, 0, sizeof(*m));
}

_Static_assert(SMDMX_CORNER_FIELD_COUNT <= 16, "smdmx_model_info.meshes_with holds every corner field");

bool smdmx_model_file_info(const smdmx_model_file *f, smdmx_model_info *out)
{
	if (out) memset(out, 0, sizeof(*out));
	if (!f || !out) return false;
	const smdmx_scene *s = f->scene;
	if (f->is_dmx) out->kind = !s ? "dmx" : s->mesh_count || !s->clip_count ? "model dmx" : "animation dmx";
	else if (s) out->kind = s->source.smd_kind == SMDMX_SMD_ANIMATION ? "animation smd"
	                      : s->source.smd_kind == SMDMX_SMD_VERTEX_ANIMATION ? "vta" : "reference smd";
	else return false; /* an SMD is never read without its scene */
	if (f->dm) {
		out->encoding = f->dm->encoding;
		out->format = f->dm->format;
		out->encoding_version = f->dm->encoding_version;
		out->format_version = f->dm->format_version;
		out->elements_of_other_files = smdmx_dm_stub_count(f->dm);
		out->elements = f->dm->element_count - out->elements_of_other_files;
	} else if (s) {
		out->smd_version = s->source.version;
	}
	if (!s) return true;
	out->joints = s->joint_count;
	out->meshes = s->mesh_count;
	out->materials = s->material_count;
	out->flex_shapes = s->flex_shape_count;
	out->flex_controllers = s->flex_controller_count;
	out->attachments = s->attachment_count;
	out->clips = s->clip_count;
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		out->vertices += m->position_count;
		out->corners += m->corner_count;
		for (size_t k = 0; k < m->face_set_count; k++) {
			const smdmx_face_set *fs = &m->face_sets[k];
			out->faces += fs->polygon_count;
			for (size_t p = 0; p < fs->polygon_count; p++) out->triangles += fs->offsets[p + 1] - fs->offsets[p] - 2;
		}
		for (smdmx_corner_field c = 0; c < SMDMX_CORNER_FIELD_COUNT; c++) out->meshes_with[c] += smdmx_mesh_has_field(m, c);
	}
	return true;
}
