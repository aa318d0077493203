/* QC reading, the $model block (G3) and the files commands name: references with their
 * extensions and folders, flexes, controllers, eyelids, options, $bodygroup and $lod. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"
#include "qc/qc_read.h"

/* ---- references ------------------------------------------------------------------------------ */

const char *const qcr_model_exts[] = { "smd", "dmx", "sma", "phys", NULL };
const char *const qcr_vta_exts[] = { "vta", NULL };
const char *const qcr_dmx_exts[] = { "dmx", NULL };
const char *const qcr_no_exts[] = { NULL };

/* The current folder for file names: root joined with $cd/$pushd. */
const char *qcr_cur_dir(qr *r)
{
	return r->dir_count ? r->dirs[r->dir_count - 1] : "";
}

/* Records the file named by token t; *out its index. */
bool qcr_add_ref(qr *r, uint32_t t, smdmx_qc_ref_kind kind, const char *command, const char *const *exts, uint32_t *out)
{
	const qc_tok *k = rtok(r, t);
	smdmx_qc_ref ref;
	memset(&ref, 0, sizeof(ref));
	ref.kind = kind;
	ref.command = command;
	ref.name = k->text;
	ref.dir = qcr_cur_dir(r);
	ref.model = r->model;
	ref.line_of = SMDMX_NONE;
	ref.pos.file = k->file;
	ref.pos.line = k->line;
	ref.pos.column = k->column;
	const char *base = qcr_join_path(r, r->st->root, ref.dir);
	if (!base) return false;
	size_t bl = strlen(base);
	char *dirpart = sm_malloc(&r->o->alloc, bl + 2);
	if (!dirpart) return sm_fail_oom(r->error);
	memcpy(dirpart, base, bl + 1);
	if (bl && dirpart[bl - 1] != '/') memcpy(dirpart + bl, "/", 2);
	const char *plain = qcr_join_path(r, dirpart, k->text);
	sm_free(&r->o->alloc, dirpart, bl + 2);
	if (!plain) return false;
	const char *ext = qcr_path_ext(k->text);
	if (!*ext && exts[0]) {
		ref.default_extension = true;
		ref.path = NULL;
		for (size_t e = 0; exts[e]; e++) {
			size_t n = strlen(plain) + strlen(exts[e]) + 2;
			char *p = sm_malloc(&r->o->alloc, n);
			if (!p) return sm_fail_oom(r->error);
			snprintf(p, n, "%s.%s", plain, exts[e]);
			bool nocase = false;
			char *found = r->fs.find(r->fs.user, p, &nocase);
			if (!ref.path) ref.path = qcr_rdup(r, p, strlen(p));
			sm_free(&r->o->alloc, p, n);
			if (found) {
				ref.path = qcr_rdup(r, found, strlen(found));
				r->fs.free_data(r->fs.user, found);
				ref.found = true;
				ref.nocase = nocase;
				break;
			}
			if (r->error->code || !ref.path) return false;
		}
	} else {
		bool nocase = false;
		char *found = r->fs.find(r->fs.user, plain, &nocase);
		if (found) {
			ref.path = qcr_rdup(r, found, strlen(found));
			r->fs.free_data(r->fs.user, found);
			ref.found = true;
			ref.nocase = nocase;
		} else {
			if (r->error->code) return false;
			ref.path = plain;
		}
	}
	if (!ref.path) return false;
	if (ref.nocase) qcr_warn_tok(r, t, SMDMX_WARNING_QC_NOCASE, "'%s' is '%s' when case is ignored (as Windows finds it): read; make the "
			               "spellings match for systems that tell case",
			     k->text, qcr_base_name(ref.path));
	smdmx_qc_ref *slot = sm_vec_push(r->o, &r->refs, sizeof(*slot), r->error);
	uint32_t *rt = sm_vec_push(r->o, &r->ref_tok, sizeof(uint32_t), r->error);
	if (!slot || !rt) return false;
	*slot = ref;
	*rt = t;
	if (out) *out = (uint32_t)(r->refs.count - 1);
	return true;
}

/* ---- names ------------------------------------------------------------------------------------ */

static bool add_name_fmt(qr *r, name_set *v, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = sm_malloc(&r->o->alloc, la + lb + 1);
	if (!s) return sm_fail_oom(r->error);
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	const char *d = qcr_rdup(r, s, la + lb);
	sm_free(&r->o->alloc, s, la + lb + 1);
	return d && qcr_add_name(r, v, d);
}

/* ---- the $model block -------------------------------------------------------------------------- */

smdmx_qc_model *qcr_cur_model(qr *r)
{
	return (smdmx_qc_model *)r->models.data + r->model;
}

static qc_model_x *cur_model_x(qr *r)
{
	return (qc_model_x *)r->model_x.data + r->model;
}

bool qcr_add_line(qr *r, uint32_t first, uint32_t last, unsigned kind)
{
	qc_span *s = sm_vec_push(r->o, &cur_model_x(r)->lines, sizeof(*s), r->error);
	if (!s) return false;
	s->first = first;
	s->last = last;
	s->kind = kind;
	return true;
}

static uint32_t last_tok(qr *r)
{
	return (uint32_t)r->st->toks.count - 1;
}

/* flex NAME [VTA] options, flexpair NAME SPLIT [VTA] options, defaultflex [VTA] options
 * (studiomdl's Option_Flex). A VTA is named on the line only outside a block. */
static bool model_flex(qr *r, uint32_t cmd, smdmx_qc_flex_kind kind, int depth)
{
	smdmx_qc_flex fl;
	memset(&fl, 0, sizeof(fl));
	fl.kind = kind;
	fl.position = 1;
	fl.decay = 1;
	fl.frame = 0;
	fl.vta = r->vta;
	const qc_tok *c = rtok(r, cmd);
	fl.pos.file = c->file;
	fl.pos.line = c->line;
	fl.pos.column = c->column;
	if (kind != SMDMX_QC_DEFAULTFLEX) {
		uint32_t n;
		SM_CHECK(qcr_need(r, cmd, "a flex name", &n));
		fl.name = rtok(r, n)->text;
	} else {
		fl.name = NULL;
	}
	if (kind == SMDMX_QC_FLEXPAIR) SM_CHECK(qcr_need_number(r, cmd, "a split width", &fl.split));
	if (depth == 0) {
		uint32_t v;
		SM_CHECK(qcr_need(r, cmd, "a VTA file", &v));
		SM_CHECK(qcr_add_ref(r, v, SMDMX_QC_REF_FLEX, "flex", qcr_vta_exts, &fl.vta));
	}
	while (qcr_available(r)) {
		uint32_t o;
		SM_CHECK(qcr_need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (sm_same_nocase(x, "frame")) SM_CHECK(qcr_need_int(r, o, "a frame number", &fl.frame));
		else if (sm_same_nocase(x, "position")) SM_CHECK(qcr_need_number(r, o, "a position", &fl.position));
		else if (sm_same_nocase(x, "split")) SM_CHECK(qcr_need_number(r, o, "a split width", &fl.split));
		else if (sm_same_nocase(x, "decay")) SM_CHECK(qcr_need_number(r, o, "a decay", &fl.decay));
		else return qcr_fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of '%s'", x, rtok(r, cmd)->text);
	}
	if (fl.frame < 0) return qcr_fail_tok(r, cmd, SMDMX_ERROR_BAD_VALUE, "a negative frame number");
	smdmx_qc_flex *slot = sm_vec_push(r->o, &r->flexes, sizeof(*slot), r->error);
	if (!slot) return false;
	*slot = fl;
	if (kind == SMDMX_QC_FLEXPAIR) {
		SM_CHECK(add_name_fmt(r, &r->flex_names, fl.name, "R"));
		SM_CHECK(add_name_fmt(r, &r->flex_names, fl.name, "L"));
	} else {
		SM_CHECK(qcr_add_name(r, &r->flex_names, fl.name ? fl.name : "default"));
	}
	return qcr_add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_FLEX);
}

/* flexcontroller GROUP [range MIN MAX] NAME... (Option_Flexcontroller). */
static bool model_controller(qr *r, uint32_t cmd)
{
	uint32_t g;
	SM_CHECK(qcr_need(r, cmd, "a group", &g));
	double mn = 0, mx = 1;
	while (qcr_available(r)) {
		uint32_t t;
		SM_CHECK(qcr_need(r, cmd, "a name", &t));
		const char *x = rtok(r, t)->text;
		if (sm_same_nocase(x, "range")) {
			SM_CHECK(qcr_need_number(r, t, "a minimum", &mn));
			SM_CHECK(qcr_need_number(r, t, "a maximum", &mx));
			continue;
		}
		smdmx_qc_controller *c = sm_vec_push(r->o, &r->controllers, sizeof(*c), r->error);
		if (!c) return false;
		c->group = rtok(r, g)->text;
		c->name = x;
		c->min = mn;
		c->max = mx;
		const qc_tok *k = rtok(r, t);
		c->pos.file = k->file;
		c->pos.line = k->line;
		c->pos.column = k->column;
		SM_CHECK(qcr_add_name(r, &r->ctl_names, x));
	}
	return qcr_add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_RIG);
}

/* localvar NAME... */
static bool model_localvar(qr *r, uint32_t cmd)
{
	while (qcr_available(r)) {
		uint32_t t;
		SM_CHECK(qcr_need(r, cmd, "a name", &t));
		smdmx_qc_rule *rule = sm_vec_push(r->o, &r->rules, sizeof(*rule), r->error);
		if (!rule) return false;
		const qc_tok *k = rtok(r, t);
		rule->name = k->text;
		rule->expression = NULL;
		rule->pos.file = k->file;
		rule->pos.line = k->line;
		rule->pos.column = k->column;
		SM_CHECK(qcr_add_name(r, &r->flex_names, k->text));
	}
	return qcr_add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_RIG);
}

/* eyelid TYPE VTA lowerer F T neutral F T raiser F T split S eyeball NAME */
static bool model_eyelid(qr *r, uint32_t cmd)
{
	uint32_t type, vta;
	SM_CHECK(qcr_need(r, cmd, "an eyelid name", &type));
	SM_CHECK(qcr_need(r, cmd, "a VTA file", &vta));
	SM_CHECK(qcr_add_ref(r, vta, SMDMX_QC_REF_FLEX, "eyelid", qcr_vta_exts, NULL));
	const char *tn = rtok(r, type)->text;
	SM_CHECK(qcr_add_name(r, &r->flex_names, tn));
	while (qcr_available(r)) {
		uint32_t o;
		SM_CHECK(qcr_need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (sm_same_nocase(x, "lowerer") || sm_same_nocase(x, "neutral") || sm_same_nocase(x, "raiser")) {
			int32_t frame;
			double target;
			SM_CHECK(qcr_need_int(r, o, "a frame number", &frame));
			SM_CHECK(qcr_need_number(r, o, "a target", &target));
			size_t lt = strlen(tn), lx = strlen(x);
			char *s = sm_malloc(&r->o->alloc, lt + lx + 2);
			if (!s) return sm_fail_oom(r->error);
			memcpy(s, tn, lt);
			s[lt] = '_';
			memcpy(s + lt + 1, x, lx + 1);
			const char *d = qcr_rdup(r, s, lt + lx + 1);
			sm_free(&r->o->alloc, s, lt + lx + 2);
			if (!d || !qcr_add_name(r, &r->flex_names, d)) return false;
		} else if (sm_same_nocase(x, "split")) {
			double s;
			SM_CHECK(qcr_need_number(r, o, "a split", &s));
		} else if (sm_same_nocase(x, "eyeball")) {
			uint32_t e;
			SM_CHECK(qcr_need(r, o, "an eyeball name", &e));
		} else {
			return qcr_fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of 'eyelid'", x);
		}
	}
	return true;
}

/* One option of a $model block: token t and the rest of its line; *depth counts braces. */
static bool model_option(qr *r, uint32_t t, int *depth)
{
	qc_model_x *mx = cur_model_x(r);
	const qc_tok *k = rtok(r, t);
	const char *x = k->text;
	bool quoted = k->flags & QTOK_QUOTED;
	if (!quoted && !strcmp(x, "{")) {
		if (*depth > 0 && *depth <= QC_MAX_BLOCKS) r->block_open[*depth - 1] = t;
		if ((*depth)++ == 0 && mx->open == SMDMX_NONE) mx->open = t;
		qcr_cur_model(r)->has_block = true;
	} else if (!quoted && !strcmp(x, "}")) {
		if (*depth > 1 && *depth - 1 <= QC_MAX_BLOCKS) {
			/* a block inside the block (a flexfile's): removed with the lines it holds */
			qc_span *b = sm_vec_push(r->o, &mx->blocks, sizeof(*b), r->error);
			if (!b) return false;
			b->first = r->block_open[*depth - 2];
			b->last = t;
			b->kind = 0;
		}
		(*depth)--;
		mx->last = t;
	} else if (sm_same_nocase(x, "eyeball") || sm_same_nocase(x, "spherenormals")) {
		qcr_cur_model(r)->qc_only_count++;
		SM_CHECK(qcr_skip_rest(r));
	} else if (sm_same_nocase(x, "eyelid")) {
		qcr_cur_model(r)->qc_only_count++;
		SM_CHECK(model_eyelid(r, t));
	} else if (sm_same_nocase(x, "dmxeyelid") || sm_same_nocase(x, "vcafile")) {
		/* They name flexes that only their files hold: rules cannot be checked. */
		qcr_cur_model(r)->qc_only_count++;
		r->model_unchecked = true;
		bool dmx = sm_same_nocase(x, "dmxeyelid");
		uint32_t f;
		if (dmx) SM_CHECK(qcr_need(r, t, "upper or lower", &f));
		SM_CHECK(qcr_need(r, t, "a file", &f));
		SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_FLEX, dmx ? "dmxeyelid" : "vcafile", dmx ? qcr_dmx_exts : qcr_vta_exts, NULL));
		SM_CHECK(qcr_skip_rest(r));
	} else if (sm_same_nocase(x, "mouth")) {
		qcr_cur_model(r)->qc_only_count++;
		uint32_t n, f;
		SM_CHECK(qcr_need(r, t, "a mouth number", &n));
		SM_CHECK(qcr_need(r, t, "a flex name", &f));
		SM_CHECK(qcr_add_name(r, &r->flex_names, rtok(r, f)->text));
		SM_CHECK(qcr_skip_rest(r));
	} else if (sm_same_nocase(x, "flex")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_FLEX, *depth));
	} else if (sm_same_nocase(x, "flexpair")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_FLEXPAIR, *depth));
	} else if (sm_same_nocase(x, "defaultflex")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_DEFAULTFLEX, *depth));
	} else if (sm_same_nocase(x, "flexfile")) {
		uint32_t f;
		SM_CHECK(qcr_need(r, t, "a VTA file", &f));
		SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_FLEX, "flexfile", qcr_vta_exts, &r->vta));
		SM_CHECK(qcr_add_line(r, t, f, SMDMX_QC_LINES_FLEX));
	} else if (sm_same_nocase(x, "localvar")) {
		SM_CHECK(model_localvar(r, t));
	} else if (sm_same_nocase(x, "flexcontroller")) {
		SM_CHECK(model_controller(r, t));
	} else if (x[0] == '%') {
		uint32_t end;
		SM_CHECK(qcr_model_rule(r, t, &end));
		SM_CHECK(qcr_add_line(r, t, end, SMDMX_QC_LINES_RIG));
	} else if (sm_same_nocase(x, "attachment")) {
		SM_CHECK(qcr_skip_rest(r)); /* studiomdl ignores it here */
	} else if (sm_same_nocase(x, "noautodmxrules")) {
		qcr_cur_model(r)->noautodmxrules = true;
		SM_CHECK(qcr_add_line(r, t, t, SMDMX_QC_LINES_NOAUTODMXRULES));
	} else {
		return qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "unknown $model option '%s'", x);
	}
	return true;
}

/* The options of a $model block (Option_Model). */
static bool model_block(qr *r, uint32_t cmd)
{
	qc_model_x *mx = cur_model_x(r);
	int depth = 0;
	for (;;) {
		uint32_t t;
		int g;
		if (depth > 0) {
			g = qcr_get_token(r, true, &t);
			if (g == 0) return qcr_fail_tok(r, mx->open, SMDMX_ERROR_UNTERMINATED, "this '{' of $model '%s' is never closed", qcr_cur_model(r)->name);
		} else {
			if (!qcr_available(r)) {
				/* studiomdl takes a block only when "{" is on the $model line; a block on the next
				 * line is read too, with a warning. */
				if (mx->open != SMDMX_NONE) break;
				g = qcr_get_token(r, true, &t);
				if (g < 0) return false;
				if (g == 0) break;
				if (!qcr_is_brace(r, t, '{')) {
					qcr_unget(r, t);
					break;
				}
				qcr_warn_tok(r, t, SMDMX_WARNING_QC_BENT, "the block of $model '%s' starts on the next line: read as its block, but studiomdl reads a block only when '{' is on the $model line; move the '{' up", qcr_cur_model(r)->name);
			} else {
				g = qcr_get_token(r, false, &t);
			}
		}
		if (g < 0) {
			if (!qcr_recover_line(r, depth > 0)) return false;
			continue;
		}
		/* what looked like a token was none (a variable defined there): studiomdl's "line
		 * incomplete" */
		if (g == 0) return qcr_fail_here(r, SMDMX_ERROR_SYNTAX, "'$model' needs an option");
		if (depth > 0) {
			char what[300];
			snprintf(what, sizeof(what), "$model '%s'", qcr_cur_model(r)->name);
			int e = qcr_block_left_open(r, mx->open, t, what);
			if (e < 0) return false;
			if (e > 0) break;
		}
		if (!model_option(r, t, &depth)) {
			if (!qcr_recover_line(r, depth > 0)) return false;
			if (depth == 0 && mx->open != SMDMX_NONE) break;
			continue;
		}
		if (depth < 0) return qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
		if (depth == 0 && mx->open != SMDMX_NONE && !qcr_available(r)) break;
	}
	(void)cmd;
	return true;
}

/* The file of $body, $model and studio, and its options (Option_Studio). */
bool qcr_studio_file(qr *r, uint32_t cmd, const char *command, uint32_t *ref)
{
	uint32_t f;
	SM_CHECK(qcr_need(r, cmd, "a file", &f));
	SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_MODEL, command, qcr_model_exts, ref));
	while (qcr_available(r)) {
		uint32_t o;
		SM_CHECK(qcr_need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (qcr_is_brace(r, o, '{')) {
			qcr_unget(r, o);
			break;
		}
		if (sm_same_nocase(x, "reverse")) continue;
		if (sm_same_nocase(x, "scale") || sm_same_nocase(x, "faces") || sm_same_nocase(x, "bias")) {
			uint32_t v;
			SM_CHECK(qcr_need(r, o, "a value", &v));
			if (sm_same_nocase(x, "scale"))
				qcr_warn_tok(r, o, SMDMX_WARNING_QC_BENT, "'scale' on the '%s' line: the QC keeps it for studiomdl, and smd2dmx --qc applies only $scale; nothing to do", rtok(r, cmd)->text);
			continue;
		}
		return qcr_fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of '%s'", x, rtok(r, cmd)->text);
	}
	return true;
}

bool qcr_finish_model(qr *r)
{
	if (r->model == SMDMX_NONE) return true;
	smdmx_qc_model *m = qcr_cur_model(r);
	m->flexes = r->flexes.data;
	m->flex_count = r->flexes.count;
	m->controllers = r->controllers.data;
	m->controller_count = r->controllers.count;
	m->rules = r->rules.data;
	m->rule_count = r->rules.count;
	m->flexdesc_count = r->flex_names.list.count;
	sm_vec empty = SM_VEC_INIT;
	r->flexes = r->controllers = r->rules = empty;
	r->model = SMDMX_NONE;
	r->vta = SMDMX_NONE;
	r->model_unchecked = false;
	return true;
}

/* $model NAME FILE [options] [{ ... }] (Cmd_Model). */
bool qcr_cmd_model(qr *r, uint32_t cmd)
{
	uint32_t n;
	SM_CHECK(qcr_need(r, cmd, "a name", &n));
	smdmx_qc_model *m = sm_vec_push(r->o, &r->models, sizeof(*m), r->error);
	qc_model_x *mx = sm_vec_push(r->o, &r->model_x, sizeof(*mx), r->error);
	if (!m || !mx) return false;
	memset(m, 0, sizeof(*m));
	memset(mx, 0, sizeof(*mx));
	sm_vec empty = SM_VEC_INIT;
	mx->lines = mx->blocks = empty;
	mx->command = cmd;
	mx->open = SMDMX_NONE;
	m->name = rtok(r, n)->text;
	m->ref = SMDMX_NONE; /* until its file is read */
	m->scale = r->scale;
	m->up_axis = r->up_axis;
	const qc_tok *c = rtok(r, cmd);
	m->pos.file = c->file;
	m->pos.line = c->line;
	m->pos.column = c->column;
	r->model = (uint32_t)(r->models.count - 1);
	r->vta = SMDMX_NONE;
	uint32_t ref;
	SM_CHECK(qcr_studio_file(r, cmd, "$model", &ref));
	m = qcr_cur_model(r);
	m->ref = ref;
	SM_CHECK(qcr_part_begin(r, cmd, n, "$model", r->model));
	SM_CHECK(qcr_part_choice(r, ref));
	const smdmx_qc_ref *rf = (const smdmx_qc_ref *)r->refs.data + ref;
	r->model_unchecked = sm_same_nocase(qcr_path_ext(rf->path), "dmx");
	cur_model_x(r)->last = last_tok(r);
	SM_CHECK(model_block(r, cmd));
	return qcr_finish_model(r);
}

/* Inside a block opened at token open: token t, a command ("$..."), ends it. No option of a
 * block starts with '$' (macros and $include are done as they are read), so the block was left
 * unclosed: one error at its '{', said with the command, and with keep_going the command is read
 * as one (t is put back). Returns 1 when t ended the block, 0 when t is no command, -1 when the
 * error stands (no keep_going). */
int qcr_block_left_open(qr *r, uint32_t open, uint32_t t, const char *what)
{
	const qc_tok *k = rtok(r, t);
	if ((k->flags & QTOK_QUOTED) || k->text[0] != '$') return 0;
	qcr_fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of %s is never closed: '%s' at line %u starts a command; close the block before it",
	             what, k->text, k->line);
	if (!qcr_keep_error(r)) return -1;
	qcr_unget(r, t);
	return 1;
}

/* A body part begins at command cmd, named by token name (smdmx_qc_part); its choices follow. */
bool qcr_part_begin(qr *r, uint32_t cmd, uint32_t name, const char *command, uint32_t model)
{
	smdmx_qc_part *p = sm_vec_push(r->o, &r->parts, sizeof(*p), r->error);
	if (!p) return false;
	memset(p, 0, sizeof(*p));
	const qc_tok *c = rtok(r, cmd);
	p->name = rtok(r, name)->text;
	p->command = command;
	p->model = model;
	p->scale = r->scale;
	p->up_axis = r->up_axis;
	p->pos.file = c->file;
	p->pos.line = c->line;
	p->pos.column = c->column;
	return true;
}

/* The last part's next choice: ref, or SMDMX_NONE for a blank one. */
bool qcr_part_choice(qr *r, uint32_t ref)
{
	uint32_t *c = sm_vec_push(r->o, &r->part_choices, sizeof(*c), r->error);
	if (!c) return false;
	*c = ref;
	((smdmx_qc_part *)r->parts.data)[r->parts.count - 1].choice_count++;
	return true;
}

/* $bodygroup NAME { studio FILE [options] | blank ... } */
bool qcr_cmd_bodygroup(qr *r, uint32_t cmd)
{
	uint32_t n, t;
	SM_CHECK(qcr_need(r, cmd, "a name", &n));
	int g = qcr_get_token(r, true, &t);
	if (g < 0) return false;
	if (g == 0 || !qcr_is_brace(r, t, '{')) return qcr_fail_here(r, SMDMX_ERROR_SYNTAX, "$bodygroup needs a '{' block");
	SM_CHECK(qcr_part_begin(r, cmd, n, "$bodygroup", SMDMX_NONE));
	uint32_t open = t;
	for (;;) {
		g = qcr_get_token(r, true, &t);
		if (g == 0) return qcr_fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of $bodygroup is never closed");
		bool ok = g > 0;
		if (ok) {
			if (qcr_is_brace(r, t, '}')) return true;
			char what[300];
			snprintf(what, sizeof(what), "$bodygroup '%s'", rtok(r, n)->text);
			int e = qcr_block_left_open(r, open, t, what);
			if (e < 0) return false;
			if (e > 0) return true;
			const char *x = rtok(r, t)->text;
			uint32_t ref = SMDMX_NONE;
			if (sm_same_nocase(x, "studio")) ok = qcr_studio_file(r, t, "studio", &ref);
			else if (!sm_same_nocase(x, "blank")) ok = qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "unknown $bodygroup option '%s'", x);
			if ((ref != SMDMX_NONE || sm_same_nocase(x, "blank")) && !qcr_part_choice(r, ref)) return false;
		}
		/* keep_going: a line of the block that cannot be read costs that line, and the block
		 * reads on (the '}' that ends it stays to read) */
		if (!ok && !qcr_recover_line(r, true)) return false;
	}
}

/* $lod N { replacemodel OLD NEW [reverse] ... } and $shadowlod { ... } */
bool qcr_cmd_lod(qr *r, uint32_t cmd, bool shadow)
{
	uint32_t t;
	if (!shadow) SM_CHECK(qcr_need(r, cmd, "a distance", &t));
	int g = qcr_get_token(r, true, &t);
	if (g < 0) return false;
	if (g == 0 || !qcr_is_brace(r, t, '{')) return qcr_fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs a '{' block", rtok(r, cmd)->text);
	uint32_t open = t;
	int depth = 1;
	while (depth > 0) {
		g = qcr_get_token(r, true, &t);
		if (g < 0) {
			if (!qcr_recover_line(r, true)) return false;
			continue;
		}
		if (g == 0) return qcr_fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of '%s' is never closed", rtok(r, cmd)->text);
		int e = qcr_block_left_open(r, open, t, rtok(r, cmd)->text);
		if (e < 0) return false;
		if (e > 0) return true;
		if (qcr_is_brace(r, t, '{')) {
			depth++;
			continue;
		}
		if (qcr_is_brace(r, t, '}')) {
			depth--;
			continue;
		}
		if (sm_same_nocase(rtok(r, t)->text, "replacemodel")) {
			uint32_t old, neu, ref;
			if (!qcr_need(r, t, "the model it replaces", &old) || !qcr_need(r, t, "a file", &neu) ||
			    !qcr_add_ref(r, neu, SMDMX_QC_REF_MODEL, "replacemodel", qcr_model_exts, &ref)) {
				if (!qcr_recover_line(r, true)) return false;
				continue;
			}
			/* OLD names a model's file: it follows that file's renaming. */
			const char *on = rtok(r, old)->text;
			const smdmx_qc_ref *refs = r->refs.data;
			uint32_t of = SMDMX_NONE;
			for (size_t i = 0; i < r->refs.count && of == SMDMX_NONE; i++) {
				if (refs[i].kind != SMDMX_QC_REF_MODEL || i == ref) continue;
				const char *a = refs[i].name;
				size_t la = strlen(a), lo = strlen(on);
				const char *ea = qcr_path_ext(a);
				size_t sa = *ea ? (size_t)(ea - a - 1) : la;
				const char *eo = qcr_path_ext(on);
				size_t so = *eo ? (size_t)(eo - on - 1) : lo;
				if (sa == so && sm_same_nocase_n(a, on, sa)) of = (uint32_t)i;
			}
			((smdmx_qc_ref *)r->refs.data)[ref].line_of = of;
			SM_CHECK(qcr_skip_rest(r));
			continue;
		}
		SM_CHECK(qcr_skip_rest(r));
	}
	return true;
}
