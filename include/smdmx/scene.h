/* smdmx: the intermediate scene every front end produces and every back end consumes.
 *
 * Plain data. Objects refer to each other by index (uint32_t, SMDMX_NONE for "none"), every
 * array has its count beside it, and all memory belongs to the scene: smdmx_scene_free
 * releases everything at once. Strings are NUL-terminated UTF-8 (bytes are kept as read).
 *
 * Units and conventions:
 * - lengths are in the file's units (Source: inches), untouched;
 * - orientations are unit quaternions stored x, y, z, w;
 * - transforms are relative to the parent (joint, or the model for roots);
 * - times are DMX ticks: 1 tick = 1/10000 s. Frame f at rate r is tick floor(f * 10000 / r).
 */
#ifndef SMDMX_SCENE_H
#define SMDMX_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef float smdmx_vec2[2];
typedef float smdmx_vec3[3];
typedef float smdmx_quat[4]; /* x, y, z, w */

typedef struct smdmx_string_list {
	const char **data;
	size_t count;
} smdmx_string_list;

typedef struct smdmx_float_list {
	float *data;
	size_t count;
} smdmx_float_list;

typedef struct smdmx_transform {
	smdmx_vec3 position;
	smdmx_quat orientation;
} smdmx_transform;

typedef struct smdmx_joint {
	const char *name;
	uint32_t parent;        /* joint index, or SMDMX_NONE for a root */
	smdmx_transform bind;   /* bind (reference) pose relative to the parent */
} smdmx_joint;

typedef struct smdmx_weight {
	uint32_t joint;
	float weight;
} smdmx_weight;

/* A per-corner attribute: deduplicated values and one index per corner. */
typedef struct smdmx_uv_set {
	const char *name;       /* "textureCoordinates" for the first set, else a name like "texcoord$1" */
	smdmx_vec2 *data;
	size_t count;
	uint32_t *indices;      /* corner_count entries into data */
} smdmx_uv_set;

typedef struct smdmx_scalar_field {
	float *data;
	size_t count;
	uint32_t *indices;      /* corner_count entries into data; NULL when the field is absent */
} smdmx_scalar_field;

/* Polygons of one material. Polygon i has corners[offsets[i]] .. corners[offsets[i+1]-1],
 * at least 3, in their stored winding. */
typedef struct smdmx_face_set {
	uint32_t material;      /* index into smdmx_scene.materials */
	uint32_t *corners;      /* indices into the mesh's corner space */
	size_t corner_count;
	uint32_t *offsets;      /* polygon_count + 1 entries, offsets[0] = 0 */
	size_t polygon_count;
} smdmx_face_set;

/* A flex shape: sparse deltas against the base state's data arrays of one mesh. */
typedef struct smdmx_flex_shape {
	const char *name;
	uint32_t mesh;                  /* index into smdmx_scene.meshes */
	uint32_t *position_indices;     /* into the mesh's positions */
	smdmx_vec3 *position_deltas;
	size_t position_count;
	uint32_t *normal_indices;       /* into the mesh's normals */
	smdmx_vec3 *normal_deltas;
	size_t normal_count;
	uint32_t *wrinkle_indices;      /* into the mesh's wrinkle data; may be empty */
	float *wrinkle_deltas;
	size_t wrinkle_count;
	bool corrective;                /* a combination (corrective) shape */
	int32_t frame;                  /* the VTA frame number it came from, or -1 */
	uint32_t line;                  /* the line of that frame's 'time' in the VTA, or 0 */
} smdmx_flex_shape;

/* What a mesh holds per face corner, named once: the readers and writers, validation, the
 * comparisons, the loss reports and `smdmx info` take the fields from this list
 * (doc/library.md, "Corner fields"). In DmeVertexData's order. */
typedef enum smdmx_corner_field {
	SMDMX_CORNER_POSITION = 0, /* positions, position_indices */
	SMDMX_CORNER_NORMAL,       /* normals, normal_indices */
	SMDMX_CORNER_UV,           /* uv_sets (set 0 the main one) */
	SMDMX_CORNER_WEIGHT,       /* weights: each link's weight */
	SMDMX_CORNER_JOINT,        /* weights: each link's joint */
	SMDMX_CORNER_BALANCE,      /* balance */
	SMDMX_CORNER_WRINKLE,      /* wrinkle */
	SMDMX_CORNER_FIELD_COUNT
} smdmx_corner_field;

typedef struct smdmx_corner_field_info {
	const char *name;          /* as messages name it: "position", "normal", "UV", "weight",
	                              "joint", "balance", "wrinkle" */
	const char *dmx_names[2];  /* DmeVertexData's names: model formats before 22, 22 and on */
	unsigned components;       /* numbers per value (a link's joint counts as one) */
	bool smd;                  /* an SMD holds it (an SMD holds one UV set) */
	bool flex_control;         /* compared with smdmx_compare_options.flex_controls only */
} smdmx_corner_field_info;

/* The description of field f; NULL when f is not a field. */
SMDMX_API const smdmx_corner_field_info *smdmx_corner_field_describe(smdmx_corner_field f);

/* Whether mesh m holds field f: positions always; normals, weights and balance or wrinkle
 * when they are there; UVs when it has a set. */
struct smdmx_mesh;
SMDMX_API bool smdmx_mesh_has_field(const struct smdmx_mesh *m, smdmx_corner_field f);

typedef struct smdmx_mesh {
	const char *name;
	uint32_t parent_joint;          /* SMDMX_NONE: child of the model */
	smdmx_transform transform;      /* relative to the parent; identity for SMD */
	size_t corner_count;            /* face corners ("vertices" in DMX) */

	smdmx_vec3 *positions;          /* deduplicated; weights are per position */
	size_t position_count;
	uint32_t *position_indices;     /* corner_count entries */

	/* Weight links of position p: weights[weight_offsets[p]] .. weights[weight_offsets[p+1]-1].
	 * weight_offsets has position_count + 1 entries; NULL when the mesh has no weights. */
	uint32_t *weight_offsets;
	smdmx_weight *weights;
	size_t weight_count;

	smdmx_vec3 *normals;            /* deduplicated; NULL when absent */
	size_t normal_count;
	uint32_t *normal_indices;       /* corner_count entries, or NULL */

	smdmx_uv_set *uv_sets;          /* any number; set 0 is the main UV set */
	size_t uv_set_count;

	smdmx_scalar_field balance;     /* stereo balance 0..1, optional */
	smdmx_scalar_field wrinkle;     /* wrinkle, optional */

	smdmx_face_set *face_sets;
	size_t face_set_count;
} smdmx_mesh;

typedef struct smdmx_material {
	const char *name;               /* as written in the source (SMD: line text; DMX: mtlName) */
} smdmx_material;

typedef struct smdmx_attachment {
	const char *name;
	uint32_t parent_joint;          /* SMDMX_NONE: child of the model */
	smdmx_transform transform;
	bool rigid;
	bool world_aligned;
} smdmx_attachment;

typedef struct smdmx_flex_controller {
	const char *name;
	smdmx_string_list raw_controls; /* names of the shapes this control drives */
	bool stereo;
	bool eyelid;
	float min;
	float max;
	smdmx_float_list wrinkle_scales; /* one per raw control, or empty */
} smdmx_flex_controller;

typedef struct smdmx_domination_rule {
	smdmx_string_list dominators;
	smdmx_string_list suppressed;
} smdmx_domination_rule;

/* How a flex rule sets its flex (DMX DmeFlexRules; QC flexrule and localvar). */
typedef enum smdmx_flex_rule_kind {
	SMDMX_FLEX_RULE_EXPRESSION = 0, /* flex = expression over controllers and earlier flexes */
	SMDMX_FLEX_RULE_PASS_THROUGH,   /* flex = the controller of the same name */
	SMDMX_FLEX_RULE_LOCAL_VAR       /* a name for expressions to use, no shape of its own */
} smdmx_flex_rule_kind;

typedef struct smdmx_flex_rule {
	const char *name;               /* the flex (a shape's name) or local variable */
	smdmx_flex_rule_kind kind;
	const char *expression;         /* kept as written; NULL unless kind is EXPRESSION */
} smdmx_flex_rule;

/* One joint's animation: sparse keys, times in ticks, strictly increasing. */
typedef struct smdmx_channel {
	uint32_t joint;
	int32_t *position_times;
	smdmx_vec3 *positions;
	size_t position_count;
	int32_t *orientation_times;
	smdmx_quat *orientations;
	size_t orientation_count;
} smdmx_channel;

typedef struct smdmx_clip {
	const char *name;
	double frame_rate;              /* frames per second, > 0 */
	int32_t start;                  /* ticks */
	int32_t duration;               /* ticks */
	smdmx_channel *channels;
	size_t channel_count;
} smdmx_clip;

/* The frames a clip spans, its first to its last, as the SMD writer samples it at its
 * frame_rate (what `smdmx info` says); 0 for NULL. */
SMDMX_API long long smdmx_clip_frames(const smdmx_clip *clip);

typedef enum smdmx_source_format {
	SMDMX_SOURCE_NONE = 0,
	SMDMX_SOURCE_SMD,
	SMDMX_SOURCE_VTA,
	SMDMX_SOURCE_DMX
} smdmx_source_format;

typedef enum smdmx_smd_kind {
	SMDMX_SMD_REFERENCE = 0,        /* nodes, skeleton, triangles */
	SMDMX_SMD_ANIMATION,            /* nodes, skeleton with frames */
	SMDMX_SMD_VERTEX_ANIMATION      /* VTA: nodes, skeleton, vertexanimation */
} smdmx_smd_kind;

/* What is needed to write a file back faithfully. */
typedef struct smdmx_source_info {
	smdmx_source_format format;
	smdmx_smd_kind smd_kind;
	int version;                    /* SMD version, DMX model format version */
	const char *encoding;           /* DMX encoding name, or NULL */
	int encoding_version;
	bool smd_weight_links;          /* an SMD vertex carried a link count field */
	bool smd_crlf;                  /* the SMD used CRLF line ends */
	/* DMX meshes by their vertex data's flipVCoordinates: false turns V (v becomes 1 - v, as
	 * SMD has it), true and a missing flag keep V as stored (Source 1's convention) */
	size_t dmx_v_flag_false, dmx_v_flag_missing;
	/* SMD read with record_lines: the line of each joint's node, of each material's first
	 * triangle, and of each triangle (its material line; triangle k is corners 3k to 3k + 2
	 * of mesh 0). NULL otherwise. */
	const uint32_t *joint_lines, *material_lines, *triangle_lines;
	/* DMX: the element each joint and each mesh (its DmeDag) came from. NULL otherwise. */
	const uint32_t *joint_elements, *mesh_elements;
	/* A VTA's base vertices are the corners of its one mesh, in the order of their numbers
	 * in the file: vta_ids holds those numbers (NULL when they are 0 to n-1) and vta_lines
	 * the line of each in the base frame (NULL for other sources). */
	const uint32_t *vta_ids;
	const uint32_t *vta_lines;
} smdmx_source_info;

typedef struct smdmx_scene {
	const char *name;               /* usually the file's stem */
	char up_axis;                   /* 'X', 'Y' or 'Z' ('Z' for SMD) */

	smdmx_joint *joints;
	size_t joint_count;
	smdmx_mesh *meshes;
	size_t mesh_count;
	smdmx_material *materials;
	size_t material_count;
	smdmx_attachment *attachments;
	size_t attachment_count;

	smdmx_flex_shape *flex_shapes;
	size_t flex_shape_count;
	smdmx_flex_controller *flex_controllers;
	size_t flex_controller_count;
	smdmx_domination_rule *domination_rules;
	size_t domination_rule_count;
	smdmx_flex_rule *flex_rules;
	size_t flex_rule_count;

	smdmx_clip *clips;
	size_t clip_count;

	smdmx_source_info source;

	struct smdmx_scene_owner *owner; /* private: the memory behind all of the above */
} smdmx_scene;

/* A scene built by hand (doc/library.md, "Building a scene"). smdmx_scene_new makes an empty
 * one (no joints, meshes or clips; Z up) whose memory smdmx_scene_alloc and
 * smdmx_scene_strdup add to (zeroed; NULL when out of memory, with error set), all released
 * by smdmx_scene_free. A zeroed smdmx_scene the caller declares and fills in is accepted too,
 * by every function: those that add to a scene (smdmx_scene_add_clips, _attach_vta, the QC
 * rig functions) give it memory of its own, and smdmx_scene_alloc does, which
 * smdmx_scene_free then releases (the struct itself stays the caller's). allocator may be
 * NULL (malloc). */
SMDMX_API smdmx_scene *smdmx_scene_new(const smdmx_allocator *allocator, smdmx_error *error);
SMDMX_API void *smdmx_scene_alloc(smdmx_scene *scene, size_t size, smdmx_error *error);
SMDMX_API const char *smdmx_scene_strdup(smdmx_scene *scene, const char *text, smdmx_error *error);

/* Releases the scene and everything it points to. NULL is allowed. */
SMDMX_API void smdmx_scene_free(smdmx_scene *scene);

/* Checks every index against its array, quaternions unit (|q| within 1e-3 of 1), parents
 * acyclic, counts consistent, polygons of at least 3 corners, key times increasing and
 * values finite (positions, normals, UVs, weights, balance, wrinkle, deltas, keys). Returns
 * true when valid; otherwise fills *error (code SMDMX_ERROR_INVALID_SCENE) with the first
 * problem. error may be NULL. */
SMDMX_API bool smdmx_scene_validate(const smdmx_scene *scene, smdmx_error *error);

/* Tolerances for smdmx_scene_compare. Zero-initialised: exact at float32 (values equal
 * after rounding to float32, rotations equal as matrices within 1e-6). */
typedef struct smdmx_compare_options {
	double value_tolerance;         /* absolute, for positions, normals, UVs, weights; default 0 */
	double rotation_tolerance;      /* max abs difference of rotation matrix entries; default 1e-6 */
	bool ignore_bind_when_animated; /* compare only the clips' poses for animation files: no
	                                   bind pose, and between two animations (no mesh) no
	                                   attachment, which studiomdl reads from no animation */
	/* Weights as DMX holds them: links of weight 0 are left out, weights that sum below 1 are
	 * scaled to 1 (as studiomdl scales them) and, when this is not 0, only the largest
	 * max_links are kept, renormalised (decision 6). 0: every link, exactly. */
	size_t max_links;
	bool dmx_weights;
	/* Also compare flex controllers, domination rules and flex rules (SMD holds none); an
	 * empty wrinkle scale list equals one of zeros. */
	bool flex_controls;
	/* smdmx_scene_diff: meshes paired by name and compared polygon by polygon in their order,
	 * as smdmx_scene_compare does. By default the geometry is compared by meaning: polygons
	 * as a set over all meshes, a polygon equal to its fan of triangles, corners up to
	 * rotation, materials by name, shapes corner by corner. */
	bool strict;
	/* All the comparison's memory (zero: malloc's). Its memory_limit bounds the whole
	 * comparison; past it, or past fail_after, the comparison fails with
	 * SMDMX_ERROR_OUT_OF_MEMORY and frees what it took. */
	smdmx_allocator allocator;
} smdmx_compare_options;

/* Compares two scenes by meaning, not by layout: joints by name, parents and bind pose;
 * meshes polygon by polygon and corner by corner (position, normal, UVs, weights,
 * material); flex shapes as resulting positions; attachments; clips frame by frame. A scene
 * without joints equals the same scene on one root joint that weighs every vertex fully and
 * that nothing moves (no clip, no attachment on it), as an SMD holds a model without bones.
 * The up axis must be the same. Returns true when equal; otherwise writes a description of
 * the first difference to diff (may be NULL). False also when the comparison could not be
 * made: memory ran out (SMDMX_ERROR_OUT_OF_MEMORY, diff "out of memory"), a clip spans more
 * than 1,000,000 frames (SMDMX_ERROR_LIMIT, diff says it) or a or b is NULL
 * (SMDMX_ERROR_USAGE); error (may be NULL) says which, and stays clear after a comparison
 * made. */
SMDMX_API bool smdmx_scene_compare(const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options,
                                   char *diff, size_t diff_size, smdmx_error *error);

/* Receives one difference found by smdmx_scene_diff, as a sentence. */
typedef void (*smdmx_diff_fn)(void *user, const char *message);

/* Lists the differences of two scenes by meaning, each once through fn: joints, meshes,
 * flex shapes, attachments and clips matched by name (meshes left over pair in order),
 * geometry polygon by polygon and corner by corner, rotations as matrices, animation frame
 * by frame (one report per joint, with the first frame and the number that differ), and
 * flex controls with options->flex_controls. Geometry is compared as a set of polygons over
 * all meshes: each polygon of a that differs is said once, and each of b left over; with
 * options->strict, meshes pair by name and are compared polygon by polygon in order, and a
 * mesh reports its first differing polygon only. Scenes of two up axes are compared turned
 * to Z up (each that is not, by the quarter turn smdmx_scene_transform makes), unless
 * options->strict, which calls the axes a difference; a scene without joints is taken as smdmx_scene_compare takes it. The cost stays near
 * linear in the scenes however many differences there are.
 * Returns the number of differences: 0 when the scenes are equal. SIZE_MAX when the diff
 * could not be made: memory ran out (SMDMX_ERROR_OUT_OF_MEMORY), a clip spans more than
 * 1,000,000 frames or 2^26 bone poses (SMDMX_ERROR_LIMIT), or a or b is NULL
 * (SMDMX_ERROR_USAGE); error (may be NULL) says which. The differences said before the
 * failure stay said, none after. */
SMDMX_API size_t smdmx_scene_diff(const smdmx_scene *a, const smdmx_scene *b, const smdmx_compare_options *options,
                                  smdmx_diff_fn fn, void *user, smdmx_error *error);

/* What smdmx_scene_diff pairs by name in their order (joints, meshes, flex shapes, flex
 * controllers and rules, attachments, clips), where s gives one name to several: a sentence each through fn (may be
 * NULL), "3 bones are named 'x': they pair with the other file's of that name in their order";
 * with other, only the names other does not repeat as often (said of other already). Its
 * memory through allocator (NULL: malloc). Returns how many, SIZE_MAX when memory ran out
 * (error, which may be NULL, says so). */
SMDMX_API size_t smdmx_scene_repeated_names(const smdmx_scene *s, const smdmx_scene *other,
                                            const smdmx_allocator *allocator, smdmx_diff_fn fn, void *user,
                                            smdmx_error *error);

/* The options `smdmx diff` compares with. With a and b NULL: its defaults (everything zero
 * but flex_controls, and rotations within 2e-6, as an SMD's six decimals of an angle allow).
 * With two scenes: also the weights as the weaker side holds them (dmx_weights when either is
 * a DMX, max_links 3, or 4 where both DMX are of model format 22), and for two animations
 * (clips, no mesh) ignore_bind_when_animated, as studiomdl reads no bind pose from an
 * animation; the rest left as it is. */
SMDMX_API void smdmx_diff_options(const smdmx_scene *a, const smdmx_scene *b, smdmx_compare_options *options);

/* Gives a reference scene the flex shapes of a VTA scene (decision 10). The VTA's base
 * vertices meet the reference's triangle corners by position, as studiomdl matches them: by
 * number when the VTA numbers every corner (in the order the reference's triangles are
 * written) with a vertex at its position, else each corner takes a vertex at its exact
 * position (its normal first, then the nearest normal, then the lowest number), else the
 * nearest within 0.3873 units. Each shape's deltas land on the corners their vertex reaches;
 * positions and normals whose corners' vertices move differently are split (the mesh gains
 * positions or normals, with their weights). Warnings (cleared first) count what did not
 * meet: vertices at no corner, corners no vertex reaches, corners that took the nearest,
 * fanned corners whose vertices disagree. Fails with SMDMX_ERROR_LIMIT past 64 comparisons
 * per corner and vertex (and 2^22). */
SMDMX_API bool smdmx_scene_attach_vta(smdmx_scene *reference, const smdmx_scene *vta, smdmx_error *error,
                                      smdmx_warnings *warnings);

/* Scales every length of the scene by scale (positions, bind poses, mesh and attachment
 * transforms, animation, flex deltas) and, when up_axis is 'X' or 'Y', turns it to Source's
 * Z up: +90 degrees about X for Y up, about Y for X up, applied at the roots (a mesh of the
 * model's own space turns whole, its data and its transform, so that the quarter turn rounds
 * none of its numbers). up_axis 0 or 'Z' leaves the axes. */
SMDMX_API bool smdmx_scene_transform(smdmx_scene *scene, double scale, char up_axis, smdmx_error *error);

/* Moves the scene as a QC's $origin X Y Z ANGLE places a model (doc/format-notes.md, "A QC's
 * $origin"): every point p goes to R (p - origin), R the turn of z_degrees about Z
 * (counter-clockwise seen from above), applied at the roots as smdmx_scene_transform turns
 * them. Refuses numbers that are not finite. */
SMDMX_API bool smdmx_scene_move(smdmx_scene *scene, const double origin[3], double z_degrees, smdmx_error *error);

/* Appends src's clips to dst, joints matched by name (a bone dst lacks is an error). */
SMDMX_API bool smdmx_scene_add_clips(smdmx_scene *dst, const smdmx_scene *src, smdmx_error *error);

/* src joined to dst as studiomdl joins a QC's body parts into one model: one skeleton, src's
 * joints matched to dst's by name (a joint dst lacks is added, its parent mapped by name; one
 * dst has keeps dst's parent and bind pose, and when src's differ it is counted in
 * *bind_differs, which may be NULL); materials matched by name; src's meshes, flex shapes and
 * attachments added after dst's, and its flex controllers and rules of names dst lacks.
 * Clips are not taken (smdmx_scene_add_clips). The places of dst's joints, materials and
 * meshes in their files (source) are dropped. False when memory ran out (dst may then hold
 * part of src: free it). */
SMDMX_API bool smdmx_scene_add_part(smdmx_scene *dst, const smdmx_scene *src, size_t *bind_differs, smdmx_error *error);

#ifdef __cplusplus
}
#endif

#endif
