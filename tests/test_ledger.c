/* The loss ledger: every kind of scene data along every conversion path, each either carried
 * (the model that comes back equals the one that went in) or said (a warning of the loss).
 * A cell that changes without a word fails. The table the matrix makes is the table of
 * doc/conversions.md, "What each conversion carries": a page that says otherwise fails too (the test prints
 * the table it found, to paste).
 *
 * A kind is a small model built for it (a base model with that one thing added); a path is
 * what a conversion writes and what reading it back gives: a DMX of each model format
 * (what smd2dmx writes, and DMX to DMX through the scene), SMD and VTA (dmx2smd, one SMD per
 * clip beside the reference), GoldSrc SMD (dmx2smd --goldsrc), and SMD, VTA and QC
 * (dmx2smd --qc read back by smd2dmx --qc). */
#include <locale.h>
#include <math.h>

#include "util.h"

#include "../src/support/internal.h"
#include "qc_mem.h"

/* ---- the models --------------------------------------------------------------------------- */

/* Five bones, not in depth-first order (b before a_child), three triangles in two materials
 * (the first two make a quad), two weight links on some vertices, normals and UVs. */
static const char base_smd[] =
    "version 1\nnodes\n0 \"root\" -1\n1 \"b\" 0\n2 \"c\" 0\n3 \"a_child\" 1\n4 \"e\" 0\nend\n"
    "skeleton\ntime 0\n0 0 0 0 0 0 0\n1 1 0 0 0 0 0.5\n2 0 1 0 0.25 0 0\n3 0 0 1 0 0 0\n4 0 0 2 0 0 0\nend\n"
    "triangles\nskin\n"
    "1 0 0 0 0 0 1 0 0 2 1 0.5 2 0.5\n1 1 0 0 0 0 1 1 0\n1 1 1 0 0 0 1 1 1\n"
    "skin\n"
    "1 0 0 0 0 0 1 0 0 2 1 0.5 2 0.5\n1 1 1 0 0 0 1 1 1\n1 0 1 0 0 0 1 0 1\n"
    "cloth\n"
    "3 2 0 0 0 0 1 0.25 0.75\n3 3 0 0 0 0 1 0.5 0.75\n3 2 1 0 0 0 1 0.25 1\nend\n";

/* Two shapes on the quad: smile moves corner (1,1,0), frown (0,1,0). */
static const char shapes_vta[] =
    "version 1\nnodes\n0 \"root\" -1\n1 \"b\" 0\n2 \"c\" 0\n3 \"a_child\" 1\n4 \"e\" 0\nend\n"
    "skeleton\ntime 0\ntime 1 # smile\ntime 2 # frown\nend\nvertexanimation\ntime 0\n"
    "0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 1 1 0 0 0 1\n3 0 1 0 0 0 1\n4 2 0 0 0 0 1\n5 3 0 0 0 0 1\n6 2 1 0 0 0 1\n"
    "time 1\n2 1 1 0.5 0 0 1\ntime 2\n3 0 1 -0.5 0 0 1\nend\n";

static char anim_text[4096];

/* An animation of the base's bones: frames first .. first + 3, b turning. */
static const char *anim_smd(int first)
{
	size_t n = (size_t)snprintf(anim_text, sizeof(anim_text),
	                            "version 1\nnodes\n0 \"root\" -1\n1 \"b\" 0\n2 \"c\" 0\n3 \"a_child\" 1\n4 \"e\" 0\nend\nskeleton\n");
	for (int f = first; f < first + 4; f++)
	{
		int hundredths = 50 + 25 * (f - first) * (f - first); /* written as digits: the same in any locale */
		n += (size_t)snprintf(anim_text + n, sizeof(anim_text) - n,
		                      "time %d\n0 0 0 0 0 0 0\n1 1 0 0 0 0 %d.%02d\n2 0 1 0 0.25 0 0\n3 0 0 1 0 0 0\n4 0 0 2 0 0 0\n", f,
		                      hundredths / 100, hundredths % 100);
	}
	snprintf(anim_text + n, sizeof(anim_text) - n, "end\n");
	return anim_text;
}

static smdmx_scene *read_text(const char *text, double fps, const char *name)
{
	smdmx_error err;
	smdmx_smd_read_options ro = { .frame_rate = fps, .name = name };
	smdmx_scene *s = smdmx_smd_read_memory(text, strlen(text), &ro, &err, NULL);
	if (!s) fail_msg("%s: %s", name, err.message);
	return s;
}

static smdmx_scene *base(void)
{
	return read_text(base_smd, 0, "model");
}

static smdmx_scene *with_shapes(void)
{
	smdmx_scene *s = base();
	smdmx_scene *v = read_text(shapes_vta, 0, "shapes");
	smdmx_error err;
	if (!smdmx_scene_attach_vta(s, v, &err, NULL)) fail_msg("vta: %s", err.message);
	smdmx_scene_free(v);
	return s;
}

static void *own(smdmx_scene *s, size_t size)
{
	smdmx_error err;
	void *p = sm_owned_calloc(s->owner, 1, size, &err);
	if (!p) fail_msg("out of memory");
	return p;
}

static const char *own_str(smdmx_scene *s, const char *text)
{
	smdmx_error err;
	const char *p = sm_strdup(s->owner, text, strlen(text), &err);
	if (!p) fail_msg("out of memory");
	return p;
}

static smdmx_string_list names(smdmx_scene *s, const char *a, const char *b)
{
	smdmx_string_list l = { own(s, 2 * sizeof(char *)), b ? 2 : 1 };
	l.data[0] = own_str(s, a);
	if (b) l.data[1] = own_str(s, b);
	return l;
}

static void controllers(smdmx_scene *s, bool stereo, bool two_way)
{
	s->flex_controllers = own(s, 2 * sizeof(smdmx_flex_controller));
	if (two_way) {
		s->flex_controllers[0] = (smdmx_flex_controller){ own_str(s, "mouth"), names(s, "frown", "smile"), false, false, -1, 1, { NULL, 0 } };
		s->flex_controller_count = 1;
		return;
	}
	s->flex_controllers[0] = (smdmx_flex_controller){ own_str(s, "smile"), names(s, "smile", NULL), stereo, false, 0, 1, { NULL, 0 } };
	s->flex_controllers[1] = (smdmx_flex_controller){ own_str(s, "frown"), names(s, "frown", NULL), false, false, 0, 1, { NULL, 0 } };
	s->flex_controller_count = 2;
}

/* ---- the kinds ------------------------------------------------------------------------------ */

static smdmx_scene *k_base(void)
{
	return base();
}

/* The quad as one polygon of four corners. */
static smdmx_scene *k_ngon(void)
{
	smdmx_scene *s = base();
	smdmx_face_set *fs = &s->meshes[0].face_sets[0];
	const smdmx_mesh *m = &s->meshes[0];
	/* the skin set's corners: 0 1 2 and 3 4 5 (0 = 3 at (0,0,0), 2 = 4 at (1,1,0)) */
	assert_int_equal(fs->polygon_count, 2);
	uint32_t *c = own(s, 4 * sizeof(uint32_t)), *o = own(s, 2 * sizeof(uint32_t));
	c[0] = fs->corners[0];
	c[1] = fs->corners[1];
	c[2] = fs->corners[2];
	c[3] = fs->corners[5];
	assert_true(m->positions[m->position_indices[c[3]]][1] == 1);
	o[0] = 0;
	o[1] = 4;
	fs->corners = c;
	fs->corner_count = 4;
	fs->offsets = o;
	fs->polygon_count = 1;
	return s;
}

/* A vertex of five weight links. */
static smdmx_scene *k_links(void)
{
	smdmx_scene *s = base();
	smdmx_mesh *m = &s->meshes[0];
	size_t n = m->weight_count + 4;
	smdmx_weight *w = own(s, n * sizeof(smdmx_weight));
	uint32_t *off = own(s, (m->position_count + 1) * sizeof(uint32_t));
	size_t k = 0;
	for (size_t p = 0; p < m->position_count; p++) {
		off[p] = (uint32_t)k;
		if (p == 0) {
			static const float ws[5] = { 0.3f, 0.25f, 0.2f, 0.15f, 0.1f };
			for (uint32_t j = 0; j < 5; j++) w[k++] = (smdmx_weight){ j, ws[j] };
			continue;
		}
		for (uint32_t i = m->weight_offsets[p]; i < m->weight_offsets[p + 1]; i++) w[k++] = m->weights[i];
	}
	off[m->position_count] = (uint32_t)k;
	m->weights = w;
	m->weight_offsets = off;
	m->weight_count = k;
	return s;
}

/* A second UV set. */
static smdmx_scene *k_uv_sets(void)
{
	smdmx_scene *s = base();
	smdmx_mesh *m = &s->meshes[0];
	smdmx_uv_set *u = own(s, 2 * sizeof(smdmx_uv_set));
	u[0] = m->uv_sets[0];
	u[1].name = own_str(s, "texcoord$1");
	u[1].count = 2;
	u[1].data = own(s, 2 * sizeof(smdmx_vec2));
	u[1].data[1][0] = 0.5f;
	u[1].data[1][1] = 0.25f;
	u[1].indices = own(s, m->corner_count * sizeof(uint32_t));
	for (size_t c = 0; c < m->corner_count; c++) u[1].indices[c] = c % 2;
	m->uv_sets = u;
	m->uv_set_count = 2;
	return s;
}

/* Two meshes. */
static smdmx_scene *k_meshes(void)
{
	smdmx_scene *s = base();
	smdmx_mesh *ms = own(s, 2 * sizeof(smdmx_mesh));
	ms[0] = ms[1] = s->meshes[0];
	ms[1].name = own_str(s, "other");
	ms[1].face_sets = own(s, sizeof(smdmx_face_set));
	ms[1].face_sets[0] = s->meshes[0].face_sets[1];
	ms[1].face_set_count = 1;
	ms[0].face_set_count = 1;
	s->meshes = ms;
	s->mesh_count = 2;
	return s;
}

/* The mesh without weights beside the joints, at a place and turn of its own: an object
 * without an armature, as Blender Source Tools writes it, which follows its own node. */
static smdmx_scene *k_own_node(void)
{
	smdmx_scene *s = base();
	smdmx_mesh *m = &s->meshes[0];
	m->weight_offsets = NULL;
	m->weights = NULL;
	m->weight_count = 0;
	m->transform = (smdmx_transform){ { 2, 0, 1 }, { 0, 0, 0.38268343f, 0.9238795f } };
	return s;
}

static smdmx_scene *k_shapes(void)
{
	return with_shapes();
}

static smdmx_scene *k_controllers(void)
{
	smdmx_scene *s = with_shapes();
	controllers(s, false, true);
	return s;
}

/* smile stereo, its balance a step across X = 0.5 over 1 unit (a flexpair's split). */
static smdmx_scene *k_stereo(void)
{
	smdmx_scene *s = with_shapes();
	controllers(s, true, false);
	smdmx_mesh *m = &s->meshes[0];
	m->balance.count = m->position_count;
	m->balance.data = own(s, m->position_count * sizeof(float));
	for (size_t p = 0; p < m->position_count; p++) m->balance.data[p] = m->positions[p][0] >= 1 ? 1 : 0;
	m->balance.indices = m->position_indices;
	return s;
}

/* A balance no stereo control uses, as Blender Source Tools writes one for every mesh with
 * shapes: an SMD leaves it out, and the model studiomdl compiles is the same. */
static smdmx_scene *k_balance_unused(void)
{
	smdmx_scene *s = with_shapes();
	smdmx_mesh *m = &s->meshes[0];
	m->balance.count = m->position_count;
	m->balance.data = own(s, m->position_count * sizeof(float));
	for (size_t p = 0; p < m->position_count; p++) m->balance.data[p] = (float)p / 8;
	m->balance.indices = m->position_indices;
	return s;
}

static smdmx_scene *k_wrinkle(void)
{
	smdmx_scene *s = with_shapes();
	controllers(s, false, false);
	smdmx_mesh *m = &s->meshes[0];
	m->wrinkle.count = 1;
	m->wrinkle.data = own(s, sizeof(float));
	m->wrinkle.data[0] = 0;
	m->wrinkle.indices = own(s, m->corner_count * sizeof(uint32_t));
	smdmx_flex_shape *sh = &s->flex_shapes[0];
	sh->wrinkle_count = 1;
	sh->wrinkle_indices = own(s, sizeof(uint32_t));
	sh->wrinkle_deltas = own(s, sizeof(float));
	sh->wrinkle_deltas[0] = 0.5f;
	return s;
}

static smdmx_scene *k_rules(void)
{
	smdmx_scene *s = with_shapes();
	controllers(s, false, true);
	smdmx_flex_rule *r = own(s, 3 * sizeof(smdmx_flex_rule));
	r[0] = (smdmx_flex_rule){ own_str(s, "open"), SMDMX_FLEX_RULE_LOCAL_VAR, NULL };
	r[1] = (smdmx_flex_rule){ own_str(s, "smile"), SMDMX_FLEX_RULE_EXPRESSION, own_str(s, "max(mouth, 0) * 0.5") };
	r[2] = (smdmx_flex_rule){ own_str(s, "frown"), SMDMX_FLEX_RULE_EXPRESSION, own_str(s, "min(max(-mouth, 0), 1)") };
	s->flex_rules = r;
	s->flex_rule_count = 3;
	return s;
}

static smdmx_scene *k_dominators(void)
{
	smdmx_scene *s = with_shapes();
	controllers(s, false, false);
	s->domination_rules = own(s, sizeof(smdmx_domination_rule));
	s->domination_rules[0] = (smdmx_domination_rule){ names(s, "smile", NULL), names(s, "frown", NULL) };
	s->domination_rule_count = 1;
	return s;
}

static smdmx_scene *k_attachments(void)
{
	smdmx_scene *s = base();
	s->attachments = own(s, sizeof(smdmx_attachment));
	s->attachments[0] = (smdmx_attachment){ own_str(s, "eyes"), 1, { { 0, 0.5f, 1 }, { 0, 0, 0, 1 } }, true, false };
	s->attachment_count = 1;
	return s;
}

static smdmx_scene *with_clip(smdmx_scene *s, int first, double fps, const char *name)
{
	smdmx_scene *a = read_text(anim_smd(first), fps, name);
	smdmx_error err;
	if (!smdmx_scene_add_clips(s, a, &err)) fail_msg("clips: %s", err.message);
	smdmx_scene_free(a);
	return s;
}

static smdmx_scene *k_clip(void)
{
	return with_clip(base(), 0, 0, "walk");
}

static smdmx_scene *k_clips(void)
{
	return with_clip(with_clip(base(), 0, 0, "walk"), 0, 0, "run");
}

static smdmx_scene *k_rate(void)
{
	return with_clip(base(), 0, 24, "walk");
}

static smdmx_scene *k_start(void)
{
	return with_clip(base(), 10, 0, "walk");
}

static smdmx_scene *k_up_axis(void)
{
	smdmx_scene *s = base();
	s->up_axis = 'Y';
	return s;
}

/* The base's mesh on no joint at all (a static prop as datamodel-rs writes one). */
static smdmx_scene *k_jointless(void)
{
	smdmx_scene *s = base();
	s->joint_count = 0;
	s->meshes[0].parent_joint = SMDMX_NONE;
	s->meshes[0].weight_offsets = NULL;
	s->meshes[0].weights = NULL;
	s->meshes[0].weight_count = 0;
	return s;
}

/* Material names with white space: at the start (kept by an SMD line) and at the end. */
static smdmx_scene *k_material_spaces(void)
{
	smdmx_scene *s = base();
	s->materials[0].name = own_str(s, "  skin");
	s->materials[1].name = own_str(s, "cloth  ");
	return s;
}

typedef struct kind {
	const char *name;
	smdmx_scene *(*make)(void);
} kind;

static const kind kinds[] = {
	{ "joints (names, order, parents), bind poses, a mesh, its materials, normals, UVs, weights", k_base },
	{ "polygons of more than 3 corners", k_ngon },
	{ "more than 3 weight links on a vertex", k_links },
	{ "more UV sets than one", k_uv_sets },
	{ "more meshes than one", k_meshes },
	{ "a mesh that follows its own node", k_own_node },
	{ "flex shapes", k_shapes },
	{ "flex controllers and their ranges", k_controllers },
	{ "stereo controllers and balance", k_stereo },
	{ "balance no stereo control uses", k_balance_unused },
	{ "wrinkle", k_wrinkle },
	{ "flex rules and local variables", k_rules },
	{ "domination rules", k_dominators },
	{ "attachments", k_attachments },
	{ "an animation clip", k_clip },
	{ "more clips than one", k_clips },
	{ "a clip of another rate than 30 fps", k_rate },
	{ "a clip that starts after frame 0", k_start },
	{ "an up axis other than Z", k_up_axis },
	{ "a mesh without joints", k_jointless },
	{ "material names with white space at their start, at their end", k_material_spaces },
};
enum { KINDS = sizeof(kinds) / sizeof(kinds[0]) };

/* ---- the paths ---------------------------------------------------------------------------- */

/* Warnings merged: an entry per code. */
typedef struct said_set {
	smdmx_warning data[SMDMX_WARNING_CODE_COUNT];
	size_t count;
} said_set;

typedef struct outcome {
	smdmx_scene *back;   /* NULL when the path refused the model (then error is set) */
	said_set said;       /* what the conversion said, everything merged */
	smdmx_error error;
} outcome;

static void merge_one(said_set *into, const smdmx_warning *x)
{
	size_t k = 0;
	while (k < into->count && into->data[k].code != x->code) k++;
	if (k == into->count) into->data[into->count++] = *x;
}

static void merge(said_set *into, const smdmx_warnings *w)
{
	test_assert_warnings_act(w, "ledger");
	for (size_t i = 0; i < w->count; i++) merge_one(into, &w->data[i]);
}

/* A DMX of model format N, written in binary 5 (9 for 22) and read back. */
static outcome through_dmx(const smdmx_scene *s, int model)
{
	outcome o;
	memset(&o, 0, sizeof(o));
	TEST_WARNINGS(w);
	smdmx_model_options mo = { .model_version = model };
	smdmx_dm *dm = smdmx_model_from_scene(s, &mo, &o.error, &w);
	if (!dm) return o;
	merge(&o.said, &w);
	test_sink sink = { 0 };
	smdmx_dmx_write_options dw = { .encoding = "binary", .encoding_version = model == 22 ? 9 : 5 };
	if (!smdmx_dmx_write(dm, test_sink_write, &sink, &dw, &o.error)) fail_msg("dmx write: %s", o.error.message);
	smdmx_dm_free(dm);
	smdmx_dm *back = smdmx_dmx_read_memory(sink.data, sink.size, NULL, &o.error, NULL);
	free(sink.data);
	if (!back) fail_msg("dmx read: %s", o.error.message);
	o.back = smdmx_model_to_scene(back, NULL, &o.error, &w);
	merge(&o.said, &w);
	smdmx_dm_free(back);
	if (!o.back) fail_msg("lift: %s", o.error.message);
	return o;
}

static smdmx_scene *write_read(const smdmx_scene *s, smdmx_smd_write_options wo, double fps, outcome *o)
{
	test_sink sink = { 0 };
	if (!smdmx_smd_write(s, test_sink_write, &sink, &wo, &o->error)) return NULL;
	smdmx_smd_read_options ro = { .frame_rate = fps, .name = wo.kind == SMDMX_SMD_WRITE_ANIMATION ? s->clips[wo.clip].name : s->name };
	TEST_WARNINGS(w);
	smdmx_scene *r = smdmx_smd_read_memory(sink.data, sink.size, &ro, &o->error, &w);
	free(sink.data);
	if (!r) fail_msg("smd read: %s", o->error.message);
	return r;
}

/* What dmx2smd writes: a reference SMD, a VTA beside it when there are shapes, and each
 * clip an SMD of its own; read back as smd2dmx reads them (the VTA by its name, the clips
 * with --clips at their rate when qc says it). */
static outcome through_smd(smdmx_scene *s, bool goldsrc, bool qc)
{
	outcome o;
	memset(&o, 0, sizeof(o));
	/* dmx2smd writes what it lifted from a DMX */
	s->source.format = SMDMX_SOURCE_DMX;
	smdmx_smd_write_options wo = { .goldsrc = goldsrc };
	char *lines = NULL, *atts = NULL;
	TEST_WARNINGS(w);
	if (qc) {
		if (!smdmx_qc_from_scene(s, "m.vta", &lines, &atts, &o.error, &w)) return o;
		merge(&o.said, &w);
	}
	smdmx_warnings_free(&w);
	if (!smdmx_smd_report_losses(s, &wo, true, &o.error, &w)) fail_msg("losses: %s", o.error.message);
	/* with --qc, the QC carries these (as dmx2smd leaves them out) */
	test_assert_warnings_act(&w, "ledger");
	for (size_t i = 0; i < w.count; i++) {
		smdmx_warning_code c = w.data[i].code;
		bool carried = (qc && (c == SMDMX_WARNING_DROPPED_BALANCE || c == SMDMX_WARNING_DROPPED_ATTACHMENTS ||
		                       c == SMDMX_WARNING_DROPPED_CONTROLLERS || c == SMDMX_WARNING_DROPPED_RULES ||
		                       c == SMDMX_WARNING_FRAME_RATE || c == SMDMX_WARNING_UP_AXIS)) ||
		               c == SMDMX_WARNING_DROPPED_CLIPS; /* one SMD per clip */
		if (!carried) merge_one(&o.said, &w.data[i]);
	}
	wo.kind = s->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION;
	smdmx_scene *r = write_read(s, wo, 0, &o);
	if (!r) goto done;
	if (s->flex_shape_count && !goldsrc) {
		wo.kind = SMDMX_SMD_WRITE_VTA;
		smdmx_scene *v = write_read(s, wo, 0, &o);
		if (!v) goto done;
		if (!smdmx_scene_attach_vta(r, v, &o.error, &w)) fail_msg("vta: %s", o.error.message);
		merge(&o.said, &w);
		smdmx_scene_free(v);
	}
	for (size_t c = 0; c < s->clip_count; c++) {
		wo.kind = SMDMX_SMD_WRITE_ANIMATION;
		wo.clip = c;
		smdmx_scene *a = write_read(s, wo, qc ? s->clips[c].frame_rate : 0, &o);
		if (!a) goto done;
		if (!smdmx_scene_add_clips(r, a, &o.error)) fail_msg("clips: %s", o.error.message);
		smdmx_scene_free(a);
	}
	if (qc) {
		/* smd2dmx --qc: the QC's rig and attachments onto the SMD's scene, $upaxis as it says */
		char text[8192];
		snprintf(text, sizeof(text), "%s$model m \"m.smd\" {\n%s}\n%s", s->up_axis != 'Z' ? "$upaxis Y\n" : "", lines, atts);
		qc_mem_file files[3] = { { "/q/m.qc", text, 0 }, { "/q/m.smd", "x", 0 }, { "/q/m.vta", "x", 0 } };
		qc_mem mem = { files, 3 };
		smdmx_qc_read_options ro = qc_mem_options(&mem);
		smdmx_qc *q = smdmx_qc_read_file("/q/m.qc", &ro, &o.error, NULL);
		if (!q) fail_msg("qc: %s\n%s", o.error.message, text);
		if (!smdmx_qc_apply_rig(q, 0, r, NULL, &o.error, &w)) fail_msg("rig: %s\n%s", o.error.message, text);
		merge(&o.said, &w);
		if (!smdmx_qc_apply_attachments(q, r, &o.error, &w)) fail_msg("attachments: %s", o.error.message);
		merge(&o.said, &w);
		if (q->up_axis) r->up_axis = q->up_axis;
		smdmx_qc_free(q);
	}
	o.back = r;
	r = NULL;
done:
	smdmx_scene_free(r);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	return o;
}

typedef struct path {
	const char *name;
	int model;           /* DMX model format, or 0 */
	bool goldsrc, qc;
} path;

static const path paths[] = {
	{ "DMX model 1", 1, false, false },  { "DMX model 15", 15, false, false }, { "DMX model 18", 18, false, false },
	{ "DMX model 22", 22, false, false }, { "SMD and VTA", 0, false, false },   { "GoldSrc SMD", 0, true, false },
	{ "SMD, VTA and QC", 0, false, true },
};
enum { PATHS = sizeof(paths) / sizeof(paths[0]) };

/* What a warning says, in the table's words. */
static const char *label(smdmx_warning_code c)
{
	switch (c) {
	case SMDMX_WARNING_LINKS_TRUNCATED: return "largest links kept";
	case SMDMX_WARNING_GOLDSRC_LINKS: return "one bone per vertex";
	case SMDMX_WARNING_DROPPED_UV_SETS: return "extra UV sets left out";
	case SMDMX_WARNING_FANNED: return "fanned into triangles";
	case SMDMX_WARNING_MESHES_MERGED: return "meshes merged";
	case SMDMX_WARNING_WEIGHTS_SCALED: return "weights scaled to 1";
	case SMDMX_WARNING_DROPPED_SHAPES: return "shapes left out";
	case SMDMX_WARNING_DROPPED_CONTROLLERS: return "controllers left out";
	case SMDMX_WARNING_DROPPED_BALANCE: return "balance left out";
	case SMDMX_WARNING_BALANCE_UNUSED: return "unused balance left out";
	case SMDMX_WARNING_DROPPED_WRINKLE: return "wrinkle left out";
	case SMDMX_WARNING_DROPPED_RULES: return "rules left out";
	case SMDMX_WARNING_DROPPED_ATTACHMENTS: return "attachments left out";
	case SMDMX_WARNING_DROPPED_CLIPS: return "clips left out";
	case SMDMX_WARNING_FRAME_RATE: return "rate not said";
	case SMDMX_WARNING_UP_AXIS: return "up axis not said";
	case SMDMX_WARNING_MATERIAL_SPACE: return "white space at the end left out";
	case SMDMX_WARNING_GOLDSRC_TEXTURES: return "materials named as .bmp files";
	case SMDMX_WARNING_QC_PAIR_CUT: return "stereo cut in halves";
	case SMDMX_WARNING_QC_LOST_CONTROLS: return "control details lost";
	case SMDMX_WARNING_QC_UNDRIVEN: return "shape undriven";
	case SMDMX_WARNING_QC_LOST_GROUPS: return "groups lost";
	case SMDMX_WARNING_QC_LOST_KEYS: return "keys lost";
	case SMDMX_WARNING_QC_LOST_ATTACHMENTS: return "attachments lost";
	default: return NULL;
	}
}

/* Warnings that are no loss: what reading a file says about the file. */
static bool is_loss(smdmx_warning_code c)
{
	return c != SMDMX_WARNING_NODE_RENAMED;
}

/* Losses that change no compiled model: the model comes back the same, and the data left out
 * is said all the same (the cell says both). */
static bool same_model(smdmx_warning_code c)
{
	return c == SMDMX_WARNING_BALANCE_UNUSED;
}

/* A controller that drives only the shape of its name over 0 to 1 is what a DMX needs for a
 * shape and what smd2dmx makes for each (doc/conversions.md): no data of its own. Those the source does
 * not have are left out of the comparison. */
static void drop_plain_controllers(const smdmx_scene *src, smdmx_scene *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		bool plain = c->raw_controls.count == 1 && !strcmp(c->raw_controls.data[0], c->name) && !c->stereo && !c->eyelid &&
		             c->min == 0 && c->max == 1;
		for (size_t w = 0; w < c->wrinkle_scales.count; w++) plain = plain && c->wrinkle_scales.data[w] == 0;
		bool in_src = false;
		for (size_t j = 0; j < src->flex_controller_count && !in_src; j++) in_src = !strcmp(src->flex_controllers[j].name, c->name);
		if (!plain || in_src) s->flex_controllers[k++] = *c;
	}
	s->flex_controller_count = k;
}

/* ---- the matrix ----------------------------------------------------------------------------- */

static char cells[KINDS][PATHS][400];

static void run_cell(size_t k, size_t p)
{
	smdmx_scene *s = kinds[k].make();
	outcome o = paths[p].model ? through_dmx(s, paths[p].model) : through_smd(s, paths[p].goldsrc, paths[p].qc);
	char *cell = cells[k][p];
	size_t losses = 0, notes = 0;
	char codes[300] = "";
	size_t len = 0;
	for (size_t i = 0; i < o.said.count; i++) {
		if (!is_loss(o.said.data[i].code)) continue;
		losses++;
		const char *lb = label(o.said.data[i].code);
		if (!lb) fail_msg("%s, %s: a warning the table has no words for: %s", kinds[k].name, paths[p].name, o.said.data[i].message);
		notes += same_model(o.said.data[i].code);
		len += (size_t)snprintf(codes + len, sizeof(codes) - len, "%s%s", len ? ", " : "", lb);
	}
	if (!o.back) {
		snprintf(cell, 400, "refused: %s", o.error.message);
		smdmx_scene_free(s);
		return;
	}
	drop_plain_controllers(s, o.back);
	smdmx_compare_options co = { .flex_controls = true };
	char diff[256];
	bool same = smdmx_scene_compare(s, o.back, &co, diff, sizeof(diff), NULL);
	if (same && losses > notes)
		fail_msg("%s, %s: carried, but said %s (%s)", kinds[k].name, paths[p].name, codes, o.said.data[0].message);
	if (!same && losses == notes) fail_msg("%s, %s: changed without a word: %s", kinds[k].name, paths[p].name, diff);
	if (same && notes) snprintf(cell, 400, "the same model; said: %s", codes);
	else if (same) snprintf(cell, 400, "carried");
	else snprintf(cell, 400, "said: %s", codes);
	smdmx_scene_free(o.back);
	smdmx_scene_free(s);
}

static void test_ledger(void **state)
{
	(void)state;
	for (size_t k = 0; k < KINDS; k++)
		for (size_t p = 0; p < PATHS; p++) run_cell(k, p);
	/* the table, as doc/conversions.md has it */
	char table[65536];
	size_t n = (size_t)snprintf(table, sizeof(table), "| data |");
	for (size_t p = 0; p < PATHS; p++) n += (size_t)snprintf(table + n, sizeof(table) - n, " %s |", paths[p].name);
	n += (size_t)snprintf(table + n, sizeof(table) - n, "\n|---|");
	for (size_t p = 0; p < PATHS; p++) n += (size_t)snprintf(table + n, sizeof(table) - n, "---|");
	n += (size_t)snprintf(table + n, sizeof(table) - n, "\n");
	for (size_t k = 0; k < KINDS; k++) {
		n += (size_t)snprintf(table + n, sizeof(table) - n, "| %s |", kinds[k].name);
		for (size_t p = 0; p < PATHS; p++) n += (size_t)snprintf(table + n, sizeof(table) - n, " %s |", cells[k][p]);
		n += (size_t)snprintf(table + n, sizeof(table) - n, "\n");
	}
	size_t size = 0;
	char *readme = test_slurp(test_path("doc/conversions.md"), &size);
	assert_non_null(readme);
	readme = realloc(readme, size + 1);
	readme[size] = 0;
	const char *from = strstr(readme, "<!-- ledger -->\n"), *to = strstr(readme, "<!-- /ledger -->");
	bool found = from && to && to > from;
	if (found) from += strlen("<!-- ledger -->\n");
	if (!found || (size_t)(to - from) != n || memcmp(from, table, n)) {
		fprintf(stderr, "doc/conversions.md's table between <!-- ledger --> and <!-- /ledger --> should be:\n%s", table);
		fail_msg("doc/conversions.md's ledger table differs from the matrix");
	}
	free(readme);
}

/* Every warning says what happened to the data and whether to act (tests/util.h): one SMD
 * that bends the format eight ways gets eight warnings, each at its place (columns count bytes, the mark's three too), each with its
 * last clause; warnings as they were worded before did not say, and the check refuses them. */
static const char smd[] = "\xEF\xBB\xBFversion 2\n"
                          "nodes\n0 \"a\" -1\n1 \"a\" 0\n2 \"c\" 0\nend\n"
                          "skeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\n"
                          "time 3\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\n2 0 0 0 0 0 0\nend\n"
                          "triangles\nm\n"
                          "0 0 0 0 0 0 1 0 0 2 1 0.5 2 0.2\n0 1 0 0 0 0 1 0 0 2 1 0.8 2 0.9\n0 0 1 0 0 0 1 0 0\n"
                          "\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n";

static void test_warnings_say_whether_to_act(void **state)
{
	(void)state;
	static const struct {
		smdmx_warning_code code;
		uint32_t line, column;
		const char *message;
	} want[] = {
		{ SMDMX_WARNING_BOM, 1, 1, "the file starts with a UTF-8 byte order mark (as Windows editors save it): skipped; nothing to do" },
		{ SMDMX_WARNING_VERSION, 1, 12, "SMD version 2, which no format defines: read as version 1; nothing to do" },
		{ SMDMX_WARNING_DUPLICATE_NAME, 4, 1,
		  "two bones are named 'a': both kept, in their order, but studiomdl finds a bone by its name and takes one of them; "
		  "rename one in the source" },
		{ SMDMX_WARNING_MISSING_FRAME, 11, 6,
		  "frames 1 to 2 are missing: they play as the poses between the frames around them, and are written so; nothing to do "
		  "if the gap was meant" },
		{ SMDMX_WARNING_WEIGHT_REMAINDER, 18, 19,
		  "weights sum below 1: the rest went to the line's parent bone, as studiomdl gives it; nothing to do" },
		{ SMDMX_WARNING_WEIGHT_OVERFLOW, 19, 19,
		  "weights sum above 1: kept as written, though studiomdl scales them to sum 1; check the weights in the source" },
		{ SMDMX_WARNING_SKIPPED_TRIANGLES, 21, 1,
		  "a triangle whose material line is blank: skipped with its 3 lines, as studiomdl skips it; nothing to do" },
		{ SMDMX_WARNING_MISSING_BONE_FIRST_FRAME, 8, 1,
		  "bones missing from the first frame take position 0 and rotation 0, as in studiomdl; if that is not their rest pose, "
		  "add them to the first frame in the source" },
	};
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, NULL, &err, &w);
	if (!s) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	assert_int_equal(w.count, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const smdmx_warning *x = test_warning_of(&w, want[i].code);
		if (!x) {
			fail_msg("no warning %d", (int)want[i].code);
			continue;
		}
		assert_string_equal(x->message, want[i].message);
		assert_int_equal(x->line, want[i].line);
		assert_int_equal(x->column, want[i].column);
	}
	smdmx_scene_free(s);
	/* the wording before: what happened, or not even that, and nothing on whether to act */
	assert_false(test_warning_acts("two bones are named 'a'"));
	assert_false(test_warning_acts("weights sum above 1"));
	assert_false(test_warning_acts("no skeleton frame; bind poses are zero"));
	assert_false(test_warning_acts("SMD has no attachments: 2 left out (dmx2smd --qc writes them into a QC)"));
	assert_true(test_warning_acts("SMD has no attachments: 2 left out; use dmx2smd --qc to keep them in a QC"));
}

/* An allocator that refuses blocks of one size (and counts the rest). */
typedef struct refusing {
	test_counter c;
	size_t size;    /* refused */
	size_t refused; /* how many times */
} refusing;

static void *refusing_alloc(void *user, size_t size)
{
	refusing *r = user;
	if (size == r->size) return r->refused++, NULL;
	return tc_alloc(&r->c, size);
}

static void *refusing_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	refusing *r = user;
	if (new_size == r->size) return r->refused++, NULL;
	return tc_realloc(&r->c, ptr, old_size, new_size);
}

static void refusing_free(void *user, void *ptr, size_t size)
{
	tc_free(&((refusing *)user)->c, ptr, size);
}

/* The warnings are a list as long as the call needs (the SMD above bends the format eight
 * ways: eight entries), its room the call's allocator's and given back by
 * smdmx_warnings_free; a warning that finds no room fails the call out of memory, leaving
 * nothing, so that a list a call returns with is whole. */
static void test_warnings_room(void **state)
{
	(void)state;
	refusing r = { { 0, 0, 0 }, 0, 0 };
	smdmx_smd_read_options o = { .allocator = { refusing_alloc, refusing_realloc, refusing_free, &r, 0, 0 } };
	smdmx_error err;
	smdmx_warnings w = { 0 };
	smdmx_scene *s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, &o, &err, &w);
	assert_non_null(s);
	smdmx_scene_free(s);
	assert_int_equal(w.count, 8);
	assert_int_equal(w.lost, 0);
	assert_true(w.capacity >= 8);
	assert_int_equal(r.c.live, (long long)(w.capacity * sizeof(smdmx_warning))); /* the list's room, the caller's */
	/* a second call empties it, keeping its room */
	s = smdmx_smd_read_memory("version 1\n", 10, &o, &err, &w);
	assert_null(s);
	assert_int_equal(w.count, 0);
	assert_int_equal(r.c.live, (long long)(w.capacity * sizeof(smdmx_warning)));
	smdmx_warnings_free(&w);
	assert_int_equal(r.c.live, 0);
	assert_null(w.data);
	/* the room for the fifth entry refused: the reading, which needs no block of that size
	 * itself, fails out of memory */
	r.size = 8 * sizeof(smdmx_warning);
	s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, &o, &err, NULL);
	assert_non_null(s);
	smdmx_scene_free(s);
	assert_int_equal(r.refused, 0);
	s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, &o, &err, &w);
	assert_null(s);
	assert_int_equal(err.code, SMDMX_ERROR_OUT_OF_MEMORY);
	assert_true(r.refused > 0);
	assert_true(w.lost > 0);
	assert_int_equal(w.count, 4);
	smdmx_warnings_free(&w);
	assert_int_equal(r.c.live, 0);
	/* on several threads, the list counted in the reading's one budget, handed back after */
	o.threads = 3;
	o.allocator.memory_limit = (size_t)1 << 30;
	r.size = 0;
	s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, &o, &err, &w);
	assert_non_null(s);
	assert_int_equal(w.count, 8);
	smdmx_scene_free(s);
	smdmx_warnings_free(&w);
	assert_int_equal(r.c.live, 0);
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_warnings_say_whether_to_act),
		cmocka_unit_test(test_warnings_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
