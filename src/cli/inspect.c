/* smdmx info: what a model file holds, as text or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* A model read from any of the formats: the scene and, for DMX, the file's own facts. */
typedef struct loaded {
	smdmx_scene *scene;
	smdmx_dm *dm;      /* DMX only */
	bool is_dmx;
	char lift_error[256]; /* a DMX that is not a model: why */
} loaded;

static bool load(const char *path, loaded *l, diag_buf *d)
{
	memset(l, 0, sizeof(*l));
	smdmx_error err;
	smdmx_warnings w;
	l->is_dmx = !strcasecmp(path_extension(path), "dmx");
	if (!l->is_dmx && strcmp(path, "-")) {
		/* the header tells a DMX under another name */
		FILE *f = fopen(path, "rb");
		char head[8] = { 0 };
		if (f) {
			size_t n = fread(head, 1, sizeof(head), f);
			(void)n;
			fclose(f);
		}
		l->is_dmx = !memcmp(head, "<!-- dmx", 8);
	}
	if (!l->is_dmx) {
		l->scene = smdmx_smd_read_file(path, NULL, &err, &w);
		if (!l->scene) diag_error(d, path, &err);
		return l->scene != NULL;
	}
	l->dm = smdmx_dmx_read_file(path, NULL, &err);
	if (!l->dm) {
		diag_error(d, path, &err);
		return false;
	}
	l->scene = smdmx_model_to_scene(l->dm, NULL, &err, &w);
	if (!l->scene) snprintf(l->lift_error, sizeof(l->lift_error), "%s", err.message);
	return true;
}

static void unload(loaded *l)
{
	smdmx_scene_free(l->scene);
	smdmx_dm_free(l->dm);
}

/* The frames a clip spans, first to last, as the SMD writer samples it. */
static long long clip_frames(const smdmx_clip *c)
{
	long long first = llround((double)c->start * c->frame_rate / 10000.0);
	long long last = llround(((double)c->start + c->duration) * c->frame_rate / 10000.0);
	return last - first + 1;
}

typedef struct counts {
	size_t vertices, corners, faces, triangles, controllers, attachments;
} counts;

static counts count(const smdmx_scene *s)
{
	counts c = { 0 };
	for (size_t i = 0; i < s->mesh_count; i++) {
		const smdmx_mesh *m = &s->meshes[i];
		c.vertices += m->position_count;
		c.corners += m->corner_count;
		for (size_t f = 0; f < m->face_set_count; f++) {
			const smdmx_face_set *fs = &m->face_sets[f];
			c.faces += fs->polygon_count;
			for (size_t p = 0; p < fs->polygon_count; p++) c.triangles += fs->offsets[p + 1] - fs->offsets[p] - 2;
		}
	}
	c.controllers = s->flex_controller_count;
	c.attachments = s->attachment_count;
	return c;
}

static const char *kind_of(const loaded *l)
{
	if (l->is_dmx) {
		if (!l->scene) return "dmx";
		return l->scene->mesh_count || !l->scene->clip_count ? "model dmx" : "animation dmx";
	}
	switch (l->scene->source.smd_kind) {
	case SMDMX_SMD_ANIMATION: return "animation smd";
	case SMDMX_SMD_VERTEX_ANIMATION: return "vta";
	default: return "reference smd";
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') printf("\\%c", ch);
		else if (ch < 0x20) printf("\\u%04x", ch);
		else putchar(ch);
	}
	putchar('"');
}

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) json = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			puts("usage: smdmx info FILE [--json]\n"
			     "Says what a model file holds: its kind, encoding and format version, joints, meshes,\n"
			     "vertices, faces, materials, flex shapes and controllers, clips with frames and rate.");
			return EXIT_OK;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "smdmx: error: unknown option '%s' (try 'smdmx info --help')\n", argv[i]);
			return EXIT_USAGE;
		} else if (!path) path = argv[i];
		else {
			fprintf(stderr, "smdmx: error: info takes one file\n");
			return EXIT_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, "smdmx: error: info needs a file (try 'smdmx info --help')\n");
		return EXIT_USAGE;
	}
	loaded l;
	diag_buf d = { 0 };
	if (!load(path, &l, &d)) {
		fputs(d.text ? d.text : "", stderr);
		diag_free(&d);
		return EXIT_FAILED;
	}
	const smdmx_scene *s = l.scene;
	counts c = s ? count(s) : (counts){ 0 };
	if (json) {
		printf("{\"file\": ");
		json_string(path);
		printf(", \"kind\": ");
		json_string(kind_of(&l));
		if (l.dm) {
			printf(", \"encoding\": ");
			json_string(l.dm->encoding);
			printf(", \"encoding_version\": %d, \"format\": ", l.dm->encoding_version);
			json_string(l.dm->format);
			printf(", \"format_version\": %d, \"elements\": %zu", l.dm->format_version, l.dm->element_count);
		} else {
			printf(", \"version\": %d", s->source.version);
		}
		if (s) {
			printf(", \"joints\": %zu, \"meshes\": %zu, \"vertices\": %zu, \"corners\": %zu, \"faces\": %zu, "
			       "\"triangles\": %zu, \"materials\": %zu, \"flex_shapes\": %zu, \"flex_controllers\": %zu, "
			       "\"attachments\": %zu, \"clips\": [",
			       s->joint_count, s->mesh_count, c.vertices, c.corners, c.faces, c.triangles, s->material_count,
			       s->flex_shape_count, c.controllers, c.attachments);
			for (size_t i = 0; i < s->clip_count; i++) {
				printf("%s{\"name\": ", i ? ", " : "");
				json_string(s->clips[i].name);
				printf(", \"frames\": %lld, \"frame_rate\": %.17g}", clip_frames(&s->clips[i]), s->clips[i].frame_rate);
			}
			printf("]");
		} else {
			printf(", \"model\": null, \"why\": ");
			json_string(l.lift_error);
		}
		printf("}\n");
	} else {
		printf("%s: %s", path, kind_of(&l));
		if (l.dm)
			printf(", %s %d, format %s %d, %zu elements\n", l.dm->encoding, l.dm->encoding_version, l.dm->format,
			       l.dm->format_version, l.dm->element_count);
		else
			printf(", version %d\n", s->source.version);
		if (s) {
			printf("  joints %zu\n  meshes %zu\n  vertices %zu\n  corners %zu\n  faces %zu (%zu triangles)\n"
			       "  materials %zu\n  flex shapes %zu\n  flex controllers %zu\n  attachments %zu\n  clips %zu\n",
			       s->joint_count, s->mesh_count, c.vertices, c.corners, c.faces, c.triangles, s->material_count,
			       s->flex_shape_count, c.controllers, c.attachments, s->clip_count);
			for (size_t i = 0; i < s->clip_count; i++)
				printf("    '%s': %lld frames at %g fps\n", s->clips[i].name, clip_frames(&s->clips[i]), s->clips[i].frame_rate);
		} else {
			printf("  not a model: %s\n", l.lift_error);
		}
	}
	unload(&l);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILED;
}
