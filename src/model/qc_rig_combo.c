/* A QC $model block's controllers and rules read as a combination operator (doc/formats.md C10):
 * its controls, the raw controls each shape's rule reads, its dominator groups; accepted only
 * when, written back as qc_rig.c writes a rig, it gives the QC's lines again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/rig.h"

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

/* A combination operator being read from a $model's controllers and rules: the controls
 * (a right_X and left_X pair one stereo control X), the raw controls each reads, and the
 * dominator groups. */
typedef struct combo {
	smdmx_scene *s;
	const smdmx_qc_model *m;
	const lshape *ls;
	size_t nls;
	smdmx_error *error;
	size_t nc;                    /* the QC's controllers */
	smdmx_flex_controller *cc;    /* the controls */
	size_t ncc;
	uint32_t *ctl_of;             /* controller -> control */
	char *paired;                 /* per controller: 'R' right_X, 'L' left_X of a pair, else 0 */
	const char **raw0, **raw1;    /* per control: its raw controls (one, or two for a two-way one) */
	bool *twoway, *plain;         /* per control: read by a side of it, read whole */
	sm_vec doms;                  /* smdmx_domination_rule */
	factor fs[256];
} combo;

/* What a step found: go on, the QC's rig is no combination operator (flex rules then), or a
 * failure (the error is set). */
typedef enum { COMBO_OK, COMBO_REFUSE, COMBO_FAIL } combo_result;

/* The rule of that name, or NULL. */
static const smdmx_qc_rule *rule_named(const smdmx_qc_model *m, const char *name)
{
	for (size_t i = 0; i < m->rule_count; i++)
		if (!strcmp(m->rules[i].name, name)) return &m->rules[i];
	return NULL;
}

/* The controller of that name, or nc when none. */
static size_t controller_named(const combo *c, const char *name)
{
	size_t ci = 0;
	while (ci < c->nc && strcmp(c->m->controllers[ci].name, name)) ci++;
	return ci;
}

/* A right_X read by a stereo shape's right rule, with a left_X beside it: one stereo control. */
static void pair_stereo(combo *c)
{
	const smdmx_qc_model *m = c->m;
	for (size_t u = 0; u < c->nls; u++) {
		if (!c->ls[u].stereo) continue;
		char rname[300];
		snprintf(rname, sizeof(rname), "%sR", c->ls[u].name);
		for (size_t i = 0; i < m->rule_count; i++) {
			if (strcmp(m->rules[i].name, rname)) continue;
			char t[4096];
			sm_rig_squeeze(m->rules[i].expression, t, sizeof(t));
			size_t nf;
			if (!parse_factors(t, c->fs, 256, &nf)) break;
			for (size_t k = 0; k < nf; k++) {
				if (c->fs[k].group || strncmp(c->fs[k].name, "right_", 6)) continue;
				for (size_t a = 0; a < c->nc; a++) {
					if (strcmp(m->controllers[a].name, c->fs[k].name)) continue;
					for (size_t b = 0; b < c->nc; b++)
						if (!strncmp(m->controllers[b].name, "left_", 5) && !strcmp(m->controllers[b].name + 5, c->fs[k].name + 6)) {
							c->paired[a] = 'R';
							c->paired[b] = 'L';
						}
				}
			}
		}
	}
}

/* The controls: one per controller, a pair's two as one stereo control named without its
 * side. */
static bool make_controls(combo *c)
{
	const smdmx_qc_model *m = c->m;
	for (size_t i = 0; i < c->nc; i++) {
		if (c->paired[i] == 'L') continue;
		smdmx_flex_controller *fc = &c->cc[c->ncc];
		const char *cn = c->paired[i] == 'R' ? m->controllers[i].name + 6 : m->controllers[i].name;
		fc->name = sm_strdup(c->s->owner, cn, strlen(cn), c->error);
		if (!fc->name) return false;
		fc->stereo = c->paired[i] == 'R';
		fc->min = (float)m->controllers[i].min;
		fc->max = (float)m->controllers[i].max;
		c->ctl_of[i] = (uint32_t)c->ncc++;
	}
	for (size_t i = 0; i < c->nc; i++) {
		if (c->paired[i] != 'L') continue;
		for (size_t k = 0; k < c->ncc; k++)
			if (c->cc[k].stereo && !strcmp(c->cc[k].name, m->controllers[i].name + 5)) c->ctl_of[i] = (uint32_t)k;
	}
	return true;
}

/* Raw controls: which control (and side of it) each part of each shape's name reads. Each
 * rule must be the fetches of its shape's parts in order, then dominator groups. */
static combo_result read_raw_controls(combo *c)
{
	for (size_t u = 0; u < c->nls; u++) {
		size_t nparts = 1;
		for (const char *p = c->ls[u].name; *p; p++) nparts += *p == '_';
		for (int side = 0; side < (c->ls[u].stereo ? 2 : 1); side++) {
			char rname[300];
			snprintf(rname, sizeof(rname), "%s%s", c->ls[u].name, c->ls[u].stereo ? (side ? "L" : "R") : "");
			const smdmx_qc_rule *rule = rule_named(c->m, rname);
			if (!rule) continue; /* driven by nothing */
			char t[4096];
			sm_rig_squeeze(rule->expression, t, sizeof(t));
			size_t nf;
			if (!parse_factors(t, c->fs, 256, &nf)) return COMBO_REFUSE;
			/* the fetches of the parts, then groups */
			size_t k = 0, part = 0;
			const char *p = c->ls[u].name;
			for (; k < nf && part < nparts; k++) {
				if (c->fs[k].group) return COMBO_REFUSE;
				const char *e = strchr(p, '_');
				size_t len = e ? (size_t)(e - p) : strlen(p);
				size_t ci = controller_named(c, c->fs[k].name);
				if (ci == c->nc) return COMBO_REFUSE;
				uint32_t ctl = c->ctl_of[ci];
				const char *raw = sm_strdup(c->s->owner, p, len, c->error);
				if (!raw) return COMBO_FAIL;
				const char **slot = c->fs[k].sign == 1 ? &c->raw1[ctl] : &c->raw0[ctl];
				if (c->fs[k].sign) c->twoway[ctl] = true;
				else c->plain[ctl] = true;
				if (*slot && strcmp(*slot, raw)) return COMBO_REFUSE;
				*slot = raw;
				part++;
				p = e ? e + 1 : p + len;
			}
			if (part != nparts) return COMBO_REFUSE;
			/* the rest: dominator groups (their fetches follow each in the list) */
			while (k < nf) {
				if (!c->fs[k].group) return COMBO_REFUSE;
				k += 1 + c->fs[k].count;
			}
		}
	}
	/* each control read one way, in the range that way has */
	for (size_t i = 0; i < c->ncc; i++) {
		smdmx_flex_controller *fc = &c->cc[i];
		if (c->twoway[i] && c->plain[i]) return COMBO_REFUSE;
		if (c->twoway[i] && (!c->raw0[i] || !c->raw1[i])) return COMBO_REFUSE;
		size_t n = c->twoway[i] ? 2 : c->raw0[i] ? 1 : 0;
		fc->raw_controls.data = sm_owned_calloc(c->s->owner, n + 1, sizeof(char *), c->error);
		if (!fc->raw_controls.data) return COMBO_FAIL;
		if (n >= 1) fc->raw_controls.data[0] = c->raw0[i];
		if (n == 2) fc->raw_controls.data[1] = c->raw1[i];
		fc->raw_controls.count = n;
		if (c->twoway[i] ? (fc->min != -1 || fc->max != 1) : (fc->min != 0 || fc->max != 1)) return COMBO_REFUSE;
	}
	return COMBO_OK;
}

/* The shape's name cut at '_' into its raw controls (at most 64), copies the scene owns. */
static bool name_parts(combo *c, const char *name, const char **parts, size_t *np)
{
	*np = 0;
	for (const char *p = name; *np < 64;) {
		const char *e = strchr(p, '_');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		parts[*np] = sm_strdup(c->s->owner, p, len, c->error);
		if (!parts[(*np)++]) return false;
		if (!e) break;
		p = e + 1;
	}
	return true;
}

/* A dominator group of shape u's rule, reading the raw controls names[0..nn): a new
 * domination rule suppressing the shape's raw controls, or one met before, which keeps only
 * the raw controls both shapes hold. */
static combo_result add_domination(combo *c, size_t u, const char *const *names, size_t nn)
{
	smdmx_domination_rule *dr = c->doms.data;
	size_t d = 0;
	for (; d < c->doms.count; d++) {
		if (dr[d].dominators.count != nn) continue;
		bool same = true;
		for (size_t j = 0; j < nn && same; j++) same = !strcmp(dr[d].dominators.data[j], names[j]);
		if (same) break;
	}
	const char *parts[64];
	size_t np;
	if (!name_parts(c, c->ls[u].name, parts, &np)) return COMBO_FAIL;
	if (d == c->doms.count) {
		smdmx_domination_rule *nd = sm_vec_push(c->s->owner, &c->doms, sizeof(*nd), c->error);
		const char **dd = sm_owned_calloc(c->s->owner, nn + 1, sizeof(char *), c->error);
		const char **ss = sm_owned_calloc(c->s->owner, np + 1, sizeof(char *), c->error);
		if (!nd || !dd || !ss) return COMBO_FAIL;
		memcpy(dd, names, nn * sizeof(char *));
		memcpy(ss, parts, np * sizeof(char *));
		nd->dominators.data = dd;
		nd->dominators.count = nn;
		nd->suppressed.data = ss;
		nd->suppressed.count = np;
		return COMBO_OK;
	}
	/* keep the parts both shapes hold */
	smdmx_string_list *sup = &dr[d].suppressed;
	size_t w = 0;
	for (size_t j = 0; j < sup->count; j++) {
		bool in = false;
		for (size_t q = 0; q < np && !in; q++) in = !strcmp(parts[q], sup->data[j]);
		if (in) sup->data[w++] = sup->data[j];
	}
	sup->count = w;
	return w ? COMBO_OK : COMBO_REFUSE;
}

/* Dominator groups: the raw controls each reads, and the shapes it falls on; its suppressed
 * controls are what those shapes' names all hold. */
static combo_result read_dominators(combo *c)
{
	for (size_t u = 0; u < c->nls; u++) {
		char rname[300];
		snprintf(rname, sizeof(rname), "%s%s", c->ls[u].name, c->ls[u].stereo ? "R" : "");
		const smdmx_qc_rule *rule = rule_named(c->m, rname);
		if (!rule) continue;
		char t[4096];
		sm_rig_squeeze(rule->expression, t, sizeof(t));
		size_t nf;
		if (!parse_factors(t, c->fs, 256, &nf)) return COMBO_REFUSE;
		for (size_t k = 0; k < nf; k = c->fs[k].group ? k + 1 + c->fs[k].count : k + 1) {
			if (!c->fs[k].group) continue;
			const char *names[64];
			size_t nn = 0;
			for (size_t j = c->fs[k].first; j < c->fs[k].first + c->fs[k].count && nn < 64; j++) {
				size_t ci = controller_named(c, c->fs[j].name);
				if (ci == c->nc) return COMBO_REFUSE;
				uint32_t ctl = c->ctl_of[ci];
				const char *raw = c->fs[j].sign == 1 ? c->raw1[ctl] : c->raw0[ctl];
				if (!raw) return COMBO_REFUSE;
				names[nn++] = raw;
			}
			combo_result r = add_domination(c, u, names, nn);
			if (r != COMBO_OK) return r;
		}
	}
	return COMBO_OK;
}

/* Written back with rig_lower, the candidate must give the QC's controllers and rules; then
 * the scene takes it (*accepted). False on failure. */
static bool accept_if_same(combo *c, bool *accepted)
{
	sm_alloc room = sm_scene_room(c->s);
	smdmx_scene *s = c->s;
	const smdmx_qc_model *m = c->m;
	smdmx_scene view = *s;
	view.flex_controllers = c->cc;
	view.flex_controller_count = c->ncc;
	view.domination_rules = c->doms.data;
	view.domination_rule_count = c->doms.count;
	view.flex_rules = NULL;
	view.flex_rule_count = 0;
	uname *us = sm_new_zero(&room, c->nls + 1, sizeof(uname));
	if (!us) return sm_fail_oom(c->error);
	for (size_t u = 0; u < c->nls; u++) {
		us[u].name = c->ls[u].name;
		us[u].stereo = c->ls[u].stereo;
		us[u].split = c->ls[u].split;
		us[u].frame = c->ls[u].frame;
	}
	rig g;
	bool ok = sm_rig_init(&g, s, c->error) && sm_rig_lower(&g, &view, us, c->nls, NULL);
	sm_del(&room, us);
	bool same = ok && g.ctls.count == c->nc && g.rules.count == m->rule_count;
	const rctl *gc = g.ctls.data;
	for (size_t i = 0; same && i < c->nc; i++) {
		const smdmx_qc_controller *q = &m->controllers[i];
		same = !strcmp(gc[i].name, q->name) && !strcmp(gc[i].group, q->group) && (float)gc[i].min == (float)q->min &&
		       (float)gc[i].max == (float)q->max;
	}
	const rrule *gr = g.rules.data;
	for (size_t i = 0; same && i < g.rules.count; i++) {
		const smdmx_qc_rule *q = rule_named(m, gr[i].name);
		char a[4096], b[4096];
		same = q && q->expression && gr[i].expr;
		if (same) {
			sm_rig_squeeze(q->expression, a, sizeof(a));
			sm_rig_squeeze(gr[i].expr, b, sizeof(b));
			same = !strcmp(a, b);
		}
	}
	sm_rig_free(&g);
	if (ok && same) {
		s->flex_controllers = c->cc;
		s->flex_controller_count = c->ncc;
		s->domination_rules = c->doms.data;
		s->domination_rule_count = c->doms.count;
		s->flex_rules = NULL;
		s->flex_rule_count = 0;
		*accepted = true;
	}
	return ok;
}

/* Tries the QC's controllers and rules as a combination operator: the candidate is written
 * back with rig_lower and must give the QC's lines. */
bool sm_rig_try_combination(smdmx_scene *s, const smdmx_qc_model *m, const lshape *ls, size_t nls, bool *accepted,
                            smdmx_error *error)
{
	sm_alloc room = sm_scene_room(s);
	*accepted = false;
	for (size_t i = 0; i < m->rule_count; i++)
		if (!m->rules[i].expression) return true; /* a localvar: flex rules */
	for (size_t i = 0; i < m->controller_count; i++)
		if (strcmp(m->controllers[i].group, m->controllers[i].name)) return true;
	combo *c = sm_new_zero(&room, 1, sizeof(*c));
	if (!c) return sm_fail_oom(error);
	c->s = s;
	c->m = m;
	c->ls = ls;
	c->nls = nls;
	c->error = error;
	c->doms = (sm_vec)SM_VEC_INIT; /* not zero: slot 0 is another's */
	c->nc = m->controller_count;
	c->cc = sm_owned_calloc(s->owner, c->nc + 1, sizeof(*c->cc), error);
	c->ctl_of = sm_new_zero(&room, c->nc + 1, sizeof(uint32_t));
	c->paired = sm_new_zero(&room, c->nc + 1, 1);
	bool ok = c->cc && c->ctl_of && c->paired ? true : sm_fail_oom(error);
	if (ok) {
		pair_stereo(c);
		ok = make_controls(c);
	}
	if (ok) {
		c->raw0 = sm_new_zero(&room, c->ncc + 1, sizeof(char *));
		c->raw1 = sm_new_zero(&room, c->ncc + 1, sizeof(char *));
		c->twoway = sm_new_zero(&room, c->ncc + 1, sizeof(bool));
		c->plain = sm_new_zero(&room, c->ncc + 1, sizeof(bool));
		if (!c->raw0 || !c->raw1 || !c->twoway || !c->plain) ok = sm_fail_oom(error);
	}
	combo_result r = ok ? read_raw_controls(c) : COMBO_FAIL;
	if (r == COMBO_OK) r = read_dominators(c);
	if (r == COMBO_OK) ok = accept_if_same(c, accepted);
	else ok = r == COMBO_REFUSE;
	sm_del(&room, c->ctl_of);
	sm_del(&room, c->paired);
	sm_del(&room, c->raw0);
	sm_del(&room, c->raw1);
	sm_del(&room, c->twoway);
	sm_del(&room, c->plain);
	sm_del(&room, c);
	return ok;
}
