/* A face rig between a QC's $model block and the scene (doc/formats.md G3, G4; C10).
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
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "model/rig.h"





bool sm_rig_init(rig *g, const smdmx_scene *s, smdmx_error *error)
{
	memset(g, 0, sizeof(*g));
	sm_vec e = SM_VEC_INIT;
	g->ctls = g->rules = g->flexes = e;
	g->error = error;
	/* the scene's allocator, so that its hooks and limits hold here too */
	g->o = sm_owner_new(s->owner ? &s->owner->alloc.hooks : NULL, error);
	return g->o != NULL;
}

void sm_rig_free(rig *g)
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
	char *s = sm_new(&g->o->alloc, 1, (size_t)n + 1);
	if (!s) {
		sm_fail_oom(g->error);
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	const char *d = sm_strdup(g->o, s, (size_t)n, g->error);
	sm_del(&g->o->alloc, s);
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
void sm_rig_squeeze(const char *s, char *out, size_t cap)
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
void sm_rig_fmt_num(double v, char *out)
{
	sm_format_shortest((float)v, out);
}

/* ---- the split of a flexpair (studiomdl's Option_Flex and vertex animation code) ----------- */

/* The share of the right flex (NAMER) at X for a flexpair of width split: 1 past -split, 0
 * past split, a smooth step between (RemapVertexAnimations: t = (split - x) / (2 split),
 * 3t^2 - 2t^3). A split of 0 is no split. */
float sm_rig_pair_share(double split, double x)
{
	if (split == 0) return 1.0f;
	double t = (split - x) / (2.0 * split);
	if (t <= 0) return 0.0f;
	if (t >= 1) return 1.0f;
	return (float)(3.0 * t * t - 2.0 * t * t * t);
}

/* ---- lowering: scene to QC lines ----------------------------------------------------------- */

/* A raw control's value as a QC rule reads it, on one side of a stereo flex ('R', 'L') or
 * none (0). */
const char *sm_rig_fetch(rig *g, const smdmx_scene *s, const sm_raws *r, uint32_t raw, char side)
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
static const char *combination_expr(rig *g, const smdmx_scene *s, const sm_raws *r, const uint32_t *parts, size_t n, char side)
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
			char *b_ = a_ ? sm_renew(&g->o->alloc, buf, 1, c_) : NULL;                                                                   \
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
		APPEND(sm_rig_fetch(g, s, r, parts[i], side));
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
			APPEND(sm_rig_fetch(g, s, r, dom[k], side));
		}
		APPEND(")");
	}
#undef APPEND
	if (!ok) {
		sm_del(&g->o->alloc, buf);
		if (!g->error->code) sm_fail_oom(g->error);
		return NULL;
	}
	const char *out = sm_strdup(g->o, buf ? buf : "", len, g->error);
	sm_del(&g->o->alloc, buf);
	return out;
}

/* The QC lines of a scene's rig, its shapes as us says (stereo, baked, frames). */
bool sm_rig_lower(rig *g, const smdmx_scene *s, const uname *us, size_t nu, smdmx_warnings *w)
{
	sm_raws r;
	if (!sm_raws_build(s, &g->o->alloc.hooks, &r)) return sm_fail_oom(g->error);
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
		sm_raws_free(&r);
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
			sm_rig_fmt_num(c->min, a);
			sm_rig_fmt_num(c->max, b);
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
		size_t n = sm_raws_parts(&r, us[i].name, strlen(us[i].name), parts, 64);
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
	sm_raws_free(&r);
	return ok;
}

/* ---- stereo and splits --------------------------------------------------------------------- */

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
		guess = side * sm_pow10i(sm_floor_log10(minabs));
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
			all = sm_rig_pair_share(s, m->positions[m->position_indices[c]][0]) == m->balance.data[m->balance.indices[c]];
		if (all) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* Whether studiomdl's split of a flexpair, which steps on each moved position, equals the
 * split by the base positions for this shape. */
bool sm_rig_split_holds(const smdmx_scene *s, const smdmx_flex_shape *sh, double split)
{
	const smdmx_mesh *m = &s->meshes[sh->mesh];
	for (size_t k = 0; k < sh->position_count; k++) {
		double x = m->positions[sh->position_indices[k]][0];
		if (sm_rig_pair_share(split, x) != sm_rig_pair_share(split, x + (double)sh->position_deltas[k][0])) return false;
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

static uint32_t *position_places(sm_alloc *room, const smdmx_mesh *m)
{
	placed *order = sm_new(room, 1, (m->position_count + 1) * sizeof(placed));
	uint32_t *place = sm_new(room, 1, (m->position_count + 1) * sizeof(uint32_t));
	if (!order || !place) {
		sm_del(room, order);
		sm_del(room, place);
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
	sm_del(room, order);
	return place;
}

bool sm_rig_shape_scaled(sm_owner *o, const smdmx_scene *s, const smdmx_flex_shape *src, const char *name,
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
		corner_of = sm_new(&o->alloc, 1, (m->normal_count + 1) * sizeof(uint32_t));
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
	sm_del(&o->alloc, corner_of);
	out->position_count = np;
	out->normal_count = nn;
	out->wrinkle_count = 0;
	out->wrinkle_indices = NULL;
	out->wrinkle_deltas = NULL;
	return true;
}

/* ---- public: scene to QC --------------------------------------------------------------------- */

bool sm_rig_appendf(sm_alloc *room, char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) return false;
	if (*len + (size_t)n + 1 > *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		while (c < *len + (size_t)n + 1) c *= 2;
		char *b = sm_renew(room, *buf, 1, c);
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

/* A text handed to the caller: its bytes after the hooks that made them, so that
 * smdmx_qc_text_free gives them back through those hooks. */
typedef struct text_head {
	smdmx_allocator hooks;
	size_t size;
} text_head;

char *sm_rig_text_out(sm_alloc *room, char *buf, size_t len)
{
	size_t size = sizeof(text_head) + len + 1;
	text_head *h = buf ? sm_malloc(room, size) : NULL;
	if (h) {
		h->hooks = room->hooks;
		h->size = size;
		memcpy((char *)(h + 1), buf, len + 1);
	}
	sm_del(room, buf);
	return h ? (char *)(h + 1) : NULL;
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
	sm_alloc room = { g->o->alloc.hooks, 0, 0 };
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = sm_rig_appendf(&room, &buf, &len, &cap, "%s", "");
	char a[SM_FLOAT_MAX], b[SM_FLOAT_MAX];
	if (with_flex && vta) ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "\tflexfile \"%s\"\n", vta);
	const rflex *fl = g->flexes.data;
	for (size_t i = 0; ok && with_flex && i < g->flexes.count; i++) {
		const char *q = needs_quotes(fl[i].name) ? "\"" : "";
		if (fl[i].pair) {
			sm_rig_fmt_num(fl[i].split, a);
			ok = sm_rig_appendf(&room, &buf, &len, &cap, "\tflexpair %s%s%s %s frame %d\n", q, fl[i].name, q, a, (int)fl[i].frame);
		} else {
			ok = sm_rig_appendf(&room, &buf, &len, &cap, "\tflex %s%s%s frame %d\n", q, fl[i].name, q, (int)fl[i].frame);
		}
	}
	const rctl *c = g->ctls.data;
	for (size_t i = 0; ok && i < g->ctls.count; i++) {
		sm_rig_fmt_num(c[i].min, a);
		sm_rig_fmt_num(c[i].max, b);
		const char *q = needs_quotes(c[i].name) ? "\"" : "";
		const char *qg = needs_quotes(c[i].group) ? "\"" : "";
		ok = sm_rig_appendf(&room, &buf, &len, &cap, "\tflexcontroller %s%s%s range %s %s %s%s%s\n", qg, c[i].group, qg, a, b, q, c[i].name, q);
	}
	const rrule *r = g->rules.data;
	for (size_t i = 0; ok && i < g->rules.count; i++) {
		bool plain = identifier(r[i].name);
		if (!r[i].expr) ok = sm_rig_appendf(&room, &buf, &len, &cap, "\tlocalvar %s%s%s\n", plain ? "" : "\"", r[i].name, plain ? "" : "\"");
		else if (plain) ok = sm_rig_appendf(&room, &buf, &len, &cap, "\t%%%s = %s\n", r[i].name, r[i].expr);
		else ok = sm_rig_appendf(&room, &buf, &len, &cap, "\t\"%%%s\" = %s\n", r[i].name, r[i].expr);
	}
	if (!ok) {
		sm_del(&room, buf);
		return NULL;
	}
	return sm_rig_text_out(&room, buf, len);
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
	sm_alloc room = sm_scene_room(s);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool ok = sm_rig_appendf(&room, &buf, &len, &cap, "%s", "");
	size_t rootless = 0;
	for (size_t i = 0; ok && i < s->attachment_count; i++) {
		const smdmx_attachment *a = &s->attachments[i];
		if (a->parent_joint == SMDMX_NONE) {
			rootless++;
			continue;
		}
		char p[3][SM_FLOAT_MAX], r[3][SM_FLOAT_MAX];
		for (int k = 0; k < 3; k++) sm_rig_fmt_num(a->transform.position[k], p[k]);
		double ang[3];
		quat_to_qangle(a->transform.orientation, ang);
		for (int k = 0; k < 3; k++) fmt_angle(ang[k], r[k]);
		bool rot = ang[0] != 0 || ang[1] != 0 || ang[2] != 0;
		ok = sm_rig_appendf(&room, &buf, &len, &cap, "$attachment \"%s\" \"%s\" %s %s %s", a->name, s->joints[a->parent_joint].name, p[0], p[1],
		             p[2]);
		if (ok && rot) ok = sm_rig_appendf(&room, &buf, &len, &cap, " rotate %s %s %s", r[0], r[1], r[2]);
		if (ok && a->rigid) ok = sm_rig_appendf(&room, &buf, &len, &cap, " rigid");
		if (ok && a->world_aligned) ok = sm_rig_appendf(&room, &buf, &len, &cap, " world_align");
		ok = ok && sm_rig_appendf(&room, &buf, &len, &cap, "\n");
	}
	if (rootless)
		sm_warn_n(w, SMDMX_WARNING_QC_LOST_ATTACHMENTS, rootless, 0, 0,
		          "attachments on the model itself, not on a bone: left out, as a QC's $attachment needs a bone; put "
		          "them on a bone in the source to keep them");
	if (!ok) {
		sm_del(&room, buf);
		return NULL;
	}
	return sm_rig_text_out(&room, buf, len);
}

/* The unique shape names with their stereo split decided; stereo shapes whose split a QC
 * cannot say are cut into halves in the scene (NAMER, NAMEL). */
/* A stereo shape whose balance is no split a flexpair can say, cut into its halves S+"R"
 * (its balance share) and S+"L" (the rest). */
static bool cut_in_halves(smdmx_scene *s, const smdmx_flex_shape *sh, smdmx_flex_shape halves[2], smdmx_error *error,
                          smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	const smdmx_mesh *m = &s->meshes[sh->mesh];
	float *share = sm_new(&room, 1, (m->position_count + 1) * sizeof(float));
	if (!share) {
		return sm_fail_oom(error);
	}
	/* One share for every corner at one place: a VTA is read back by position, so
	 * corners there that took different shares would all come back with one of them
	 * and the halves would no longer add up to the shape. */
	uint32_t *place = position_places(&room, m);
	if (!place) {
		sm_del(&room, share);
		return sm_fail_oom(error);
	}
	float *by_place = share; /* places are numbered below position_count */
	for (size_t p = 0; p < m->position_count; p++) by_place[p] = -1.0f;
	for (size_t c = m->corner_count; c-- > 0;) by_place[place[m->position_indices[c]]] = corner_balance(m, c);
	size_t disagree = 0;
	for (size_t c = 0; c < m->corner_count; c++) disagree += by_place[place[m->position_indices[c]]] != corner_balance(m, c);
	float *per_position = sm_new(&room, 1, (m->position_count + 1) * sizeof(float));
	if (!per_position) {
		sm_del(&room, place);
		sm_del(&room, share);
		return sm_fail_oom(error);
	}
	for (size_t p = 0; p < m->position_count; p++) {
		float b = by_place[place[p]];
		per_position[p] = b < 0 ? 1.0f : b;
	}
	sm_del(&room, place);
	sm_del(&room, share);
	share = per_position;
	if (disagree)
		sm_warn_n(w, SMDMX_WARNING_QC_PAIR_CUT, disagree, 0, 0,
		          "corners at one place with other balances: each takes the first corner's there, as a VTA moves a place "
		          "one way (the halves still add up to the shape); nothing to do unless a seam shows there");
	size_t nl = strlen(sh->name);
	char *nm = sm_new(&room, 1, nl + 2);
	if (!nm) {
		sm_del(&room, share);
		return sm_fail_oom(error);
	}
	memcpy(nm, sh->name, nl);
	nm[nl] = 'R';
	nm[nl + 1] = 0;
	bool ok = sm_rig_shape_scaled(s->owner, s, sh, nm, share, false, &halves[0], error);
	nm[nl] = 'L';
	ok = ok && sm_rig_shape_scaled(s->owner, s, sh, nm, share, true, &halves[1], error);
	sm_del(&room, nm);
	sm_del(&room, share);
	return ok;
}

/* *out in room (the caller frees it there). */
static bool decide_stereo(smdmx_scene *s, sm_alloc *room, uname **out, size_t *count, smdmx_error *error, smdmx_warnings *w)
{
	sm_raws r;
	size_t n = s->flex_shape_count;
	uname *us = sm_new_zero(room, n + 1, sizeof(uname));
	if (!us || !sm_raws_build(s, &room->hooks, &r)) {
		sm_del(room, us);
		return sm_fail_oom(error);
	}
	size_t nu = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < nu && strcmp(us[k].name, s->flex_shapes[i].name)) k++;
		if (k < nu) continue;
		us[nu].name = s->flex_shapes[i].name;
		us[nu].first = (uint32_t)i;
		us[nu].stereo = sm_raws_stereo(s, &r, us[nu].name, strlen(us[nu].name));
		nu++;
	}
	sm_raws_free(&r);
	/* The split of each mesh's balance. */
	double *split = sm_new_zero(room, s->mesh_count + 1, sizeof(double));
	bool *fits = sm_new_zero(room, s->mesh_count + 1, sizeof(bool));
	if (!split || !fits) {
		sm_del(room, us);
		sm_del(room, split);
		sm_del(room, fits);
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
				ok = sm_rig_split_holds(s, sh, sp);
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
				sm_del(room, us);
				sm_del(room, split);
				sm_del(room, fits);
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
			ok = cut_in_halves(s, sh, &ns[k], error, w);
			k += 2;
		}
		if (!ok) {
			sm_del(room, us);
			sm_del(room, split);
			sm_del(room, fits);
			return false;
		}
		s->flex_shapes = ns;
		s->flex_shape_count = k;
		extra = halves;
		/* a scene a library call changes leaves it validated (doc/speed.md, "One validation") */
		if (!smdmx_scene_validate(s, error)) {
			sm_del(room, us);
			sm_del(room, split);
			sm_del(room, fits);
			return false;
		}
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
	sm_del(room, split);
	sm_del(room, fits);
	*out = us;
	*count = nu;
	return true;
}

bool smdmx_qc_from_scene(smdmx_scene *scene, const char *vta_name, char **model_lines, char **attachment_lines,
                         smdmx_error *error, smdmx_warnings *warnings)
{
	sm_alloc room = sm_scene_room(scene);
	SM_ERROR_START(error);
	if (attachment_lines) *attachment_lines = NULL;
	if (model_lines) *model_lines = NULL;
	sm_warnings_start(warnings, sm_scene_hooks(scene));
	if (!scene || !model_lines) return sm_fail_null(error, __func__, !scene ? "scene" : "model_lines");
	*model_lines = NULL;
	if (attachment_lines) *attachment_lines = NULL;
	if (!sm_scene_memory(scene, error)) return false;
	/* Shapes without any controller (an SMD and its VTA): one plain control each, as a DMX
	 * written from them has (the DMX writer makes the same). */
	smdmx_flex_controller *plain = NULL;
	const char **plain_raw = NULL;
	if (!scene->flex_controller_count && scene->flex_shape_count) {
		plain = sm_new_zero(&room, scene->flex_shape_count, sizeof(*plain));
		plain_raw = sm_new_zero(&room, scene->flex_shape_count, sizeof(char *));
		if (!plain || !plain_raw) {
			sm_del(&room, plain);
			sm_del(&room, plain_raw);
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
	bool ok = decide_stereo(scene, &room, &us, &nu, error, warnings);
	rig g;
	memset(&g, 0, sizeof(g));
	ok = ok && sm_rig_init(&g, scene, error) && sm_rig_lower(&g, scene, us, nu, warnings);
	sm_del(&room, us);
	if (plain) {
		scene->flex_controllers = NULL;
		scene->flex_controller_count = 0;
	}
	if (ok) {
		*model_lines = rig_text(&g, vta_name, scene->flex_shape_count > 0);
		ok = *model_lines != NULL || sm_fail_oom(error);
	}
	sm_rig_free(&g);
	sm_del(&room, plain);
	sm_del(&room, plain_raw);
	if (ok && attachment_lines) {
		*attachment_lines = attachment_text(scene, warnings);
		ok = *attachment_lines != NULL || sm_fail_oom(error);
	}
	ok = ok && sm_warnings_kept(warnings, error);
	if (!ok) {
		smdmx_qc_text_free(*model_lines);
		*model_lines = NULL;
		if (attachment_lines) {
			smdmx_qc_text_free(*attachment_lines);
			*attachment_lines = NULL;
		}
	}
	return ok;
}

bool smdmx_qc_attachment_lines(const smdmx_scene *scene, char **lines, smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, sm_scene_hooks(scene));
	if (!lines) return sm_fail_null(error, __func__, "lines");
	*lines = NULL;
	if (!scene) return sm_fail_null(error, __func__, "scene");
	*lines = attachment_text(scene, warnings);
	if (!*lines) return sm_fail_oom(error);
	if (sm_warnings_kept(warnings, error)) return true;
	smdmx_qc_text_free(*lines);
	*lines = NULL;
	return false;
}

void smdmx_qc_text_free(char *text)
{
	if (!text) return;
	text_head h;
	memcpy(&h, text - sizeof(text_head), sizeof(h));
	sm_alloc a = { h.hooks, 0, 0 };
	sm_free(&a, text - sizeof(text_head), h.size);
}
