/* smdmx: the DMX "model" schema (DmeModel) over the datamodel: scenes into model and
 * animation datamodels and back. */
#ifndef SMDMX_MODEL_H
#define SMDMX_MODEL_H

#include "smdmx/dm.h"
#include "smdmx/error.h"
#include "smdmx/scene.h"
#include "smdmx/smd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct smdmx_model_options {
	smdmx_allocator allocator;
	int model_version;      /* written model format: 1, 15, 18 (default) or 22 */
	bool all_keys;          /* write every animation key; by default keys that interpolating
	                           their neighbours reproduces are left out (decision 11) */
	double key_tolerance;   /* 0: reproduce exactly (float32); else units and quaternion
	                           components a left-out key may be off by, for smaller files */
} smdmx_model_options;

/* Whether options (NULL: the defaults) can be used: a model format written (0, 1, 15, 18 or
 * 22) and a key tolerance that is a number, 0 or more. False with SMDMX_ERROR_USAGE in error,
 * naming the programs' option. smdmx_model_from_scene checks them first. */
SMDMX_API bool smdmx_model_options_check(const smdmx_model_options *options, smdmx_error *error);

/* A model (and animation) datamodel from a scene, in the given model format (C, D). More
 * weight links than the format allows (3; 4 in 22) keep their largest, renormalised, with
 * a warning (decision 6). */
SMDMX_API smdmx_dm *smdmx_model_from_scene(const smdmx_scene *scene, const smdmx_model_options *options,
                                           smdmx_error *error, smdmx_warnings *warnings);

/* A scene from a model or animation datamodel of format 1, 15, 18 or 22. The scene owns
 * its memory: the datamodel may be freed afterwards. */
SMDMX_API smdmx_scene *smdmx_model_to_scene(const smdmx_dm *dm, const smdmx_model_options *options, smdmx_error *error,
                                            smdmx_warnings *warnings);

/* A model file as the programs show it (smdmx info, diff, check, preview): an SMD or VTA, or
 * a DMX (told by its name, or by its header under another name) lifted into a scene, its
 * datamodel kept. */
typedef struct smdmx_model_file {
	smdmx_scene *scene;     /* NULL: a DMX that holds no model (not_model says why) */
	smdmx_dm *dm;           /* a DMX's datamodel, else NULL */
	bool is_dmx;
	char not_model[256];
} smdmx_model_file;

/* Reads path, or the size bytes at data when data is not NULL (standard input: path names
 * it, "-" for an SMD whose name smd->name gives). smd: how an SMD is read (frame rate, lines
 * kept), and the file's memory (its allocator: a DMX's and its lift's too). warnings: the
 * file's, then the lift's. false with error when the file cannot be read (out is then
 * empty); a DMX that is no model reads, with scene NULL. */
SMDMX_API bool smdmx_model_file_read(const char *path, const void *data, size_t size, const smdmx_smd_read_options *smd,
                                     smdmx_model_file *out, smdmx_error *error, smdmx_warnings *warnings);
SMDMX_API void smdmx_model_file_free(smdmx_model_file *m);

/* What a model file holds, as `smdmx info` says it: its kind ("reference smd",
 * "animation smd", "vta", "model dmx", "animation dmx", or "dmx" for one that holds no
 * model), a DMX's encoding, format and elements (those of other files counted apart), and
 * the scene's counts: every mesh's positions (vertices), corners, polygons (faces) and the
 * triangles they fan into, and per corner field the meshes that hold it. */
typedef struct smdmx_model_info {
	const char *kind;
	const char *encoding, *format;  /* a DMX's; NULL for an SMD */
	int encoding_version, format_version, smd_version;
	size_t elements, elements_of_other_files;
	size_t joints, meshes, vertices, corners, faces, triangles, materials, flex_shapes, flex_controllers,
	       attachments, clips;
	size_t meshes_with[16];         /* per smdmx_corner_field (SMDMX_CORNER_FIELD_COUNT of them) */
} smdmx_model_info;
/* f's info into *out; false (out zeroed) when f or out is NULL. The strings are f's. */
SMDMX_API bool smdmx_model_file_info(const smdmx_model_file *f, smdmx_model_info *out);

/* What a model datamodel taken through the scene leaves behind: the element types ("Type")
 * and attributes ("Type.attr") of in that out has nowhere, the names model formats give one
 * thing brought to one (format 22's vertex fields, jointTransforms and jointList, the time
 * frame's fields). fn (may be NULL) gets each, in byte order. Returns their number, SIZE_MAX
 * when memory ran out or in or out is NULL. Elements of other files (stubs) are not counted. */
SMDMX_API size_t smdmx_model_not_carried(const smdmx_dm *in, const smdmx_dm *out, void (*fn)(void *user, const char *name),
                                         void *user);

/* The engine branches a conversion may aim at (decision 4, doc/decisions.md): what their
 * tools read and hold. */
typedef struct smdmx_engine_target {
	const char *name;        /* "goldsrc", "sdk2013", "tf2", "gmod", "l4d2", "portal2", "csgo",
	                            "sfm", "source2" */
	int encoding_version;    /* of binary DMX their tools read; 0: GoldSrc, which reads SMD only */
	int model_format;        /* the DmeModel format they read; 0 for GoldSrc */
	size_t max_links;        /* weight links per vertex */
	size_t max_bones;        /* bones per model; 0: no limit */
} smdmx_engine_target;

/* Every target, in the order above (*count of them). */
SMDMX_API const smdmx_engine_target *smdmx_engine_targets(size_t *count);
/* The target of that name, or NULL. */
SMDMX_API const smdmx_engine_target *smdmx_engine_target_find(const char *name);

/* A finding of smdmx_check_model or smdmx_qc_check: an error (the target or studiomdl cannot
 * take the file as it is) or a warning, at a line (0: none) and column (0: the line's start)
 * of the file checked or of file, or at an element of the DMX checked (else SMDMX_NONE). */
typedef struct smdmx_finding {
	bool error;
	uint32_t line;
	uint32_t column;
	uint32_t element;
	const char *file;       /* the file the place is in when it is not the one checked (a QC's
	                           include, a file it names), else NULL */
	const char *message;
} smdmx_finding;
typedef void (*smdmx_finding_fn)(void *user, const smdmx_finding *finding);

/* Checks a model for an engine target (NULL: sdk2013), as `smdmx check` does: bones over the
 * target's limit and names used twice, names GoldSrc, studiomdl or QC files cannot hold,
 * weight links above its limit and weights that do not sum to 1, degenerate and duplicate
 * triangles, flex shapes GoldSrc has not, keys at one time; with the datamodel the scene was
 * read from (dm, else NULL), its encoding and model format against the target's tools and
 * each jointCount against its weights. fn gets each finding. Returns their number. */
SMDMX_API size_t smdmx_check_model(const smdmx_scene *scene, const smdmx_dm *dm, const smdmx_engine_target *target,
                                   smdmx_finding_fn fn, void *user);

#ifdef __cplusplus
}
#endif

#endif
