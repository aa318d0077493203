/* The QC dmx2smd --qc writes beside the SMDs of a scene (smdmx_qc_text in rig.h). */
#include <stdio.h>
#include <stdlib.h>

#include "model/rig.h"

/* A number as printf's %g writes it in the C locale, whatever the locale. */
static void fmt_g(double v, char *out, size_t size)
{
	snprintf(out, size, "%g", v);
	for (char *c = out; *c; c++)
		if (*c == ',') *c = '.';
}

char *smdmx_qc_text(const smdmx_scene *scene, const char *model_name, const char *model_file, const char *model_lines,
                    const char *attachment_lines, const smdmx_qc_sequence *sequences, size_t sequence_count)
{
	sm_alloc room = sm_scene_room(scene);
	if (!scene || (!sequences && sequence_count)) return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = sm_rig_appendf(&room, &buf, &len, &cap, "%s", "");
	if (scene->up_axis == 'Y' || scene->up_axis == 'X') ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "$upaxis %c\n", scene->up_axis);
	if (model_file) {
		bool block = model_lines && *model_lines;
		ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "$model \"%s\" \"%s\"%s\n", model_name ? model_name : "", model_file, block ? " {" : "");
		if (block) ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "%s}\n", model_lines);
	}
	if (attachment_lines) ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "%s", attachment_lines);
	for (size_t i = 0; ok && i < sequence_count; i++) {
		char fps[64];
		fmt_g(sequences[i].fps, fps, sizeof(fps));
		ok = sm_rig_appendf(&room, &buf, &len, &cap, "$sequence \"%s\" \"%s\" fps %s\n", sequences[i].name, sequences[i].file, fps);
	}
	if (ok) return sm_rig_text_out(&room, buf, len);
	sm_del(&room, buf);
	return NULL;
}
