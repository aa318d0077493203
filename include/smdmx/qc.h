/* smdmx: QC scripts, studiomdl's model descriptions (doc/formats.md G).
 *
 * smdmx_qc_read_file reads a QC and everything it includes as studiomdl reads it: its tokens
 * and comments, $include (against the main QC's folder), $pushd, $popd and $cd, variables
 * ($definevariable, $NAME$) and macros ($definemacro). It lists the files the QC names
 * (models, animations, VTAs), the flex rig of each $model block (flex, flexpair,
 * defaultflex, flexcontroller, %rules, localvar), the $attachment lines, $upaxis and $scale.
 *
 * The text of every file is kept (decision 15). Edits replace byte ranges of it, and
 * smdmx_qc_write writes a file back with only those ranges changed: a QC nothing was done to
 * is written byte for byte as it was read. */
#ifndef SMDMX_QC_H
#define SMDMX_QC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/error.h"
#include "smdmx/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where something is: a file of the QC (index into smdmx_qc.files), 1-based line and column. */
typedef struct smdmx_qc_pos {
	uint32_t file;
	uint32_t line;
	uint32_t column;
} smdmx_qc_pos;

typedef struct smdmx_qc_file {
	const char *path;           /* the path it was read from */
	const char *data;           /* its bytes, as read */
	size_t size;
	smdmx_qc_pos included_at;   /* the $include that read it; file SMDMX_NONE for the main QC */
	const char *name;           /* the name that $include gives it (after variables); NULL for the
	                               main QC */
} smdmx_qc_file;

typedef enum smdmx_qc_ref_kind {
	SMDMX_QC_REF_MODEL = 0,     /* $body, $model, $bodygroup studio, $lod and $shadowlod replacemodel */
	SMDMX_QC_REF_COLLISION,     /* $collisionmodel, $collisionjoints */
	SMDMX_QC_REF_ANIMATION,     /* $sequence, $animation */
	SMDMX_QC_REF_FLEX,          /* flexfile, eyelid, vcafile: a VTA */
	SMDMX_QC_REF_OTHER          /* $proceduralbones: a file copied with the QC, never converted */
} smdmx_qc_ref_kind;

/* A file the QC names. */
typedef struct smdmx_qc_ref {
	smdmx_qc_ref_kind kind;
	const char *command;        /* "$model", "studio", "replacemodel", "flexfile", ... in lower case */
	const char *name;           /* the name as the QC gives it (after variables and macros) */
	const char *dir;            /* the folder names are taken from ($cd, $pushd), relative to the
	                               main QC's folder: "" or ending in '/' */
	const char *path;           /* the file: the main QC's folder, dir and name ('\' read as '/'),
	                               with the default extension when name has none */
	bool found;                 /* path exists */
	bool nocase;                /* found only by ignoring case (names come from Windows, G1) */
	bool default_extension;     /* name has no extension: path has one added */
	uint32_t model;             /* the $model block it belongs to (flexfile, eyelid), else SMDMX_NONE */
	uint32_t line_of;           /* for "replacemodel": the reference whose name it replaces, else SMDMX_NONE */
	const char *sequence;       /* the $sequence or $animation naming it, else NULL */
	double fps;                 /* its "fps", 0 when not given (studiomdl takes 30) */
	smdmx_qc_pos pos;           /* where its name token starts */
} smdmx_qc_ref;

typedef enum smdmx_qc_flex_kind {
	SMDMX_QC_FLEX = 0,          /* flex NAME frame N */
	SMDMX_QC_FLEXPAIR,          /* flexpair NAME SPLIT frame N: NAMER and NAMEL split across X = 0 */
	SMDMX_QC_DEFAULTFLEX        /* defaultflex frame N: the base pose */
} smdmx_qc_flex_kind;

typedef struct smdmx_qc_flex {
	smdmx_qc_flex_kind kind;
	const char *name;           /* NULL for defaultflex */
	uint32_t vta;               /* the flexfile in force (index into refs), or SMDMX_NONE */
	int32_t frame;
	double split;               /* flexpair's SPLIT, or a flex's "split" option; 0: none */
	double position;            /* "position" (default 1) */
	double decay;               /* "decay" (default 1) */
	smdmx_qc_pos pos;
} smdmx_qc_flex;

typedef struct smdmx_qc_controller {
	const char *group;          /* eyes, eyelid, brow, mouth, phoneme, ... as written */
	const char *name;
	double min, max;            /* "range MIN MAX", default 0 1 */
	smdmx_qc_pos pos;
} smdmx_qc_controller;

/* "%NAME = EXPR", or a name of a localvar line (expression NULL). */
typedef struct smdmx_qc_rule {
	const char *name;
	const char *expression;     /* the text after '=', continuation lines joined by a space */
	smdmx_qc_pos pos;
} smdmx_qc_rule;

typedef struct smdmx_qc_model {
	const char *name;
	uint32_t ref;               /* its model file (index into refs); SMDMX_NONE only with
	                               keep_going, when its $model line could not be read */
	smdmx_qc_flex *flexes;
	size_t flex_count;
	smdmx_qc_controller *controllers;
	size_t controller_count;
	smdmx_qc_rule *rules;       /* rules and localvars, in the order written */
	size_t rule_count;
	size_t qc_only_count;       /* eyeball, eyelid, mouth, spherenormals, dmxeyelid lines: they
	                               stay in the QC */
	const char *const *flexdescs; /* the flexes the QC has declared up to the end of this block
	                               (flex, flexpair's NAMER and NAMEL, localvar, eyelid, mouth) */
	size_t flexdesc_count;
	bool noautodmxrules;
	bool has_block;
	bool incomplete;            /* keep_going: its $model line could not be read, or an $include
	                               in its block is missing: its flex lines may be partial, so it
	                               is not to be converted with them */
	bool lost_lines;            /* keep_going: a line of its block could not be read (it stays in
	                               the QC as written; its rig is not to leave the QC) */
	double scale;               /* the $scale in force at the $model (1 when none) */
	char up_axis;               /* the $upaxis in force at the $model, 0 when none */
	smdmx_qc_pos pos;           /* the $model command */
} smdmx_qc_model;

/* A body part of the model studiomdl builds, in the order the QC gives them: a $body or a
 * $model (one choice), or a $bodygroup (its choices, a blank one SMDMX_NONE; the model shows
 * the first unless told). */
typedef struct smdmx_qc_part {
	const char *name;
	const char *command;        /* "$body", "$model" or "$bodygroup" */
	const uint32_t *choices;    /* refs (SMDMX_QC_REF_MODEL) of its choices, SMDMX_NONE for blank */
	size_t choice_count;        /* 0 only with keep_going, when no line of it could be read */
	uint32_t model;             /* $model: its index in models, else SMDMX_NONE */
	double scale;               /* the $scale in force at the command (1 when none) */
	char up_axis;               /* the $upaxis in force there, 0 when none */
	smdmx_qc_pos pos;           /* the command */
} smdmx_qc_part;

typedef struct smdmx_qc_attachment {
	const char *name;
	const char *bone;
	double position[3];
	double angles[3];           /* "rotate PITCH YAW ROLL", degrees */
	bool rotate, absolute, rigid, world_align;
	smdmx_qc_pos pos;
} smdmx_qc_attachment;

/* keep_going: what a line or an $include that could not be read cost. */
typedef struct smdmx_qc_error {
	smdmx_error error;          /* its file is set for an included file */
	bool include;               /* an $include skipped (its file missing or unreadable, or past
	                               the nesting limit), else a line */
} smdmx_qc_error;

typedef struct smdmx_qc {
	smdmx_qc_file *files;       /* files[0] is the main QC */
	size_t file_count;
	smdmx_qc_ref *refs;
	size_t ref_count;
	smdmx_qc_model *models;
	size_t model_count;
	smdmx_qc_attachment *attachments;
	size_t attachment_count;
	char up_axis;               /* the last $upaxis: 'X', 'Y' or 'Z'; 0 when none */
	double scale;               /* the last $scale; 1 when none */
	const struct smdmx_qc_error *errors; /* keep_going: what could not be read, in the order read */
	size_t error_count;
	const char *const *missing_includes; /* keep_going: the $include files not there, each once */
	size_t missing_include_count;
	const char *model_name;     /* the last $modelname (the .mdl studiomdl writes), NULL when none */
	smdmx_qc_pos model_name_pos;
	smdmx_qc_part *parts;       /* the body parts, in order */
	size_t part_count;
	const char *const *include_models; /* the models $includemodel names (their sequences join
	                               this one's), as written, each once */
	size_t include_model_count;
	char separator;             /* the separator the QC's path was given with ('\\' on Windows unless
	                               only '/'; always '/' elsewhere): the paths messages quote, which
	                               files hold with '/', are shown in it */
	double origin[4];           /* the $origin in force at the first $sequence or $animation (the
	                               pose the model is shown in), else the last: X Y Z and the turn
	                               about Z in degrees; all 0 when none */
	/* GoldSrc: the folders Half-Life's studiomdl looks for a model's textures in (.bmp files
	 * the SMDs' triangles and $texturegroup name), relative to the main QC's folder ("" or
	 * ending in '/'): each $cdtexture folder in turn, else the $cd folder. None for a QC with
	 * no command only GoldSrc knows of textures ($cdtexture, $cliptotextures, $externaltextures,
	 * a $texturegroup of .bmp files). smdmx_qc_find_texture looks a texture up. */
	const char *const *texture_dirs;
	size_t texture_dir_count;
	const char *const *textures;  /* the .bmp textures $texturegroup names, each once */
	size_t texture_count;
	struct smdmx_qc_state *state; /* private: memory, tokens and edits */
} smdmx_qc;

/* How the reader gets at files; zero-initialised means the file system. read returns 0 and
 * the bytes (which the reader then owns and releases with free_data), 1 when the file does
 * not exist, 2 when it exists but cannot be read. find sets *nocase and returns the path of
 * a file that exists, comparing names exactly and, failing that, ignoring case; NULL when
 * there is none (the returned string is released with free_data). */
typedef struct smdmx_qc_files {
	int (*read)(void *user, const char *path, void **data, size_t *size);
	char *(*find)(void *user, const char *path, bool *nocase);
	void (*free_data)(void *user, void *data);
	void *user;
} smdmx_qc_files;

typedef struct smdmx_qc_read_options {
	smdmx_allocator allocator;
	smdmx_qc_files files;
	size_t max_depth;           /* scripts open at once, files and macros, the main QC included;
	                               default 8 (studiomdl's MAX_INCLUDES, G1) */
	size_t max_file_size;       /* bytes of one QC or included file; default 2^26 */
	size_t max_tokens;          /* tokens read, macro expansions included; default 2^22 */
	size_t max_read;            /* bytes read, each include and each macro call counted again;
	                               default 2^28 */
	/* An error in a line costs that line, not the QC: a command that does not parse (a rule,
	 * a number, an unknown option) or an $include whose file is missing or unreadable is put
	 * in smdmx_qc.errors, the rest of its line (and a block that opens on it) is skipped, and
	 * reading goes on. Running out of memory and the limits above still fail the read. */
	bool keep_going;
} smdmx_qc_read_options;

#define SMDMX_QC_DEFAULT_MAX_DEPTH ((size_t)8)
#define SMDMX_QC_DEFAULT_MAX_FILE_SIZE ((size_t)1 << 26)
#define SMDMX_QC_DEFAULT_MAX_TOKENS ((size_t)1 << 22)
#define SMDMX_QC_DEFAULT_MAX_READ ((size_t)1 << 28)
/* studiomdl's MAXTOKEN: a token (variables and macro parameters expanded) is at most this
 * many bytes */
#define SMDMX_QC_MAX_TOKEN_BYTES ((size_t)1023)
/* bytes of all $definevariable names together */
#define SMDMX_QC_MAX_VARIABLE_BYTES ((size_t)1 << 20)

/* Reads a QC and what it includes. On failure returns NULL with *error at the place in the
 * file it names (error->message starts with that file's path and ": "). Notes that are not
 * failures (a name found only by ignoring case, a $popd without $pushd) go to warnings. */
/* Where Half-Life's studiomdl finds the texture `name` (Grab_Skin): the first of the QC's
 * texture_dirs that holds it, found as the QC's files are (the name as written, else ignoring
 * case: *nocase then set); a path in the QC's memory (its allocator's), to free with
 * smdmx_qc_path_free, or NULL when none holds it (or memory ran out). */
SMDMX_API char *smdmx_qc_find_texture(const smdmx_qc *qc, const char *name, bool *nocase);
SMDMX_API void smdmx_qc_path_free(const smdmx_qc *qc, char *path);

SMDMX_API smdmx_qc *smdmx_qc_read_file(const char *path, const smdmx_qc_read_options *options, smdmx_error *error,
                                       smdmx_warnings *warnings);

SMDMX_API void smdmx_qc_free(smdmx_qc *qc);

/* Index of the $model named name (case-insensitive), or of the first when name is NULL;
 * SMDMX_NONE when there is none. */
SMDMX_API uint32_t smdmx_qc_find_model(const smdmx_qc *qc, const char *name);

/* ---- edits ------------------------------------------------------------------------------ */

/* Gives reference ref a new name. The text written is the name's token with its file name
 * changed: quotes, variables ($NAME$) and macro parameters around it are kept, so a name
 * written once in a macro changes in every expansion (and must change the same way in each,
 * else SMDMX_ERROR_USAGE). A name whose changing end a macro argument or a variable's value
 * makes is changed where that value is written (the call's argument, the $definevariable),
 * when every use of the value ends a file's name; else SMDMX_ERROR_USAGE. */
SMDMX_API bool smdmx_qc_rename(smdmx_qc *qc, uint32_t ref, const char *name, smdmx_error *error);
/* Whether smdmx_qc_rename could give reference ref that name (nothing is changed): false with
 * the reason in *error when its name is made where no new name can be written (a value also
 * used for no file's name). */
SMDMX_API bool smdmx_qc_can_rename(smdmx_qc *qc, uint32_t ref, const char *name, smdmx_error *error);
/* Whether the edits made so far change the text that names reference ref (its name's token,
 * or the macro argument or variable its name ends with): a reference not renamed itself whose
 * text another's rename changed would be written naming another file. */
SMDMX_API bool smdmx_qc_ref_changed(const smdmx_qc *qc, uint32_t ref);
/* Drops every edit made so far: the QC writes as it was read. */
SMDMX_API void smdmx_qc_clear_edits(smdmx_qc *qc);

/* Which lines of a $model block smdmx_qc_remove_lines removes. */
enum {
	SMDMX_QC_LINES_FLEX = 1,        /* flexfile, flex, flexpair, defaultflex */
	SMDMX_QC_LINES_RIG = 2,         /* flexcontroller, %rules, localvar */
	SMDMX_QC_LINES_NOAUTODMXRULES = 4
};

/* Removes lines of a $model block (a line alone on its line goes with its line end and any
 * comment after it; else only its tokens). */
SMDMX_API bool smdmx_qc_remove_lines(smdmx_qc *qc, uint32_t model, unsigned which, smdmx_error *error);

/* Adds text (whole lines, each ending in a line end) at the end of a $model block, made
 * when the model has none. Line ends in text are written as the file's own (CRLF or LF). */
SMDMX_API bool smdmx_qc_append_to_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error);

/* Adds text (whole lines) at the start of a $model block, after its '{' (on the next line
 * when nothing but blanks or a comment follows it), so that what the block's own lines use
 * comes first: flex lines before the rules that read them. A model without a block gets one,
 * as smdmx_qc_append_to_model makes it. */
SMDMX_API bool smdmx_qc_prepend_to_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error);

/* Adds text (whole lines) after the $model command and its block. */
SMDMX_API bool smdmx_qc_insert_after_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error);

/* Adds text (whole lines) after the command that names reference ref: after a $model's
 * block, a $bodygroup's block (for its studio lines), else after the command's line ($body,
 * $collisionmodel, ...). */
SMDMX_API bool smdmx_qc_insert_after_ref(smdmx_qc *qc, uint32_t ref, const char *text, smdmx_error *error);

/* Makes an $include name another file (the name written, as with smdmx_qc_rename). */
SMDMX_API bool smdmx_qc_rename_include(smdmx_qc *qc, uint32_t file, const char *name, smdmx_error *error);

/* True when file has edits. */
SMDMX_API bool smdmx_qc_file_changed(const smdmx_qc *qc, uint32_t file);

/* Writes file (index into files) with the edits made to it. */
SMDMX_API bool smdmx_qc_write(const smdmx_qc *qc, uint32_t file, smdmx_write_fn write, void *user, smdmx_error *error);

#ifdef __cplusplus
}
#endif

#endif
