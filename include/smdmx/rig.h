/* smdmx: the flex rig between a QC's $model block and a scene, both ways: the rig of the
 * QC's flex lines, controllers and rules given to the scene read from the $model's files, and
 * the QC lines that carry a scene's rig (what SMD cannot hold). */
#ifndef SMDMX_RIG_H
#define SMDMX_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/dm.h"
#include "smdmx/model.h"
#include "smdmx/error.h"
#include "smdmx/qc.h"
#include "smdmx/scene.h"
#include "smdmx/smd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The VTA a $model's flex lines read (index into refs), SMDMX_NONE when it has none; an error
 * when they read two. */
SMDMX_API uint32_t smdmx_qc_model_vta(const smdmx_qc *qc, uint32_t model, smdmx_error *error);

typedef struct smdmx_qc_rig_options {
	/* The rig stays in the QC (its controllers and rules, with noautodmxrules): the scene
	 * takes only the shapes, one control per shape marking the stereo ones. */
	bool rig_in_qc;
} smdmx_qc_rig_options;

/* Gives a scene (the $model's reference with its VTA attached: every frame a shape, frame
 * numbers kept) the rig of $model model: the base takes the defaultflex frame; a shape per
 * flex and flexpair line, named as the line names it; a flexpair is a stereo shape with the
 * mesh's balance the step of its split (or its two halves, NAMER and NAMEL, where one balance
 * cannot hold it); then, unless rig_in_qc, the controllers and rules: a combination operator
 * when they are exactly what smdmx_qc_from_scene writes for one, else flex rules. What DMX
 * cannot hold is counted in warnings (keys at other positions, decay, controller groups,
 * eyelid lines, frames no flex names). */
SMDMX_API bool smdmx_qc_apply_rig(const smdmx_qc *qc, uint32_t model, smdmx_scene *scene, const smdmx_qc_rig_options *options,
                                  smdmx_error *error, smdmx_warnings *warnings);

/* Gives a scene read from the DMX of $model model the rig studiomdl compiles when the $model
 * says noautodmxrules and has controllers or rules of its own (nothing otherwise: the DMX's
 * rig stands): the DMX's delta states, its controls only marking the stereo ones; a stereo
 * shape no QC controller names cut into its halves NAMER and NAMEL by the mesh's balance (as
 * studiomdl makes its flexes, which the rules name), as a flexpair would be beside the same
 * lines; then the QC's controllers and rules, as smdmx_qc_apply_rig gives them to an SMD's
 * shapes. So a QC and the QC smdmx qc writes with its DMX (--rig qc) build one model. */
SMDMX_API bool smdmx_qc_apply_dmx_rig(const smdmx_qc *qc, uint32_t model, smdmx_scene *scene, smdmx_error *error);

/* Checks the rules of a $model whose file is a DMX (the reader checks the others): every
 * controller and %flex they read must be the QC's or among those given (what studiomdl makes
 * of the DMX: its controllers, its delta states' flexes). The first unknown name is an error
 * at its rule. */
SMDMX_API bool smdmx_qc_check_rules(const smdmx_qc *qc, uint32_t model, const char *const *flexes, size_t flex_count,
                                    const char *const *controllers, size_t controller_count, smdmx_error *error);

/* Only the defaultflex step of smdmx_qc_apply_rig: the base takes the defaultflex frame and
 * every frame moves from it (the default frame then moves nothing). */
SMDMX_API bool smdmx_qc_apply_defaultflex(const smdmx_qc *qc, uint32_t model, smdmx_scene *scene, smdmx_error *error);

/* Adds the QC's $attachment lines to the scene as attachments on their bones (those whose
 * bone the scene lacks are counted in a warning). */
SMDMX_API bool smdmx_qc_apply_attachments(const smdmx_qc *qc, smdmx_scene *scene, smdmx_error *error, smdmx_warnings *warnings);

/* The QC lines that carry what the scene has and SMD cannot: *model_lines for a $model block
 * (flexfile vta_name, flex and flexpair lines numbered as smdmx writes the scene's VTA,
 * flexcontroller lines, %rules, localvar), each indented by a tab; *attachment_lines the
 * $attachment lines. Stereo shapes whose balance no flexpair split gives are cut into their
 * two halves in the scene first (so write the VTA after). Free the texts with
 * smdmx_qc_text_free. attachment_lines may be NULL. */
SMDMX_API bool smdmx_qc_from_scene(smdmx_scene *scene, const char *vta_name, char **model_lines, char **attachment_lines,
                                   smdmx_error *error, smdmx_warnings *warnings);
/* The $attachment lines alone (what smdmx_qc_from_scene gives as attachment_lines), for a model
 * named by $body or $bodygroup, whose rig a QC has no block for. Warnings are cleared first. */
SMDMX_API bool smdmx_qc_attachment_lines(const smdmx_scene *scene, char **lines, smdmx_error *error,
                                         smdmx_warnings *warnings);
SMDMX_API void smdmx_qc_text_free(char *text);

/* A $sequence line of smdmx_qc_text: its name, its SMD as the QC names it, its fps. */
typedef struct smdmx_qc_sequence {
	const char *name;
	const char *file;
	double fps;
} smdmx_qc_sequence;

/* The QC dmx2smd --qc writes beside the SMDs of a scene: "$upaxis" when the scene is not Z
 * up; unless model_file is NULL, a $model named model_name reading model_file (as the QC
 * names it), with model_lines (smdmx_qc_from_scene's) as its block when there are any; then
 * attachment_lines (may be NULL) and a $sequence line per sequence. NULL when out of memory;
 * free with smdmx_qc_text_free. */
SMDMX_API char *smdmx_qc_text(const smdmx_scene *scene, const char *model_name, const char *model_file, const char *model_lines,
                              const char *attachment_lines, const smdmx_qc_sequence *sequences, size_t sequence_count);

/* Checks a QC as studiomdl would take it, as `smdmx check X.qc` does: each file it names that
 * is not there (an error; a warning for a file only copied with the QC, $proceduralbones) at
 * the name, and the rules of a $model whose file is a DMX against what studiomdl makes of it
 * (smdmx_qc_check_rules with the DMX's flexes, their L and R halves, and its controls). fn
 * gets each finding (smdmx_finding, in model.h). Returns their number. */
SMDMX_API size_t smdmx_qc_check(const smdmx_qc *qc, const smdmx_dmx_read_options *dmx, smdmx_finding_fn fn, void *user);

/* ---- a $model as a scene ------------------------------------------------------------------ */

/* The file a QC's scene is read from (index into refs): $model model's, or with SMDMX_NONE the
 * animation of the first $sequence or $animation; SMDMX_NONE when there is none. */
SMDMX_API uint32_t smdmx_qc_scene_ref(const smdmx_qc *qc, uint32_t model);

typedef struct smdmx_qc_scene_options {
	smdmx_smd_read_options smd;    /* how the SMD and VTA files are read (an animation takes its
	                                  $sequence's name and fps) */
	smdmx_dmx_read_options dmx;    /* how a DMX the QC names is read */
	bool rig_in_qc;                /* as smdmx_qc_rig_options */
	/* The QC stays beside the scene (a project converted file by file): its $scale, $upaxis
	 * and $attachment lines are left to it, and the rig is applied only where the $model has
	 * a flexfile. false: the model on its own, as studiomdl builds it. */
	bool qc_beside;
	/* Told of each file the scene is read from, once read: its path, its warnings (those of
	 * reading it, and of a VTA's meeting its reference), and its error when it failed (the
	 * call then fails with that error, file set to the path). The list is the library's,
	 * given back once the call returns. NULL: not told. */
	void (*file_read)(void *user, const char *path, const smdmx_warnings *warnings, const smdmx_error *error);
	void *user;
	/* For comparing two QCs' models as smdmx diff compares files: the files' numbers as they
	 * are, no $scale applied and no $upaxis turn, the scene marked with the QC's $upaxis
	 * instead (smdmx_scene_diff then turns it only against a model of another axis); the
	 * rig and attachments as without it. Two models the same QC lines scale and turn alike
	 * compare equal where their files do, with no rounding of the turn between them. */
	bool as_files;
	/* The model where the engine shows it: moved and turned by the QC's $origin
	 * (smdmx_scene_move) after its $scale, $upaxis and attachments; not with as_files or
	 * qc_beside, whose QC moves it. */
	bool placed;
	/* What is there of a partial project (a picture of it): a body part whose file is not
	 * there is left out (smdmx_qc_body_scene), and a first animation not there gives way to
	 * the next there (a QC without a body); each file not there is told to file_read with its
	 * error, and the call goes on. Without it, the first such file is the call's error. */
	bool what_is_there;
} smdmx_qc_scene_options;

/* The scene of $model model of a QC, as studiomdl builds it: its file (SMD or DMX), its
 * flexfile's shapes attached, the rig of its flex lines, controllers and rules
 * (smdmx_qc_apply_rig; for a DMX smdmx_qc_apply_dmx_rig), then its $scale and $upaxis and the QC's attachments. With model
 * SMDMX_NONE: the animation of the first $sequence, named and timed as it says, scaled and
 * turned as the QC says, with the QC's attachments. A file the QC names that is not there is
 * an error where the QC names it. warnings (cleared first) holds what the QC's steps say; each
 * file's own go to options->file_read, or into warnings (their file set) without it. */
SMDMX_API smdmx_scene *smdmx_qc_model_scene(const smdmx_qc *qc, uint32_t model, const smdmx_qc_scene_options *options,
                                            smdmx_error *error, smdmx_warnings *warnings);

/* The model studiomdl builds of the whole QC: each body part in turn (qc->parts: every $body,
 * every $model with its flexfile and rig, and of each $bodygroup the choice choices[k] names
 * for part k, the first when choices is NULL; a blank choice adds nothing, and SMDMX_NONE
 * leaves the part out), each scaled and
 * turned by the $scale and $upaxis in force where it is named, joined into one skeleton by
 * bone name (smdmx_scene_add_part), then the QC's attachments. A QC with no body part that
 * has a file gives its first animation, as smdmx_qc_model_scene does. choices, when given,
 * has qc->part_count entries; a choice a part does not have is SMDMX_ERROR_USAGE. Files,
 * errors and warnings as smdmx_qc_model_scene says. */
SMDMX_API smdmx_scene *smdmx_qc_body_scene(const smdmx_qc *qc, const uint32_t *choices, const smdmx_qc_scene_options *options,
                                           smdmx_error *error, smdmx_warnings *warnings);

/* choice, "PART=CHOICE", into choices (qc->part_count entries, for smdmx_qc_body_scene):
 * PART a body part's name (case aside), CHOICE its choice's number (from 0), "blank", or its
 * file's name as the QC writes it, with or without the extension. False (SMDMX_ERROR_USAGE,
 * naming what there is) when the QC has no such part or the part no such choice. */
SMDMX_API bool smdmx_qc_choose(const smdmx_qc *qc, const char *choice, uint32_t *choices, smdmx_error *error);

#ifdef __cplusplus
}
#endif

#endif
