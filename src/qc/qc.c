/* QC reading, the commands outside $model ($sequence, $animation, $attachment, $cd, $pushd,
 * $include and the rest of doc/formats.md G2) and the entry points: a QC read whole, every token
 * recorded with where it came from so that edits can be made to the text (qc_edit.c). The
 * reader's other parts: qc_script.c, qc_model.c, qc_rules.c (qc_read.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "support/num.h"
#include "qc/qc_read.h"
#include "qc/qc_memory.h"

/* The words of $sequence and $animation and how many values follow each (ParseSequence,
 * ParseAnimationToken, ParseCmdlistToken). */
typedef struct qc_word {
	const char *word;
	signed char args;      /* -1: to the end of the line */
	unsigned char prefix;  /* compared on this many letters (studiomdl's strnicmp), 0: whole word */
	bool sequence_only;
} qc_word;

static const qc_word anim_words[] = {
	{ "fps", 1, 0, false },        { "origin", 3, 0, false },      { "rotate", 1, 0, false },
	{ "angles", 3, 0, false },     { "scale", 1, 0, false },       { "loop", 0, 4, false },
	{ "startloop", 1, 5, false },  { "fudgeloop", 0, 0, false },   { "snap", 0, 4, false },
	{ "frame", 2, 5, false },      { "post", 0, 0, false },        { "noautoik", 0, 0, false },
	{ "autoik", 0, 0, false },     { "fixuploop", 2, 0, false },   { "weightlist", 1, 6, false },
	{ "subtract", 2, 0, false },   { "presubtract", 2, 0, false }, { "alignto", 1, 0, false },
	{ "alignboneto", 2, 0, false }, { "match", 1, 0, false },      { "matchblend", 5, 0, false },
	{ "worldspaceblend", 1, 0, false }, { "worldspaceblendloop", 2, 0, false }, { "rotateto", 1, 0, false },
	{ "ikrule", -1, 0, false },    { "ikfixup", -1, 0, false },    { "derivative", 1, 0, false },
	{ "noanimation", 0, 0, false }, { "lineardelta", 0, 0, false }, { "splinedelta", 0, 0, false },
	{ "compress", 1, 0, false },   { "numframes", 1, 0, false },   { "counterrotate", 1, 0, false },
	{ "counterrotateto", 4, 0, false }, { "cmdlist", 1, 0, false },
	/* with motion controls after them: to the end of the line is near enough */
	{ "align", -1, 0, false },     { "walkframe", -1, 0, false },  { "walkalignto", -1, 0, false },
	{ "walkalign", -1, 0, false },
	{ "x", 0, 0, false },  { "y", 0, 0, false },  { "z", 0, 0, false },  { "xr", 0, 0, false },
	{ "yr", 0, 0, false }, { "zr", 0, 0, false }, { "lx", 0, 0, false }, { "ly", 0, 0, false },
	{ "lz", 0, 0, false }, { "lxr", 0, 0, false }, { "lyr", 0, 0, false }, { "lzr", 0, 0, false },
	{ "lm", 0, 0, false }, { "lq", 0, 0, false },
	/* GoldSrc's studiomdl (Cmd_Sequence, lookupControl): automatic motion, pivots, deform */
	{ "ax", 0, 0, false }, { "ay", 0, 0, false }, { "az", 0, 0, false }, { "axr", 0, 0, false },
	{ "ayr", 0, 0, false }, { "azr", 0, 0, false }, { "pivot", 3, 0, false }, { "deform", 0, 0, false },
	{ NULL, 0, 0, false },
};

static const qc_word seq_words[] = {
	{ "activity", 2, 0, true },    { "activitymodifier", 1, 0, true }, { "snap", 0, 0, true },
	{ "blendwidth", 1, 0, true },  { "blend", 3, 0, true },        { "calcblend", 3, 0, true },
	{ "blendref", 1, 0, true },    { "blendcomp", 1, 0, true },    { "blendcenter", 1, 0, true },
	{ "node", 1, 0, true },        { "transition", 2, 0, true },   { "rtransition", 2, 0, true },
	{ "exitphase", 1, 0, true },   { "delta", 0, 0, true },        { "worldspace", 0, 0, true },
	{ "post", 0, 0, true },        { "predelta", 0, 0, true },     { "autoplay", 0, 0, true },
	{ "fadein", 1, 0, true },      { "fadeout", 1, 0, true },      { "realtime", 0, 0, true },
	{ "hidden", 0, 0, true },      { "addlayer", 1, 0, true },     { "iklock", 3, 0, true },
	{ "blendlayer", -1, 0, true },
	{ NULL, 0, 0, false },
};

static const qc_word *find_word(const qc_word *list, const char *x)
{
	for (const qc_word *w = list; w->word; w++) {
		if (w->prefix ? sm_same_nocase_n(w->word, x, w->prefix) && strlen(x) >= w->prefix : sm_same_nocase(w->word, x)) return w;
	}
	return NULL;
}

static bool anim_known(qr *r, const char *name)
{
	return qcr_name_known(r, &r->anims, name);
}

/* Skips a word's values; "if" and "keyvalues" blocks and "event" as studiomdl reads them.
 * *depth_change gets -1 when an event's options were the block's "}". */
static bool skip_word(qr *r, uint32_t t, const qc_word *w)
{
	if (w->args < 0) {
		while (qcr_available(r)) {
			uint32_t v;
			SM_CHECK(qcr_need(r, t, "a value", &v));
			if (qcr_is_brace(r, v, '{') || qcr_is_brace(r, v, '}')) {
				qcr_unget(r, v);
				break;
			}
		}
		return true;
	}
	for (int i = 0; i < w->args; i++) {
		uint32_t v;
		SM_CHECK(qcr_need(r, t, "a value", &v));
	}
	return true;
}

/* One option of a $sequence or an $animation: token t, with what follows it. */
static bool sequence_option(qr *r, uint32_t t, const char *seq, bool animation, int *depth, uint32_t *open, size_t *blends)
{
	const char *x = rtok(r, t)->text;
	if (qcr_is_brace(r, t, '{')) {
		if ((*depth)++ == 0) *open = t;
		return true;
	}
	if (qcr_is_brace(r, t, '}')) {
		if (--*depth < 0) return qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
		return true;
	}
	if (sm_same_nocase(x, "if")) {
		uint32_t v;
		return qcr_need(r, t, "a condition", &v);
	}
	if (sm_same_nocase(x, "keyvalues")) {
		SM_CHECK(qcr_skip_rest(r));
		return qcr_skip_next_block(r);
	}
	if (!animation && sm_same_nocase(x, "event")) {
		uint32_t v;
		SM_CHECK(qcr_need(r, t, "an event", &v));
		SM_CHECK(qcr_need(r, t, "a frame", &v));
		if (qcr_available(r)) {
			SM_CHECK(qcr_need(r, t, "options", &v));
			if (qcr_is_brace(r, v, '}')) --*depth;
		}
		return true;
	}
	if (!animation && !strncmp(x, "ACT_", 4)) {
		uint32_t v;
		return qcr_need(r, t, "a weight", &v);
	}
	const qc_word *w = animation ? NULL : find_word(seq_words, x);
	if (!w && (animation || *blends)) w = find_word(anim_words, x);
	if (w && sm_same_nocase(w->word, "fps")) {
		double fps;
		SM_CHECK(qcr_need_number(r, t, "frames per second", &fps));
		/* the animations of this command read so far take it */
		smdmx_qc_ref *rs = r->refs.data;
		for (size_t k = r->refs.count; k-- > 0 && rs[k].sequence == seq;) rs[k].fps = fps;
		return true;
	}
	if (w) return skip_word(r, t, w);
	if (animation) return true; /* studiomdl refuses an unknown option; the QC keeps it as written */
	/* An animation: one named before, else a file. */
	++*blends;
	if (anim_known(r, x)) return true;
	if (sm_same_nocase(x, "animation") && qcr_available(r)) {
		/* GoldSrc's "animation FILE" (Cmd_Sequence): the file after it */
		SM_CHECK(qcr_need(r, t, "a file", &t));
	}
	SM_CHECK(qcr_add_ref(r, t, SMDMX_QC_REF_ANIMATION, "$sequence", qcr_model_exts, NULL));
	smdmx_qc_ref *rf = (smdmx_qc_ref *)r->refs.data + r->refs.count - 1;
	rf->sequence = seq;
	if (!rf->found && *blends > 1) {
		/* Past the first: maybe an option smdmx does not know. The QC keeps it as written. */
		qcr_warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' in $sequence '%s' is no option smdmx knows, no animation and no file: kept as written; check it if it names a file", x, seq);
		r->refs.count--;
		r->ref_tok.count--;
	} else if (!rf->found && r->lost) {
		/* keep_going: an include that went unread may have declared it */
		qcr_warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' in $sequence '%s' is no animation read and no file: maybe one declared where the QC could not be read; kept as written; fix that error first", x, seq);
		r->refs.count--;
		r->ref_tok.count--;
	}
	return true;
}

/* $sequence NAME ... and $animation NAME FILE ... */
static bool cmd_sequence(qr *r, uint32_t cmd, bool animation)
{
	/* the first animation is the model's pose: the $origin in force there places it */
	if (!r->origin_fixed) memcpy(r->qc->origin, r->origin, sizeof(r->origin));
	r->origin_fixed = true;
	uint32_t n;
	SM_CHECK(qcr_need(r, cmd, "a name", &n));
	const char *seq = rtok(r, n)->text;
	size_t blends = 0;
	if (animation) {
		uint32_t f;
		SM_CHECK(qcr_need(r, cmd, "a file", &f));
		SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_ANIMATION, "$animation", qcr_model_exts, NULL));
		((smdmx_qc_ref *)r->refs.data)[r->refs.count - 1].sequence = seq;
		blends = 1;
		/* a $sequence names $animations; its own name and other sequences' are no animation
		 * to it (ParseSequence looks among g_panimation only) */
		SM_CHECK(qcr_add_name(r, &r->anims, seq));
	}
	int depth = 0;
	uint32_t open = SMDMX_NONE;
	for (;;) {
		uint32_t t;
		int g;
		if (depth > 0) {
			g = qcr_get_token(r, true, &t);
			if (g == 0) return qcr_fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of '%s' is never closed", seq);
		} else {
			if (!qcr_available(r)) break;
			g = qcr_get_token(r, false, &t);
		}
		if (g == 0) return qcr_fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs an option", rtok(r, cmd)->text); /* as above */
		if (g > 0 && depth > 0) {
			char what[300];
			snprintf(what, sizeof(what), "%s '%s'", animation ? "$animation" : "$sequence", seq);
			int e = qcr_block_left_open(r, open, t, what);
			if (e < 0) return false;
			if (e > 0) break;
		}
		if (g > 0 && sequence_option(r, t, seq, animation, &depth, &open, &blends)) continue;
		/* keep_going: inside the block, a line that cannot be read costs that line (the '}' that
		 * ends the block stays to read); on the command's own line, the line */
		if (depth <= 0 || !qcr_recover_line(r, true)) return false;
	}
	if (blends == 0) return qcr_fail_tok(r, n, SMDMX_ERROR_SYNTAX, "$sequence '%s' names no animation", seq);
	return true;
}

/* $attachment NAME BONE X Y Z [absolute] [rigid] [world_align] [rotate P Y R] [x_and_z_axes ...] */
static bool cmd_attachment(qr *r, uint32_t cmd)
{
	smdmx_qc_attachment a;
	memset(&a, 0, sizeof(a));
	uint32_t n, b;
	SM_CHECK(qcr_need(r, cmd, "a name", &n));
	SM_CHECK(qcr_need(r, cmd, "a bone", &b));
	for (int i = 0; i < 3; i++) SM_CHECK(qcr_need_number(r, cmd, "a position", &a.position[i]));
	for (int i = 0; i < 3; i++) a.position[i] *= r->scale;
	a.name = rtok(r, n)->text;
	a.bone = rtok(r, b)->text;
	const qc_tok *c = rtok(r, cmd);
	a.pos.file = c->file;
	a.pos.line = c->line;
	a.pos.column = c->column;
	while (qcr_available(r)) {
		uint32_t o;
		SM_CHECK(qcr_need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (sm_same_nocase(x, "absolute")) a.absolute = true;
		else if (sm_same_nocase(x, "rigid")) a.rigid = true;
		else if (sm_same_nocase(x, "world_align")) a.world_align = true;
		else if (sm_same_nocase(x, "rotate")) {
			a.rotate = true;
			for (int i = 0; i < 3 && qcr_available(r); i++) SM_CHECK(qcr_need_number(r, o, "an angle", &a.angles[i]));
		} else if (sm_same_nocase(x, "x_and_z_axes")) {
			return qcr_fail_tok(r, o, SMDMX_ERROR_SYNTAX, "'x_and_z_axes' of $attachment '%s' is not read by smdmx: write its rotation with 'rotate'", a.name);
		} else {
			return qcr_fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of $attachment '%s'", x, a.name);
		}
	}
	smdmx_qc_attachment *slot = sm_vec_push(r->o, &r->atts, sizeof(*slot), r->error);
	if (!slot) return false;
	*slot = a;
	return true;
}

/* A folder as the reader keeps them: "" or ending in '/' (owned by the reader); NULL when
 * memory ran out. */
static const char *with_slash(qr *r, const char *dir)
{
	size_t n = strlen(dir);
	if (!n || dir[n - 1] == '/') return dir;
	char *t = sm_malloc(&r->o->alloc, n + 2);
	if (!t) return sm_fail_oom(r->error), NULL;
	memcpy(t, dir, n);
	memcpy(t + n, "/", 2);
	const char *kept = qcr_rdup(r, t, n + 1);
	sm_free(&r->o->alloc, t, n + 2);
	return kept;
}

static bool cmd_dir(qr *r, uint32_t cmd, int which)
{
	if (which == 2) { /* $popd */
		if (r->dir_count == 0 || (r->cd_set && r->dir_count == 1))
			qcr_warn_tok(r, cmd, SMDMX_WARNING_QC_BENT, "$popd without a $pushd: ignored; remove it");
		else
			r->dir_count--;
		return true;
	}
	uint32_t d;
	SM_CHECK(qcr_need(r, cmd, "a folder", &d));
	const char *name = rtok(r, d)->text;
	const char *base = which == 0 ? "" : qcr_cur_dir(r);
	bool absolute = name[0] == '/' || name[0] == '\\' ||
	                (((name[0] | 32) >= 'a' && (name[0] | 32) <= 'z') && name[1] == ':');
	if (absolute) {
		/* A folder of the machine that wrote the QC (Valve's SDK QCs say "$cd C:\Program Files
		 * (x86)\..."): where it is not here, the files are looked for from the QC's own folder,
		 * where a project copied elsewhere has them; said once. */
		base = "";
		const char *norm = qcr_join_path(r, "", name);
		if (!norm) return false;
		bool nocase = false;
		char *found = r->fs.find(r->fs.user, norm, &nocase);
		if (found) r->fs.free_data(r->fs.user, found);
		if (!found) {
			if (!r->abs_dir_said)
				qcr_warn_tok(r, d, SMDMX_WARNING_QC_BENT,
				             "%s names '%s', a folder of the machine that wrote the QC, which is not here: the files are "
				             "looked for from the QC's own folder instead (for every such folder of this QC); make it "
				             "relative, or remove it, for studiomdl",
				             rtok(r, cmd)->text, name);
			r->abs_dir_said = true;
			name = which == 0 ? "" : qcr_cur_dir(r);
		}
	}
	size_t lb = strlen(base), ln = strlen(name);
	char *s = sm_malloc(&r->o->alloc, lb + ln + 2);
	if (!s) return sm_fail_oom(r->error);
	memcpy(s, base, lb);
	memcpy(s + lb, name, ln + 1);
	const char *joined = qcr_join_path(r, "", s);
	sm_free(&r->o->alloc, s, lb + ln + 2);
	const char *dir = joined ? with_slash(r, joined) : NULL;
	if (!dir) return false;
	if (which == 0) { /* $cd: the base folder */
		if (r->cd_set) qcr_warn_tok(r, cmd, SMDMX_WARNING_QC_BENT, "a second $cd: read, though studiomdl refuses it; remove it for studiomdl");
		r->cd_set = true;
		if (r->dir_count == 0) r->dir_count = 1;
		r->dirs[0] = dir;
		return true;
	}
	if (r->dir_count >= QC_MAX_DIRS) return qcr_fail_tok(r, cmd, SMDMX_ERROR_LIMIT, "$pushd nested more than %d deep", QC_MAX_DIRS);
	if (r->dir_count == 0) r->dirs[r->dir_count++] = "";
	r->dirs[r->dir_count++] = dir;
	return true;
}

/* $cdtexture FOLDER...: where Half-Life's studiomdl looks for the textures (Grab_Skin), each
 * relative to the QC's folder; one of another machine's that is not here, the QC's folder. */
static bool cmd_cdtexture(qr *r, uint32_t cmd)
{
	r->goldsrc_textures = true;
	uint32_t d;
	SM_CHECK(qcr_need(r, cmd, "a folder", &d));
	for (;;) {
		const char *name = rtok(r, d)->text;
		const char *dir = qcr_join_path(r, "", name);
		if (!dir) return false;
		const char *full = qcr_join_path(r, r->st->root, dir);
		bool nocase = false;
		char *found = full ? r->fs.find(r->fs.user, full, &nocase) : NULL;
		if (!full) return false;
		if (found) r->fs.free_data(r->fs.user, found);
		bool absolute = name[0] == '/' || name[0] == '\\' || (name[0] && name[1] == ':');
		if (absolute && !found) dir = "";
		if (!(dir = with_slash(r, dir))) return false;
		const char **slot = sm_vec_push(r->o, &r->texture_dirs, sizeof(char *), r->error);
		if (!slot) return false;
		*slot = dir;
		if (!qcr_available(r) || qcr_get_token(r, false, &d) <= 0) return true;
	}
}

/* A word of a $texturegroup block: a GoldSrc texture's file name (.bmp); Source's name
 * materials, which are no files of the project. */
static bool texture_word(qr *r, uint32_t word)
{
	const char *name = rtok(r, word)->text;
	size_t n = strlen(name);
	if (n <= 4 || !sm_same_nocase(name + n - 4, ".bmp")) return true;
	r->goldsrc_textures = true;
	return qcr_add_name(r, &r->textures, name);
}

/* One command: token t and what belongs to it. */
bool qcr_command(qr *r, uint32_t t)
{
	const char *x = rtok(r, t)->text;
	if (sm_same_nocase(x, "$model")) SM_CHECK(qcr_cmd_model(r, t));
	else if (sm_same_nocase(x, "$body")) {
		uint32_t n, ref = SMDMX_NONE;
		SM_CHECK(qcr_need(r, t, "a name", &n));
		SM_CHECK(qcr_part_begin(r, t, n, "$body", SMDMX_NONE));
		bool ok = qcr_studio_file(r, t, "$body", &ref);
		if (ref != SMDMX_NONE) SM_CHECK(qcr_part_choice(r, ref));
		SM_CHECK(ok);
	} else if (sm_same_nocase(x, "$bodygroup")) SM_CHECK(qcr_cmd_bodygroup(r, t));
	else if (sm_same_nocase(x, "$lod")) SM_CHECK(qcr_cmd_lod(r, t, false));
	else if (sm_same_nocase(x, "$shadowlod")) SM_CHECK(qcr_cmd_lod(r, t, true));
	else if (sm_same_nocase(x, "$collisionmodel") || sm_same_nocase(x, "$collisionjoints")) {
		uint32_t f;
		SM_CHECK(qcr_need(r, t, "a file", &f));
		SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_COLLISION, sm_same_nocase(x, "$collisionmodel") ? "$collisionmodel" : "$collisionjoints",
		                 qcr_model_exts, NULL));
		SM_CHECK(qcr_skip_rest(r));
		SM_CHECK(qcr_skip_next_block(r));
	} else if (sm_same_nocase(x, "$sequence")) SM_CHECK(cmd_sequence(r, t, false));
	else if (sm_same_nocase(x, "$animation")) SM_CHECK(cmd_sequence(r, t, true));
	else if (sm_same_nocase(x, "$declaresequence") || sm_same_nocase(x, "$declareanimation")) {
		uint32_t n;
		SM_CHECK(qcr_need(r, t, "a name", &n));
		SM_CHECK(qcr_add_name(r, &r->anims, rtok(r, n)->text));
	} else if (sm_same_nocase(x, "$includemodel")) {
		uint32_t n;
		SM_CHECK(qcr_need(r, t, "a model", &n));
		SM_CHECK(qcr_add_name(r, &r->include_models, rtok(r, n)->text));
	} else if (sm_same_nocase(x, "$attachment")) SM_CHECK(cmd_attachment(r, t));
	else if (sm_same_nocase(x, "$proceduralbones")) {
		uint32_t f;
		SM_CHECK(qcr_need(r, t, "a file", &f));
		SM_CHECK(qcr_add_ref(r, f, SMDMX_QC_REF_OTHER, "$proceduralbones", qcr_no_exts, NULL));
	} else if (sm_same_nocase(x, "$cdtexture")) SM_CHECK(cmd_cdtexture(r, t));
	else if (sm_same_nocase(x, "$texturegroup")) {
		uint32_t n;
		SM_CHECK(qcr_need(r, t, "a name", &n));
		SM_CHECK(qcr_skip_rest(r));
		SM_CHECK(qcr_block_words(r, texture_word));
	} else if (sm_same_nocase(x, "$cliptotextures") || sm_same_nocase(x, "$externaltextures")) {
		r->goldsrc_textures = true;
		SM_CHECK(qcr_skip_rest(r));
	} else if (sm_same_nocase(x, "$cd")) SM_CHECK(cmd_dir(r, t, 0));
	else if (sm_same_nocase(x, "$pushd")) SM_CHECK(cmd_dir(r, t, 1));
	else if (sm_same_nocase(x, "$popd")) SM_CHECK(cmd_dir(r, t, 2));
	else if (sm_same_nocase(x, "$modelname")) {
		uint32_t n;
		SM_CHECK(qcr_need(r, t, "a name", &n));
		const qc_tok *k = rtok(r, n);
		r->qc->model_name = k->text;
		r->qc->model_name_pos.file = k->file;
		r->qc->model_name_pos.line = k->line;
		r->qc->model_name_pos.column = k->column;
	} else if (sm_same_nocase(x, "$upaxis")) {
		uint32_t a;
		SM_CHECK(qcr_need(r, t, "X, Y or Z", &a));
		const char *v = rtok(r, a)->text;
		char ax = v[0] >= 'a' ? (char)(v[0] - 32) : v[0];
		if (v[1] || (ax != 'X' && ax != 'Y' && ax != 'Z')) return qcr_fail_tok(r, a, SMDMX_ERROR_BAD_VALUE, "$upaxis is X, Y or Z, not '%s'", v);
		r->up_axis = ax;
	} else if (sm_same_nocase(x, "$origin")) {
		/* X Y Z, and a turn about Z in degrees where the line has one (studiomdl's Cmd_Origin) */
		double o[4] = { 0, 0, 0, 0 };
		for (int i = 0; i < 3; i++) SM_CHECK(qcr_need_number(r, t, "X, Y and Z", &o[i]));
		if (qcr_available(r)) SM_CHECK(qcr_need_number(r, t, "a turn in degrees", &o[3]));
		memcpy(r->origin, o, sizeof(o));
	} else if (sm_same_nocase(x, "$scale")) {
		SM_CHECK(qcr_need_number(r, t, "a scale", &r->scale));
		if (!(r->scale > 0)) return qcr_fail_tok(r, t, SMDMX_ERROR_BAD_VALUE, "$scale must be above 0");
	} else if (qcr_is_brace(r, t, '}')) {
		return qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
	} else if (qcr_is_brace(r, t, '{')) {
		qcr_warn_tok(r, t, SMDMX_WARNING_QC_BENT, "a block that belongs to no command: skipped, though studiomdl refuses it; remove it for studiomdl");
		qcr_unget(r, t);
		SM_CHECK(qcr_skip_next_block(r));
	} else {
		SM_CHECK(qcr_skip_rest(r));
		SM_CHECK(qcr_skip_next_block(r));
	}
	return true;
}

static bool parse_script(qr *r)
{
	for (;;) {
		uint32_t t;
		int g = qcr_get_token(r, true, &t);
		if (g < 0) {
			if (!qcr_keep_error(r)) return false;
			qcr_skip_raw_line(r);
			continue;
		}
		if (g == 0) return true;
		if (!qcr_command(r, t)) {
			if (!qcr_recover_line(r, false)) return false;
			if (r->model != SMDMX_NONE) {
				qcr_cur_model(r)->incomplete = true;
				qcr_finish_model(r);
			}
		}
	}
}

/* ---- public -------------------------------------------------------------------------------- */

static const char *folder_of(qr *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? qcr_rdup(r, path, (size_t)(slash - path + 1)) : "";
}

static smdmx_qc *read_qc(const char *path, const smdmx_qc_read_options *opt, sm_budget *budget, smdmx_allocator hooks,
                         smdmx_error *error, smdmx_warnings *warnings)
{
	sm_owner *o = sm_owner_new(&hooks, error);
	if (!o) return NULL;
	qr r;
	memset(&r, 0, sizeof(r));
	r.sub_src = SMDMX_NONE;
	sm_vec empty = SM_VEC_INIT;
	r.files = r.refs = r.models = r.atts = r.include_tok = r.crlf = r.ref_tok = r.model_x = empty;
	r.parts = r.part_choices = empty;
	r.flexes = r.controllers = r.rules = r.vars = r.macros = r.errs = empty;
	r.anims.list = r.ctl_names.list = r.flex_names.list = r.missing.list = r.include_models.list = empty;
	r.textures.list = r.texture_dirs = empty;
	r.o = o;
	r.error = error;
	r.warnings = warnings;
	r.fs = opt->files;
	r.keep_going = opt->keep_going;
	sm_fs_cache *listings = NULL; /* for the reading alone: the QC keeps no listing */
	if (!r.fs.read) {
		r.fs.read = sm_fs_read;
		r.fs.find = sm_fs_find;
		r.fs.free_data = sm_fs_free;
		r.fs.user = listings = sm_fs_cache_new(&hooks);
	}
	r.max_depth = opt->max_depth ? opt->max_depth : SMDMX_QC_DEFAULT_MAX_DEPTH;
	if (r.max_depth > QC_MAX_DEPTH_LIMIT) r.max_depth = QC_MAX_DEPTH_LIMIT;
	r.max_file_size = opt->max_file_size ? opt->max_file_size : SMDMX_QC_DEFAULT_MAX_FILE_SIZE;
	r.max_tokens = opt->max_tokens ? opt->max_tokens : SMDMX_QC_DEFAULT_MAX_TOKENS;
	r.max_read = opt->max_read ? opt->max_read : SMDMX_QC_DEFAULT_MAX_READ;
	r.scale = 1;
	r.model = SMDMX_NONE;
	r.vta = SMDMX_NONE;
	smdmx_qc *qc = sm_owned_calloc(o, 1, sizeof(*qc), error);
	struct smdmx_qc_state *st = qc ? sm_owned_calloc(o, 1, sizeof(*st), error) : NULL;
	bool ok = st != NULL;
	if (ok) {
		qc->state = st;
		st->o = o;
		st->toks = empty;
		st->edits = empty;
		r.qc = qc;
		qc->separator = os_path_separator_of(path);
		r.st = st;
		size_t norm_size = strlen(path) + 1;
		char *norm = sm_malloc(&o->alloc, norm_size);
		ok = norm != NULL;
		if (!ok) sm_fail_oom(error);
		if (ok) {
			strcpy(norm, path);
			for (char *p = norm; *p; p++)
				if (*p == '\\') *p = '/';
			st->root = folder_of(&r, norm);
			ok = st->root != NULL;
			smdmx_qc_pos none = { SMDMX_NONE, 0, 0 };
			bool missing = false;
			uint32_t f = ok ? qcr_load_file(&r, norm, none, SMDMX_NONE, &missing) : SMDMX_NONE;
			if (ok && f == SMDMX_NONE) {
				if (missing) sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot open '%s'", path);
				ok = false;
			}
			sm_free(&o->alloc, norm, norm_size);
		}
	}
	ok = ok && qcr_push_frame(&r, 0, 0, (uint32_t)rfile(&r, 0)->size, 1, 0, SMDMX_NONE, NULL, NULL, 0);
	ok = ok && parse_script(&r);
	if (listings) {
		/* a lookup or read that ran out seemed a file not there or unreadable: out of memory */
		if (sm_fs_cache_ran_out(listings)) {
			ok = false;
			error->code = SMDMX_ERROR_NONE;
			sm_fail_oom(error);
		}
		sm_fs_cache_free(listings);
		r.fs.user = NULL;
	}
	if (r.buf) sm_free(&o->alloc, r.buf, r.buf_cap);
	if (r.key) sm_free(&o->alloc, r.key, r.key_cap);
	sm_names_free(&o->alloc, &r.anims.index);
	sm_names_free(&o->alloc, &r.ctl_names.index);
	sm_names_free(&o->alloc, &r.flex_names.index);
	sm_names_free(&o->alloc, &r.missing.index);
	sm_names_free(&o->alloc, &r.include_models.index);
	sm_names_free(&o->alloc, &r.textures.index);
	if (r.var_slots) sm_free(&o->alloc, r.var_slots, r.var_cap * sizeof(var_slot));
	sm_names_free(&o->alloc, &r.macro_index);
	if (!ok) {
		if (!error->code) sm_fail(error, SMDMX_ERROR_SYNTAX, 0, 0, "the QC could not be read");
		sm_owner_free(o);
		return NULL;
	}
	qc->files = r.files.data;
	qc->file_count = r.files.count;
	qc->refs = r.refs.data;
	qc->ref_count = r.refs.count;
	qc->models = r.models.data;
	qc->model_count = r.models.count;
	qc->attachments = r.atts.data;
	qc->attachment_count = r.atts.count;
	qc->parts = r.parts.data;
	qc->part_count = r.parts.count;
	size_t first_choice = 0; /* each part's choices follow the last's; a part may have none */
	for (size_t i = 0; i < qc->part_count; i++) {
		qc->parts[i].choices = qc->parts[i].choice_count ? (const uint32_t *)r.part_choices.data + first_choice : NULL;
		first_choice += qc->parts[i].choice_count;
	}
	qc->up_axis = r.up_axis;
	qc->scale = r.scale;
	if (!r.origin_fixed) memcpy(qc->origin, r.origin, sizeof(r.origin));
	qc->errors = r.errs.data;
	qc->error_count = r.errs.count;
	qc->missing_includes = r.missing.list.data;
	qc->missing_include_count = r.missing.list.count;
	qc->include_models = r.include_models.list.data;
	qc->include_model_count = r.include_models.list.count;
	qc->textures = r.textures.list.data;
	qc->texture_count = r.textures.list.count;
	/* without $cdtexture, the textures are looked for in the $cd folder (Grab_Skin) */
	if (r.goldsrc_textures && !r.texture_dirs.count) {
		const char **slot = sm_vec_push(o, &r.texture_dirs, sizeof(char *), error);
		if (slot) *slot = r.cd_set ? r.dirs[0] : "";
		else ok = false;
	}
	if (!ok) {
		sm_owner_free(o);
		return NULL;
	}
	qc->texture_dirs = r.texture_dirs.data;
	qc->texture_dir_count = r.texture_dirs.count;
	st->fs = r.fs;
	for (size_t i = 0; i < qc->model_count; i++) qc->models[i].flexdescs = r.flex_names.list.data;
	st->ref_tok = r.ref_tok.data;
	st->include_tok = r.include_tok.data;
	st->crlf = r.crlf.data;
	st->models = r.model_x.data;
	sm_budget_leave(budget, &o->alloc);
	return qc;
}

smdmx_qc *smdmx_qc_read_file(const char *path, const smdmx_qc_read_options *options, smdmx_error *error,
                             smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	if (!path) return sm_fail_null(error, __func__, "path"), NULL;
	smdmx_qc_read_options opt;
	memset(&opt, 0, sizeof(opt));
	if (options) opt = *options;
	/* the reading's memory (the QC's, its warnings, and the listings and files read on the
	 * way) counted together against the allocator's limits; the QC and the warnings the
	 * caller's after */
	sm_budget budget;
	smdmx_allocator hooks = sm_budget_start(&budget, &opt.allocator);
	sm_warnings_start(warnings, &hooks);
	smdmx_qc *qc = read_qc(path, &opt, &budget, hooks, error, warnings);
	sm_warnings_leave(warnings, &budget);
	if (qc && !sm_warnings_kept(warnings, error)) {
		smdmx_qc_free(qc);
		return NULL;
	}
	return qc;
}

sm_alloc sm_qc_room(const smdmx_qc *qc)
{
	return qc_temp_alloc(qc);
}

void smdmx_qc_free(smdmx_qc *qc)
{
	if (qc) sm_owner_free(qc->state->o);
}

uint32_t smdmx_qc_find_model(const smdmx_qc *qc, const char *name)
{
	if (!qc) return SMDMX_NONE;
	for (size_t i = 0; i < qc->model_count; i++)
		if (!name || sm_same_nocase(qc->models[i].name, name)) return (uint32_t)i;
	return SMDMX_NONE;
}

void qc_error_file(const smdmx_qc *qc, uint32_t file, smdmx_error *error)
{
	if (file != 0 && file < qc->file_count) snprintf(error->file, sizeof(error->file), "%s", qc->files[file].path);
}

char *smdmx_qc_find_texture(const smdmx_qc *qc, const char *name, bool *nocase)
{
	bool spare;
	if (!nocase) nocase = &spare;
	if (!qc || !name) return *nocase = false, NULL;
	*nocase = false;
	/* every block in the QC's memory: the folders listed on the way (the default file system),
	 * the paths tried, the path handed back */
	sm_alloc a = qc_temp_alloc(qc);
	smdmx_qc_files fs = qc->state->fs;
	sm_fs_cache *listings = NULL;
	if (fs.find == sm_fs_find && !fs.user && !(fs.user = listings = sm_fs_cache_new(&a.hooks))) return NULL; /* out of memory */
	char *copy = NULL;
	for (size_t i = 0; i < qc->texture_dir_count && !copy; i++) {
		size_t n = strlen(qc->state->root) + strlen(qc->texture_dirs[i]) + strlen(name) + 1;
		char *path = sm_new(&a, 1, n);
		if (!path) break;
		snprintf(path, n, "%s%s%s", qc->state->root, qc->texture_dirs[i], name);
		for (char *p = path; *p; p++)
			if (*p == '\\') *p = '/';
		char *found = fs.find(fs.user, path, nocase);
		sm_del(&a, path);
		if (!found) continue;
		size_t len = strlen(found) + 1;
		copy = sm_new(&a, 1, len);
		if (copy) memcpy(copy, found, len);
		fs.free_data(fs.user, found);
		if (!copy) break;
	}
	if (sm_fs_cache_ran_out(listings)) { /* a lookup that ran out: not known */
		sm_del(&a, copy);
		copy = NULL;
	}
	sm_fs_cache_free(listings);
	return copy;
}

void smdmx_qc_path_free(const smdmx_qc *qc, char *path)
{
	if (!qc || !path) return;
	sm_alloc a = qc_temp_alloc(qc);
	sm_del(&a, path);
}
