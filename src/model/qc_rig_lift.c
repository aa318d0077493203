/* A QC $model block's rig into the scene (smdmx_qc_apply_rig and its steps, attachments,
 * the rules of a DMX model checked): what studiomdl would compile, as qc_rig.c describes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "model/rig.h"
#include "qc/qc_memory.h"

/* ---- lifting: QC lines to the scene ---------------------------------------------------------- */

/* An error at a place in the QC. False. */
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
	/* in an included file: its path (the main QC is the file the user named) */
	if (pos.file != 0 && pos.file < qc->file_count) snprintf(error->file, sizeof(error->file), "%s", qc->files[pos.file].path);
	return false;
}

uint32_t smdmx_qc_model_vta(const smdmx_qc *qc, uint32_t model, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc) return sm_fail_null(error, __func__, "qc"), SMDMX_NONE;
	const smdmx_qc_model *m = &qc->models[model];
	uint32_t vta = SMDMX_NONE;
	for (size_t i = 0; i < m->flex_count; i++) {
		const smdmx_qc_flex *f = &m->flexes[i];
		if (f->vta == SMDMX_NONE) {
			qfail(qc, f->pos, error, SMDMX_ERROR_SYNTAX, "a flex line before any flexfile");
			return SMDMX_NONE;
		}
		if (vta != SMDMX_NONE && strcmp(qc->refs[vta].path, qc->refs[f->vta].path)) {
			qfail(qc, f->pos, error, SMDMX_ERROR_USAGE,
			      "$model '%s' reads flexes from two VTAs ('%s', '%s'): smdmx carries one VTA per $model", m->name,
			      qc->refs[vta].name, qc->refs[f->vta].name);
			return SMDMX_NONE;
		}
		vta = f->vta;
	}
	return vta;
}

/* A shape (the frame's) made into a flex: scaled by the split share on its moved positions
 * (complement: the left half). */
static bool shape_from_frame(smdmx_scene *s, const smdmx_flex_shape *src, const char *name, double split, int half,
                             smdmx_flex_shape *out, smdmx_error *error)
{
	sm_alloc room = sm_scene_room(s);
	const smdmx_mesh *m = &s->meshes[src->mesh];
	float *share = NULL;
	if (split != 0) {
		share = sm_new(&room, 1, (m->position_count + 1) * sizeof(float));
		if (!share) return sm_fail_oom(error);
		for (size_t p = 0; p < m->position_count; p++) share[p] = sm_rig_pair_share(split, m->positions[p][0]);
		/* studiomdl steps on each moved position */
		for (size_t k = 0; k < src->position_count; k++) {
			uint32_t p = src->position_indices[k];
			share[p] = sm_rig_pair_share(split, (double)m->positions[p][0] + src->position_deltas[k][0]);
		}
	}
	bool ok = sm_rig_shape_scaled(s->owner, s, src, name, share, half == 'L', out, error);
	sm_del(&room, share);
	return ok;
}

/* defaultflex: the base takes that frame and the other frames move from it (studiomdl
 * copies the default frame into the model and into the VTA's frame 0). */
static bool rebase(smdmx_scene *s, const smdmx_flex_shape *deff)
{
	sm_alloc room = sm_scene_room(s);
	size_t nframes = s->flex_shape_count;
	smdmx_mesh *me = &s->meshes[deff->mesh];
	for (size_t k = 0; k < deff->position_count; k++)
		for (int a = 0; a < 3; a++) me->positions[deff->position_indices[k]][a] += deff->position_deltas[k][a];
	for (size_t k = 0; me->normals && k < deff->normal_count; k++)
		for (int a = 0; a < 3; a++) me->normals[deff->normal_indices[k]][a] += deff->normal_deltas[k][a];
	int32_t *dp = sm_new(&room, 1, (me->position_count + 1) * sizeof(int32_t)), *dn = sm_new(&room, 1, (me->normal_count + 1) * sizeof(int32_t));
	if (!dp || !dn) {
		sm_del(&room, dp);
		sm_del(&room, dn);
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
	sm_del(&room, dp);
	sm_del(&room, dn);
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

/* The flex line of each name: the key at position 1, else the last; the others are lost
 * (warned), and so is a decay other than 1. use[i]: line i is taken. */
static void choose_flexes(const smdmx_qc *qc, const smdmx_qc_model *m, char *use, smdmx_warnings *w)
{
	size_t nf = m->flex_count;
	for (size_t i = 0; i < nf; i++) {
		const smdmx_qc_flex *f = &m->flexes[i];
		if (f->kind == SMDMX_QC_DEFAULTFLEX) continue;
		size_t chosen = i;
		for (size_t j = 0; j < nf; j++) {
			const smdmx_qc_flex *g = &m->flexes[j];
			if (g->kind == SMDMX_QC_DEFAULTFLEX || !sm_same_nocase(g->name, f->name)) continue;
			bool gpos = g->position == 1, cpos = m->flexes[chosen].position == 1;
			if ((gpos && !cpos) || (gpos == cpos && j > chosen)) chosen = j;
		}
		if (chosen == i) {
			use[i] = 1;
		} else {
			char a[SM_FLOAT_MAX];
			sm_rig_fmt_num(f->position, a);
			qwarn(qc, f->pos, w, SMDMX_WARNING_QC_LOST_KEYS, "flex '%s': its key at position %s (frame %d) has no DMX form (one shape per "
			      "flex): left out; leave the model as SMD and VTA if it matters",
			      f->name, a, (int)f->frame);
		}
		if (use[i] && f->decay != 1) qwarn(qc, f->pos, w, SMDMX_WARNING_QC_LOST_KEYS, "flex '%s': 'decay' has no DMX form: left out; leave the model as SMD and VTA if it matters", f->name);
	}
}

/* Every frame the lines taken name is in the VTA; *deff the defaultflex's frame (NULL: none,
 * or frame 0). */
static bool find_frames(const smdmx_qc *qc, const smdmx_qc_model *m, const char *use, const smdmx_scene *s,
                        const smdmx_flex_shape **deff, smdmx_error *error)
{
	const smdmx_flex_shape *frames = s->flex_shapes;
	size_t nframes = s->flex_shape_count;
	const smdmx_qc_flex *def = NULL;
	for (size_t i = 0; i < m->flex_count; i++)
		if (m->flexes[i].kind == SMDMX_QC_DEFAULTFLEX) def = &m->flexes[i];
	*deff = NULL;
	if (def && def->frame != 0) {
		for (size_t k = 0; k < nframes && !*deff; k++)
			if (frames[k].frame == def->frame) *deff = &frames[k];
		if (!*deff) return qfail(qc, def->pos, error, SMDMX_ERROR_BAD_VALUE, "defaultflex frame %d is not in the VTA", (int)def->frame);
	}
	for (size_t i = 0; i < m->flex_count; i++) {
		if (!use[i]) continue;
		bool found = m->flexes[i].frame == 0;
		for (size_t k = 0; k < nframes && !found; k++) found = frames[k].frame == m->flexes[i].frame;
		if (!found)
			return qfail(qc, m->flexes[i].pos, error, SMDMX_ERROR_BAD_VALUE, "flex '%s': frame %d is not in the VTA", m->flexes[i].name,
			             (int)m->flexes[i].frame);
	}
	return true;
}

/* The mesh's split: the most used flexpair width. */
static double mesh_split(const smdmx_qc_model *m, const char *use)
{
	double msplit = 0;
	size_t best = 0, nf = m->flex_count;
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
	return msplit;
}

/* The plan: a shape per flex line taken; a flexpair stereo where the mesh's balance
 * reproduces studiomdl's split exactly, else its two halves (warned). Its length. */
static size_t make_plan(const smdmx_qc *qc, const smdmx_qc_model *m, const char *use, const smdmx_scene *s, double msplit,
                        plan *pl, smdmx_warnings *w)
{
	size_t np = 0;
	for (size_t i = 0; i < m->flex_count; i++) {
		if (!use[i]) continue;
		const smdmx_qc_flex *f = &m->flexes[i];
		pl[np].line = f;
		for (size_t k = 0; k < s->flex_shape_count && !pl[np].src; k++)
			if (s->flex_shapes[k].frame == f->frame && f->frame != 0) pl[np].src = &s->flex_shapes[k];
		if (f->kind == SMDMX_QC_FLEXPAIR) {
			bool keep = f->split == msplit && (!pl[np].src || sm_rig_split_holds(s, pl[np].src, f->split));
			pl[np].how = keep ? PLAN_STEREO : PLAN_CUT;
			if (!keep)
				qwarn(qc, f->pos, w, SMDMX_WARNING_QC_PAIR_CUT, "flexpair '%s' written as two shapes '%sR' and '%sL', the same model: %s; nothing to do",
				      f->name, f->name, f->name,
				      f->split != msplit ? "a mesh's balance holds one split width" : "its shape moves across the split");
		}
		np++;
	}
	return np;
}

/* Among flex rules a shape is stereo only when a control of its name says so: the others
 * are cut (warned). Whether one was. */
static bool cut_unnamed_pairs(const smdmx_qc *qc, const smdmx_qc_model *m, plan *pl, size_t np, smdmx_warnings *w)
{
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
	return recut;
}

/* studiomdl reads a delta state's name split at '_' as raw controls: one whose parts are all
 * raw controls, one of them stereo, it splits too. A plain flex so named would change: the
 * stereo shapes its name is made of are cut instead (warned). Raw controls here: the stereo
 * shapes (their controls mark them) and, beside flex rules, shapes a controller names.
 * Whether one was cut. */
static bool cut_pairs_named_in(const smdmx_qc *qc, const smdmx_qc_model *m, plan *pl, size_t np, bool rig_in_qc,
                               smdmx_warnings *w)
{
	bool changed = false;
	for (size_t i = 0; i < np; i++) {
		if (pl[i].how != PLAN_PLAIN || !strchr(pl[i].line->name, '_')) continue;
		bool all = true, any = false;
		size_t stereo_parts[64], ns_ = 0;
		for (const char *p = pl[i].line->name; all;) {
			const char *e = strchr(p, '_');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			bool raw = false;
			for (size_t j = 0; j < np && !raw; j++) {
				if (strlen(pl[j].line->name) != len || !sm_same_nocase_n(pl[j].line->name, p, len)) continue;
				if (pl[j].how == PLAN_STEREO) {
					raw = any = true;
					if (ns_ < 64) stereo_parts[ns_++] = j;
				} else if (pl[j].how == PLAN_PLAIN && !rig_in_qc) {
					for (size_t c = 0; c < m->controller_count && !raw; c++) raw = sm_same_nocase(m->controllers[c].name, pl[j].line->name);
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
	return changed;
}

/* The shapes as planned, into ns (named as ls names them); stereo_mesh[i]: mesh i has a
 * stereo shape. Their count in *n. */
static bool build_shapes(smdmx_scene *s, const plan *pl, size_t np, const lshape *ls, smdmx_flex_shape *ns, bool *stereo_mesh,
                         size_t *count, smdmx_error *error)
{
	size_t n = 0;
	bool ok = true;
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
	*count = n;
	return ok;
}

/* The VTA's frames no flex line names (but the defaultflex's): left out, counted. */
static void warn_unnamed_frames(const smdmx_qc_model *m, const char *use, const smdmx_flex_shape *frames, size_t nframes,
                                const smdmx_flex_shape *deff, smdmx_warnings *w)
{
	size_t unnamed = 0;
	for (size_t k = 0; k < nframes; k++) {
		if (&frames[k] == deff) continue;
		bool named = false;
		for (size_t i = 0; i < m->flex_count && !named; i++) named = use[i] && m->flexes[i].frame == frames[k].frame;
		unnamed += !named;
	}
	if (unnamed)
		sm_warn_n(w, SMDMX_WARNING_QC_LOST_FRAMES, unnamed, 0, 0, "VTA frames no flex line names are left out, as studiomdl leaves them out%s; nothing to do",
		          m->qc_only_count ? " (eyelid lines read theirs from the VTA)" : "");
}

/* Balance of the meshes with a stereo shape: the step of the mesh's split, per position. */
static bool set_balance(smdmx_scene *s, const bool *stereo_mesh, double msplit, smdmx_error *error)
{
	for (size_t mi = 0; mi < s->mesh_count; mi++) {
		if (!stereo_mesh[mi]) continue;
		smdmx_mesh *me = &s->meshes[mi];
		float *data = sm_owned_alloc(s->owner, (me->position_count + 1) * sizeof(float), error);
		uint32_t *idx = sm_owned_alloc(s->owner, (me->corner_count + 1) * sizeof(uint32_t), error);
		if (!data || !idx) return false;
		for (size_t p = 0; p < me->position_count; p++) data[p] = sm_rig_pair_share(msplit, me->positions[p][0]);
		if (me->corner_count) memcpy(idx, me->position_indices, me->corner_count * sizeof(uint32_t));
		me->balance.data = data;
		me->balance.count = me->position_count;
		me->balance.indices = idx;
	}
	return true;
}

/* The controls: with the rig in the QC a control for each stereo shape only (a control of
 * another would make studiomdl read its name's '_' parts as raw controls); else the QC's
 * controllers. */
static bool rig_controls(smdmx_scene *s, const smdmx_qc_model *m, const lshape *ls, size_t nls, bool rig_in_qc,
                         smdmx_error *error)
{
	sm_alloc room = sm_scene_room(s);
	size_t nstereo = 0, *stereo_of = sm_new_zero(&room, nls + 1, sizeof(size_t));
	if (!stereo_of) return sm_fail_oom(error);
	for (size_t u = 0; u < nls; u++)
		if (ls[u].stereo) stereo_of[nstereo++] = u;
	size_t nc = rig_in_qc ? nstereo : m->controller_count;
	smdmx_flex_controller *cc = sm_owned_calloc(s->owner, nc + 1, sizeof(*cc), error);
	bool ok = cc != NULL;
	for (size_t i = 0; ok && i < nc; i++) {
		const char *name = rig_in_qc ? ls[stereo_of[i]].name : m->controllers[i].name;
		cc[i].name = sm_strdup(s->owner, name, strlen(name), error);
		if (!cc[i].name) {
			ok = false;
			break;
		}
		cc[i].min = rig_in_qc ? 0.0f : (float)m->controllers[i].min;
		cc[i].max = rig_in_qc ? 1.0f : (float)m->controllers[i].max;
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
	sm_del(&room, stereo_of);
	if (ok) {
		s->flex_controllers = cc;
		s->flex_controller_count = nc;
	}
	return ok;
}

/* The QC's rules as DMX flex rules (its controllers' groups lost: counted); a localvar that
 * only declares a later rule's flex is that rule. */
static bool rig_flex_rules(smdmx_scene *s, const smdmx_qc_model *m, const lshape *ls, size_t nls, smdmx_error *error,
                           smdmx_warnings *w)
{
	size_t groups = 0;
	for (size_t i = 0; i < m->controller_count; i++) groups += strcmp(m->controllers[i].group, "default") != 0;
	if (groups)
		sm_warn_n(w, SMDMX_WARNING_QC_LOST_GROUPS, groups, 0, 0,
		          "flex controller groups (eyes, mouth, ...) left out: beside DMX flex rules studiomdl makes every controller "
		          "'default'; use --rig qc to keep them");
	smdmx_flex_rule *fr = sm_owned_calloc(s->owner, m->rule_count + 1, sizeof(*fr), error);
	bool ok = fr != NULL;
	size_t k = 0;
	for (size_t i = 0; ok && i < m->rule_count; i++) {
		const smdmx_qc_rule *q = &m->rules[i];
		if (!q->expression) {
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
		sm_rig_squeeze(q->expression, t, sizeof(t));
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
	return ok;
}

/* The scene without controllers and rules, for the QC's to be given it. */
static void no_rig(smdmx_scene *s)
{
	s->domination_rules = NULL;
	s->domination_rule_count = 0;
	s->flex_rules = NULL;
	s->flex_rule_count = 0;
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
}

/* The shapes planned, the rig (a combination operator, or controls with flex rules, or with
 * the rig in the QC controls marking the stereo shapes), the balance of their meshes. */
static bool lift_planned(const smdmx_qc *qc, const smdmx_qc_model *m, smdmx_scene *s, const char *use, plan *pl, size_t np,
                         double msplit, const smdmx_flex_shape *deff, bool rig_in_qc, smdmx_error *error, smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	size_t nf = m->flex_count, nframes = s->flex_shape_count;
	const smdmx_flex_shape *frames = s->flex_shapes;
	lshape *ls = sm_new_zero(&room, 2 * nf + 1, sizeof(*ls));
	char (*names)[300] = sm_new_zero(&room, 2 * nf + 1, 300);
	bool *stereo_mesh = sm_new_zero(&room, s->mesh_count + 1, sizeof(bool));
	if (!ls || !names || !stereo_mesh) {
		sm_del(&room, ls);
		sm_del(&room, names);
		sm_del(&room, stereo_mesh);
		return sm_fail_oom(error);
	}
	size_t nls = plan_shapes(pl, np, ls, names);
	/* The rig, now that the shapes are named. */
	no_rig(s);
	bool accepted = false, ok = true;
	if (!rig_in_qc) ok = sm_rig_try_combination(s, m, ls, nls, &accepted, error);
	if (ok && !accepted && !rig_in_qc && cut_unnamed_pairs(qc, m, pl, np, w)) nls = plan_shapes(pl, np, ls, names);
	for (bool changed = ok && !accepted; changed;) {
		changed = cut_pairs_named_in(qc, m, pl, np, rig_in_qc, w);
		if (changed) nls = plan_shapes(pl, np, ls, names);
	}
	smdmx_flex_shape *ns = ok ? sm_owned_calloc(s->owner, nls + 1, sizeof(*ns), error) : NULL;
	size_t n = 0;
	ok = ok && ns && build_shapes(s, pl, np, ls, ns, stereo_mesh, &n, error);
	/* The lifted names now live in the scene. */
	for (size_t u = 0; ok && u < nls; u++) ls[u].name = ns[u].name;
	if (ok) warn_unnamed_frames(m, use, frames, nframes, deff, w);
	if (ok) {
		s->flex_shapes = ns;
		s->flex_shape_count = n;
		ok = sm_mark_correctives(&s->owner->alloc, ns, n, false) || sm_fail_oom(error);
	}
	ok = ok && set_balance(s, stereo_mesh, msplit, error);
	sm_del(&room, stereo_mesh);
	if (ok && !accepted) ok = rig_controls(s, m, ls, nls, rig_in_qc, error) && (rig_in_qc || rig_flex_rules(s, m, ls, nls, error, w));
	sm_del(&room, ls);
	sm_del(&room, names);
	return ok;
}

/* A DMX shape's halves by its mesh's balance: per position, the balance of the first corner
 * there (0.5 without one), R taking that share and L the rest. */
static bool cut_by_balance(smdmx_scene *s, const smdmx_flex_shape *src, smdmx_flex_shape halves[2], smdmx_error *error)
{
	sm_alloc room = sm_scene_room(s);
	const smdmx_mesh *m = &s->meshes[src->mesh];
	float *share = sm_new(&room, 1, (m->position_count + 1) * sizeof(float));
	char name[300];
	if (!share) return sm_fail_oom(error);
	for (size_t p = 0; p < m->position_count; p++) share[p] = -1;
	for (size_t c = 0; c < m->corner_count; c++) {
		float *x = &share[m->position_indices[c]];
		if (*x < 0) *x = m->balance.indices ? m->balance.data[m->balance.indices[c]] : 0.5f;
	}
	for (size_t p = 0; p < m->position_count; p++)
		if (share[p] < 0) share[p] = 0.5f;
	snprintf(name, sizeof(name), "%.290sR", src->name);
	bool ok = sm_rig_shape_scaled(s->owner, s, src, name, share, false, &halves[0], error);
	snprintf(name, sizeof(name), "%.290sL", src->name);
	ok = ok && sm_rig_shape_scaled(s->owner, s, src, name, share, true, &halves[1], error);
	sm_del(&room, share);
	return ok;
}

bool smdmx_qc_apply_dmx_rig(const smdmx_qc *qc, uint32_t model, smdmx_scene *s, smdmx_error *error)
{
	sm_alloc room = sm_scene_room(s);
	SM_ERROR_START(error);
	if (!qc || !s) return sm_fail_null(error, __func__, !qc ? "qc" : "scene");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	if (!m->noautodmxrules || (!m->controller_count && !m->rule_count)) return true;
	if (!sm_scene_memory(s, error)) return false;
	size_t n = s->flex_shape_count;
	sm_alloc *a = &s->owner->alloc;
	/* each shape name a flex line of its own: stereo where the DMX's controls split it */
	smdmx_qc_flex *lines = sm_new_zero(&room, n + 1, sizeof(*lines));
	plan *pl = sm_new_zero(&room, n + 1, sizeof(*pl));
	uint32_t *line_of = sm_new_zero(&room, n + 1, sizeof(*line_of));
	lshape *ls = sm_new_zero(&room, 2 * n + 1, sizeof(*ls));
	char(*names)[300] = sm_new_zero(&room, 2 * n + 1, 300);
	smdmx_flex_shape *ns = sm_owned_calloc(s->owner, 2 * n + 1, sizeof(*ns), error);
	sm_names by_name;
	memset(&by_name, 0, sizeof(by_name));
	sm_raws raws;
	memset(&raws, 0, sizeof(raws));
	bool ok = lines && pl && line_of && ls && names && sm_names_init(a, &by_name, n) && sm_raws_build(s, NULL, &raws)
	                  ? ns != NULL
	                  : sm_fail_oom(error);
	size_t np = 0;
	for (size_t i = 0; ok && i < n; i++) {
		const char *name = s->flex_shapes[i].name;
		line_of[i] = sm_names_get(&by_name, name);
		if (line_of[i] != SMDMX_NONE) continue;
		line_of[i] = (uint32_t)np;
		ok = sm_names_put(a, &by_name, name, (uint32_t)np, true) || sm_fail_oom(error);
		lines[np] = (smdmx_qc_flex){ SMDMX_QC_FLEX, name, SMDMX_NONE, (int32_t)np + 1, 0, 1, 1, m->pos };
		bool stereo = sm_raws_stereo(s, &raws, name, strlen(name));
		pl[np] = (plan){ &lines[np], &s->flex_shapes[i], stereo ? PLAN_STEREO : PLAN_PLAIN };
		np++;
	}
	sm_raws_free(&raws);
	/* cut as the same lines cut a flexpair (their words said of the QC's own flex lines, not of
	 * a DMX's: left unsaid here) */
	if (ok) cut_unnamed_pairs(qc, m, pl, np, NULL);
	for (bool changed = ok; changed;) changed = cut_pairs_named_in(qc, m, pl, np, false, NULL);
	size_t nls = ok ? plan_shapes(pl, np, ls, names) : 0, k = 0;
	for (size_t i = 0; ok && i < n; i++) {
		const smdmx_flex_shape *sh = &s->flex_shapes[i];
		if (pl[line_of[i]].how == PLAN_CUT) {
			ok = cut_by_balance(s, sh, &ns[k], error);
			k += 2;
		} else {
			ns[k++] = *sh;
		}
	}
	/* the names the controls take are the scene's (the first shape of each name) */
	sm_names_free(a, &by_name);
	ok = ok && (sm_names_init(a, &by_name, k) || sm_fail_oom(error));
	for (size_t i = 0; ok && i < k; i++) ok = sm_names_put(a, &by_name, ns[i].name, (uint32_t)i, true) || sm_fail_oom(error);
	for (size_t u = 0; ok && u < nls; u++) {
		uint32_t i = sm_names_get(&by_name, ls[u].name);
		if (i != SMDMX_NONE) ls[u].name = ns[i].name;
	}
	sm_names_free(a, &by_name);
	if (ok) {
		s->flex_shapes = ns;
		s->flex_shape_count = k;
		no_rig(s);
		ok = sm_mark_correctives(&s->owner->alloc, ns, k, false) || sm_fail_oom(error);
	}
	ok = ok && rig_controls(s, m, ls, nls, false, error) && rig_flex_rules(s, m, ls, nls, error, NULL);
	sm_del(&room, lines);
	sm_del(&room, pl);
	sm_del(&room, line_of);
	sm_del(&room, ls);
	sm_del(&room, names);
	return ok;
}

bool smdmx_qc_apply_rig(const smdmx_qc *qc, uint32_t model, smdmx_scene *s, const smdmx_qc_rig_options *options,
                        smdmx_error *error, smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	SM_ERROR_START(error);
	sm_warnings_start(w, sm_scene_hooks(s));
	if (!qc || !s) return sm_fail_null(error, __func__, !qc ? "qc" : "scene");
	smdmx_qc_rig_options opt;
	memset(&opt, 0, sizeof(opt));
	if (options) opt = *options;
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	if (!sm_scene_memory(s, error)) return false;
	char *use = sm_new_zero(&room, m->flex_count + 1, 1);
	if (!use) return sm_fail_oom(error);
	choose_flexes(qc, m, use, w);
	const smdmx_flex_shape *deff = NULL;
	bool ok = find_frames(qc, m, use, s, &deff, error);
	if (ok && deff && !rebase(s, deff)) ok = sm_fail_oom(error);
	plan *pl = ok ? sm_new_zero(&room, m->flex_count + 1, sizeof(*pl)) : NULL;
	if (ok && !pl) ok = sm_fail_oom(error);
	if (ok) {
		double msplit = mesh_split(m, use);
		size_t np = make_plan(qc, m, use, s, msplit, pl, w);
		ok = lift_planned(qc, m, s, use, pl, np, msplit, deff, opt.rig_in_qc, error, w);
	}
	sm_del(&room, use);
	sm_del(&room, pl);
	if (ok && !opt.rig_in_qc && m->qc_only_count)
		qwarn(qc, m->pos, w, SMDMX_WARNING_QC_ONLY, "eyeball, eyelid and mouth lines have no DMX form: %zu stay in the QC, which studiomdl reads with the DMX; nothing to do",
		      m->qc_only_count);
	return ok && sm_warnings_kept(w, error);
}

/* $attachment lines onto the scene's joints (Cmd_Attachment): position in the bone's space
 * (the model's with "absolute"), "rotate" as a QAngle. */
bool smdmx_qc_apply_attachments(const smdmx_qc *qc, smdmx_scene *s, smdmx_error *error, smdmx_warnings *w)
{
	sm_alloc room = sm_scene_room(s);
	SM_ERROR_START(error);
	sm_warnings_start(w, sm_scene_hooks(s));
	if (!qc || !s) return sm_fail_null(error, __func__, !qc ? "qc" : "scene");
	if (!qc->attachment_count) return true;
	if (!sm_scene_memory(s, error)) return false;
	smdmx_attachment *as = sm_owned_calloc(s->owner, s->attachment_count + qc->attachment_count + 1, sizeof(*as), error);
	if (!as) return false;
	if (s->attachment_count) memcpy(as, s->attachments, s->attachment_count * sizeof(*as));
	size_t n = s->attachment_count, missing = 0;
	/* bind poses in model space, for "absolute" */
	double (*world)[4][4] = sm_new_zero(&room, s->joint_count + 1, sizeof(*world));
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
		while (j < s->joint_count && !sm_same_nocase(s->joints[j].name, qa->bone)) j++;
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
	sm_del(&room, world);
	if (missing)
		sm_warn_n(w, SMDMX_WARNING_QC_ONLY, missing, 0, 0, "$attachment lines on bones this model does not have: left in the QC (another model of "
		          "it may have them); check the bone names if not");
	s->attachments = as;
	s->attachment_count = n;
	return ok && sm_warnings_kept(w, error);
}

bool smdmx_qc_apply_defaultflex(const smdmx_qc *qc, uint32_t model, smdmx_scene *s, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !s) return sm_fail_null(error, __func__, !qc ? "qc" : "scene");
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
		if (sm_same_nocase(list[i], name)) return true;
	return false;
}

bool smdmx_qc_check_rules(const smdmx_qc *qc, uint32_t model, const char *const *flexes, size_t flex_count,
                          const char *const *controllers, size_t controller_count, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc) return sm_fail_null(error, __func__, "qc");
	sm_alloc room = sm_qc_room(qc); /* the QC's allocator's */
	if ((!flexes && flex_count) || (!controllers && controller_count))
		return sm_fail_null(error, __func__, !flexes && flex_count ? "flexes" : "controllers");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const smdmx_qc_model *m = &qc->models[model];
	const char **ctl = sm_new(&room, 1, (m->controller_count + 1) * sizeof(char *));
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
			} else if (!sm_same_nocase(name, "min") && !sm_same_nocase(name, "max")) {
				if (!among(name, ctl, m->controller_count) && !among(name, controllers, controller_count))
					ok = qfail(qc, r->pos, error, SMDMX_ERROR_SYNTAX, "rule '%s': unknown controller '%s'", r->name, name);
			}
			fetch = false;
		}
	}
	sm_del(&room, ctl);
	return ok;
}
