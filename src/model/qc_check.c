/* A QC checked as studiomdl would take it (smdmx_qc_check in rig.h): the files it names that
 * are not there, and the rules of a $model whose file is a DMX against what studiomdl makes
 * of that DMX (its delta states' flexes, its controls). */
#include <stdio.h>
#include <string.h>

#include "platform/os.h"
#include "support/internal.h"
#include "smdmx/model.h"
#include "smdmx/rig.h"

typedef struct qcheck {
	smdmx_finding_fn fn;
	void *user;
	size_t count;
} qcheck;

static void find(qcheck *q, bool error, uint32_t line, uint32_t column, const char *file, const char *message)
{
	smdmx_finding f = { error, line, column, SMDMX_NONE, file && *file ? file : NULL, message };
	if (q->fn) q->fn(q->user, &f);
	q->count++;
}

/* The names studiomdl makes of a DMX model for rules to read: each shape, and its halves
 * NAMEL and NAMER; each control, or a stereo one's right_ and left_ halves where the DMX has
 * no rules of its own (unless the QC says noautodmxrules, which keeps the DMX's controls out). */
static bool dmx_names(sm_owner *o, const smdmx_scene *s, bool noautodmxrules, const char ***flexes, size_t *nf,
                      const char ***ctls, size_t *nc)
{
	*flexes = sm_owned_calloc(o, 3 * s->flex_shape_count + 1, sizeof(char *), NULL);
	*ctls = sm_owned_calloc(o, 2 * s->flex_controller_count + 1, sizeof(char *), NULL);
	if (!*flexes || !*ctls) return false;
	char buf[600];
	*nf = *nc = 0;
	for (size_t i = 0; i < s->flex_shape_count; i++) {
		const char *n = s->flex_shapes[i].name;
		(*flexes)[(*nf)++] = n;
		snprintf(buf, sizeof(buf), "%sL", n);
		(*flexes)[(*nf)++] = sm_strdup(o, buf, strlen(buf), NULL);
		snprintf(buf, sizeof(buf), "%sR", n);
		(*flexes)[(*nf)++] = sm_strdup(o, buf, strlen(buf), NULL);
	}
	for (size_t i = 0; !noautodmxrules && i < s->flex_controller_count; i++) {
		const smdmx_flex_controller *c = &s->flex_controllers[i];
		if (c->stereo && !s->flex_rule_count) {
			snprintf(buf, sizeof(buf), "right_%s", c->name);
			(*ctls)[(*nc)++] = sm_strdup(o, buf, strlen(buf), NULL);
			snprintf(buf, sizeof(buf), "left_%s", c->name);
			(*ctls)[(*nc)++] = sm_strdup(o, buf, strlen(buf), NULL);
		} else {
			(*ctls)[(*nc)++] = c->name;
		}
	}
	for (size_t i = 0; i < *nf; i++)
		if (!(*flexes)[i]) return false;
	for (size_t i = 0; i < *nc; i++)
		if (!(*ctls)[i]) return false;
	return true;
}

/* The rules of $model mi, whose file is a DMX, against the DMX. */
static void check_dmx_rules(qcheck *q, const smdmx_qc *qc, uint32_t mi, const smdmx_dmx_read_options *dmx)
{
	const smdmx_qc_model *m = &qc->models[mi];
	const smdmx_qc_ref *r = &qc->refs[m->ref];
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(r->path, dmx, &err, NULL);
	smdmx_scene *s = dm ? smdmx_model_to_scene(dm, NULL, &err, NULL) : NULL;
	smdmx_dm_free(dm);
	if (!s) {
		find(q, true, err.line, err.column, err.file[0] ? err.file : r->path, err.message);
		return;
	}
	sm_owner *o = sm_owner_new(NULL, NULL);
	const char **flexes = NULL, **ctls = NULL;
	size_t nf = 0, nc = 0;
	if (!o || !dmx_names(o, s, m->noautodmxrules, &flexes, &nf, &ctls, &nc))
		find(q, true, 0, 0, r->path, "out of memory listing the names of the DMX");
	else if (!smdmx_qc_check_rules(qc, mi, flexes, nf, ctls, nc, &err))
		find(q, true, err.line, err.column, err.file, err.message);
	sm_owner_free(o);
	smdmx_scene_free(s);
}

size_t smdmx_qc_check(const smdmx_qc *qc, const smdmx_dmx_read_options *dmx, smdmx_finding_fn fn, void *user)
{
	if (!qc) {
		const smdmx_finding f = { true, 0, 0, SMDMX_NONE, NULL, "smdmx_qc_check: qc is NULL" };
		if (fn) fn(user, &f);
		return 1;
	}
	qcheck q = { fn, user, 0 };
	char msg[600];
	for (size_t i = 0; i < qc->ref_count; i++) {
		const smdmx_qc_ref *r = &qc->refs[i];
		if (r->found) continue;
		char shown[512];
		snprintf(msg, sizeof(msg), "cannot find '%s' (named by %s)", os_path_shown(r->path, qc->separator, shown, sizeof(shown)), r->command);
		find(&q, r->kind != SMDMX_QC_REF_OTHER, r->pos.line, r->pos.column, r->pos.file ? qc->files[r->pos.file].path : NULL, msg);
	}
	for (size_t mi = 0; mi < qc->model_count; mi++) {
		const smdmx_qc_model *m = &qc->models[mi];
		const smdmx_qc_ref *r = &qc->refs[m->ref];
		if (r->found && sm_same_nocase(sm_extension(r->path), "dmx") && m->rule_count) check_dmx_rules(&q, qc, (uint32_t)mi, dmx);
	}
	return q.count;
}
