/* smdmx: one model converted, as smd2dmx, dmx2smd and smdmx convert convert it.
 *
 * smdmx_convert reads a model (an SMD with the animations of more SMDs and a VTA's shapes, a
 * QC's $model, or a DMX), converts it one of five ways, and writes its outputs whole or not at
 * all (smdmx/output.h): a DMX; an SMD, its VTA beside it and an SMD per clip, with the QC that
 * names them and holds what SMD cannot (dmx2smd --qc). What it says comes back as messages in
 * the order a program prints them (smdmx/project.h's smdmx_message); the messages name the
 * programs' options where one would change the result ("--clip NAME picks one"): the
 * options below of the same names. */
#ifndef SMDMX_CONVERT_H
#define SMDMX_CONVERT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/dm.h"
#include "smdmx/error.h"
#include "smdmx/gltf.h"
#include "smdmx/model.h"
#include "smdmx/output.h"
#include "smdmx/project.h"
#include "smdmx/smd.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum smdmx_convert_way {
	SMDMX_CONVERT_SMD_TO_DMX,   /* an SMD (and the animations of more, and a VTA) into a model DMX */
	SMDMX_CONVERT_QC_TO_DMX,    /* a QC's $model (or its first animation) into a model DMX */
	SMDMX_CONVERT_DMX_TO_DMX,   /* re-encoded; through the scene when the model changes */
	SMDMX_CONVERT_DMX_TO_SMD,   /* a reference (its VTA beside it) and an SMD per clip, or the
	                               clips alone; with qc, the QC that names them */
	SMDMX_CONVERT_SMD_TO_SMD,   /* an SMD or VTA written again (GoldSrc, line ends, a transform) */
	SMDMX_CONVERT_QC_SCENE,     /* a QC's $model as a scene, nothing written (result->scene) */
	SMDMX_CONVERT_TO_GLTF       /* an SMD (the animations of more SMDs, a VTA's shapes) or a
	                               DMX into glTF 2.0 (smdmx/gltf.h): GLB when the output ends
	                               .glb (standard output: gltf.binary) */
} smdmx_convert_way;

/* Options a caller was given, so that one that does not apply to this model is said (alone)
 * and one that took effect is told (result->used). The bits are those of the programs'
 * options of these names in smdmx/batch.h (SMDMX_BATCH_GIVEN_*), so that a batch passes its
 * own on. */
enum {
	SMDMX_CONVERT_GIVEN_FPS = 1u << 3,
	SMDMX_CONVERT_GIVEN_KEYS = 1u << 4,
	SMDMX_CONVERT_GIVEN_KEY_TOLERANCE = 1u << 5,
	SMDMX_CONVERT_GIVEN_TARGET = 1u << 6,
	SMDMX_CONVERT_GIVEN_MODEL_VERSION = 1u << 9,
	SMDMX_CONVERT_GIVEN_SCALE = 1u << 12,
	SMDMX_CONVERT_GIVEN_UP_AXIS = 1u << 13,
	SMDMX_CONVERT_GIVEN_ALL = SMDMX_CONVERT_GIVEN_FPS | SMDMX_CONVERT_GIVEN_KEYS | SMDMX_CONVERT_GIVEN_KEY_TOLERANCE |
	                          SMDMX_CONVERT_GIVEN_TARGET | SMDMX_CONVERT_GIVEN_MODEL_VERSION | SMDMX_CONVERT_GIVEN_SCALE |
	                          SMDMX_CONVERT_GIVEN_UP_AXIS
};

typedef struct smdmx_convert_options {
	smdmx_convert_way way;
	const char *const *inputs;  /* the model, then (SMD to DMX) the SMDs whose animations join it */
	size_t input_count;
	const void *input_data;     /* the first input's bytes when its path is "-" (standard input) */
	size_t input_size;
	const char *vta;            /* SMD to DMX: the shapes' VTA; DMX to SMD: where they are written */
	const char *output;         /* the main output; "-": standard output */
	const char *qc;             /* DMX to SMD: the QC written (QC to DMX reads the first input) */
	const char *model;          /* a QC's $model by name; NULL: its first (a picture: the whole
	                               model, or the body part of this name alone) */
	const char *const *bodygroups; /* a QC's picture: "PART=CHOICE" each (smdmx_qc_choose) */
	size_t bodygroup_count;
	bool as_files;              /* a QC's picture: its model as its files hold it, to compare
	                               with another QC's (smdmx_qc_scene_options.as_files) */
	const char *clip;           /* DMX to SMD: the one clip written */
	double scale;               /* 0 or 1: none */
	char up_axis;               /* 'Y' or 'Z'; 0: none */
	bool rig_in_qc;             /* a QC's scene: its rig stays in the QC */
	unsigned given;             /* SMDMX_CONVERT_GIVEN_* */
	bool alone;                 /* the one model converted: a given option that does not apply is said */
	bool force;                 /* files already there are replaced */
	bool warnings_fail;         /* a model whose conversion warns fails */
	bool notes;                 /* a note of what was read and the files written */
	bool defer;                 /* the outputs written, their writing to the disk started, not
	                               flushed nor put in place: result->pending */
	smdmx_smd_read_options smd_read;
	smdmx_dmx_read_options dmx_read;
	smdmx_smd_write_options smd_write;
	smdmx_model_options model_options;
	smdmx_dmx_write_options dmx_write;
	smdmx_gltf_write_options gltf;
	/* The conversion's memory, every step's (zero: malloc's, or each step's own allocator
	 * above, as given there): its hooks serve each reader, writer and the model, called from
	 * several threads at once where threads are, and its memory_limit and fail_after count
	 * over the whole conversion, not per step; running out fails it as any error does (in its
	 * messages). Given here, the steps' own allocators are left zero (a usage error
	 * otherwise). The scene of SMDMX_CONVERT_QC_SCENE is made with it, and is then the
	 * caller's, no longer counted. */
	smdmx_allocator allocator;
} smdmx_convert_options;

typedef struct smdmx_convert_result {
	bool ok;
	const smdmx_message *messages;
	size_t message_count;
	const char *const *written; /* the files put in place (not with defer) */
	size_t written_count;
	const char *const *deps;    /* more files read (a QC's includes, its models and VTAs) */
	size_t dep_count;
	unsigned used;              /* the given options that took effect */
	smdmx_outputs *pending;     /* defer: the outputs, written; the caller commits (which flushes
	                               them, and fails on a late write error) and frees it */
	smdmx_scene *scene;         /* QC_SCENE: the scene, the caller's to free */
	bool posed;                 /* QC_SCENE: the scene is shown posed, at the first frame of its
	                               first clip (an animation-only QC over the model of the QC
	                               beside it that includes it); else at rest */
	bool broken_pipe;           /* standard output's reader went away (a program ends quietly) */
	bool out_of_memory;         /* memory ran out once the outputs were in place: they are in
	                               written, ok is false */
	size_t messages_lost;       /* messages memory could not hold (out of memory; else 0) */
} smdmx_convert_result;

/* Whether o's options can be used, before any work: a way there is, a scale and a frame rate
 * that are numbers, 0 or more (0: none, the default), an up axis X, Y, Z or none, the DMX
 * writer's (smdmx_dmx_write_options_check) and the model's (smdmx_model_options_check), one
 * allocator. False with SMDMX_ERROR_USAGE in error, naming the programs' option
 * ("--encoding binary is version 1 to 5 or 9, not 7"). smdmx_convert checks them first, and
 * smdmx_batch_convert and smdmx_projects_convert the same options of theirs. */
SMDMX_API bool smdmx_convert_options_check(const smdmx_convert_options *o, smdmx_error *error);

/* NULL when nothing was done: memory ran out before any output was put in place
 * (SMDMX_ERROR_OUT_OF_MEMORY) or the call cannot start (no options, no input, no output,
 * options smdmx_convert_options_check refuses: SMDMX_ERROR_USAGE), error says which; otherwise the result, freed
 * with smdmx_convert_result_free (which leaves pending and scene to the caller). Running out
 * of memory in a step (a reader, a writer) fails the conversion as any error does: said in
 * its messages. */
SMDMX_API smdmx_convert_result *smdmx_convert(const smdmx_convert_options *o, smdmx_error *error);
SMDMX_API void smdmx_convert_result_free(smdmx_convert_result *r);

#ifdef __cplusplus
}
#endif
#endif
