/* The face rig both ways (qc_rig.c: scene to QC lines; qc_rig_lift.c: QC lines to the
 * scene), private to src/model: the rig as QC lines and the helpers both directions use. */
#ifndef SMDMX_MODEL_RIG_H
#define SMDMX_MODEL_RIG_H

#include "support/internal.h"
#include "scene/scene_util.h"
#include "smdmx/qc.h"
#include "smdmx/rig.h"

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

/* The scene's shape names, once each, in order of first appearance (the VTA's frames). */
typedef struct uname {
	const char *name;
	uint32_t first;        /* its first shape */
	bool stereo;           /* a raw control of a stereo control drives it */
	bool baked;            /* written as NAMER and NAMEL */
	double split;
	int32_t frame;         /* its VTA frame (the R half's when baked) */
} uname;

/* A shape lifted from a QC's flex lines: name, stereo, split, frame. */
typedef struct lshape {
	const char *name;
	bool stereo;
	double split;
	int32_t frame;
} lshape;

const char *sm_rig_fetch(rig *g, const smdmx_scene *s, const sm_raws *r, uint32_t raw, char side);
void sm_rig_fmt_num(double v, char *out);
float sm_rig_pair_share(double split, double x);
void sm_rig_free(rig *g);
bool sm_rig_init(rig *g, const smdmx_scene *s, smdmx_error *error);
bool sm_rig_lower(rig *g, const smdmx_scene *s, const uname *us, size_t nu, smdmx_warnings *w);
/* fmt's text appended to *buf (of *len bytes in *cap, grown by realloc); false when memory
 * ran out. */
/* Text put together in room's blocks (sm_new's, *buf NULL to start), then handed to the
 * caller as smdmx_qc_text_free takes it (buf freed; NULL when memory ran out). */
bool sm_rig_appendf(sm_alloc *room, char **buf, size_t *len, size_t *cap, const char *fmt, ...) SM_PRINTF(5, 6);
char *sm_rig_text_out(sm_alloc *room, char *buf, size_t len);
bool sm_rig_shape_scaled(sm_owner *o, const smdmx_scene *s, const smdmx_flex_shape *src, const char *name, const float *share,
                         bool complement, smdmx_flex_shape *out, smdmx_error *error);
bool sm_rig_split_holds(const smdmx_scene *s, const smdmx_flex_shape *sh, double split);
void sm_rig_squeeze(const char *s, char *out, size_t cap);

/* The QC's controllers and rules of m as a combination operator over the shapes ls
 * (qc_rig_combo.c): *accepted when they are one, the scene then holding it; false on failure. */
bool sm_rig_try_combination(smdmx_scene *s, const smdmx_qc_model *m, const lshape *ls, size_t nls, bool *accepted,
                            smdmx_error *error);

#endif
