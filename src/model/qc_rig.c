/* A face rig between a QC's $model block and the scene (FORMATS G3, G4; C10).
 *
 * What studiomdl compiles decides both ways. From a DMX combination operator (its targets
 * meshes) studiomdl makes, per control C: a controller C (0..1; -1..1 for two raw controls),
 * or right_C and left_C when C is stereo; per delta state D (its name split at '_' into raw
 * controls): the flex D, or DL and DR when a raw control's control is stereo, driven by the
 * product of its raw controls' values (a two-way control gives each raw control one side),
 * times (1 - product of dominators) for every domination rule whose suppressed controls D
 * holds. From DmeFlexRules it takes each control as a controller of type "default" with its
 * flexMin and flexMax, and each rule as a QC rule. A QC says the same with flexcontroller,
 * flex, flexpair and %rule lines; this file writes those lines in one canonical form
 * (rig_lower), and reads a QC back into a combination operator when its lines are exactly
 * that form (checked by writing them again), else into flex rules.
 *
 * Stereo: DMX splits a stereo delta state by the mesh's balance field (per vertex, the share
 * of the right flex); a QC flexpair splits by X over SPLIT units (studiomdl's smooth step on
 * the moved position). Where the balance is that step for one SPLIT, the two convert into
 * each other; elsewhere the shape is written as its two halves (NAMER, NAMEL), which
 * compiles to the same model, with a warning. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"
#include "qc/qc_internal.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"

/* ---- the rig as QC lines ---------------------------------------------------------------- */

typedef struct rctl {
	const char *group, *name;
	double min, max;
} rctl;

typedef struct rrule {
	const char *name;
	const char *expr;      /* NULL: a localvar line */
} rrule;

typedef struct rflex {
	const char *name;
	bool pair;
	double split;
	int32_t frame;
} rflex;

typedef struct rig {
	sm_owner *o;           /* everything below */
	smdmx_error *error;
	sm_vec ctls, rules, flexes;
} rig;

static bool rig_init(rig *g, const smdmx_scene *s, smdmx_error *error)
{
	memset(g, 0, sizeof(*g));
	sm_vec e = SM_VEC_INIT;
	g->ctls = g->rules = g->flexes = e;
	g->error = error;
	/* the scene's allocator, so that its hooks and limits hold here too */
	g->o = sm_owner_new(s->owner ? &s->owner->alloc.hooks : NULL, error);
	return g->o != NULL;
}

static void rig_free(rig *g)
{
	if (g->o) sm_owner_free(g->o);
	g->o = NULL;
}

static const char *rig_str(rig *g, const char *fmt, ...) SM_PRINTF(2, 3);
static const char *rig_str(rig *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s) {
		sm_fail_oom(g->error);
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	const char *d = sm_strdup(g->o, s, (size_t)n, g->error);
	free(s);
	return d;
}

static bool rig_ctl(rig *g, const char *group, const char *name, double mn, double mx)
{
	rctl *c = sm_vec_push(g->o, &g->ctls, sizeof(*c), g->error);
	if (!c) return false;
	c->group = group;
	c->name = name;
	c->min = mn;
	c->max = mx;
	return true;
}

static bool rig_rule(rig *g, const char *name, const char *expr)
{
	rrule *r = sm_vec_push(g->o, &g->rules, sizeof(*r), g->error);
	if (!r) return false;
	r->name = name;
	r->expr = expr;
	return true;
}

static bool rig_flex(rig *g, const char *name, bool pair, double split, int32_t frame)
{
	rflex *f = sm_vec_push(g->o, &g->flexes, sizeof(*f), g->error);
	if (!f) return false;
	f->name = name;
	f->pair = pair;
	f->split = split;
	f->frame = frame;
	return true;
}

/* An expression with its blanks taken out (not inside quotes): how two texts are compared. */
static void squeeze(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	bool quoted = false;
	for (; *s && n + 1 < cap; s++) {
		if (*s == '"') quoted = !quoted;
		if (quoted || (unsigned char)*s > 32) out[n++] = *s;
	}
	out[n] = 0;
}

/* A name as a rule's expression can read it: [A-Za-z_][A-Za-z0-9_]*, else quoted (studiomdl's
 * GetExprToken reads a quoted name whole). */
static bool identifier(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return false;
	return true;
}

/* A number as a QC writes it: the fewest digits that read back as the same float. */
static void fmt_num(double v, char *out)
{
	sm_format_shortest((float)v, out);
}

/* ---- the split of a flexpair (studiomdl's Option_Flex and vertex animation code) ----------- */

/* The share of the right flex (NAMER) at X for a flexpair of width split: 1 past -split, 0
 * past split, a smooth step between (RemapVertexAnimations: t = (split - x) / (2 split),
 * 3t^2 - 2t^3). A split of 0 is no split. */
static float pair_share(double split, double x)
{
	if (split == 0) return 1.0f;
	double t = (split - x) / (2.0 * split);
	if (t <= 0) return 0.0f;
	if (t >= 1) return 1.0f;
	return (float)(3.0 * t * t - 2.0 * t * t * t);
}

/* ---- unique shapes ----------------------------------------------------------------------- */

/* The scene's shape names, once each, in order of first appearance (the VTA's frames). */
typedef struct uname {
	const char *name;
	uint32_t first;        /* its first shape */
	bool stereo;           /* a raw control of a stereo control drives it */
	bool baked;            /* written as NAMER and NAMEL */
	double split;
	int32_t frame;         /* its VTA frame (the R half's when baked) */
} uname;

/* A shape name split at '_' into raw controls: the parts, each looked up in names. Returns
 * the count, 0 when a part is not a raw control (or too many parts). */
static size_t name_parts(const char *name, const char *const *raws, size_t nraw, uint32_t *out, size_t cap)
{
	size_t n = 0;
	const char *p = name;
	for (;;) {
		const char *e = strchr(p, '_');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t k = 0;
		while (k < nraw && !(strlen(raws[k]) == len && qc_same_nocase_n(raws[k], p, len))) k++;
		if (k == nraw || n == cap) return 0;
		out[n++] = (uint32_t)k;
		if (!e) break;
		p = e + 1;
	}
	return n;
}

/* The scene's raw controls in order (studiomdl's RebuildRawControlList), each with its control
 * and its place in it. */
typedef struct raws {
	const char **name;
	uint32_t *control, *local;
	size_t count;
} raws;

static bool raws_build(const smdmx_scene *s, raws *r, smdmx_error *error)
{
	size_t n = 0;
	for (size_t i = 0; i < s->flex_controller_count; i++) n += s->flex_controllers[i].raw_controls.count;
	r->count = 0;
	r->name = calloc(n + 1, sizeof(char *));
	r->control = calloc(n + 1, sizeof(uint32_t));
	r->local = calloc(n + 1, sizeof(uint32_t));
	if (!r->name || !r->control || !r->local) return sm_fail_oom(error);
	for (size_t i = 0; i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		for (size_t j = 0; j < c->raw_controls.count; j++) {
			size_t k = 0;
			while (k < r->count && strcmp(r->name[k], c->raw_controls.data[j])) k++;
			if (k < r->count) continue; /* studiomdl refuses a raw control twice: the first stays */
			r->name[r->count] = c->raw_controls.data[j];
			r->control[r->count] = (uint32_t)i;
			r->local[r->count] = (uint32_t)j;
			r->count++;
		}
	}
	return true;
}

static void raws_free(raws *r)
{
	free(r->name);
	free(r->control);
	free(r->local);
	memset(r, 0, sizeof(*r));
}

/* ---- lowering: scene to QC lines ----------------------------------------------------------- */

/* A raw control's value as a QC rule reads it, on one side of a stereo flex ('R', 'L') or
 * none (0). */
static const char *fetch(rig *g, const smdmx_scene *s, const raws *r, uint32_t raw, char side)
{
	const smdmx_flex_controller *c = &s->flex_controllers[r->control[raw]];
	const char *v = c->name;
	if (c->stereo) v = rig_str(g, "%s_%s", side == 'L' ? "left" : "right", c->name);
	if (!v) return NULL;
	if (!identifier(v)) v = rig_str(g, "\"%s\"", v);
	if (!v) return NULL;
	if (c->raw_controls.count == 2)
		return r->local[raw] == 0 ? rig_str(g, "min(max(-%s, 0), 1)", v) : rig_str(g, "min(max(%s, 0), 1)", v);
	return v;
}

/* The rule of delta state d (its raw controls parts) on one side: the product of its raw
 * controls, times (1 - product of the dominators) of each domination rule it falls under. */
static const char *combination_expr(rig *g, const smdmx_scene *s, const raws *r, const uint32_t *parts, size_t n, char side)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = true;
#define APPEND(str)                                                                                                    \
	do {                                                                                                               \
		const char *a_ = (str);                                                                                        \
		size_t l_ = a_ ? strlen(a_) : 0;                                                                               \
		if (!a_ || len + l_ + 1 > cap) {                                                                               \
			size_t c_ = cap ? cap * 2 : 128;                                                                           \
			while (c_ < len + l_ + 1) c_ *= 2;                                                                         \
			char *b_ = a_ ? realloc(buf, c_) : NULL;                                                                   \
			if (!b_) {                                                                                                 \
				ok = false;                                                                                            \
				break;                                                                                                 \
			}                                                                                                          \
			buf = b_;                                                                                                  \
			cap = c_;                                                                                                  \
		}                                                                                                              \
		memcpy(buf + len, a_, l_ + 1);                                                                                 \
		len += l_;                                                                                                     \
	} while (0)
	for (size_t i = 0; ok && i < n; i++) {
		if (i) APPEND(" * ");
		APPEND(fetch(g, s, r, parts[i], side));
	}
	for (size_t d = 0; ok && d < s->domination_rule_count; d++) {
		const smdmx_domination_rule *dr = &s->domination_rules[d];
		if (!dr->dominators.count || !dr->suppressed.count) continue;
		bool applies = true, known = true;
		for (size_t k = 0; k < dr->suppressed.count && applies; k++) {
			bool in = false;
			for (size_t i = 0; i < n; i++) in = in || !strcmp(r->name[parts[i]], dr->suppressed.data[k]);
			size_t x = 0;
			while (x < r->count && strcmp(r->name[x], dr->suppressed.data[k])) x++;
			known = known && x < r->count;
			applies = in;
		}
		uint32_t dom[64];
		size_t nd = 0;
		for (size_t k = 0; k < dr->dominators.count && known; k++) {
			size_t x = 0;
			while (x < r->count && strcmp(r->name[x], dr->dominators.data[k])) x++;
			known = x < r->count && nd < 64;
			if (known) dom[nd++] = (uint32_t)x;
		}
		if (!applies || !known) continue;
		APPEND(" * (1 - ");
		for (size_t k = 0; ok && k < nd; k++) {
			if (k) APPEND(" * ");
			APPEND(fetch(g, s, r, dom[k], side));
		}
		APPEND(")");
	}
#undef APPEND
	if (!ok) {
		free(buf);
		if (!g->error->code) sm_fail_oom(g->error);
		return NULL;
	}
	const char *out = sm_strdup(g->o, buf ? buf : "", len, g->error);
	free(buf);
	return out;
}

/* The QC lines of a scene's rig, its shapes as us says (stereo, baked, frames). */
static bool rig_lower(rig *g, const smdmx_scene *s, const uname *us, size_t nu, smdmx_warnings *w)
{
	raws r;
	memset(&r, 0, sizeof(r));
	if (!raws_build(s, &r, g->error)) {
		raws_free(&r);
		return false;
	}
	bool ok = true;
	bool rules_mode = s->flex_rule_count > 0;
	/* flex and flexpair lines */
	for (size_t i = 0; ok && i < nu; i++) {
		if (us[i].baked) {
			const char *rn = rig_str(g, "%sR", us[i].name), *ln = rig_str(g, "%sL", us[i].name);
			ok = rn && ln && rig_flex(g, rn, false, 0, us[i].frame) && rig_flex(g, ln, false, 0, us[i].frame + 1);
		} else {
			ok = rig_flex(g, us[i].name, us[i].stereo, us[i].split, us[i].frame);
		}
	}
	if (rules_mode) {
		/* Controls are controllers of type "default"; rules are rules (AddCombination with
		 * DmeFlexRules). A rule's flex must exist in a QC: a localvar declares one. */
		size_t raw_lost = 0;
		const smdmx_flex_controller *first_lost = NULL;
		for (size_t i = 0; ok && i < s->flex_controller_count; i++) {
			const smdmx_flex_controller *c = &s->flex_controllers[i];
			ok = rig_ctl(g, "default", c->name, c->min, c->max);
			/* its raw controls have no QC form: the rules drive the shapes */
			if (c->raw_controls.count && !(c->raw_controls.count == 1 && !strcmp(c->raw_controls.data[0], c->name)) && !raw_lost++)
				first_lost = c;
		}
		if (raw_lost)
			sm_warn_n(w, SMDMX_WARNING_QC_LOST_CONTROLS, raw_lost, 0, 0,
			          "flex control '%s': beside flex rules a QC keeps a control's name and range, not its raw controls (%zu of "
			          "them): left out, as studiomdl drives the shapes by the rules; nothing to do",
			          first_lost->name, first_lost->raw_controls.count);
		for (size_t i = 0; ok && i < s->flex_rule_count; i++) {
			const smdmx_flex_rule *fr = &s->flex_rules[i];
			bool flex = false;
			for (size_t k = 0; k < nu && !flex; k++) {
				size_t l = strlen(us[k].name);
				bool half = strlen(fr->name) == l + 1 && !strncmp(fr->name, us[k].name, l) &&
				            (fr->name[l] == 'R' || fr->name[l] == 'L');
				flex = us[k].stereo || us[k].baked ? half : !strcmp(us[k].name, fr->name);
			}
			if (fr->kind == SMDMX_FLEX_RULE_LOCAL_VAR || !flex) {
				bool declared = false;
				const rrule *rr = g->rules.data;
				for (size_t k = 0; k < g->rules.count && !declared; k++) declared = !rr[k].expr && !strcmp(rr[k].name, fr->name);
				if (!declared) ok = rig_rule(g, fr->name, NULL);
			}
			if (ok && fr->kind != SMDMX_FLEX_RULE_LOCAL_VAR) {
				const char *e = fr->expression;
				if (fr->kind == SMDMX_FLEX_RULE_PASS_THROUGH) e = identifier(fr->name) ? fr->name : rig_str(g, "\"%s\"", fr->name);
				ok = e && rig_rule(g, fr->name, e);
			}
		}
		if (ok && s->domination_rule_count)
			sm_warn_n(w, SMDMX_WARNING_QC_LOST_CONTROLS, s->domination_rule_count, 0, 0,
			          "domination rules: left out, as studiomdl does not use them beside flex rules; nothing to do");
		raws_free(&r);
		return ok;
	}
	/* A combination operator. Controllers, per control. */
	for (size_t i = 0; ok && i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		size_t nraw = c->raw_controls.count;
		if (c->eyelid || nraw > 2) {
			sm_warn(w, SMDMX_WARNING_QC_LOST_CONTROLS, 0, 0,
			        "flex control '%s': a QC has no form for studiomdl's %s control: left out, and its shapes are driven by "
			        "nothing; compile from the DMX to keep it",
			        c->name,
			        c->eyelid ? "eyelid" : "multi-way");
			continue;
		}
		double mn = nraw == 2 ? -1 : 0, mx = 1;
		if (c->min != (float)mn || c->max != (float)mx) {
			char a[SM_FLOAT_MAX], b[SM_FLOAT_MAX];
			fmt_num(c->min, a);
			fmt_num(c->max, b);
			sm_warn(w, SMDMX_WARNING_QC_LOST_CONTROLS, 0, 0,
			        "flex control '%s': its range %s..%s is not what studiomdl makes of it (%g..%g), and the QC says %g..%g, "
			        "the model studiomdl compiles; nothing to do",
			        c->name, a,
			        b, mn, mx, mn, mx);
		}
		if (c->stereo) {
			const char *rn = rig_str(g, "right_%s", c->name), *ln = rig_str(g, "left_%s", c->name);
			ok = rn && ln && rig_ctl(g, rn, rn, mn, mx) && rig_ctl(g, ln, ln, mn, mx);
		} else {
			ok = rig_ctl(g, c->name, c->name, mn, mx);
		}
		for (size_t k = 0; k < c->wrinkle_scales.count; k++) {
			if (c->wrinkle_scales.data[k] != 0) {
				sm_warn(w, SMDMX_WARNING_QC_LOST_CONTROLS, 0, 0, "flex control '%s': wrinkle scales left out (a QC has none); compile from the DMX "
				        "to keep them", c->name);
				break;
			}
		}
	}
	/* Rules, per delta state. */
	for (size_t i = 0; ok && i < nu; i++) {
		uint32_t parts[64];
		size_t n = name_parts(us[i].name, r.name, r.count, parts, 64);
		bool drivable = n > 0;
		for (size_t k = 0; k < n && drivable; k++) {
			const smdmx_flex_controller *c = &s->flex_controllers[r.control[parts[k]]];
			drivable = !c->eyelid && c->raw_controls.count <= 2;
		}
		if (!drivable) {
			if (n == 0)
				sm_warn(w, SMDMX_WARNING_QC_UNDRIVEN, 0, 0,
				        "flex '%s' is driven by nothing: no control has it, or its name splits at '_' into names that are not all "
				        "raw controls (studiomdl reads '_' as a corrective), so the QC drives it with nothing either; give it a "
				        "control in the source if it should move",
				        us[i].name);
			continue;
		}
		if (us[i].stereo) {
			const char *l = combination_expr(g, s, &r, parts, n, 'L'), *rr = combination_expr(g, s, &r, parts, n, 'R');
			const char *ln = rig_str(g, "%sL", us[i].name), *rn = rig_str(g, "%sR", us[i].name);
			ok = l && rr && ln && rn && rig_rule(g, ln, l) && rig_rule(g, rn, rr);
		} else {
			const char *e = combination_expr(g, s, &r, parts, n, 0);
			ok = e && rig_rule(g, us[i].name, e);
		}
	}
	raws_free(&r);
	return ok;
}

/* ---- stereo and splits --------------------------------------------------------------------- */

/* Whether studiomdl splits the delta state: a raw control of its name belongs to a stereo
 * control (IsDeltaStateStereo). */
static bool name_stereo(const smdmx_scene *s, const raws *r, const char *name)
{
	uint32_t parts[64];
	size_t n = name_parts(name, r->name, r->count, parts, 64);
	for (size_t k = 0; k < n; k++)
		if (s->flex_controllers[r->control[parts[k]]].stereo) return true;
	return false;
}

/* The split whose step gives every corner of the mesh its balance exactly, tried with the
 * fewest significant digits first; false when none does. */
static bool fit_split(const smdmx_mesh *m, double *out)
{
	if (!m->balance.indices) return false;
	double guess = 0;
	bool have = false;
	double minabs = INFINITY;
	int side = 0; /* +1: balance 1 on -X (split > 0); -1: on +X */
	for (size_t c = 0; c < m->corner_count; c++) {
		float b = m->balance.data[m->balance.indices[c]];
		double x = m->positions[m->position_indices[c]][0];
		if (b > 0 && b < 1 && !have && x != 0) {
			/* invert 3t^2 - 2t^3 = b */
			double lo = 0, hi = 1;
			for (int it = 0; it < 80; it++) {
				double t = (lo + hi) / 2;
				if (3 * t * t - 2 * t * t * t < b) lo = t;
				else hi = t;
			}
			double t = (lo + hi) / 2;
			if (fabs(1 - 2 * t) > 1e-9) {
				guess = x / (1 - 2 * t);
				have = true;
			}
		}
		if ((b == 0 || b == 1) && fabs(x) < minabs) minabs = fabs(x);
		if ((b == 1 && x < 0) || (b == 0 && x > 0)) side = side == -1 ? 2 : 1;
		if ((b == 1 && x > 0) || (b == 0 && x < 0)) side = side == 1 ? 2 : -1;
	}
	if (!have) {
		/* All corners at 0 or 1: any split below the nearest |x| does it. */
		if (side != 1 && side != -1) return false;
		if (!(minabs > 0) || !isfinite(minabs)) return false;
		guess = side * pow(10, floor(log10(minabs)));
		if (fabs(guess) > minabs) guess /= 10;
	}
	if (!isfinite(guess) || guess == 0) return false;
	for (int digits = 1; digits <= 18; digits++) {
		char text[64];
		snprintf(text, sizeof(text), "%.*g", digits, guess);
		double s = strtod(text, NULL);
		if (s == 0) continue;
		bool all = true;
		for (size_t c = 0; c < m->corner_count && all; c++)
			all = pair_share(s, m->positions[m->position_indices[c]][0]) == m->balance.data[m->balance.indices[c]];
		if (all) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* Whether studiomdl's split of a flexpair, which steps on each moved position, equals the
 * split by the base positions for this shape. */
static bool split_holds(const smdmx_scene *s, const smdmx_flex_shape *sh, double split)
{
	const smdmx_mesh *m = &s->meshes[sh->mesh];
	for (size_t k = 0; k < sh->position_count; k++) {
		double x = m->positions[sh->position_indices[k]][0];
		if (pair_share(split, x) != pair_share(split, x + (double)sh->position_deltas[k][0])) return false;
	}
	return true;
}

/* Balance of a mesh corner (1 when the mesh has none: studiomdl's default). */
static float corner_balance(const smdmx_mesh *m, size_t c)
{
	return m->balance.indices ? m->balance.data[m->balance.indices[c]] : 1.0f;
}

/* ---- scene edits ----------------------------------------------------------------------------- */

/* A copy of a shape with its deltas scaled by share[position] (NULL: 1). Normal deltas take
 * the share of their first corner's position. */
/* Each position's place: the first position of the mesh at the same coordinates (bit for
 * bit), so that positions a VTA cannot tell apart share one number. NULL when out of memory. */
typedef struct placed {
	smdmx_vec3 at;
	uint32_t index;
} placed;

static int cmp_placed(const void *a, const void *b)
{
	const placed *x = a, *y = b;
	int c = memcmp(x->at, y->at, sizeof(smdmx_vec3));
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

static uint32_t *position_places(const smdmx_mesh *m)
{
	placed *order = malloc((m->position_count + 1) * sizeof(placed));
	uint32_t *place = malloc((m->position_count + 1) * sizeof(uint32_t));
	if (!order || !place) {
		free(order);
		free(place);
		return NULL;
	}
	for (size_t p = 0; p < m->position_count; p++) {
		memcpy(order[p].at, m->positions[p], sizeof(smdmx_vec3));
		order[p].index = (uint32_t)p;
	}
	qsort(order, m->position_count, sizeof(placed), cmp_placed);
	for (size_t i = 0; i < m->position_count; i++) {
		bool same = i && !memcmp(order[i].at, order[i - 1].at, sizeof(smdmx_vec3));
		place[order[i].index] = same ? place[order[i - 1].index] : order[i].index;
	}
	free(order);
	return place;
}

static bool shape_scaled(sm_owner *o, const smdmx_scene *s, const smdmx_flex_shape *src, const char *name,
                         const float *share, bool complement, smdmx_flex_shape *out, smdmx_error *error)
{
	*out = *src;
	out->name = sm_strdup(o, name, strlen(name), error);
	if (!out->name) return false;
	out->corrective = false;
	out->position_indices = sm_owned_alloc(o, src->position_count * sizeof(uint32_t) + 1, error);
	out->position_deltas = sm_owned_alloc(o, src->position_count * sizeof(smdmx_vec3) + 1, error);
	out->normal_indices = sm_owned_alloc(o, src->normal_count * sizeof(uint32_t) + 1, error);
	out->normal_deltas = sm_owned_alloc(o, src->normal_count * sizeof(smdmx_vec3) + 1, error);
	if (!out->position_indices || !out->position_deltas || !out->normal_indices || !out->normal_deltas) return false;
	const smdmx_mesh *m = &s->meshes[src->mesh];
	size_t np = 0, nn = 0;
	/* The second half is the whole less the first, so that the two add back to the whole. */
	for (size_t k = 0; k < src->position_count; k++) {
		float f = share ? share[src->position_indices[k]] : 1.0f;
		if ((complement ? 1.0f - f : f) == 0) continue;
		out->position_indices[np] = src->position_indices[k];
		for (int i = 0; i < 3; i++) {
			float d = src->position_deltas[k][i], half = d * f;
			out->position_deltas[np][i] = complement ? d - half : half;
		}
		np++;
	}
	/* normals: the share of the first corner on that normal */
	uint32_t *corner_of = NULL;
	if (share && m->normal_indices && src->normal_count) {
		corner_of = malloc((m->normal_count + 1) * sizeof(uint32_t));
		if (!corner_of) return sm_fail_oom(error);
		for (size_t x = 0; x < m->normal_count; x++) corner_of[x] = SMDMX_NONE;
		for (size_t c = m->corner_count; c-- > 0;) corner_of[m->normal_indices[c]] = (uint32_t)c;
	}
	for (size_t k = 0; k < src->normal_count; k++) {
		float f = 1.0f;
		uint32_t c = corner_of ? corner_of[src->normal_indices[k]] : SMDMX_NONE;
		if (c != SMDMX_NONE) f = share[m->position_indices[c]];
		if ((complement ? 1.0f - f : f) == 0) continue;
		out->normal_indices[nn] = src->normal_indices[k];
		for (int i = 0; i < 3; i++) {
			float d = src->normal_deltas[k][i], half = d * f;
			out->normal_deltas[nn][i] = complement ? d - half : half;
		}
		nn++;
	}
	free(corner_of);
	out->position_count = np;
	out->normal_count = nn;
	out->wrinkle_count = 0;
	out->wrinkle_indices = NULL;
	out->wrinkle_deltas = NULL;
	return true;
}

/* ---- public: scene to QC --------------------------------------------------------------------- */

static bool appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...) SM_PRINTF(4, 5);
static bool appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) return false;
	if (*len + (size_t)n + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		while (c < *len + (size_t)n + 1) c *= 2;
		char *b = realloc(*buf, c);
		if (!b) return false;
		*buf = b;
		*cap = c;
	}
	va_start(ap, fmt);
	vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
	return true;
}

static bool needs_quotes(const char *s)
{
	if (!*s) return true;
	for (; *s; s++)
		if ((unsigned char)*s <= 32 || *s == ';' || *s == '#' || *s == '"' || *s == '{' || *s == '}' || *s == '/') return true;
	return false;
}

/* The rig's lines as text, one per line, indented by a tab. */
static char *rig_text(const rig *g, const char *vta, bool with_flex)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = appendf(&buf, &len, &cap, "%s", "");
	char a[SM_FLOAT_MAX], b[SM_FLOAT_MAX];
	if (with_flex && vta) ok = ok && appendf(&buf, &len, &cap, "\tflexfile \"%s\"\n", vta);
	const rflex *fl = g->flexes.data;
	for (size_t i = 0; ok && with_flex && i < g->flexes.count; i++) {
		const char *q = needs_quotes(fl[i].name) ? "\"" : "";
		if (fl[i].pair) {
			fmt_num(fl[i].split, a);
			ok = appendf(&buf, &len, &cap, "\tflexpair %s%s%s %s frame %d\n", q, fl[i].name, q, a, (int)fl[i].frame);
		} else {
			ok = appendf(&buf, &len, &cap, "\tflex %s%s%s frame %d\n", q, fl[i].name, q, (int)fl[i].frame);
		}
	}
	const rctl *c = g->ctls.data;
	for (size_t i = 0; ok && i < g->ctls.count; i++) {
		fmt_num(c[i].min, a);
		fmt_num(c[i].max, b);
		const char *q = needs_quotes(c[i].name) ? "\"" : "";
		const char *qg = needs_quotes(c[i].group) ? "\"" : "";
		ok = appendf(&buf, &len, &cap, "\tflexcontroller %s%s%s range %s %s %s%s%s\n", qg, c[i].group, qg, a, b, q, c[i].name, q);
	}
	const rrule *r = g->rules.data;
	for (size_t i = 0; ok && i < g->rules.count; i++) {
		bool plain = identifier(r[i].name);
		if (!r[i].expr) ok = appendf(&buf, &len, &cap, "\tlocalvar %s%s%s\n", plain ? "" : "\"", r[i].name, plain ? "" : "\"");
		else if (plain) ok = appendf(&buf, &len, &cap, "\t%%%s = %s\n", r[i].name, r[i].expr);
		else ok = appendf(&buf, &len, &cap, "\t\"%%%s\" = %s\n", r[i].name, r[i].expr);
	}
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Degrees of a quaternion as a QC's "rotate PITCH YAW ROLL" (QAngle: pitch about Y, yaw
 * about Z, roll about X; the matrix is Rz(yaw) Ry(pitch) Rx(roll), decision 1). */
static void quat_to_qangle(const float q[4], double out[3])
{
	double qd[4] = { q[0], q[1], q[2], q[3] }, e[3];
	smdmx_quat_to_euler(qd, NULL, e);
	const double d = 180.0 / 3.14159265358979323846;
	out[0] = e[1] * d;
	out[1] = e[2] * d;
	out[2] = e[0] * d;
	for (int i = 0; i < 3; i++)
		if (out[i] == 0) out[i] = 0; /* no "-0" */
}

static void fmt_angle(double v, char *out)
{
	sm_format_shortest((float)v, out);
}

static char *attachment_text(const smdmx_scene *s, smdmx_warnings *w)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = appendf(&buf, &len, &cap, "%s", "");
	size_t rootless = 0;
	for (size_t i = 0; ok && i < s->attachment_count; i++) {
		const smdmx_attachment *a = &s->attachments[i];
		if (a->parent_joint == SMDMX_NONE) {
			rootless++;
			continue;
		}
		char p[3][SM_FLOAT_MAX], r[3][SM_FLOAT_MAX];
		for (int k = 0; k < 3; k++) fmt_num(a->transform.position[k], p[k]);
		double ang[3];
		quat_to_qangle(a->transform.orientation, ang);
		for (int k = 0; k < 3; k++) fmt_angle(ang[k], r[k]);
		bool rot = ang[0] != 0 || ang[1] != 0 || ang[2] != 0;
		ok = appendf(&buf, &len, &cap, "$attachment \"%s\" \"%s\" %s %s %s", a->name, s->joints[a->parent_joint].name, p[0], p[1],
		             p[2]);
		if (ok && rot) ok = appendf(&buf, &len, &cap, " rotate %s %s %s", r[0], r[1], r[2]);
		if (ok && a->rigid) ok = appendf(&buf, &len, &cap, " rigid");
		if (ok && a->world_aligned) ok = appendf(&buf, &len, &cap, " world_align");
		ok = ok && appendf(&buf, &len, &cap, "\n");
	}
	if (rootless)
		sm_warn_n(w, SMDMX_WARNING_QC_LOST_ATTACHMENTS, rootless, 0, 0,
		          "attachments on the model itself, not on a bone: left out, as a QC's $attachment needs a bone; put "
		          "them on a bone in the source to keep them");
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The unique shape names with their stereo split decided; stereo shapes whose split a QC
 * cannot say are cut into halves in the scene (NAMER, NAMEL). */
static bool decide_stereo(smdmx_scene *s, uname **out, size_t *count, smdmx_error *error, smdmx_warnings *w)
{
	raws r;
	memset(&r, 0, sizeof(r));
	size_t n = s->flex_shape_count;
	uname *us = calloc(n + 1, sizeof(uname));
	if (!us || !raws_build(s, &r, error)) {
		free(us);
		raws_free(&r);
		return sm_fail_oom(error);
	}
	size_t nu = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nu && strcmp(us[k].name, s->flex_shapes[i].name)) k++;
		if (k < nu) continue;
		us[nu].name = s->flex_shapes[i].name;
		us[nu].first = (uint32_t)i;
		us[nu].stereo = name_stereo(s, &r, us[nu].name);
		nu++;
	}
	raws_free(&r);
	/* The split of each mesh's balance. */
	double *split = calloc(s->mesh_count + 1, sizeof(double));
	bool *fits = calloc(s->mesh_count + 1, sizeof(bool));
	if (!split || !fits) {
		free(us);
		free(split);
		free(fits);
		return sm_fail_oom(error);
	}
	for (size_t m = 0; m < s->mesh_count; m++) fits[m] = fit_split(&s->meshes[m], &split[m]);
	size_t baked = 0, extra = 0;
	for (size_t u = 0; u < nu; u++) {
		if (!us[u].stereo) continue;
		double sp = 0;
		bool ok = true, have = false;
		for (size_t i = 0; i < n && ok; i++) {
			const smdmx_flex_shape *sh = &s->flex_shapes[i];
			if (strcmp(sh->name, us[u].name)) continue;
			if (!fits[sh->mesh]) ok = false;
			else if (have && split[sh->mesh] != sp) ok = false;
			else {
				sp = split[sh->mesh];
				have = true;
				ok = split_holds(s, sh, sp);
			}
		}
		if (ok && have) {
			us[u].split = sp;
			continue;
		}
		us[u].baked = true;
		baked++;
	}
	/* Cut the baked ones: each shape S becomes S+"R" (its balance share) then S+"L". */
	for (size_t u = 0; u < nu && baked; u++) {
		if (!us[u].baked) continue;
		for (size_t v = 0; v < nu; v++) {
			size_t l = strlen(us[u].name);
			const char *x = us[v].name;
			if (strlen(x) == l + 1 && !strncmp(x, us[u].name, l) && (x[l] == 'R' || x[l] == 'L')) {
				sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "stereo shape '%s' must be written as two shapes, but a shape '%s' exists",
				        us[u].name, x);
				free(us);
				free(split);
				free(fits);
				return false;
			}
		}
	}
	if (baked) {
		size_t halves = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t u = 0; u < nu; u++)
				if (us[u].baked && !strcmp(s->flex_shapes[i].name, us[u].name)) halves++;
		smdmx_flex_shape *ns = sm_owned_calloc(s->owner, n + halves + 1, sizeof(smdmx_flex_shape), error);
		bool ok = ns != NULL;
		size_t k = 0;
		for (size_t i = 0; ok && i < n; i++) {
			const smdmx_flex_shape *sh = &s->flex_shapes[i];
			bool cut = false;
			for (size_t u = 0; u < nu && !cut; u++) cut = us[u].baked && !strcmp(sh->name, us[u].name);
			if (!cut) {
				ns[k++] = *sh;
				continue;
			}
			const smdmx_mesh *m = &s->meshes[sh->mesh];
			float *share = malloc((m->position_count + 1) * sizeof(float));
			if (!share) {
				ok = sm_fail_oom(error);
				break;
			}
			/* One share for every corner at one place: a VTA is read back by position, so
			 * corners there that took different shares would all come back with one of them
			 * and the halves would no longer add up to the shape. */
			uint32_t *place = position_places(m);
			if (!place) {
				free(share);
				ok = sm_fail_oom(error);
				break;
			}
			float *by_place = share; /* places are numbered below position_count */
			for (size_t p = 0; p < m->position_count; p++) by_place[p] = -1.0f;
			for (size_t c = m->corner_count; c-- > 0;) by_place[place[m->position_indices[c]]] = corner_balance(m, c);
			size_t disagree = 0;
			for (size_t c = 0; c < m->corner_count; c++) disagree += by_place[place[m->position_indices[c]]] != corner_balance(m, c);
			float *per_position = malloc((m->position_count + 1) * sizeof(float));
			if (!per_position) {
				free(place);
				free(share);
				ok = sm_fail_oom(error);
				break;
			}
			for (size_t p = 0; p < m->position_count; p++) {
				float b = by_place[place[p]];
				per_position[p] = b < 0 ? 1.0f : b;
			}
			free(place);
			free(share);
			share = per_position;
			if (disagree)
				sm_warn_n(w, SMDMX_WARNING_QC_PAIR_CUT, disagree, 0, 0,
				          "corners at one place with other balances: each takes the first corner's there, as a VTA moves a place "
				          "one way (the halves still add up to the shape); nothing to do unless a seam shows there");
			size_t nl = strlen(sh->name);
			char *nm = malloc(nl + 2);
			if (!nm) {
				free(share);
				ok = sm_fail_oom(error);
				break;
			}
			memcpy(nm, sh->name, nl);
			nm[nl] = 'R';
			nm[nl + 1] = 0;
			ok = shape_scaled(s->owner, s, sh, nm, share, false, &ns[k++], error);
			nm[nl] = 'L';
			ok = ok && shape_scaled(s->owner, s, sh, nm, share, true, &ns[k++], error);
			free(nm);
			free(share);
		}
		if (!ok) {
			free(us);
			free(split);
			free(fits);
			return false;
		}
		s->flex_shapes = ns;
		s->flex_shape_count = k;
		extra = halves;
		for (size_t u = 0; u < nu; u++)
			if (us[u].baked)
				sm_warn(w, SMDMX_WARNING_QC_PAIR_CUT, 0, 0,
				        "stereo shape '%s' written as two shapes '%sR' and '%sL', the same model: its balance is not a split "
				        "a flexpair can say; nothing to do",
				        us[u].name, us[u].name, us[u].name);
	}
	(void)extra;
	/* Frames in the VTA writer's order: names by first appearance. */
	int32_t frame = 1;
	for (size_t u = 0; u < nu; u++) {
		us[u].frame = frame;
		frame += us[u].baked ? 2 : 1;
	}
	free(split);
	free(fits);
	*out = us;
	*count = nu;
	return true;
}

bool smdmx_qc_from_scene(smdmx_scene *scene, const char *vta_name, char **model_lines, char **attachment_lines,
                         smdmx_error *error, smdmx_warnings *warnings)
{
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	*model_lines = NULL;
	if (attachment_lines) *attachment_lines = NULL;
	/* Shapes without any controller (an SMD and its VTA): one plain control each, as a DMX
	 * written from them has (the DMX writer makes the same). */
	smdmx_flex_controller *plain = NULL;
	const char **plain_raw = NULL;
	if (!scene->flex_controller_count && scene->flex_shape_count) {
		plain = calloc(scene->flex_shape_count, sizeof(*plain));
		plain_raw = calloc(scene->flex_shape_count, sizeof(char *));
		if (!plain || !plain_raw) {
			free(plain);
			free(plain_raw);
			return sm_fail_oom(error);
		}
		size_t n = 0;
		for (size_t i = 0; i < scene->flex_shape_count; i++) {
			const smdmx_flex_shape *sh = &scene->flex_shapes[i];
			bool first = true;
			for (size_t k = 0; k < i && first; k++) first = strcmp(scene->flex_shapes[k].name, sh->name) != 0;
			if (sh->corrective || !first) continue;
			plain_raw[n] = sh->name;
			plain[n] = (smdmx_flex_controller){ sh->name, { &plain_raw[n], 1 }, false, false, 0, 1, { NULL, 0 } };
			n++;
		}
		scene->flex_controllers = plain;
		scene->flex_controller_count = n;
	}
	uname *us = NULL;
	size_t nu = 0;
	bool ok = decide_stereo(scene, &us, &nu, error, warnings);
	rig g;
	memset(&g, 0, sizeof(g));
	ok = ok && rig_init(&g, scene, error) && rig_lower(&g, scene, us, nu, warnings);
	free(us);
	if (plain) {
		scene->flex_controllers = NULL;
		scene->flex_controller_count = 0;
	}
	if (ok) {
		*model_lines = rig_text(&g, vta_name, scene->flex_shape_count > 0);
		ok = *model_lines != NULL || sm_fail_oom(error);
	}
	rig_free(&g);
	free(plain);
	free(plain_raw);
	if (ok && attachment_lines) {
		*attachment_lines = attachment_text(scene, warnings);
		ok = *attachment_lines != NULL || sm_fail_oom(error);
	}
	if (!ok) {
		free(*model_lines);
		*model_lines = NULL;
	}
	return ok;
}

void smdmx_qc_text_free(char *text)
{
	free(text);
}

/* ---- lifting: QC lines to the scene ---------------------------------------------------------- */

uint32_t smdmx_qc_model_vta(const smdmx_qc *qc, uint32_t model, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	const smdmx_qc_model *m = &qc->models[model];
	uint32_t vta = SMDMX_NONE;
	for (size_t i = 0; i < m->flex_count; i++) {
		const smdmx_qc_flex *f = &m->flexes[i];
		if (f->vta == SMDMX_NONE) {
			sm_fail(error, SMDMX_ERROR_SYNTAX, f->pos.line, f->pos.column, "a flex line before any flexfile");
			qc_error_file(qc, f->pos.file, error);
			return SMDMX_NONE;
		}
		if (vta != SMDMX_NONE && strcmp(qc->refs[vta].path, qc->refs[f->vta].path)) {
			sm_fail(error, SMDMX_ERROR_USAGE, f->pos.line, f->pos.column,
			        "$model '%s' reads flexes from two VTAs ('%s', '%s'): smdmx carries one VTA per $model", m->name,
			        qc->refs[vta].name, qc->refs[f->vta].name);
			qc_error_file(qc, f->pos.file, error);
			return SMDMX_NONE;
		}
		vta = f->vta;
	}
	return vta;
}

static bool qfail(const smdmx_qc *qc, smdmx_qc_pos pos, smdmx_error *error, smdmx_error_code code, const char *fmt, ...)
    SM_PRINTF(5, 6);
static bool qfail(const smdmx_qc *qc, smdmx_qc_pos pos, smdmx_error *error, smdmx_error_code code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sm_fail(error, code, pos.line, pos.column, "%s", msg);
	qc_error_file(qc, pos.file, error);
	return false;
}

/* A shape (the frame's) made into a flex: scaled by the split share on its moved positions
 * (complement: the left half). */
static bool shape_from_frame(smdmx_scene *s, const smdmx_flex_shape *src, const char *name, double split, int half,
                             smdmx_flex_shape *out, smdmx_error *error)
{
	const smdmx_mesh *m = &s->meshes[src->mesh];
	float *share = NULL;
	if (split != 0) {
		share = malloc((m->position_count + 1) * sizeof(float));
		if (!share) return sm_fail_oom(error);
		for (size_t p = 0; p < m->position_count; p++) share[p] = pair_share(split, m->positions[p][0]);
		/* studiomdl steps on each moved position */
		for (size_t k = 0; k < src->position_count; k++) {
			uint32_t p = src->position_indices[k];
			share[p] = pair_share(split, (double)m->positions[p][0] + src->position_deltas[k][0]);
		}
	}
	bool ok = shape_scaled(s->owner, s, src, name, share, half == 'L', out, error);
	free(share);
	return ok;
}

/* A factor of a canonical rule: a controller's value (sign 0), one side of it (-1, +1), or
 * a dominator group "(1 - a * b)". */
typedef struct factor {
	char name[128];
	int sign;
	bool group;
	size_t first, count;   /* a group's fetches in the list */
} factor;

/* Splits squeezed text at top-level '*' into factors (groups' fetches appended after). */
static bool parse_factors(const char *t, factor *out, size_t cap, size_t *count)
{
	size_t n = 0;
	const char *p = t;
	while (*p) {
		const char *e = p;
		int depth = 0;
		bool quoted = false;
		while (*e && !(depth == 0 && !quoted && *e == '*')) {
			if (*e == '"') quoted = !quoted;
			if (!quoted && *e == '(') depth++;
			if (!quoted && *e == ')') depth--;
			e++;
		}
		size_t len = (size_t)(e - p);
		if (n == cap || len == 0 || len >= 127) return false;
		factor *f = &out[n++];
		memset(f, 0, sizeof(*f));
		if (len > 5 && !strncmp(p, "(1-", 3) && p[len - 1] == ')') {
			char inner[128];
			memcpy(inner, p + 3, len - 4);
			inner[len - 4] = 0;
			size_t k = 0;
			if (!parse_factors(inner, out + n, cap - n, &k)) return false;
			for (size_t i = 0; i < k; i++)
				if (out[n + i].group) return false;
			f->group = true;
			f->first = n;
			f->count = k;
			n += k;
		} else if (len > 14 && !strncmp(p, "min(max(", 8) && !strncmp(p + len - 6, ",0),1)", 6)) {
			const char *v = p + 8;
			size_t vl = len - 8 - 6;
			f->sign = 1;
			if (*v == '-') {
				f->sign = -1;
				v++;
				vl--;
			}
			if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"') {
				v++;
				vl -= 2;
			}
			if (!vl) return false;
			memcpy(f->name, v, vl);
			f->name[vl] = 0;
		} else if (len >= 2 && p[0] == '"' && p[len - 1] == '"') {
			memcpy(f->name, p + 1, len - 2);
			f->name[len - 2] = 0;
		} else {
			for (size_t i = 0; i < len; i++)
				if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
					return false;
			memcpy(f->name, p, len);
			f->name[len] = 0;
		}
		p = *e ? e + 1 : e;
	}
	*count = n;
	return true;
}

/* The lifted shapes: names, stereo, splits, frames. */
typedef struct lshape {
	const char *name;
	bool stereo;
	double split;
	int32_t frame;
} lshape;

/* Tries the QC's controllers and rules as a combination operator: the candidate is written
 * back with rig_lower and must give the QC's lines. */
static bool try_combination(smdmx_scene *s, const smdmx_qc_model *m, const lshape *ls, size_t nls, bool *accepted,
                            smdmx_error *error)
{
	*accepted = false;
	for (size_t i = 0; i < m->rule_count; i++)
		if (!m->rules[i].expression) return true; /* a localvar: flex rules */
	for (size_t i = 0; i < m->controller_count; i++)
		if (strcmp(m->controllers[i].group, m->controllers[i].name)) return true;
	size_t nc = m->controller_count;
	/* Controls: a right_X used by a stereo shape with its left_X is one stereo control X. */
	smdmx_flex_controller *cc = sm_owned_calloc(s->owner, nc + 1, sizeof(*cc), error);
	uint32_t *ctl_of = calloc(nc + 1, sizeof(uint32_t)); /* controller -> control */
	char *paired = calloc(nc + 1, 1);
	if (!cc || !ctl_of || !paired) {
		free(ctl_of);
		free(paired);
		return sm_fail_oom(error);
	}
	bool ok = true;
	factor fs[256];
	for (size_t u = 0; u < nls && ok; u++) {
		if (!ls[u].stereo) continue;
		char rname[300];
		snprintf(rname, sizeof(rname), "%sR", ls[u].name);
		for (size_t i = 0; i < m->rule_count; i++) {
			if (strcmp(m->rules[i].name, rname)) continue;
			char t[4096];
			squeeze(m->rules[i].expression, t, sizeof(t));
			size_t nf;
			if (!parse_factors(t, fs, 256, &nf)) break;
			for (size_t k = 0; k < nf; k++) {
				if (fs[k].group || strncmp(fs[k].name, "right_", 6)) continue;
				for (size_t a = 0; a < nc; a++) {
					if (strcmp(m->controllers[a].name, fs[k].name)) continue;
					for (size_t b = 0; b < nc; b++)
						if (!strncmp(m->controllers[b].name, "left_", 5) && !strcmp(m->controllers[b].name + 5, fs[k].name + 6)) {
							paired[a] = 'R';
							paired[b] = 'L';
						}
				}
			}
		}
	}
	size_t ncc = 0;
	for (size_t i = 0; i < nc; i++) {
		if (paired[i] == 'L') continue;
		smdmx_flex_controller *c = &cc[ncc];
		const char *cn = paired[i] == 'R' ? m->controllers[i].name + 6 : m->controllers[i].name;
		c->name = sm_strdup(s->owner, cn, strlen(cn), error);
		if (!c->name) {
			free(ctl_of);
			free(paired);
			return false;
		}
		c->stereo = paired[i] == 'R';
		c->min = (float)m->controllers[i].min;
		c->max = (float)m->controllers[i].max;
		ctl_of[i] = (uint32_t)ncc++;
	}
	for (size_t i = 0; i < nc; i++) {
		if (paired[i] != 'L') continue;
		for (size_t k = 0; k < ncc; k++)
			if (cc[k].stereo && !strcmp(cc[k].name, m->controllers[i].name + 5)) ctl_of[i] = (uint32_t)k;
	}
	/* Raw controls: which control (and side of it) each part of each shape's name reads. */
	const char **raw0 = calloc(ncc + 1, sizeof(char *)), **raw1 = calloc(ncc + 1, sizeof(char *));
	bool *twoway = calloc(ncc + 1, sizeof(bool)), *plain = calloc(ncc + 1, sizeof(bool));
	sm_vec doms = SM_VEC_INIT; /* smdmx_domination_rule */
	if (!raw0 || !raw1 || !twoway || !plain) ok = sm_fail_oom(error);
	for (size_t u = 0; u < nls && ok; u++) {
		size_t nparts = 1;
		for (const char *p = ls[u].name; *p; p++) nparts += *p == '_';
		for (int side = 0; side < (ls[u].stereo ? 2 : 1) && ok; side++) {
			char rname[300];
			snprintf(rname, sizeof(rname), "%s%s", ls[u].name, ls[u].stereo ? (side ? "L" : "R") : "");
			const smdmx_qc_rule *rule = NULL;
			for (size_t i = 0; i < m->rule_count && !rule; i++)
				if (!strcmp(m->rules[i].name, rname)) rule = &m->rules[i];
			if (!rule) continue; /* driven by nothing */
			char t[4096];
			squeeze(rule->expression, t, sizeof(t));
			size_t nf;
			if (!parse_factors(t, fs, 256, &nf)) goto refuse;
			/* the fetches of the parts, then groups */
			size_t k = 0, part = 0;
			const char *p = ls[u].name;
			for (; k < nf && part < nparts; k++) {
				if (fs[k].group) goto refuse;
				const char *e = strchr(p, '_');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				size_t ci = 0;
				while (ci < nc && strcmp(m->controllers[ci].name, fs[k].name)) ci++;
				if (ci == nc) goto refuse;
				uint32_t ctl = ctl_of[ci];
				const char *raw = sm_strdup(s->owner, p, len, error);
				if (!raw) {
					ok = false;
					break;
				}
				const char **slot = fs[k].sign == 1 ? &raw1[ctl] : &raw0[ctl];
				if (fs[k].sign) twoway[ctl] = true;
				else plain[ctl] = true;
				if (*slot && strcmp(*slot, raw)) goto refuse;
				*slot = raw;
				part++;
				p = e ? e + 1 : p + len;
			}
			if (!ok) break;
			if (part != nparts) goto refuse;
			/* the rest: dominator groups (their fetches follow each in the list) */
			while (k < nf) {
				if (!fs[k].group) goto refuse;
				k += 1 + fs[k].count;
			}
		}
	}
	if (!ok) goto done;
	for (size_t c = 0; c < ncc; c++) {
		if (twoway[c] && plain[c]) goto refuse;
		if (twoway[c] && (!raw0[c] || !raw1[c])) goto refuse;
		size_t n = twoway[c] ? 2 : raw0[c] ? 1 : 0;
		cc[c].raw_controls.data = sm_owned_calloc(s->owner, n + 1, sizeof(char *), error);
		if (!cc[c].raw_controls.data) {
			ok = false;
			goto done;
		}
		if (n >= 1) cc[c].raw_controls.data[0] = raw0[c];
		if (n == 2) cc[c].raw_controls.data[1] = raw1[c];
		cc[c].raw_controls.count = n;
		if (twoway[c] ? (cc[c].min != -1 || cc[c].max != 1) : (cc[c].min != 0 || cc[c].max != 1)) goto refuse;
	}
	/* Dominator groups: the raw controls each reads, and the shapes it falls on; its suppressed
	 * controls are what those shapes' names all hold. */
	for (size_t u = 0; u < nls && ok; u++) {
		char rname[300];
		snprintf(rname, sizeof(rname), "%s%s", ls[u].name, ls[u].stereo ? "R" : "");
		const smdmx_qc_rule *rule = NULL;
		for (size_t i = 0; i < m->rule_count && !rule; i++)
			if (!strcmp(m->rules[i].name, rname)) rule = &m->rules[i];
		if (!rule) continue;
		char t[4096];
		squeeze(rule->expression, t, sizeof(t));
		size_t nf;
		if (!parse_factors(t, fs, 256, &nf)) goto refuse;
		for (size_t k = 0; k < nf; k = fs[k].group ? k + 1 + fs[k].count : k + 1) {
			if (!fs[k].group) continue;
			const char *names[64];
			size_t nn = 0;
			for (size_t j = fs[k].first; j < fs[k].first + fs[k].count && nn < 64; j++) {
				size_t ci = 0;
				while (ci < nc && strcmp(m->controllers[ci].name, fs[j].name)) ci++;
				if (ci == nc) goto refuse;
				uint32_t ctl = ctl_of[ci];
				const char *raw = fs[j].sign == 1 ? raw1[ctl] : raw0[ctl];
				if (!raw) goto refuse;
				names[nn++] = raw;
			}
			/* the same group met before? */
			smdmx_domination_rule *dr = doms.data;
			size_t d = 0;
			for (; d < doms.count; d++) {
				if (dr[d].dominators.count != nn) continue;
				bool same = true;
				for (size_t j = 0; j < nn && same; j++) same = !strcmp(dr[d].dominators.data[j], names[j]);
				if (same) break;
			}
			/* the shape's raw controls */
			const char *parts[64];
			size_t np = 0;
			for (const char *p = ls[u].name; np < 64;) {
				const char *e = strchr(p, '_');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				parts[np] = sm_strdup(s->owner, p, len, error);
				if (!parts[np++]) {
					ok = false;
					break;
				}
				if (!e) break;
				p = e + 1;
			}
			if (!ok) break;
			if (d == doms.count) {
				smdmx_domination_rule *nd = sm_vec_push(s->owner, &doms, sizeof(*nd), error);
				const char **dd = sm_owned_calloc(s->owner, nn + 1, sizeof(char *), error);
				const char **ss = sm_owned_calloc(s->owner, np + 1, sizeof(char *), error);
				if (!nd || !dd || !ss) {
					ok = false;
					break;
				}
				memcpy(dd, names, nn * sizeof(char *));
				memcpy(ss, parts, np * sizeof(char *));
				nd->dominators.data = dd;
				nd->dominators.count = nn;
				nd->suppressed.data = ss;
				nd->suppressed.count = np;
			} else {
				/* keep the parts both shapes hold */
				smdmx_string_list *sup = &dr[d].suppressed;
				size_t w = 0;
				for (size_t j = 0; j < sup->count; j++) {
					bool in = false;
					for (size_t q = 0; q < np && !in; q++) in = !strcmp(parts[q], sup->data[j]);
					if (in) sup->data[w++] = sup->data[j];
				}
				sup->count = w;
				if (!w) goto refuse;
			}
		}
	}
	if (!ok) goto done;
	{
		/* Written back, the candidate must give the QC's controllers and rules. */
		smdmx_scene view = *s;
		view.flex_controllers = cc;
		view.flex_controller_count = ncc;
		view.domination_rules = doms.data;
		view.domination_rule_count = doms.count;
		view.flex_rules = NULL;
		view.flex_rule_count = 0;
		uname *us = calloc(nls + 1, sizeof(uname));
		if (!us) {
			ok = sm_fail_oom(error);
			goto done;
		}
		for (size_t u = 0; u < nls; u++) {
			us[u].name = ls[u].name;
			us[u].stereo = ls[u].stereo;
			us[u].split = ls[u].split;
			us[u].frame = ls[u].frame;
		}
		rig g;
		smdmx_warnings quiet;
		memset(&quiet, 0, sizeof(quiet));
		ok = rig_init(&g, s, error) && rig_lower(&g, &view, us, nls, &quiet);
		free(us);
		bool same = ok && g.ctls.count == nc && g.rules.count == m->rule_count;
		const rctl *gc = g.ctls.data;
		for (size_t i = 0; same && i < nc; i++) {
			const smdmx_qc_controller *q = &m->controllers[i];
			same = !strcmp(gc[i].name, q->name) && !strcmp(gc[i].group, q->group) && (float)gc[i].min == (float)q->min &&
			       (float)gc[i].max == (float)q->max;
		}
		const rrule *gr = g.rules.data;
		for (size_t i = 0; same && i < g.rules.count; i++) {
			const smdmx_qc_rule *q = NULL;
			for (size_t k = 0; k < m->rule_count && !q; k++)
				if (!strcmp(m->rules[k].name, gr[i].name)) q = &m->rules[k];
			char a[4096], b[4096];
			same = q && q->expression && gr[i].expr;
			if (same) {
				squeeze(q->expression, a, sizeof(a));
				squeeze(gr[i].expr, b, sizeof(b));
				same = !strcmp(a, b);
			}
		}
		rig_free(&g);
		if (ok && same) {
			s->flex_controllers = cc;
			s->flex_controller_count = ncc;
			s->domination_rules = doms.data;
			s->domination_rule_count = doms.count;
			s->flex_rules = NULL;
			s->flex_rule_count = 0;
			*accepted = true;
		}
	}
	goto done;
refuse:
	ok = true;
done:
	free(ctl_of);
	free(paired);
	free(raw0);
	free(raw1);
	free(twoway);
	free(plain);
	return ok;
}

/* defaultflex: the base takes that frame and the other frames move from it (studiomdl
 * copies the default frame into the model and into the VTA's frame 0). */
static bool rebase(smdmx_scene *s, const smdmx_flex_shape *deff)
{
	size_t nframes = s->flex_shape_count;
		smdmx_mesh *me = &s->meshes[deff->mesh];
		for (size_t k = 0; k < deff->position_count; k++)
			for (int a = 0; a < 3; a++) me->positions[deff->position_indices[k]][a] += deff->position_deltas[k][a];
		for (size_t k = 0; me->normals && k < deff->normal_count; k++)
			for (int a = 0; a < 3; a++) me->normals[deff->normal_indices[k]][a] += deff->normal_deltas[k][a];
		int32_t *dp = malloc((me->position_count + 1) * sizeof(int32_t)), *dn = malloc((me->normal_count + 1) * sizeof(int32_t));
		if (!dp || !dn) {
			free(dp);
			free(dn);
			return false;
		}
		for (size_t p = 0; p < me->position_count; p++) dp[p] = -1;
		for (size_t p = 0; p < me->normal_count; p++) dn[p] = -1;
		for (size_t k = 0; k < deff->position_count; k++) dp[deff->position_indices[k]] = (int32_t)k;
		for (size_t k = 0; k < deff->normal_count; k++) dn[deff->normal_indices[k]] = (int32_t)k;
		for (size_t f = 0; f < nframes; f++) {
			smdmx_flex_shape *sh = &s->flex_shapes[f];
			if (sh == deff || sh->mesh != deff->mesh) continue;
			for (size_t k = 0; k < sh->position_count; k++) {
				int32_t d = dp[sh->position_indices[k]];
				if (d >= 0)
					for (int a = 0; a < 3; a++) sh->position_deltas[k][a] -= deff->position_deltas[d][a];
			}
			for (size_t k = 0; k < sh->normal_count; k++) {
				int32_t d = dn[sh->normal_indices[k]];
				if (d >= 0)
					for (int a = 0; a < 3; a++) sh->normal_deltas[k][a] -= deff->normal_deltas[d][a];
			}
		}
		free(dp);
		free(dn);
		return true;
}

static void qwarn(const smdmx_qc *qc, smdmx_qc_pos pos, smdmx_warnings *w, smdmx_warning_code code, const char *fmt, ...)
    SM_PRINTF(5, 6);
static void qwarn(const smdmx_qc *qc, smdmx_qc_pos pos, smdmx_warnings *w, smdmx_warning_code code, const char *fmt, ...)
{
	if (!w) return;
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t before = w->count;
	sm_warn(w, code, pos.line, pos.column, "%s", msg);
	if (w->count > before && pos.file != 0 && pos.file < qc->file_count)
		snprintf(w->data[before].file, sizeof(w->data[before].file), "%s", qc->files[pos.file].path);
}

/* How a flex line becomes shapes. */
enum { PLAN_PLAIN, PLAN_STEREO, PLAN_CUT };

typedef struct plan {
	const smdmx_qc_flex *line;
	const smdmx_flex_shape *src;   /* its frame (NULL: frame 0, which moves nothing) */
	int how;
} plan;

/* The lifted shapes, as the plan makes them. */
static size_t plan_shapes(const plan *pl, size_t np, lshape *ls, char (*names)[300])
{
	size_t n = 0;
	for (size_t i = 0; i < np; i++) {
		if (pl[i].how == PLAN_CUT) {
			snprintf(names[n], 300, "%sR", pl[i].line->name);
			ls[n].name = names[n];
			ls[n].stereo = false;
			n++;
			snprintf(names[n], 300, "%sL", pl[i].line->name);
			ls[n].name = names[n];
			ls[n].stereo = false;
			n++;
		} else {
			ls[n].name = pl[i].line->name;
			ls[n].stereo = pl[i].how == PLAN_STEREO;
			ls[n].split = pl[i].how == PLAN_STEREO ? pl[i].line->split : 0;
			n++;
		}
	}
	for (size_t u = 0; u < n; u++) ls[u].frame = (int32_t)u + 1;
	return n;
}

bool smdmx_qc_apply_rig(const smdmx_qc *qc, uint32_t model, smdmx_scene *s, const smdmx_qc_rig_options *options,
                        smdmx_error *error, smdmx_warnings *w)
{
	memset(error, 0, sizeof(*error));
	if (w) memset(w, 0, sizeof(*w));
	smdmx_qc_rig_options opt;
	memset(&opt, 0, sizeof(opt));
	if (options) opt = *options;
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	if (!s->owner) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "the scene has no owner");
	size_t nframes = s->flex_shape_count;
	const smdmx_flex_shape *frames = s->flex_shapes;
	/* The flex of each name: the key at position 1, else the last; others are lost. */
	size_t nf = m->flex_count;
	const smdmx_qc_flex *def = NULL;
	char *use = calloc(nf + 1, 1);
	if (!use) return sm_fail_oom(error);
	for (size_t i = 0; i < nf; i++) {
		const smdmx_qc_flex *f = &m->flexes[i];
		if (f->kind == SMDMX_QC_DEFAULTFLEX) {
			def = f;
			continue;
		}
		size_t chosen = i;
		for (size_t j = 0; j < nf; j++) {
			const smdmx_qc_flex *g = &m->flexes[j];
			if (g->kind == SMDMX_QC_DEFAULTFLEX || !qc_same_nocase(g->name, f->name)) continue;
			bool gpos = g->position == 1, cpos = m->flexes[chosen].position == 1;
			if ((gpos && !cpos) || (gpos == cpos && j > chosen)) chosen = j;
		}
		if (chosen == i) {
			use[i] = 1;
		} else {
			char a[SM_FLOAT_MAX];
			fmt_num(f->position, a);
			qwarn(qc, f->pos, w, SMDMX_WARNING_QC_LOST_KEYS, "flex '%s': its key at position %s (frame %d) has no DMX form (one shape per "
			      "flex): left out; leave the model as SMD and VTA if it matters",
			      f->name, a, (int)f->frame);
		}
		if (use[i] && f->decay != 1) qwarn(qc, f->pos, w, SMDMX_WARNING_QC_LOST_KEYS, "flex '%s': 'decay' has no DMX form: left out; leave the model as SMD and VTA if it matters", f->name);
	}
	/* Frames by number. */
	bool ok = true;
	const smdmx_flex_shape *deff = NULL;
	if (def && def->frame != 0) {
		for (size_t k = 0; k < nframes && !deff; k++)
			if (frames[k].frame == def->frame) deff = &frames[k];
		if (!deff) ok = qfail(qc, def->pos, error, SMDMX_ERROR_BAD_VALUE, "defaultflex frame %d is not in the VTA", (int)def->frame);
	}
	for (size_t i = 0; ok && i < nf; i++) {
		if (!use[i]) continue;
		bool found = m->flexes[i].frame == 0;
		for (size_t k = 0; k < nframes && !found; k++) found = frames[k].frame == m->flexes[i].frame;
		if (!found)
			ok = qfail(qc, m->flexes[i].pos, error, SMDMX_ERROR_BAD_VALUE, "flex '%s': frame %d is not in the VTA", m->flexes[i].name,
			           (int)m->flexes[i].frame);
	}
	if (!ok) {
		free(use);
		return false;
	}
	if (deff && !rebase(s, deff)) {
		free(use);
		return sm_fail_oom(error);
	}
	/* The mesh's split: the most used flexpair width. */
	double msplit = 0;
	size_t best = 0;
	for (size_t i = 0; i < nf; i++) {
		if (!use[i] || m->flexes[i].kind != SMDMX_QC_FLEXPAIR) continue;
		size_t c = 0;
		for (size_t j = 0; j < nf; j++)
			c += use[j] && m->flexes[j].kind == SMDMX_QC_FLEXPAIR && m->flexes[j].split == m->flexes[i].split;
		if (c > best) {
			best = c;
			msplit = m->flexes[i].split;
		}
	}
	/* The plan: a shape per flex line; a flexpair stereo where the mesh's balance reproduces
	 * studiomdl's split exactly, else its two halves. */
	plan *pl = calloc(nf + 1, sizeof(*pl));
	lshape *ls = calloc(2 * nf + 1, sizeof(*ls));
	char (*names)[300] = calloc(2 * nf + 1, 300);
	if (!pl || !ls || !names) {
		free(use);
		free(pl);
		free(ls);
		free(names);
		return sm_fail_oom(error);
	}
	size_t np = 0;
	for (size_t i = 0; i < nf; i++) {
		if (!use[i]) continue;
		const smdmx_qc_flex *f = &m->flexes[i];
		pl[np].line = f;
		for (size_t k = 0; k < nframes && !pl[np].src; k++)
			if (frames[k].frame == f->frame && f->frame != 0) pl[np].src = &frames[k];
		if (f->kind == SMDMX_QC_FLEXPAIR) {
			bool keep = f->split == msplit && (!pl[np].src || split_holds(s, pl[np].src, f->split));
			pl[np].how = keep ? PLAN_STEREO : PLAN_CUT;
			if (!keep)
				qwarn(qc, f->pos, w, SMDMX_WARNING_QC_PAIR_CUT, "flexpair '%s' written as two shapes '%sR' and '%sL', the same model: %s; nothing to do",
				      f->name, f->name, f->name,
				      f->split != msplit ? "a mesh's balance holds one split width" : "its shape moves across the split");
		}
		np++;
	}
	size_t nls = plan_shapes(pl, np, ls, names);
	/* The rig, now that the shapes are named. */
	s->domination_rules = NULL;
	s->domination_rule_count = 0;
	s->flex_rules = NULL;
	s->flex_rule_count = 0;
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
	bool accepted = false;
	if (!opt.rig_in_qc) ok = try_combination(s, m, ls, nls, &accepted, error);
	if (ok && !accepted && !opt.rig_in_qc) {
		/* Among flex rules a shape is stereo only when a control of its name says so. */
		bool recut = false;
		for (size_t i = 0; i < np; i++) {
			if (pl[i].how != PLAN_STEREO) continue;
			bool named = false;
			for (size_t c = 0; c < m->controller_count && !named; c++) named = !strcmp(m->controllers[c].name, pl[i].line->name);
			if (named) continue;
			pl[i].how = PLAN_CUT;
			recut = true;
			qwarn(qc, pl[i].line->pos, w, SMDMX_WARNING_QC_PAIR_CUT,
			      "flexpair '%s' written as two shapes '%sR' and '%sL', the same model: beside flex rules a shape is stereo only "
			      "when a controller of its name says so; nothing to do",
			      pl[i].line->name, pl[i].line->name, pl[i].line->name);
		}
		if (recut) nls = plan_shapes(pl, np, ls, names);
	}
	/* studiomdl reads a delta state's name split at '_' as raw controls: one whose parts are
	 * all raw controls, one of them stereo, it splits too. A plain flex so named would change:
	 * the stereo shapes its name is made of are cut instead. Raw controls here: the stereo
	 * shapes (their controls mark them) and, beside flex rules, shapes a controller names. */
	for (bool changed = ok && !accepted; changed;) {
		changed = false;
		for (size_t i = 0; i < np; i++) {
			if (pl[i].how != PLAN_PLAIN || !strchr(pl[i].line->name, '_')) continue;
			bool all = true, any = false;
			size_t stereo_parts[64], ns_ = 0;
			for (const char *p = pl[i].line->name; all;) {
				const char *e = strchr(p, '_');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				bool raw = false;
				for (size_t j = 0; j < np && !raw; j++) {
					if (strlen(pl[j].line->name) != len || !qc_same_nocase_n(pl[j].line->name, p, len)) continue;
					if (pl[j].how == PLAN_STEREO) {
						raw = any = true;
						if (ns_ < 64) stereo_parts[ns_++] = j;
					} else if (pl[j].how == PLAN_PLAIN && !opt.rig_in_qc) {
						for (size_t c = 0; c < m->controller_count && !raw; c++) raw = qc_same_nocase(m->controllers[c].name, pl[j].line->name);
					}
				}
				all = raw;
				if (!e) break;
				p = e + 1;
			}
			if (!all || !any) continue;
			for (size_t k = 0; k < ns_; k++) {
				const smdmx_qc_flex *f = pl[stereo_parts[k]].line;
				pl[stereo_parts[k]].how = PLAN_CUT;
				qwarn(qc, f->pos, w, SMDMX_WARNING_QC_PAIR_CUT,
				      "flexpair '%s' written as two shapes '%sR' and '%sL', the same model: studiomdl would split flex '%s' too, its "
				      "name made of '%s'; nothing to do",
				      f->name, f->name, f->name, pl[i].line->name, f->name);
			}
			changed = true;
		}
		if (changed) nls = plan_shapes(pl, np, ls, names);
	}
	/* The shapes. */
	smdmx_flex_shape *ns = ok ? sm_owned_calloc(s->owner, nls + 1, sizeof(*ns), error) : NULL;
	bool *stereo_mesh = calloc(s->mesh_count + 1, sizeof(bool));
	if (ok && (!ns || !stereo_mesh)) ok = ns ? sm_fail_oom(error) : false;
	size_t n = 0;
	for (size_t i = 0; ok && i < np; i++) {
		const smdmx_qc_flex *f = pl[i].line;
		smdmx_flex_shape empty;
		const smdmx_flex_shape *src = pl[i].src;
		if (!src) {
			memset(&empty, 0, sizeof(empty));
			empty.name = f->name;
			src = &empty;
		}
		if (pl[i].how == PLAN_CUT) {
			ok = shape_from_frame(s, src, ls[n].name, f->split, 'R', &ns[n], error) &&
			     shape_from_frame(s, src, ls[n + 1].name, f->split, 'L', &ns[n + 1], error);
			ns[n].frame = ns[n + 1].frame = f->frame;
			n += 2;
		} else {
			ok = shape_from_frame(s, src, ls[n].name, pl[i].how == PLAN_STEREO ? 0 : f->split, 0, &ns[n], error);
			ns[n].frame = f->frame;
			if (pl[i].how == PLAN_STEREO) stereo_mesh[src->mesh] = true;
			n++;
		}
	}
	/* The lifted names now live in the scene. */
	for (size_t u = 0; ok && u < nls; u++) ls[u].name = ns[u].name;
	/* Frames no flex names. */
	size_t unnamed = 0;
	for (size_t k = 0; ok && k < nframes; k++) {
		if (&frames[k] == deff) continue;
		bool named = false;
		for (size_t i = 0; i < nf && !named; i++) named = use[i] && m->flexes[i].frame == frames[k].frame;
		unnamed += !named;
	}
	if (ok && unnamed)
		sm_warn_n(w, SMDMX_WARNING_QC_LOST_FRAMES, unnamed, 0, 0, "VTA frames no flex line names are left out, as studiomdl leaves them out%s; nothing to do",
		          m->qc_only_count ? " (eyelid lines read theirs from the VTA)" : "");
	free(use);
	free(pl);
	if (ok) {
		s->flex_shapes = ns;
		s->flex_shape_count = n;
		ok = sm_mark_correctives(&s->owner->alloc, ns, n, false) || sm_fail_oom(error);
	}
	/* Balance: the step of the mesh's split, per position. */
	for (size_t mi = 0; ok && mi < s->mesh_count; mi++) {
		if (!stereo_mesh[mi]) continue;
		smdmx_mesh *me = &s->meshes[mi];
		float *data = sm_owned_alloc(s->owner, (me->position_count + 1) * sizeof(float), error);
		uint32_t *idx = sm_owned_alloc(s->owner, (me->corner_count + 1) * sizeof(uint32_t), error);
		ok = data && idx;
		if (!ok) break;
		for (size_t p = 0; p < me->position_count; p++) data[p] = pair_share(msplit, me->positions[p][0]);
		if (me->corner_count) memcpy(idx, me->position_indices, me->corner_count * sizeof(uint32_t));
		me->balance.data = data;
		me->balance.count = me->position_count;
		me->balance.indices = idx;
	}
	free(stereo_mesh);
	if (ok && !accepted) {
		/* A control per shape marking the stereo ones (rig in the QC), or the QC's controllers
		 * with flex rules. */
		/* rig in the QC: a control for each stereo shape only (a control of another would make
		 * studiomdl read its name's '_' parts as raw controls) */
		size_t nstereo = 0, *stereo_of = calloc(nls + 1, sizeof(size_t));
		if (!stereo_of) {
			free(ls);
			free(names);
			return sm_fail_oom(error);
		}
		for (size_t u = 0; u < nls; u++)
			if (ls[u].stereo) stereo_of[nstereo++] = u;
		size_t nc = opt.rig_in_qc ? nstereo : m->controller_count;
		smdmx_flex_controller *cc = sm_owned_calloc(s->owner, nc + 1, sizeof(*cc), error);
		ok = cc != NULL;
		for (size_t i = 0; ok && i < nc; i++) {
			const char *name = opt.rig_in_qc ? ls[stereo_of[i]].name : m->controllers[i].name;
			cc[i].name = sm_strdup(s->owner, name, strlen(name), error);
			if (!cc[i].name) {
				ok = false;
				break;
			}
			cc[i].min = opt.rig_in_qc ? 0.0f : (float)m->controllers[i].min;
			cc[i].max = opt.rig_in_qc ? 1.0f : (float)m->controllers[i].max;
			for (size_t u = 0; u < nls && ok; u++) {
				if (strcmp(ls[u].name, name)) continue;
				cc[i].raw_controls.data = sm_owned_calloc(s->owner, 2, sizeof(char *), error);
				ok = cc[i].raw_controls.data != NULL;
				if (!ok) break;
				cc[i].raw_controls.data[0] = ls[u].name;
				cc[i].raw_controls.count = 1;
				cc[i].stereo = ls[u].stereo;
				break;
			}
		}
		free(stereo_of);
		if (ok) {
			s->flex_controllers = cc;
			s->flex_controller_count = nc;
		}
		if (ok && !opt.rig_in_qc) {
			size_t groups = 0;
			for (size_t i = 0; i < m->controller_count; i++) groups += strcmp(m->controllers[i].group, "default") != 0;
			if (groups)
				sm_warn_n(w, SMDMX_WARNING_QC_LOST_GROUPS, groups, 0, 0,
				          "flex controller groups (eyes, mouth, ...) left out: beside DMX flex rules studiomdl makes every controller "
				          "'default'; use --rig qc to keep them");
			smdmx_flex_rule *fr = sm_owned_calloc(s->owner, m->rule_count + 1, sizeof(*fr), error);
			ok = fr != NULL;
			size_t k = 0;
			for (size_t i = 0; ok && i < m->rule_count; i++) {
				const smdmx_qc_rule *q = &m->rules[i];
				if (!q->expression) {
					/* a localvar that only declares a later rule's flex: that rule */
					bool later = false, shape = false;
					for (size_t j = i + 1; j < m->rule_count && !later; j++)
						later = m->rules[j].expression && !strcmp(m->rules[j].name, q->name);
					for (size_t u = 0; u < nls && !shape; u++) shape = !strcmp(ls[u].name, q->name);
					if (later && !shape) continue;
					fr[k].name = sm_strdup(s->owner, q->name, strlen(q->name), error);
					fr[k].kind = SMDMX_FLEX_RULE_LOCAL_VAR;
					ok = fr[k].name != NULL;
					k++;
					continue;
				}
				char t[4096];
				squeeze(q->expression, t, sizeof(t));
				fr[k].name = sm_strdup(s->owner, q->name, strlen(q->name), error);
				ok = fr[k].name != NULL;
				bool ctl = false;
				for (size_t c = 0; c < m->controller_count && !ctl; c++) ctl = !strcmp(m->controllers[c].name, q->name);
				char quoted[300];
				snprintf(quoted, sizeof(quoted), "\"%s\"", q->name);
				if (ctl && (!strcmp(t, q->name) || !strcmp(t, quoted))) {
					fr[k].kind = SMDMX_FLEX_RULE_PASS_THROUGH;
				} else {
					fr[k].kind = SMDMX_FLEX_RULE_EXPRESSION;
					fr[k].expression = sm_strdup(s->owner, q->expression, strlen(q->expression), error);
					ok = ok && fr[k].expression != NULL;
				}
				k++;
			}
			if (ok) {
				s->flex_rules = fr;
				s->flex_rule_count = k;
			}
		}
	}
	free(ls);
	free(names);
	if (ok && !opt.rig_in_qc && m->qc_only_count)
		qwarn(qc, m->pos, w, SMDMX_WARNING_QC_ONLY, "eyeball, eyelid and mouth lines have no DMX form: %zu stay in the QC, which studiomdl reads with the DMX; nothing to do",
		      m->qc_only_count);
	return ok;
}

/* $attachment lines onto the scene's joints (Cmd_Attachment): position in the bone's space
 * (the model's with "absolute"), "rotate" as a QAngle. */
bool smdmx_qc_apply_attachments(const smdmx_qc *qc, smdmx_scene *s, smdmx_error *error, smdmx_warnings *w)
{
	memset(error, 0, sizeof(*error));
	if (w) memset(w, 0, sizeof(*w));
	if (!qc->attachment_count) return true;
	smdmx_attachment *as = sm_owned_calloc(s->owner, s->attachment_count + qc->attachment_count + 1, sizeof(*as), error);
	if (!as) return false;
	if (s->attachment_count) memcpy(as, s->attachments, s->attachment_count * sizeof(*as));
	size_t n = s->attachment_count, missing = 0;
	/* bind poses in model space, for "absolute" */
	double (*world)[4][4] = calloc(s->joint_count + 1, sizeof(*world));
	if (!world) return sm_fail_oom(error);
	for (size_t j = 0; j < s->joint_count; j++) {
		const smdmx_joint *jt = &s->joints[j];
		double q[4] = { jt->bind.orientation[0], jt->bind.orientation[1], jt->bind.orientation[2], jt->bind.orientation[3] };
		double r[3][3];
		smdmx_quat_to_matrix(q, r);
		double local[4][4] = { { r[0][0], r[0][1], r[0][2], jt->bind.position[0] },
		                       { r[1][0], r[1][1], r[1][2], jt->bind.position[1] },
		                       { r[2][0], r[2][1], r[2][2], jt->bind.position[2] },
		                       { 0, 0, 0, 1 } };
		if (jt->parent == SMDMX_NONE || jt->parent >= j) {
			memcpy(world[j], local, sizeof(local));
		} else {
			for (int a = 0; a < 4; a++)
				for (int b = 0; b < 4; b++) {
					double v = 0;
					for (int k = 0; k < 4; k++) v += world[jt->parent][a][k] * local[k][b];
					world[j][a][b] = v;
				}
		}
	}
	bool ok = true;
	for (size_t i = 0; i < qc->attachment_count && ok; i++) {
		const smdmx_qc_attachment *qa = &qc->attachments[i];
		size_t j = 0;
		while (j < s->joint_count && !qc_same_nocase(s->joints[j].name, qa->bone)) j++;
		if (j == s->joint_count) {
			missing++;
			continue;
		}
		smdmx_attachment *a = &as[n++];
		a->name = sm_strdup(s->owner, qa->name, strlen(qa->name), error);
		if (!a->name) {
			ok = false;
			break;
		}
		a->parent_joint = (uint32_t)j;
		a->rigid = qa->rigid;
		a->world_aligned = qa->world_align;
		const double d = 3.14159265358979323846 / 180.0;
		double e[3] = { qa->angles[2] * d, qa->angles[0] * d, qa->angles[1] * d }, q[4], r[3][3];
		smdmx_euler_to_quat(e, q);
		smdmx_quat_to_matrix(q, r);
		double pos[3] = { qa->position[0], qa->position[1], qa->position[2] };
		if (qa->absolute) {
			/* model space to the bone's: the inverse of its bind pose */
			double (*wj)[4] = world[j];
			double t[3] = { pos[0] - wj[0][3], pos[1] - wj[1][3], pos[2] - wj[2][3] };
			double rr[3][3];
			for (int a2 = 0; a2 < 3; a2++) {
				pos[a2] = wj[0][a2] * t[0] + wj[1][a2] * t[1] + wj[2][a2] * t[2];
				for (int b = 0; b < 3; b++) rr[a2][b] = wj[0][a2] * r[0][b] + wj[1][a2] * r[1][b] + wj[2][a2] * r[2][b];
			}
			memcpy(r, rr, sizeof(rr));
			/* back to a quaternion */
			double tr = r[0][0] + r[1][1] + r[2][2];
			if (tr > 0) {
				double sq = sqrt(tr + 1) * 2;
				q[3] = 0.25 * sq;
				q[0] = (r[2][1] - r[1][2]) / sq;
				q[1] = (r[0][2] - r[2][0]) / sq;
				q[2] = (r[1][0] - r[0][1]) / sq;
			} else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
				double sq = sqrt(1 + r[0][0] - r[1][1] - r[2][2]) * 2;
				q[3] = (r[2][1] - r[1][2]) / sq;
				q[0] = 0.25 * sq;
				q[1] = (r[0][1] + r[1][0]) / sq;
				q[2] = (r[0][2] + r[2][0]) / sq;
			} else if (r[1][1] > r[2][2]) {
				double sq = sqrt(1 + r[1][1] - r[0][0] - r[2][2]) * 2;
				q[3] = (r[0][2] - r[2][0]) / sq;
				q[0] = (r[0][1] + r[1][0]) / sq;
				q[1] = 0.25 * sq;
				q[2] = (r[1][2] + r[2][1]) / sq;
			} else {
				double sq = sqrt(1 + r[2][2] - r[0][0] - r[1][1]) * 2;
				q[3] = (r[1][0] - r[0][1]) / sq;
				q[0] = (r[0][2] + r[2][0]) / sq;
				q[1] = (r[1][2] + r[2][1]) / sq;
				q[2] = 0.25 * sq;
			}
			double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
			for (int k = 0; k < 4; k++) q[k] /= len;
			if (q[3] < 0)
				for (int k = 0; k < 4; k++) q[k] = -q[k];
		}
		for (int k = 0; k < 3; k++) a->transform.position[k] = (float)pos[k];
		for (int k = 0; k < 4; k++) a->transform.orientation[k] = (float)q[k];
	}
	free(world);
	if (missing)
		sm_warn_n(w, SMDMX_WARNING_QC_ONLY, missing, 0, 0, "$attachment lines on bones this model does not have: left in the QC (another model of "
		          "it may have them); check the bone names if not");
	s->attachments = as;
	s->attachment_count = n;
	return ok;
}

bool smdmx_qc_apply_defaultflex(const smdmx_qc *qc, uint32_t model, smdmx_scene *s, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	const smdmx_qc_flex *def = NULL;
	for (size_t i = 0; i < m->flex_count; i++)
		if (m->flexes[i].kind == SMDMX_QC_DEFAULTFLEX) def = &m->flexes[i];
	if (!def || def->frame == 0) return true;
	const smdmx_flex_shape *deff = NULL;
	for (size_t k = 0; k < s->flex_shape_count && !deff; k++)
		if (s->flex_shapes[k].frame == def->frame) deff = &s->flex_shapes[k];
	if (!deff) return qfail(qc, def->pos, error, SMDMX_ERROR_BAD_VALUE, "defaultflex frame %d is not in the VTA", (int)def->frame);
	if (!rebase(s, deff)) return sm_fail_oom(error);
	/* The default frame moves nothing now. */
	smdmx_flex_shape *d = &s->flex_shapes[deff - s->flex_shapes];
	d->position_count = 0;
	d->normal_count = 0;
	return true;
}

static bool among(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (qc_same_nocase(list[i], name)) return true;
	return false;
}

bool smdmx_qc_check_rules(const smdmx_qc *qc, uint32_t model, const char *const *flexes, size_t flex_count,
                          const char *const *controllers, size_t controller_count, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	const char **ctl = malloc((m->controller_count + 1) * sizeof(char *));
	if (!ctl) return sm_fail_oom(error);
	for (size_t i = 0; i < m->controller_count; i++) ctl[i] = m->controllers[i].name;
	bool ok = true;
	for (size_t i = 0; i < m->rule_count && ok; i++) {
		const smdmx_qc_rule *r = &m->rules[i];
		if (!r->expression) continue;
		if (!among(r->name, m->flexdescs, m->flexdesc_count) && !among(r->name, flexes, flex_count)) {
			ok = qfail(qc, r->pos, error, SMDMX_ERROR_SYNTAX, "a rule for unknown flex '%s'", r->name);
			break;
		}
		const char *p = r->expression;
		bool fetch = false;
		while (*p && ok) {
			char name[256];
			size_t n = 0;
			if (*p == '"') {
				p++;
				while (*p && *p != '"' && n + 1 < sizeof(name)) name[n++] = *p++;
				if (*p == '"') p++;
			} else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_') {
				while (((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_') &&
				       n + 1 < sizeof(name))
					name[n++] = *p++;
			} else {
				if (*p == '%') fetch = true;
				else if ((unsigned char)*p > 32) fetch = false;
				if ((*p >= '0' && *p <= '9') || *p == '.')
					while ((*p >= '0' && *p <= '9') || *p == '.') p++;
				else
					p++;
				continue;
			}
			name[n] = 0;
			if (fetch) {
				if (!among(name, m->flexdescs, m->flexdesc_count) && !among(name, flexes, flex_count))
					ok = qfail(qc, r->pos, error, SMDMX_ERROR_SYNTAX, "rule '%s': unknown flex '%s'", r->name, name);
			} else if (!qc_same_nocase(name, "min") && !qc_same_nocase(name, "max")) {
				if (!among(name, ctl, m->controller_count) && !among(name, controllers, controller_count))
					ok = qfail(qc, r->pos, error, SMDMX_ERROR_SYNTAX, "rule '%s': unknown controller '%s'", r->name, name);
			}
			fetch = false;
		}
	}
	free(ctl);
	return ok;
}
