/* Comparing scenes (compare.c: smdmx_scene_compare and the comparisons the diff shares;
 * diff.c: smdmx_scene_diff, its geometry in diff_geometry.c), private to src/scene. */
#ifndef SMDMX_SCENE_COMPARE_H
#define SMDMX_SCENE_COMPARE_H

#include "support/internal.h"

/* What a comparison takes of one clip (doc/limits.md): frames, and bone poses (frames times
 * bones; the diff's). */
#define SM_COMPARE_MAX_FRAMES 1000000
#define SM_COMPARE_MAX_POSES ((uint64_t)1 << 26)

typedef struct cmp {
	double vtol, rtol;
	size_t max_links;
	bool dmx_weights;
	bool flex;          /* flex controls too: balance and wrinkle per corner, shapes' wrinkle */
	uint8_t *stereo[2];  /* per mesh of each side: a stereo control uses its balance
	                        (sm_stereo_meshes); balance is compared where either side's does */
	const char **name_a; /* smdmx_scene_diff: per joint of the first, the name it has in the second
	                        (its own, or the one a rename gave it); NULL elsewhere */
	uint32_t *pair_a;    /* smdmx_scene_diff: per joint of the first, the joint of the second it
	                        is (SMDMX_NONE: none); joints of one name pair in their order */
	bool *paired_b;      /* per joint of the second: one of the first is it */
	char *diff;
	size_t diff_size;
	/* smdmx_scene_diff: every difference goes to fn */
	smdmx_diff_fn fn;
	void *user;
	size_t count;
	/* the comparison's memory, all of it through the caller's allocator
	 * (smdmx_compare_options.allocator): its limit bounds the whole comparison, and running
	 * out anywhere stops it (sm_cmp_oom) */
	sm_alloc *mem;
	sm_budget *budget;
	smdmx_error *error;  /* why the comparison could not be made (memory, a limit) */
	/* smdmx_scene_diff: the joints of both sides by name, the first of each */
	sm_names joints_a, joints_b;
	/* smdmx_scene_diff: a side of another up axis than the other's is compared turned to Z up
	 * (sm_cmp_set_turns): its model-space data by the quarter turn turn_m, which moves numbers
	 * without rounding them, its root rotations by turn_q */
	bool turned[2];
	double turn_m[2][3][3], turn_q[2][4];
	/* scratch of sm_cmp_canonical_weights, per side: link_cap links (the most a position of
	 * either scene has), and as many flags */
	smdmx_weight *links[2];
	size_t link_cap;
	bool *keep;
} cmp;

/* Sets the turns of a and b: none when they have one up axis, else each that is not Z up is
 * turned to it, as smdmx_scene_transform turns a model. */
void sm_cmp_set_turns(cmp *c, const smdmx_scene *a, const smdmx_scene *b);
/* A vector or a rotation of the model space of side 0 (a) or 1 (b), as compared. */
void sm_cmp_turn_vec(const cmp *c, int side, const float in[3], float out[3]);
void sm_cmp_turn_rot(const cmp *c, int side, const float in[4], float out[4]);

size_t sm_cmp_canonical_weights(const cmp *c, int side, const smdmx_mesh *m, uint32_t p, const smdmx_weight **out);
/* A comparison with the options' tolerances, its memory in budget and mem (the caller's,
 * living as long as the comparison). */
cmp sm_cmp_start(const smdmx_compare_options *options, sm_budget *budget, sm_alloc *mem, smdmx_error *error);
/* The comparison cannot be made: memory ran out (sm_cmp_oom) or a limit was passed
 * (sm_cmp_limit, SMDMX_ERROR_LIMIT). It stops saying differences (those after could be the
 * failure's doing) and fails with c->error; compare's text says it too. False. */
bool sm_cmp_oom(cmp *c);
bool sm_cmp_limit(cmp *c, const char *fmt, ...) SM_PRINTF(2, 3);
/* Whether the comparison failed so, memory having run out anywhere in it or not. */
bool sm_cmp_failed(const cmp *c);
/* The failure into error (SMDMX_ERROR_OUT_OF_MEMORY where only the budget saw it). */
void sm_cmp_failure(const cmp *c, smdmx_error *error);
/* Made ready for the scenes a and b: the scratch of their weight links (any number of them),
 * and with the flex controls the meshes whose balance a stereo control uses (c->stereo);
 * false when out of memory. sm_cmp_end frees them. */
SM_NODISCARD bool sm_cmp_prepare(cmp *c, const smdmx_scene *a, const smdmx_scene *b);
void sm_cmp_end(cmp *c);
bool sm_cmp_compare_controls(cmp *c, const smdmx_scene *a, const smdmx_scene *b);
bool sm_cmp_compare_mesh(cmp *c, const smdmx_scene *sa, const smdmx_mesh *a, const smdmx_scene *sb, const smdmx_mesh *b,
                         uint32_t *map);
bool sm_cmp_compare_shape(cmp *c, const smdmx_scene *sa, const smdmx_flex_shape *fa, const smdmx_scene *sb,
                          const smdmx_flex_shape *fb, const uint32_t *map);
void sm_cmp_diff_controls(cmp *c, const smdmx_scene *a, const smdmx_scene *b);
/* Items of one name pair in their order: the k-th of the first's items of a name with the
 * k-th of the second's, so that a file is equal to itself whatever names it repeats.
 * pair[i]: the second's item that the first's item i is, or SMDMX_NONE; taken[k]: the
 * second's item k is one of the first's (both hold max(na, nb) items). False, said, when
 * memory ran out. */
bool sm_cmp_pair_names(cmp *c, size_t na, const void *ia, size_t nb, const void *ib,
                       const char *(*get)(const void *items, size_t i), uint32_t *pair, bool *taken);
bool sm_cmp_differ(cmp *c, const char *fmt, ...) SM_PRINTF(2, 3);
int64_t sm_cmp_frame_of(int64_t t, double rate);
const char *sm_cmp_name_in_b(const cmp *c, const smdmx_scene *a, uint32_t j);
bool sm_cmp_rot_equal(const cmp *c, const float *qa, const float *qb);
bool sm_cmp_shape_values_equal(const cmp *c, const float *base_a, const float *da, const float *base_b, const float *db);
bool sm_cmp_values_equal(const cmp *c, double a, double b);
/* A corner as compared: corner c of mesh m of scene s; pos and nrm its position and normal
 * as compared (the diff's, in model space, (0, 0, 0) for no normal), NULL: the mesh's own. */
typedef struct sm_corner {
	const smdmx_scene *s;
	const smdmx_mesh *m;
	uint32_t c;
	const float *pos, *nrm;
} sm_corner;

/* Where two corners differ: the first field of the list (smdmx_corner_field) in which they
 * do, SMDMX_CORNER_FIELD_COUNT when none. */
typedef struct sm_corner_diff {
	smdmx_corner_field field;
	bool one_side;    /* the field is on one side only */
	size_t at;        /* UV: the set; weight, joint: the link; SIZE_MAX: the number of sets or links */
	size_t links[2];  /* weight: each side's number of links */
} sm_corner_diff;

/* The one per-corner comparison, of every field the list names: validate's fields, compare's
 * and the diff's. Balance and wrinkle only with the flex controls (c->flex). */
sm_corner_diff sm_cmp_corner(const cmp *c, const sm_corner *a, const sm_corner *b);
bool sm_cmp_vec_equal(const cmp *c, const float *a, const float *b, int n);

/* Geometry by meaning (diff_geometry.c): one side's corners in model space and its polygons
 * (built, freed); a corner's place, as messages name it; the two sides matched, map[corner of
 * a] its corner of b (SMDMX_NONE: none), every difference said. */
/* One side's geometry as the diff sees it: every corner in model space (mesh transforms
 * applied), and every polygon with its material's name, whatever mesh or face set holds it. */
typedef struct gside {
	const smdmx_scene *s;
	size_t corners;       /* over all meshes */
	uint32_t *mesh_of;    /* per corner: its mesh */
	uint32_t *local;      /* per corner: its index in the mesh */
	float (*pos)[3], (*nrm)[3];
	double (*turn)[3][3]; /* per mesh: the rotation that puts it in model space (as pos has it) */
	uint64_t *hash;       /* per corner: of what it holds (exact, or rounded to the tolerance) */
	size_t polys;
	uint32_t *first;      /* per polygon: its first entry in ring */
	uint32_t *size;
	const char **material;
	uint32_t *ring;       /* corners of the polygons, one after another */
	size_t ring_count;
} gside;

/* The sides as studiomdl builds them. A mesh that follows its own node (sm_own_bones) is on
 * the bone studiomdl makes of the node, as an SMD written from it holds it (the format notes,
 * "A mesh that follows its own node"). A model without joints beside the same model on one
 * root joint (the format notes, "A mesh without joints"): when one side has no joint and the
 * other only a root joint, unanimated, holding no attachment, that weighs every vertex of
 * every mesh fully, that joint and its weights are left out. *va and *vb are the sides so
 * (views held in u, freed by sm_cmp_unroot_free), or the sides themselves. False when out of
 * memory. */
typedef struct sm_unrooted {
	smdmx_scene view;
	smdmx_mesh *meshes;
	smdmx_scene own[2];
	sm_owner *own_mem[2];
} sm_unrooted;
bool sm_cmp_unroot(const cmp *c, const smdmx_scene *a, const smdmx_scene *b, const smdmx_scene **va,
                   const smdmx_scene **vb, sm_unrooted *u);
void sm_cmp_unroot_free(const cmp *c, sm_unrooted *u);

void sm_diff_gside_free(const cmp *c, gside *g);
bool sm_diff_gside_build(const cmp *c, const smdmx_scene *s, gside *g, bool first);
void sm_diff_where(const gside *g, uint32_t corner, char *out, size_t size);
bool sm_diff_geometry(cmp *c, const gside *ga, const gside *gb, uint32_t *map);

#endif
