/* smdmx: SMD (reference, collision, animation) and VTA reading and writing. */
#ifndef SMDMX_SMD_H
#define SMDMX_SMD_H

#include <stdbool.h>
#include <stddef.h>

#include "smdmx/error.h"
#include "smdmx/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options for reading. Zero-initialised options are valid. */
typedef struct smdmx_smd_read_options {
	smdmx_allocator allocator;
	smdmx_limits limits;
	double frame_rate;   /* frames per second of an animation; 0 means 30 */
	const char *name;    /* scene name; NULL: the file's stem */
	bool record_lines;   /* the scene's source tells the line of each joint, material and
	                        triangle (for messages that point into the file) */
	unsigned threads;    /* threads that read one file's triangles at once; 0 or 1: the calling
	                        thread alone. The result, errors and warnings are the same at any
	                        count. Used for a regular file (not a pipe, not memory) with a
	                        triangles block of 2 MiB or more, in parts of at least 1 MiB. The
	                        allocator's hooks are then called from several threads at once;
	                        memory_limit and fail_after count over all of them. */
	smdmx_progress progress; /* the bytes read, as they are */
} smdmx_smd_read_options;

/* Reads an SMD or VTA file (the kind is told by its blocks, not its extension).
 * Returns NULL on failure with *error filled (line and column of the fault). error and
 * warnings may be NULL (doc/library.md, "NULL"). */
SMDMX_API smdmx_scene *smdmx_smd_read_file(const char *path, const smdmx_smd_read_options *options,
                                 smdmx_error *error, smdmx_warnings *warnings);

/* The same from memory (size bytes at data). The scene is named options->name, or "model"
 * when that is NULL (memory has no file name). */
SMDMX_API smdmx_scene *smdmx_smd_read_memory(const void *data, size_t size,
                                   const smdmx_smd_read_options *options,
                                   smdmx_error *error, smdmx_warnings *warnings);

typedef enum smdmx_smd_write_kind {
	SMDMX_SMD_WRITE_AUTO = 0,        /* VTA for a scene read from a VTA, else reference when
	                                    there are faces, else animation */
	SMDMX_SMD_WRITE_REFERENCE,
	SMDMX_SMD_WRITE_ANIMATION,
	SMDMX_SMD_WRITE_VTA
} smdmx_smd_write_kind;

typedef struct smdmx_smd_write_options {
	smdmx_smd_write_kind kind;
	bool lf_line_ends;    /* default false: CRLF, as the format asks */
	bool goldsrc;         /* GoldSrc flavour: no weight links (each vertex on its strongest
	                         bone), ".bmp" material names, names of at most 63 characters */
	size_t clip;          /* the clip an animation is written from; default 0 */
	bool reference_clip;  /* a reference holds the model's only clip in its skeleton block when
	                         the clip's first frame is the bind pose (for a file that must hold
	                         everything: a QC names one SMD); else only a clip read from a
	                         reference SMD is written there */
	smdmx_allocator allocator;
	smdmx_limits limits;  /* max_frames bounds the frames written */
	unsigned threads;     /* threads that write a large mesh's triangles (98,304 corners or
	                         more) at once; 0 or 1: the calling thread alone. The bytes are the
	                         same at any count; the allocator's memory_limit and fail_after
	                         count over all the threads. */
} smdmx_smd_write_options;

SMDMX_API bool smdmx_smd_write(const smdmx_scene *scene, smdmx_write_fn write, void *user,
                     const smdmx_smd_write_options *options, smdmx_error *error);

/* Writes to a temporary file beside path and renames it into place, so a failure never
 * leaves a partial output file. */
SMDMX_API bool smdmx_smd_write_file(const smdmx_scene *scene, const char *path,
                          const smdmx_smd_write_options *options, smdmx_error *error);

/* One warning per kind of data an SMD (and VTA when vta_too) written with options (NULL:
 * the defaults) cannot hold, with counts, added to warnings (which it does not clear; a list
 * with no room yet takes it from the scene's allocator). With options->goldsrc: weight links
 * moved onto one bone, materials that become one texture name, extra UV sets, and flex
 * shapes (GoldSrc has none, so no VTA either). False: out of memory (a warning found no
 * room), or no scene. */
SMDMX_API bool smdmx_smd_report_losses(const smdmx_scene *scene, const smdmx_smd_write_options *options, bool vta_too,
                                       smdmx_error *error, smdmx_warnings *warnings);

/* What is written beside an SMD that carries what it cannot hold: a QC's rig lines (stereo
 * balance as flexpairs, attachments, controllers, rules), its $attachment lines alone, its
 * $upaxis, its $sequence fps, a VTA (shapes), an SMD per clip. */
typedef struct smdmx_smd_carried {
	bool rig, attachments, up_axis, frame_rate, shapes, clips; /* rig: the attachments too */
} smdmx_smd_carried;

/* Takes out of losses (smdmx_smd_report_losses) every kind c says is carried beside the SMD:
 * one rule for dmx2smd --qc and smdmx qc. */
SMDMX_API void smdmx_smd_losses_carried(smdmx_warnings *losses, const smdmx_smd_carried *c);

#ifdef __cplusplus
}
#endif

#endif
