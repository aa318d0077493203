/* A QC's $model (or first animation) as a scene: its files read, its flexfile attached, its
 * rig applied, then its $scale, $upaxis and attachments (smdmx_qc_model_scene in rig.h), in
 * the order studiomdl builds a model (doc/format-notes.md, "A QC's model"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "support/internal.h"
#include "smdmx/model.h"
#include "smdmx/rig.h"
#include "scene/scene_util.h"

typedef struct build {
	const smdmx_qc *qc;
	const smdmx_qc_scene_options *o;
	smdmx_error *error;
	smdmx_warnings *warnings;
	smdmx_qc_scene_options none; /* o when the caller gave none */
} build;

/* A scene's building begun: the options or none, the warnings cleared. */
static void build_start(build *b, const smdmx_qc *qc, const smdmx_qc_scene_options *options, smdmx_error *error,
                        smdmx_warnings *warnings)
{
	memset(&b->none, 0, sizeof(b->none));
	b->qc = qc;
	b->o = options ? options : &b->none;
	b->error = error;
	b->warnings = warnings;
	sm_warnings_start(warnings, &b->o->smd.allocator);
}

/* The scene built, or NULL when it failed or a warning found no room. */
static smdmx_scene *built(build *b, smdmx_scene *s)
{
	if (s && !sm_warnings_kept(b->warnings, b->error)) {
		smdmx_scene_free(s);
		return NULL;
	}
	return s;
}

/* A file read: told to the caller, or its warnings kept with its name; its error, with its
 * name, the call's. False when it failed. */
static bool file_done(build *b, const char *path, smdmx_warnings *w, const smdmx_error *e)
{
	if (b->o->file_read) {
		b->o->file_read(b->o->user, path, w, e);
		smdmx_warnings_free(w);
	} else {
		sm_warnings_merge(b->warnings, w, 0, path);
	}
	if (!e) return true;
	*b->error = *e;
	if (!b->error->file[0]) snprintf(b->error->file, sizeof(b->error->file), "%s", path);
	return false;
}

static bool fail_ref(build *b, const smdmx_qc_ref *ref, const char *what);

/* A file the QC names not there, of a picture of what is there (what_is_there): told to
 * file_read with its error, and left out (true); else the call's error (false). */
static bool left_out(build *b, const smdmx_qc_ref *ref, const char *what, const char *tail)
{
	if (!b->o->what_is_there || !b->o->file_read) return fail_ref(b, ref, what);
	smdmx_error *keep = b->error, e;
	memset(&e, 0, sizeof(e));
	b->error = &e;
	fail_ref(b, ref, what);
	b->error = keep;
	size_t n = strlen(e.message);
	snprintf(e.message + n, sizeof(e.message) - n, "%s", tail);
	b->o->file_read(b->o->user, e.file[0] ? e.file : b->qc->files[0].path, NULL, &e);
	return true;
}

/* A file the QC names not there: an error where the QC names it. */
static bool fail_ref(build *b, const smdmx_qc_ref *ref, const char *what)
{
	char shown[1024];
	sm_fail(b->error, SMDMX_ERROR_IO, ref->pos.line, ref->pos.column, "cannot find '%s' (%s)",
	        os_path_shown(ref->path, b->qc->separator, shown, sizeof(shown)), what);
	if (ref->pos.file != 0 && ref->pos.file < b->qc->file_count)
		snprintf(b->error->file, sizeof(b->error->file), "%s", b->qc->files[ref->pos.file].path);
	return false;
}

static smdmx_scene *read_smd(build *b, const char *path, const smdmx_smd_read_options *ro)
{
	smdmx_error e;
	smdmx_warnings w = { 0 };
	smdmx_scene *s = smdmx_smd_read_file(path, ro, &e, &w);
	return file_done(b, path, &w, s ? NULL : &e) ? s : NULL;
}

static smdmx_scene *read_dmx(build *b, const char *path)
{
	smdmx_error e;
	smdmx_warnings w = { 0 };
	smdmx_dm *dm = smdmx_dmx_read_file(path, &b->o->dmx, &e, &w);
	if (!dm) return file_done(b, path, &w, &e), NULL;
	smdmx_warnings lw = { 0 };
	smdmx_model_options mo;
	memset(&mo, 0, sizeof(mo));
	mo.allocator = b->o->dmx.allocator; /* the scene in the DMX's memory */
	smdmx_scene *s = smdmx_model_to_scene(dm, &mo, &e, &lw);
	smdmx_dm_free(dm);
	sm_warnings_merge(&w, &lw, 0, "");
	if (!s) {
		char why[sizeof(e.message)];
		snprintf(why, sizeof(why), "%s", e.message);
		snprintf(e.message, sizeof(e.message), "not a model: %.200s", why);
		e.line = e.column = 0;
	}
	return file_done(b, path, &w, s ? NULL : &e) ? s : NULL;
}

/* The end of a model on its own: scaled and turned as the QC says, the QC's attachments on
 * it (whose positions $scale scaled where they were read). */
/* A model scaled and turned as the QC says where it is named (as_files: marked with the
 * axis instead). */
static bool place(build *b, smdmx_scene *s, double scale, char up_axis)
{
	if (b->o->as_files) {
		if (up_axis) s->up_axis = up_axis;
		return true;
	}
	if ((scale != 1 && scale > 0) || (up_axis && up_axis != 'Z'))
		return smdmx_scene_transform(s, scale, up_axis == 'Z' ? 0 : up_axis, b->error);
	return true;
}

static bool finish(build *b, smdmx_scene *s, double scale, char up_axis)
{
	if (b->o->qc_beside) return true;
	SM_CHECK(place(b, s, scale, up_axis));
	smdmx_warnings w = { 0 };
	bool ok = smdmx_qc_apply_attachments(b->qc, s, b->error, &w);
	sm_warnings_merge(b->warnings, &w, 0, "");
	const double *o = b->qc->origin;
	if (ok && b->o->placed && !b->o->as_files && (o[0] || o[1] || o[2] || o[3])) ok = smdmx_scene_move(s, o, o[3], b->error);
	return ok;
}

/* A DMX's clips as studiomdl plays them in a sequence: sampled at their own rate, a frame
 * each, and those frames played at the sequence's fps (30 unless it gives one), as it plays
 * an SMD's (doc/format-notes.md, "A sequence's fps"): here a key per frame, each at its
 * frame's time at that fps. */
static bool play_at(smdmx_scene *s, double fps, smdmx_error *error)
{
	if (!sm_scene_memory(s, error)) return false;
	for (size_t c = 0; c < s->clip_count; c++) {
		smdmx_clip *clip = &s->clips[c];
		double rate = clip->frame_rate;
		if (rate == fps) continue;
		int64_t first = llround((double)clip->start * rate / 10000.0);
		int64_t last = llround(((double)clip->start + clip->duration) * rate / 10000.0);
		size_t n = last >= first ? (size_t)(last - first + 1) : 1;
		if ((uint64_t)n * (clip->channel_count + 1) > ((uint64_t)1 << 26))
			return sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s': %zu frames of %zu channels; the limit is 2^26 poses",
			               clip->name, n, clip->channel_count);
		for (size_t k = 0; k < clip->channel_count; k++) {
			smdmx_channel *ch = &clip->channels[k];
			const smdmx_joint *j = &s->joints[ch->joint];
			int32_t *pt = ch->position_count ? sm_owned_alloc(s->owner, n * sizeof(int32_t), error) : NULL;
			int32_t *ot = ch->orientation_count ? sm_owned_alloc(s->owner, n * sizeof(int32_t), error) : NULL;
			smdmx_vec3 *pv = pt ? sm_owned_alloc(s->owner, n * sizeof(smdmx_vec3), error) : NULL;
			smdmx_quat *ov = ot ? sm_owned_alloc(s->owner, n * sizeof(smdmx_quat), error) : NULL;
			if ((ch->position_count && !pv) || (ch->orientation_count && !ov)) return false;
			for (size_t i = 0; i < n; i++) {
				int64_t f = first + (int64_t)i;
				int32_t at = (int32_t)floor((double)f * 10000.0 / rate), to = (int32_t)floor((double)f * 10000.0 / fps);
				if (pt) {
					sm_sample_position(ch, at, j->bind.position, pv[i]);
					pt[i] = to;
				}
				if (ot) {
					sm_sample_orientation(ch, at, j->bind.orientation, ov[i]);
					ot[i] = to;
				}
			}
			if (pt) ch->position_times = pt, ch->positions = pv, ch->position_count = n;
			if (ot) ch->orientation_times = ot, ch->orientations = ov, ch->orientation_count = n;
		}
		clip->start = (int32_t)floor((double)first * 10000.0 / fps);
		clip->duration = (int32_t)floor((double)last * 10000.0 / fps) - clip->start;
		clip->frame_rate = fps;
	}
	return smdmx_scene_validate(s, error);
}

/* The first animation, named and timed as its $sequence says. */
static smdmx_scene *animation(build *b, const smdmx_qc_ref *ref)
{
	smdmx_scene *s;
	if (sm_same_nocase(sm_extension(ref->path), "dmx")) {
		s = read_dmx(b, ref->path);
		if (s && !play_at(s, ref->fps > 0 ? ref->fps : 30, b->error)) {
			smdmx_scene_free(s);
			return NULL;
		}
		/* an animation's attachments are read by no studiomdl: the QC's are put on it */
		if (s) s->attachment_count = 0;
	} else {
		smdmx_smd_read_options ro = b->o->smd;
		if (ref->fps > 0) ro.frame_rate = ref->fps;
		if (ref->sequence) ro.name = ref->sequence;
		s = read_smd(b, ref->path, &ro);
		/* the clip takes the sequence's name */
		for (size_t c = 0; s && ref->sequence && c < s->clip_count; c++) s->clips[c].name = s->name;
	}
	return s;
}

/* The SMDs of the QC's body parts but $model model's own (a VTA made of the whole character
 * has their vertices too: sm_scene_attach_vta_among), read quietly; those that cannot be read
 * are left out (their own reading says why). *n of them; NULL when none. */
static smdmx_scene **other_parts(build *b, uint32_t model, size_t *n, sm_alloc *room)
{
	const smdmx_qc *qc = b->qc;
	uint32_t own = qc->models[model].ref;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < qc->part_count; i++) cap += qc->parts[i].choice_count;
	smdmx_scene **out = cap ? sm_new_zero(room, cap, sizeof(*out)) : NULL;
	for (size_t i = 0; out && i < qc->part_count; i++)
		for (size_t k = 0; k < qc->parts[i].choice_count; k++) {
			uint32_t r = qc->parts[i].choices[k];
			if (r == SMDMX_NONE || !qc->refs[r].found || (own != SMDMX_NONE && !strcmp(qc->refs[r].path, qc->refs[own].path)) ||
			    !sm_same_nocase(sm_extension(qc->refs[r].path), "smd"))
				continue;
			bool seen = false;
			for (size_t j = 0; j < *n && !seen; j++) seen = out[j]->name && !strcmp(out[j]->name, qc->refs[r].path);
			smdmx_error e;
			smdmx_smd_read_options ro = b->o->smd;
			ro.name = qc->refs[r].path;
			smdmx_scene *p = seen ? NULL : smdmx_smd_read_file(qc->refs[r].path, &ro, &e, NULL);
			if (p) out[(*n)++] = p;
		}
	return out;
}

/* The $model's SMD with its flexfile's shapes and the rig. */
static bool model_rig(build *b, uint32_t model, smdmx_scene *s)
{
	const smdmx_qc *qc = b->qc;
	smdmx_error e;
	uint32_t vta = smdmx_qc_model_vta(qc, model, b->error);
	if (vta == SMDMX_NONE && b->error->code) return false;
	if (vta != SMDMX_NONE) {
		const smdmx_qc_ref *v = &qc->refs[vta];
		if (!v->found) return fail_ref(b, v, "the flexfile of the $model");
		smdmx_warnings w = { 0 }, aw = { 0 };
		smdmx_scene *flex = smdmx_smd_read_file(v->path, &b->o->smd, &e, &w);
		size_t no = 0;
		sm_alloc room;
		sm_alloc_init(&room, &b->o->smd.allocator);
		smdmx_scene **others = flex ? other_parts(b, model, &no, &room) : NULL;
		bool ok = flex && sm_scene_attach_vta_among(s, flex, (const smdmx_scene *const *)others, no, &e, &aw);
		sm_warnings_merge(&w, &aw, 0, "");
		for (size_t k = 0; k < no; k++) smdmx_scene_free(others[k]);
		sm_del(&room, others);
		smdmx_scene_free(flex);
		if (!file_done(b, v->path, &w, ok ? NULL : &e)) return false;
	}
	if (b->o->qc_beside && vta == SMDMX_NONE) return true;
	smdmx_qc_rig_options rig = { .rig_in_qc = b->o->rig_in_qc };
	smdmx_warnings w = { 0 };
	bool ok = smdmx_qc_apply_rig(qc, model, s, &rig, b->error, &w);
	sm_warnings_merge(b->warnings, &w, 0, "");
	return ok;
}

/* The DMX of $model model (SMDMX_NONE: of another command) with the rig its QC lines give
 * it (smdmx_qc_apply_dmx_rig), unless the rig stays in the QC or the QC beside the scene. */
static smdmx_scene *dmx_model(build *b, uint32_t model, const char *path)
{
	smdmx_scene *s = read_dmx(b, path);
	if (s && model != SMDMX_NONE && !b->o->rig_in_qc && !b->o->qc_beside && !smdmx_qc_apply_dmx_rig(b->qc, model, s, b->error)) {
		smdmx_scene_free(s);
		return NULL;
	}
	return s;
}

uint32_t smdmx_qc_scene_ref(const smdmx_qc *qc, uint32_t model)
{
	if (!qc) return SMDMX_NONE;
	if (model != SMDMX_NONE) return model < qc->model_count ? qc->models[model].ref : SMDMX_NONE;
	for (size_t i = 0; i < qc->ref_count; i++)
		if (qc->refs[i].kind == SMDMX_QC_REF_ANIMATION) return (uint32_t)i;
	return SMDMX_NONE;
}

smdmx_scene *smdmx_qc_model_scene(const smdmx_qc *qc, uint32_t model, const smdmx_qc_scene_options *options,
                                  smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	build b;
	build_start(&b, qc, options, error, warnings);
	if (!qc) return sm_fail_null(error, __func__, "qc"), NULL;
	if (model != SMDMX_NONE && model >= qc->model_count)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u (the QC has %zu)", model, qc->model_count), NULL;
	uint32_t r = smdmx_qc_scene_ref(qc, model);
	if (r == SMDMX_NONE)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, model == SMDMX_NONE ? "the QC has no $model and no $sequence to convert"
		                                                                   : "the $model names no file"),
		       NULL;
	const smdmx_qc_ref *ref = &qc->refs[r];
	char what[300];
	if (model == SMDMX_NONE) snprintf(what, sizeof(what), "the animation of the first $sequence");
	else snprintf(what, sizeof(what), "the file of $model '%.200s'", qc->models[model].name);
	/* a picture of what is there: the first animation there, the others said */
	while (!ref->found && model == SMDMX_NONE && b.o->what_is_there && b.o->file_read &&
	       left_out(&b, ref, what, ": drawn with the next animation there")) {
		uint32_t next = r + 1;
		while (next < qc->ref_count && qc->refs[next].kind != SMDMX_QC_REF_ANIMATION) next++;
		if (next >= qc->ref_count) break;
		r = next;
		ref = &qc->refs[r];
		snprintf(what, sizeof(what), "the animation of a later $sequence");
	}
	if (!ref->found) {
		if (model == SMDMX_NONE && b.o->what_is_there && b.o->file_read)
			return sm_fail(error, SMDMX_ERROR_IO, 0, 0, "no animation the QC names is there"), NULL;
		return fail_ref(&b, ref, what), NULL;
	}
	double scale = model == SMDMX_NONE ? qc->scale : qc->models[model].scale;
	char up = model == SMDMX_NONE ? qc->up_axis : qc->models[model].up_axis;
	smdmx_scene *s;
	if (model == SMDMX_NONE) s = animation(&b, ref);
	else if (sm_same_nocase(sm_extension(ref->path), "dmx")) s = dmx_model(&b, model, ref->path);
	else {
		s = read_smd(&b, ref->path, &b.o->smd);
		if (s && !model_rig(&b, model, s)) {
			smdmx_scene_free(s);
			s = NULL;
		}
	}
	if (s && !finish(&b, s, scale, up)) {
		smdmx_scene_free(s);
		s = NULL;
	}
	return built(&b, s);
}

/* A part's file as studiomdl reads it for the model: a $model's with its flexfile and rig,
 * another's as it is; scaled and turned by the $scale and $upaxis in force at the part. */
static smdmx_scene *part_scene(build *b, const smdmx_qc_part *p, uint32_t r, bool *missing)
{
	const smdmx_qc_ref *ref = &b->qc->refs[r];
	char what[300];
	snprintf(what, sizeof(what), "the file of %s '%.200s'", p->command, p->name);
	*missing = !ref->found;
	if (!ref->found) return left_out(b, ref, what, ": drawn without it"), NULL;
	smdmx_scene *s;
	if (sm_same_nocase(sm_extension(ref->path), "dmx")) s = dmx_model(b, p->model, ref->path);
	else {
		s = read_smd(b, ref->path, &b->o->smd);
		if (s && p->model != SMDMX_NONE && !model_rig(b, p->model, s)) {
			smdmx_scene_free(s);
			s = NULL;
		}
	}
	if (s && !place(b, s, p->scale, p->up_axis)) {
		smdmx_scene_free(s);
		s = NULL;
	}
	return s;
}

smdmx_scene *smdmx_qc_body_scene(const smdmx_qc *qc, const uint32_t *choices, const smdmx_qc_scene_options *options,
                                 smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	build b;
	build_start(&b, qc, options, error, warnings);
	if (!qc) return sm_fail_null(error, __func__, "qc"), NULL;
	smdmx_scene *model = NULL;
	size_t differ = 0, drawn = 0;
	for (size_t i = 0; i < qc->part_count; i++) {
		const smdmx_qc_part *p = &qc->parts[i];
		uint32_t c = choices ? choices[i] : 0;
		if (c == SMDMX_NONE) continue; /* left out */
		if (c >= p->choice_count) {
			if (!choices && !p->choice_count) continue; /* keep_going: no line of it was read */
			smdmx_scene_free(model);
			return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s '%s' has %zu choices: there is no choice %u", p->command,
			               p->name, p->choice_count, c),
			       NULL;
		}
		if (p->choices[c] == SMDMX_NONE) continue; /* blank */
		bool missing = false;
		smdmx_scene *s = part_scene(&b, p, p->choices[c], &missing);
		if (missing && b.o->what_is_there && b.o->file_read) continue; /* said: drawn without it */
		/* as_files: parts of two up axes are joined turned to Z up, as without it */
		char up[2] = { model && model->up_axis ? model->up_axis : 'Z', s && s->up_axis ? s->up_axis : 'Z' };
		if (s && model && up[0] != up[1]) {
			bool turned = (up[0] == 'Z' || smdmx_scene_transform(model, 1, up[0], error)) &&
			              (up[1] == 'Z' || smdmx_scene_transform(s, 1, up[1], error));
			if (!turned) {
				smdmx_scene_free(s);
				smdmx_scene_free(model);
				return NULL;
			}
		}
		size_t d = 0;
		bool ok = s && (!model || smdmx_scene_add_part(model, s, &d, error));
		differ += d;
		if (ok && !model) s = (model = s, NULL);
		smdmx_scene_free(s);
		if (!ok) {
			smdmx_scene_free(model);
			return NULL;
		}
		drawn++;
	}
	if (!drawn) {
		/* no body part with a file: the first animation, as smdmx_qc_model_scene draws it */
		smdmx_warnings w = { 0 };
		smdmx_scene *s = smdmx_qc_model_scene(qc, SMDMX_NONE, options, error, &w);
		sm_warnings_merge(b.warnings, &w, 0, "");
		return built(&b, s);
	}
	if (differ)
		sm_warn_n(b.warnings, SMDMX_WARNING_QC_BENT, differ, 0, 0,
		          "a bone of a later body part has another parent or rest pose than in the parts before it: the first part's is drawn; make them agree if a part is drawn out of place");
	if (!finish(&b, model, 1, 0)) {
		smdmx_scene_free(model);
		return NULL;
	}
	return built(&b, model);
}

/* Whether choice k of part p is named by text: its number, "blank", or its file's name as
 * the QC writes it, with or without the extension. */
static bool names_choice(const smdmx_qc *qc, const smdmx_qc_part *p, uint32_t k, const char *text)
{
	char *end;
	unsigned long n = strtoul(text, &end, 10);
	if (end != text && !*end) return n == k;
	uint32_t r = p->choices[k];
	if (r == SMDMX_NONE) return sm_same_nocase(text, "blank");
	const char *name = qc->refs[r].name, *slash = strrchr(name, '/');
	if (!slash) slash = strrchr(name, '\\');
	if (slash) name = slash + 1;
	if (sm_same_nocase(text, name)) return true;
	const char *ext = sm_extension(name);
	size_t stem = strlen(name) - (*ext ? strlen(ext) + 1 : 0);
	return strlen(text) == stem && sm_same_nocase_n(text, name, stem);
}

bool smdmx_qc_choose(const smdmx_qc *qc, const char *choice, uint32_t *choices, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !choice || !choices) return sm_fail_null(error, __func__, !qc ? "qc" : !choice ? "choice" : "choices");
	const char *eq = strchr(choice, '=');
	if (!eq || eq == choice || !eq[1])
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "'%s' is no choice of a body part: write PART=CHOICE", choice);
	size_t len = (size_t)(eq - choice);
	for (size_t i = 0; i < qc->part_count; i++) {
		const smdmx_qc_part *p = &qc->parts[i];
		if (strlen(p->name) != len || !sm_same_nocase_n(p->name, choice, len)) continue;
		for (uint32_t k = 0; k < p->choice_count; k++)
			if (names_choice(qc, p, k, eq + 1)) {
				choices[i] = k;
				return true;
			}
		char list[200] = "";
		for (uint32_t k = 0; k < p->choice_count; k++) {
			size_t at = strlen(list);
			uint32_t r = p->choices[k];
			snprintf(list + at, sizeof(list) - at, "%s%u %s", k ? ", " : "", k, r == SMDMX_NONE ? "blank" : qc->refs[r].name);
		}
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "%s '%s' has no choice '%s' (its choices: %s)", p->command, p->name, eq + 1,
		               p->choice_count ? list : "none");
	}
	char list[200] = "";
	for (size_t i = 0; i < qc->part_count; i++) {
		size_t at = strlen(list);
		snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "", qc->parts[i].name);
	}
	return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no body part named '%.*s' (the QC's: %s)", (int)len, choice,
	               qc->part_count ? list : "none");
}
