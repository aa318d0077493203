/* smdmx: QC projects converted whole, as `smdmx qc` converts them.
 *
 * A QC project is a QC file, the files it includes, and the SMD, VTA and DMX files they name.
 * smdmx_projects_convert takes one or many (a library) and writes them into one output folder
 * at their places below the folder that holds them all: every file a QC names converted to the
 * format asked for (SMD and VTA to DMX, or DMX to SMD and VTA), or copied when it is in that
 * format already or is no model, and every QC file written again, changed only where the
 * conversion needs it (file names; flex lines that move into a DMX or out of one; the rig's
 * place; the $attachment lines a DMX held). A file several QCs name is converted once, an
 * include they share written once. The files are written whole or not at all
 * (smdmx/output.h); the folder keeps a record of what was written there, so that a later run
 * replaces its own outputs and no one else's.
 *
 * What the run says about each file comes back as messages, in the order a program prints
 * them (smdmx_message); the library prints nothing. A program's own policy (warnings hidden,
 * at most N shown, warnings as errors in what it prints) is applied as it prints: the run
 * applies only warnings_fail, which makes a file with a warning fail. */
#ifndef SMDMX_PROJECT_H
#define SMDMX_PROJECT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smdmx/dm.h"
#include "smdmx/error.h"
#include "smdmx/model.h"
#include "smdmx/qc.h"
#include "smdmx/smd.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef enum smdmx_message_kind {
	SMDMX_MESSAGE_ERROR,
	SMDMX_MESSAGE_WARNING,
	SMDMX_MESSAGE_NOTE
} smdmx_message_kind;

/* What a run says about a file, in the compiler's terms: "path:line:column: kind: text";
 * line 0 is the file as a whole. path NULL: the run as a whole ("smdmx: kind: text"). */
typedef struct smdmx_message {
	smdmx_message_kind kind;
	const char *path;
	uint32_t line, column;
	const char *text;
	smdmx_error_code code;      /* an error's code (SMDMX_ERROR_NONE for a warning or a note) */
	uint64_t byte;              /* an error's place in a binary file, which has no lines (line
	                               0): its byte offset + 1, as smdmx_error.byte; else 0 */
} smdmx_message;

/* jobs and threads: at most this many. */
#define SMDMX_PROJECT_JOBS_MAX 256

typedef struct smdmx_project_options {
	bool to_smd;                /* false: the models become DMX; true: SMD (and VTA) */
	const char *outdir;         /* where the projects are written (required); neither inside
	                               the projects' folder nor above it */
	bool rig_in_dmx;            /* to DMX: a $model's flexcontroller, %rule and localvar lines
	                               move into its DMX; false: they stay in the QC, with
	                               noautodmxrules */
	bool force;                 /* files already there (not this folder's earlier outputs) are
	                               replaced */
	bool update;                /* only files whose outputs are missing or older than what
	                               they are made of are converted */
	bool keep_going;            /* every file is converted and every project written whatever
	                               fails: a missing file stays named as written */
	bool lenient_qc;            /* a QC line (or an $include) that cannot be read costs that line,
	                               kept as written, not the QC (smdmx_qc_read_options.keep_going) */
	bool copy_failed;           /* with keep_going: a file whose conversion fails is copied
	                               unchanged into the output tree, and its QC lines keep naming it
	                               (`smdmx qc -k` sets all three); without: a usage error */
	bool warnings_fail;         /* a file whose conversion warns fails (-W error) */
	unsigned jobs;              /* files converted at once; 0: the cores */
	unsigned threads;           /* threads that read one file in parts; 0: the cores over jobs */
	/* The run's memory, every step's (zero: malloc's): the QCs read, every file converted on
	 * every thread, the run's own lists and messages, and the run handed back, which keeps
	 * taking from it until smdmx_project_run_free (the hooks' user must live as long). Its
	 * memory_limit and fail_after bound the whole run. The steps' own allocators below are
	 * left zero (SMDMX_ERROR_USAGE otherwise): they take this one. */
	smdmx_allocator allocator;
	smdmx_smd_read_options smd_read;
	smdmx_dmx_read_options dmx_read;
	smdmx_smd_write_options smd_write;
	smdmx_model_options model;
	smdmx_dmx_write_options dmx_write;
} smdmx_project_options;

typedef enum smdmx_project_action {
	SMDMX_PROJECT_COPY,         /* copied byte for byte */
	SMDMX_PROJECT_SMD_TO_DMX,
	SMDMX_PROJECT_DMX_TO_SMD,
	SMDMX_PROJECT_VTA_REBASE,   /* a VTA whose frame 0 becomes its DMX's base ($defaultflex) */
	SMDMX_PROJECT_CONSUMED      /* a $model's flexfile, gone into its DMX: nothing of its own */
} smdmx_project_action;

/* A file a QC names, and what the run did with it. */
typedef struct smdmx_project_file {
	smdmx_project_action action;
	const char *source, *output;
	size_t qc;                  /* the QC that planned it (smdmx_project_run.qcs) */
	bool ok;                    /* done, or up to date */
	bool up_to_date;            /* update: its outputs were newer than its inputs: not run */
	bool copied;                /* copy_failed: it failed, and its source was copied unchanged */
	const smdmx_message *messages;
	size_t message_count;
	const char *const *written; /* the files put in place */
	size_t written_count;
} smdmx_project_file;

/* A QC given, and what became of it. */
typedef struct smdmx_project_qc {
	const char *path;           /* as given */
	const smdmx_qc *qc;         /* NULL: it could not be read (its messages say why) */
	const char *output;         /* its place below outdir */
	bool ok;                    /* read, planned and written without an error */
	size_t lines_not_read;      /* lenient_qc: lines of it that could not be read, kept as written */
	const smdmx_message *messages;
	size_t message_count;
	const size_t *files;        /* every file it names (indices into smdmx_project_run.files),
	                               each once, in the order named: those another QC planned too */
	size_t file_count;
} smdmx_project_qc;

/* A run. Its lists are the run's memory: freed with it. */
typedef struct smdmx_project_run {
	smdmx_error_code status;    /* NONE: the projects were planned and run (a file may still
	                               have failed: ok); USAGE: they could not be (outdir, a QC
	                               unreadable: messages) */
	bool ok;                    /* every QC read, every file found and done, every QC written */
	const smdmx_message *messages; /* the run's own, in order (a usage problem, the record) */
	size_t message_count;
	size_t messages_lost;       /* messages memory could not hold, the run's own and every QC's
	                               and file's (out of memory; else 0) */
	const smdmx_project_qc *qcs; /* every QC given (one given twice, once), in that order */
	size_t qc_count;
	const smdmx_project_file *files; /* in the order planned */
	size_t file_count;
	const char *const *missing; /* files named that are not there, each once */
	size_t missing_count;
	const char *const *qc_written; /* the QC files written */
	size_t qc_written_count;
	const char *const *qc_kept; /* QC files already as they would be written, left as they are */
	size_t qc_kept_count;
	const char *const *inputs;  /* every file read, each once: a depfile's inputs */
	size_t input_count;
	size_t converted, copied, up_to_date, failed, qcs_not_read, lines_not_read;
	const char *root, *outdir;  /* absolute, ending in '/' */
	bool out_of_memory;         /* memory ran out once files were in place (status
	                               SMDMX_ERROR_OUT_OF_MEMORY, ok false): the files' and QCs'
	                               written lists (and qc_written) say which are, whole; the
	                               steps after did not run, inputs may be short (messages
	                               memory could not hold are counted: messages_lost), and the
	                               folder's record of what it wrote was not updated */
} smdmx_project_run;

/* The QCs converted into o->outdir (dirs: folders given besides, that the projects' folder
 * holds). NULL when nothing was done: memory ran out before any file was put in place
 * (SMDMX_ERROR_OUT_OF_MEMORY; after, the run says out_of_memory) or the call cannot start
 * (no options, no output folder, no QC, reading and writing options smdmx_convert_options_check
 * refuses: SMDMX_ERROR_USAGE), error says which;
 * otherwise the run, freed with smdmx_project_run_free. Files run on o->jobs threads; the call returns when all are done. */
SMDMX_API smdmx_project_run *smdmx_projects_convert(const char *const *qcs, size_t qc_count, const char *const *dirs,
                                                    size_t dir_count, const smdmx_project_options *o, smdmx_error *error);
SMDMX_API void smdmx_project_run_free(smdmx_project_run *run);

/* The QC files below dir, as `smdmx qc -r` finds them (in byte order of their names, folders'
 * links not followed, hidden files left), NULL-terminated, into *paths (free with
 * smdmx_project_files_free); false when a folder cannot be read (error names the first; the
 * QCs of the others are there), or memory ran out (SMDMX_ERROR_OUT_OF_MEMORY, *paths NULL).
 * A library's QCs, ready for smdmx_projects_convert; allocator's memory (NULL: malloc's), as
 * smdmx_batch_files. */
SMDMX_API bool smdmx_project_files(const char *dir, const smdmx_allocator *allocator, char ***paths, size_t *count,
                                   smdmx_error *error);
SMDMX_API void smdmx_project_files_free(char **paths);

#ifdef __cplusplus
}
#endif
#endif
