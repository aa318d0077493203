/* Every meaningful thing in a model, changed alone, makes smdmx diff say different: each
 * corner field the list names (smdmx_corner_field), and a flex delta, a controller's range,
 * its stereo flag and wrinkle scale, a material, a bind pose, a joint's parent, an attachment,
 * a flex rule and a domination rule. In SMD (and its VTA) the change is made in the text; in
 * DMX (model formats 18 and 22, written as keyvalues2 and read back) in the attribute that
 * holds it. A field added to the list without a change here fails, as does one the diff does
 * not compare. The scenes are compared with smdmx diff's options (smdmx_diff_options). */
#include "util.h"

/* ---- the SMD and its VTA -------------------------------------------------------------------- */

/* Three bones; two triangles of two materials, their corners with normals, UVs and two weight
 * links on the first two. Line numbers are the changes' places below. */
static const char *const ref_lines[] = {
	"version 1",                                   /* 0 */
	"nodes",                                       /* 1 */
	"0 \"root\" -1",                               /* 2 */
	"1 \"b\" 0",                                   /* 3 */
	"2 \"c\" 0",                                   /* 4 */
	"end",                                         /* 5 */
	"skeleton",                                    /* 6 */
	"time 0",                                      /* 7 */
	"0 0 0 0 0 0 0",                               /* 8 */
	"1 1 0 0 0 0 0.5",                             /* 9 */
	"2 0 1 0 0.25 0 0",                            /* 10 */
	"end",                                         /* 11 */
	"triangles",                                   /* 12 */
	"skin",                                        /* 13 */
	"1 0 0 0 0 0 1 0 0 2 1 0.5 2 0.5",             /* 14 */
	"1 1 0 0 0 0 1 1 0 2 1 0.75 2 0.25",           /* 15 */
	"1 1 1 0 0 0 1 1 1 1 1 1",                     /* 16 */
	"cloth",                                       /* 17 */
	"2 0 1 0 0 0 1 0 1 1 2 1",                     /* 18 */
	"2 1 1 0 0 0 1 1 1 1 2 1",                     /* 19 */
	"2 0 2 0 0 0 1 0 0.5 1 2 1",                   /* 20 */
	"end",                                         /* 21 */
	NULL,
};

/* One shape, smile, moving corner 2 up. */
static const char *const vta_lines[] = {
	"version 1", "nodes", "0 \"root\" -1", "1 \"b\" 0", "2 \"c\" 0", "end",
	"skeleton", "time 0", "time 1 # smile", "end",
	"vertexanimation", "time 0",                   /* 10, 11 */
	"0 0 0 0 0 0 1", "1 1 0 0 0 0 1", "2 1 1 0 0 0 1", "3 0 1 0 0 0 1", "4 1 1 0 0 0 1", "5 0 2 0 0 0 1",
	"time 1",                                      /* 18 */
	"2 1 1 0.5 0 0 1",                             /* 19 */
	"end",
	NULL,
};

/* A change in the text: token `token` (from 0, split at spaces) of line `line` becomes `to`. */
typedef struct text_change {
	bool vta;
	int line, token;
	const char *to;
} text_change;

static char *join(const char *const *lines, const text_change *ch, bool vta)
{
	size_t cap = 4096, n = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	for (int l = 0; lines[l]; l++) {
		char buf[256];
		snprintf(buf, sizeof(buf), "%s", lines[l]);
		if (ch && ch->vta == vta && ch->line == l) {
			char *tok[32];
			int nt = 0;
			for (char *t = strtok(buf, " "); t && nt < 32; t = strtok(NULL, " ")) tok[nt++] = t;
			assert_true(ch->token < nt);
			char line[256] = "";
			for (int k = 0; k < nt; k++) {
				strcat(line, k ? " " : "");
				strcat(line, k == ch->token ? ch->to : tok[k]);
			}
			assert_string_not_equal(line, lines[l]);
			snprintf(buf, sizeof(buf), "%s", line);
		}
		n += (size_t)snprintf(out + n, cap - n, "%s\n", buf);
		assert_true(n < cap);
	}
	return out;
}

/* The SMD and VTA, changed by ch (NULL: as they are), read as smdmx diff reads them. */
static smdmx_scene *read_smd(const text_change *ch)
{
	char *ref = join(ref_lines, ch, false), *vta = join(vta_lines, ch, true);
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "model" };
	smdmx_scene *s = smdmx_smd_read_memory(ref, strlen(ref), &ro, &err, NULL);
	if (!s) fail_msg("model: %s", err.message);
	ro.name = "model_flex";
	smdmx_scene *v = smdmx_smd_read_memory(vta, strlen(vta), &ro, &err, NULL);
	if (!v) fail_msg("vta: %s", err.message);
	if (!smdmx_scene_attach_vta(s, v, &err, NULL)) fail_msg("attach: %s", err.message);
	smdmx_scene_free(v);
	free(ref);
	free(vta);
	return s;
}

/* The differences smdmx diff finds, the first one said kept. */
typedef struct said {
	size_t count;
	char first[512];
} said;

static void keep(void *user, const char *message)
{
	said *x = user;
	if (!x->count++) snprintf(x->first, sizeof(x->first), "%s", message);
}

static said diff(const smdmx_scene *a, const smdmx_scene *b)
{
	smdmx_compare_options o;
	smdmx_diff_options(NULL, NULL, &o);
	smdmx_diff_options(a, b, &o);
	said x = { 0, "" };
	size_t n = smdmx_scene_diff(a, b, &o, keep, &x, NULL);
	assert_int_equal(n, x.count);
	return x;
}

/* The change a corner field takes in the SMD; false for a field an SMD does not hold. A field
 * added to the list fails here until it has its change. */
static bool smd_corner_change(smdmx_corner_field f, text_change *ch)
{
	const smdmx_corner_field_info *info = smdmx_corner_field_describe(f);
	assert_non_null(info);
	switch (f) {
	case SMDMX_CORNER_POSITION: *ch = (text_change){ false, 14, 1, "0.5" }; break;
	case SMDMX_CORNER_NORMAL: *ch = (text_change){ false, 14, 6, "0.8" }; break;
	case SMDMX_CORNER_UV: *ch = (text_change){ false, 14, 7, "0.25" }; break;
	case SMDMX_CORNER_WEIGHT: *ch = (text_change){ false, 14, 13, "0.25" }; break; /* the rest to bone 1 */
	case SMDMX_CORNER_JOINT: *ch = (text_change){ false, 14, 10, "0" }; break;
	case SMDMX_CORNER_BALANCE:
	case SMDMX_CORNER_WRINKLE: assert_false(info->smd); return false;
	default: fail_msg("corner field %d (%s): no change written for it here", (int)f, info->name);
	}
	assert_true(info->smd);
	return true;
}

static const struct {
	const char *what;
	text_change ch;
} smd_changes[] = {
	{ "a material", { false, 17, 0, "cloth2" } },
	{ "a bind pose", { false, 9, 1, "1.5" } },
	{ "a joint's parent", { false, 4, 2, "1" } },
	{ "a flex delta", { true, 19, 3, "0.75" } },
};

static void smd_fields(void **state)
{
	(void)state;
	char *saved = test_c_numbers_begin();
	smdmx_scene *base = read_smd(NULL), *again = read_smd(NULL);
	said x = diff(base, again);
	assert_int_equal(x.count, 0);
	size_t tried = 0;
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++) {
		text_change ch;
		if (!smd_corner_change(f, &ch)) continue;
		smdmx_scene *changed = read_smd(&ch);
		x = diff(base, changed);
		if (!x.count) fail_msg("SMD: a changed %s, and smdmx diff says equal", smdmx_corner_field_describe(f)->name);
		if (!strstr(x.first, smdmx_corner_field_describe(f)->name))
			fail_msg("SMD: a changed %s said as '%s'", smdmx_corner_field_describe(f)->name, x.first);
		smdmx_scene_free(changed);
		tried++;
	}
	assert_int_equal(tried, 5);
	for (size_t i = 0; i < sizeof(smd_changes) / sizeof(smd_changes[0]); i++) {
		smdmx_scene *changed = read_smd(&smd_changes[i].ch);
		if (!diff(base, changed).count) fail_msg("SMD: %s changed, and smdmx diff says equal", smd_changes[i].what);
		smdmx_scene_free(changed);
	}
	smdmx_scene_free(base);
	smdmx_scene_free(again);
	test_c_numbers_end(saved);
}

/* ---- DMX ------------------------------------------------------------------------------------ */

/* The SMD's model with everything a DMX holds besides: balance and wrinkle on the mesh,
 * controllers (smile stereo, with a wrinkle scale), a flex rule, a domination rule and an
 * attachment, built with smdmx_scene_alloc. */
static void *give(smdmx_scene *s, size_t size)
{
	smdmx_error err;
	void *p = smdmx_scene_alloc(s, size, &err);
	if (!p) fail_msg("%s", err.message);
	return p;
}

static const char *text(smdmx_scene *s, const char *t)
{
	smdmx_error err;
	const char *p = smdmx_scene_strdup(s, t, &err);
	if (!p) fail_msg("%s", err.message);
	return p;
}

static smdmx_string_list one(smdmx_scene *s, const char *name)
{
	smdmx_string_list l = { give(s, sizeof(char *)), 1 };
	l.data[0] = text(s, name);
	return l;
}

static smdmx_scene *full_model(void)
{
	smdmx_scene *s = read_smd(NULL);
	smdmx_mesh *m = &s->meshes[0];
	m->balance.count = m->position_count;
	m->balance.data = give(s, m->position_count * sizeof(float));
	for (size_t p = 0; p < m->position_count; p++) m->balance.data[p] = m->positions[p][0] >= 1 ? 1.0f : 0.0f;
	m->balance.indices = m->position_indices;
	m->wrinkle.count = 1;
	m->wrinkle.data = give(s, sizeof(float));
	m->wrinkle.indices = give(s, m->corner_count * sizeof(uint32_t));
	s->flex_controllers = give(s, 2 * sizeof(smdmx_flex_controller));
	smdmx_float_list scales = { give(s, sizeof(float)), 1 };
	scales.data[0] = 0.5f;
	s->flex_controllers[0] = (smdmx_flex_controller){ text(s, "smile"), one(s, "smile"), true, false, 0, 1, scales };
	s->flex_controllers[1] = (smdmx_flex_controller){ text(s, "open"), one(s, "open"), false, false, 0, 1, { NULL, 0 } };
	s->flex_controller_count = 2;
	s->flex_rules = give(s, sizeof(smdmx_flex_rule));
	s->flex_rules[0] = (smdmx_flex_rule){ text(s, "smile"), SMDMX_FLEX_RULE_EXPRESSION, text(s, "smile * 0.5") };
	s->flex_rule_count = 1;
	s->domination_rules = give(s, sizeof(smdmx_domination_rule));
	s->domination_rules[0] = (smdmx_domination_rule){ one(s, "open"), one(s, "smile") };
	s->domination_rule_count = 1;
	s->attachments = give(s, sizeof(smdmx_attachment));
	s->attachments[0] = (smdmx_attachment){ text(s, "eyes"), 1, { { 0, 0.5f, 1 }, { 0, 0, 0, 1 } }, true, false };
	s->attachment_count = 1;
	smdmx_error err;
	if (!smdmx_scene_validate(s, &err)) fail_msg("the model: %s", err.message);
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++)
		if (!smdmx_mesh_has_field(m, f)) fail_msg("the DMX's model lacks its %s", smdmx_corner_field_describe(f)->name);
	return s;
}

/* A change in a datamodel: in every element of type `type` (and of name `name`, unless NULL),
 * attribute `attr`'s item 0 (or value) moves by a quarter, an int to another joint (1 to 0), a bool
 * flips, a string becomes `to`. */
typedef struct dm_change {
	const char *what, *type, *name, *attr, *to;
} dm_change;

static size_t change_dm(smdmx_dm *dm, const dm_change *c)
{
	size_t changed = 0;
	for (size_t e = 0; e < dm->element_count; e++) {
		const smdmx_dm_element *x = &dm->elements[e];
		if (strcmp(x->type, c->type) || (c->name && strcmp(x->name, c->name))) continue;
		for (size_t a = 0; a < x->attr_count; a++) {
			smdmx_dm_attr *at = &x->attrs[a];
			if (strcmp(at->name, c->attr)) continue;
			void *v = at->is_array ? at->value.array.data : &at->value;
			if (at->is_array && !at->value.array.count) continue;
			switch (at->type) {
			case SMDMX_DM_FLOAT: *(float *)v += 0.25f; break;
			case SMDMX_DM_VECTOR2:
			case SMDMX_DM_VECTOR3: ((float *)v)[0] += 0.25f; break;
			case SMDMX_DM_INT: *(int32_t *)v = (*(int32_t *)v + 2) % 3; break;
			case SMDMX_DM_BOOL: *(bool *)v = !*(bool *)v; break;
			case SMDMX_DM_STRING: *(const char **)v = smdmx_dm_strdup(dm, c->to, NULL); break;
			default: fail_msg("%s: %s.%s of type %d, not changed here", c->what, c->type, c->attr, (int)at->type);
			}
			changed++;
		}
	}
	return changed;
}

static smdmx_scene *dm_scene(const char *kv2, size_t n, const dm_change *c)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_memory(kv2, n, NULL, &err, NULL);
	if (!dm) fail_msg("read: %s", err.message);
	if (c && !change_dm(dm, c)) fail_msg("%s: no %s.%s in the DMX", c->what, c->type, c->attr);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, NULL);
	if (!s) fail_msg("%s: %s", c ? c->what : "the model", err.message);
	smdmx_dm_free(dm);
	return s;
}

static void dmx_fields_of(int format)
{
	smdmx_scene *model = full_model();
	smdmx_model_options mo = { .model_version = format };
	smdmx_error err;
	smdmx_dm *dm = smdmx_model_from_scene(model, &mo, &err, NULL);
	if (!dm) fail_msg("format %d: %s", format, err.message);
	test_sink sink = { 0 };
	if (!smdmx_dmx_write(dm, test_sink_write, &sink, NULL, &err)) fail_msg("write: %s", err.message);
	smdmx_dm_free(dm);
	smdmx_scene_free(model);
	char *kv2 = test_sink_text(&sink);
	size_t n = strlen(kv2);

	smdmx_scene *base = dm_scene(kv2, n, NULL), *again = dm_scene(kv2, n, NULL);
	assert_int_equal(diff(base, again).count, 0);
	int newer = format >= 22;
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++) {
		const smdmx_corner_field_info *info = smdmx_corner_field_describe(f);
		dm_change c = { info->name, "DmeVertexData", NULL, info->dmx_names[newer], NULL };
		smdmx_scene *changed = dm_scene(kv2, n, &c);
		said x = diff(base, changed);
		if (!x.count) fail_msg("DMX %d: a changed %s, and smdmx diff says equal", format, info->name);
		if (!strstr(x.first, info->name)) fail_msg("DMX %d: a changed %s said as '%s'", format, info->name, x.first);
		smdmx_scene_free(changed);
	}
	const smdmx_corner_field_info *pos = smdmx_corner_field_describe(SMDMX_CORNER_POSITION);
	const dm_change others[] = {
		{ "a flex delta", "DmeVertexDeltaData", NULL, pos->dmx_names[newer], NULL },
		{ "a controller's range", "DmeCombinationInputControl", "open", "flexMax", NULL },
		{ "a controller's stereo flag", "DmeCombinationInputControl", "smile", "stereo", NULL },
		{ "a controller's wrinkle scale", "DmeCombinationInputControl", "smile", "wrinkleScales", NULL },
		{ "a material", "DmeMaterial", NULL, "mtlName", "cloth2" },
		{ "a bind pose", "DmeTransform", "b", "position", NULL },
		{ "an attachment", "DmeTransform", "eyes", "position", NULL },
		{ "an attachment's rigid flag", "DmeAttachment", NULL, "isRigid", NULL },
		{ "a flex rule", "DmeFlexRuleExpression", NULL, "expr", "smile * 0.25" },
		{ "a domination rule", "DmeCombinationDominationRule", NULL, "dominators", "smile" },
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		smdmx_scene *changed = dm_scene(kv2, n, &others[i]);
		if (!diff(base, changed).count) fail_msg("DMX %d: %s changed, and smdmx diff says equal", format, others[i].what);
		smdmx_scene_free(changed);
	}
	smdmx_scene_free(base);
	smdmx_scene_free(again);
	free(kv2);
}

static void dmx_fields(void **state)
{
	(void)state;
	char *saved = test_c_numbers_begin();
	dmx_fields_of(18);
	dmx_fields_of(22);
	test_c_numbers_end(saved);
}

/* Names repeated: the k-th controller (or rule) of a name is compared with the k-th of that
 * name, so a model is the same as itself (fuzz finding 9: the second of two controllers named
 * alike was compared with the first) and a change to a repeat is said once, as that name's. */
static smdmx_scene *model_with_repeats(float second_max, const char *second_expression)
{
	smdmx_scene *s = full_model();
	s->flex_controllers[1].name = text(s, "smile");
	s->flex_controllers[1].max = second_max;
	smdmx_flex_rule *rules = give(s, 2 * sizeof(smdmx_flex_rule));
	rules[0] = s->flex_rules[0];
	rules[1] = (smdmx_flex_rule){ text(s, "smile"), SMDMX_FLEX_RULE_EXPRESSION, text(s, second_expression) };
	s->flex_rules = rules;
	s->flex_rule_count = 2;
	return s;
}

static void names_repeated(void **state)
{
	(void)state;
	smdmx_scene *a = model_with_repeats(1, "open * 2");
	said x = diff(a, a);
	if (x.count) fail_msg("a model with repeated names differs from itself: %s", x.first);
	said notes = { 0, "" };
	assert_int_equal(smdmx_scene_repeated_names(a, NULL, NULL, keep, &notes, NULL), 2);
	assert_int_equal(notes.count, 2);
	assert_string_equal(notes.first, "2 flex controllers are named 'smile': they pair with the other file's of that name in their order");
	assert_int_equal(smdmx_scene_repeated_names(a, a, NULL, NULL, NULL, NULL), 0);
	smdmx_scene *range = model_with_repeats(2, "open * 2"), *rule = model_with_repeats(1, "open * 3");
	x = diff(a, range);
	assert_int_equal(x.count, 1);
	assert_string_equal(x.first, "flex controller 'smile': stereo, eyelid or range differ");
	x = diff(a, rule);
	assert_int_equal(x.count, 1);
	assert_string_equal(x.first, "flex rule 'smile' differs");
	smdmx_scene_free(a);
	smdmx_scene_free(range);
	smdmx_scene_free(rule);
}

/* ---- no fixed caps -------------------------------------------------------------------------- */

/* An SMD of one triangle whose first corner has `links` weight links, to bones 1 to links, 1/links
 * each; link `at` (SIZE_MAX: none) given a weight twice that (its bone's weight, the sum above
 * 1 as written) or, with bone, bone links + 1. */
static smdmx_scene *many_links(size_t links, size_t at, bool bone)
{
	size_t cap = 256 + links * 48, n = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	n += (size_t)snprintf(t + n, cap - n, "version 1\nnodes\n0 \"root\" -1\n");
	for (size_t b = 1; b <= links + 1; b++) n += (size_t)snprintf(t + n, cap - n, "%zu \"b%zu\" 0\n", b, b);
	n += (size_t)snprintf(t + n, cap - n, "end\nskeleton\ntime 0\n");
	for (size_t b = 0; b <= links + 1; b++) n += (size_t)snprintf(t + n, cap - n, "%zu 0 0 0 0 0 0\n", b);
	n += (size_t)snprintf(t + n, cap - n, "end\ntriangles\nskin\n0 0 0 0 0 0 1 0 0 %zu", links);
	for (size_t k = 0; k < links; k++)
		n += (size_t)snprintf(t + n, cap - n, " %zu %.9g", k == at && bone ? links + 1 : k + 1,
		                      (k == at && !bone ? 2.0 : 1.0) / (double)links);
	n += (size_t)snprintf(t + n, cap - n, "\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\nend\n");
	assert_true(n < cap);
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "links" };
	smdmx_scene *s = smdmx_smd_read_memory(t, n, &ro, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	free(t);
	return s;
}

/* Each weight link changed alone, its weight or its bone, is a difference, whatever its place
 * among 100 (the comparison kept 64 of a corner's links, and called two corners differing in
 * their 65th equal). */
static void links_each(void **state)
{
	(void)state;
	char *saved = test_c_numbers_begin();
	const size_t links = 100;
	smdmx_scene *base = many_links(links, SIZE_MAX, false), *again = many_links(links, SIZE_MAX, false);
	assert_int_equal(diff(base, again).count, 0);
	assert_true(smdmx_scene_compare(base, again, NULL, NULL, 0, NULL));
	for (size_t k = 0; k < links; k++)
		for (int bone = 0; bone < 2; bone++) {
			smdmx_scene *changed = many_links(links, k, bone);
			said x = diff(base, changed);
			const char *name = smdmx_corner_field_describe(bone ? SMDMX_CORNER_JOINT : SMDMX_CORNER_WEIGHT)->name;
			if (!x.count) fail_msg("link %zu's %s changed, and smdmx diff says equal", k, name);
			if (!strstr(x.first, bone ? name : "weight")) fail_msg("link %zu's %s changed, said as '%s'", k, name, x.first);
			char why[256];
			if (smdmx_scene_compare(base, changed, NULL, why, sizeof(why), NULL))
				fail_msg("link %zu's %s changed, and the comparison says equal", k, name);
			smdmx_scene_free(changed);
		}
	smdmx_scene_free(base);
	smdmx_scene_free(again);
	test_c_numbers_end(saved);
}

/* An SMD of 23 triangles, read and made one polygon of their 69 corners; corner `at` (SIZE_MAX:
 * none) moved up. */
static smdmx_scene *big_polygon(size_t at)
{
	char t[8192];
	size_t n = (size_t)snprintf(t, sizeof(t), "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n");
	for (size_t c = 0; c < 69; c++) {
		if (c % 3 == 0) n += (size_t)snprintf(t + n, sizeof(t) - n, "m\n");
		n += (size_t)snprintf(t + n, sizeof(t) - n, "0 %zu %zu %d 0 0 1 0 0\n", c, c * c % 7, c == at ? 1 : 0);
	}
	n += (size_t)snprintf(t + n, sizeof(t) - n, "end\n");
	assert_true(n < sizeof(t));
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "polygon" };
	smdmx_scene *s = smdmx_smd_read_memory(t, n, &ro, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	smdmx_face_set *fs = &s->meshes[0].face_sets[0];
	assert_int_equal(fs->corner_count, 69);
	fs->offsets[1] = 69;
	fs->polygon_count = 1;
	if (!smdmx_scene_validate(s, &err)) fail_msg("%s", err.message);
	return s;
}

/* A polygon of 69 corners differing in any one of them differs (the diff read a polygon's
 * first 64 corners). */
static void polygon_corners_each(void **state)
{
	(void)state;
	char *saved = test_c_numbers_begin();
	smdmx_scene *base = big_polygon(SIZE_MAX), *again = big_polygon(SIZE_MAX);
	assert_int_equal(diff(base, again).count, 0);
	for (size_t c = 0; c < 69; c++) {
		smdmx_scene *changed = big_polygon(c);
		if (!diff(base, changed).count) fail_msg("corner %zu of 69 moved, and smdmx diff says equal", c);
		smdmx_scene_free(changed);
	}
	smdmx_scene_free(base);
	smdmx_scene_free(again);
	test_c_numbers_end(saved);
}

/* Two triangles of one mesh each moved: each polygon that differs is said (two), and with
 * strict, the mesh's first only (smdmx_scene_diff's header). */
static smdmx_scene *two_triangles(float moved)
{
	char t[512];
	int n = snprintf(t, sizeof(t),
	                 "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\n"
	                 "m\n0 0 0 0 0 0 1 0 0\n0 1 0 %g 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n"
	                 "m\n0 5 0 0 0 0 1 0 0\n0 6 0 %g 0 0 1 1 0\n0 5 1 0 0 0 1 0 1\nend\n",
	                 (double)moved, (double)moved);
	smdmx_error err;
	smdmx_smd_read_options ro = { .name = "two" };
	smdmx_scene *s = smdmx_smd_read_memory(t, (size_t)n, &ro, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	return s;
}

static void polygons_each_said(void **state)
{
	(void)state;
	char *saved = test_c_numbers_begin();
	smdmx_scene *a = two_triangles(0), *b = two_triangles(0.5f);
	assert_int_equal(diff(a, b).count, 2);
	smdmx_compare_options o;
	smdmx_diff_options(NULL, NULL, &o); /* the defaults (the allocator among them), then the scenes' */
	smdmx_diff_options(a, b, &o);
	o.strict = true;
	said x = { 0, "" };
	assert_int_equal(smdmx_scene_diff(a, b, &o, keep, &x, NULL), 1);
	assert_string_equal(x.first, "mesh 'two' polygon 0: positions differ");
	smdmx_scene_free(a);
	smdmx_scene_free(b);
	test_c_numbers_end(saved);
}

/* The list itself: names unique, DMX names of both generations, none unnamed. */
static void field_list(void **state)
{
	(void)state;
	assert_null(smdmx_corner_field_describe(SMDMX_CORNER_FIELD_COUNT));
	assert_null(smdmx_corner_field_describe((smdmx_corner_field)-1));
	for (smdmx_corner_field f = 0; f < SMDMX_CORNER_FIELD_COUNT; f++) {
		const smdmx_corner_field_info *a = smdmx_corner_field_describe(f);
		assert_non_null(a);
		assert_true(a->name && *a->name && a->dmx_names[0] && a->dmx_names[1] && a->components >= 1);
		for (smdmx_corner_field g = 0; g < f; g++) {
			const smdmx_corner_field_info *b = smdmx_corner_field_describe(g);
			assert_string_not_equal(a->name, b->name);
			assert_string_not_equal(a->dmx_names[0], b->dmx_names[0]);
			assert_string_not_equal(a->dmx_names[1], b->dmx_names[1]);
		}
	}
	assert_string_equal(smdmx_corner_field_describe(SMDMX_CORNER_UV)->dmx_names[1], "texcoord$0");
	assert_string_equal(smdmx_corner_field_describe(SMDMX_CORNER_JOINT)->dmx_names[0], "jointIndices");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(field_list),
		cmocka_unit_test(smd_fields),
		cmocka_unit_test(dmx_fields),
		cmocka_unit_test(names_repeated),
		cmocka_unit_test(links_each),
		cmocka_unit_test(polygon_corners_each),
		cmocka_unit_test(polygons_each_said),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
