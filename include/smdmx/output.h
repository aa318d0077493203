/* smdmx: outputs written whole or not at all.
 *
 * A set of output files is written together: each file to a temporary file beside its final
 * path (".NAME.PID.N.tmp"), flushed to the disk, then all of them put in place at once
 * (smdmx_outputs_commit), or none (a failure, smdmx_outputs_abort). A final path never holds
 * a partial file, and a file already there is kept unless the set may replace it. This is
 * how smd2dmx, dmx2smd and smdmx write every file; a build tool or an asset pipeline that
 * embeds the library gets the same guarantee from it.
 *
 * Interrupts: the temporary files of every open set are listed in fixed memory, so that a
 * signal handler can remove them (smdmx_outputs_remove_temporary, async-signal-safe). The
 * library installs no handler itself: a program that wants its temporary files gone on
 * Ctrl-C calls it from its own. While a set is put in place, SIGINT, SIGTERM and SIGHUP wait
 * (on Windows, the console's Ctrl-C), so that an interrupt leaves all of the set or none.
 *
 * Failures: the calls that can fail return an error code (SMDMX_ERROR_NONE on success) and
 * write why into the caller's room, naming the file: a path may be longer than smdmx_error
 * holds (4096 bytes of room keep any path). */
#ifndef SMDMX_OUTPUT_H
#define SMDMX_OUTPUT_H
#include "error.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct smdmx_outputs smdmx_outputs; /* a set of files written together */
typedef struct smdmx_output smdmx_output;   /* one file of a set */

/* A set's flags. */
enum {
	SMDMX_OUTPUTS_FORCE = 1u << 0,  /* a file already at a final path is replaced */
	SMDMX_OUTPUTS_SAME_OK = 1u << 1 /* a file already there holding the very bytes written is
	                                   no clash: it stays, and counts as written */
};

/* A new, empty set; NULL when out of memory. Free with smdmx_outputs_free. Every byte the set
 * takes goes through allocator (NULL: malloc's; its memory_limit and fail_after hold), the
 * written lists of smdmx_outputs_commit too. */
SMDMX_API smdmx_outputs *smdmx_outputs_new(unsigned flags, const smdmx_allocator *allocator);
SMDMX_API unsigned smdmx_outputs_flags(const smdmx_outputs *set);
SMDMX_API void smdmx_outputs_set_flags(smdmx_outputs *set, unsigned flags);
/* The files opened in the set and not yet committed or aborted, in the order opened. */
SMDMX_API size_t smdmx_outputs_count(const smdmx_outputs *set);
SMDMX_API smdmx_output *smdmx_outputs_item(smdmx_outputs *set, size_t index);

/* Opens the temporary file of path in the set ("-": standard output, written as it comes),
 * making the folders above it that are not there; a set not put in place takes away the
 * folders it made, while they are empty. NULL on failure (why said: a file or folder that
 * cannot be made, or out of memory), the set as it was. Whether path may be written at all is
 * smdmx_output_allowed's question, asked first. */
SMDMX_API smdmx_output *smdmx_outputs_open(smdmx_outputs *set, const char *path, char *why, size_t why_size);
/* Writes to an output: an smdmx_write_fn, its user the smdmx_output. false on failure, its
 * errno kept (smdmx_output_errno). A reader that closed standard output gives EPIPE: what
 * to do then (end quietly, as a tool in a pipe does) is the caller's. */
SMDMX_API bool smdmx_output_write(void *output, const void *data, size_t size);
SMDMX_API const char *smdmx_output_path(const smdmx_output *output);
/* The errno of the output's failed write, 0 when none failed. */
SMDMX_API int smdmx_output_errno(const smdmx_output *output);
/* Whether this output replaces the file at its path, whatever the set's flags (a file the
 * caller knows to be its own earlier output); false at first. */
SMDMX_API void smdmx_output_set_replace(smdmx_output *output, bool replace);
/* The output's final path becomes path, in the same folder as before (its temporary file
 * stays where it is); false when out of memory, the output as it was. */
SMDMX_API bool smdmx_output_rename(smdmx_output *output, const char *path);
/* Something is already at the output's path that does not hold the very bytes it holds
 * (standard output never clashes). */
SMDMX_API bool smdmx_output_clashes(const smdmx_output *output);

/* Flushes every temporary file of the set to the disk and closes it: a late write error
 * fails here (the set is then aborted). */
SMDMX_API smdmx_error_code smdmx_outputs_finish(smdmx_outputs *set, char *why, size_t why_size);
/* Finishes the set and puts every file in place: all of them, or (on failure) none, the
 * files this call had put in place taken back and the set aborted. A file already at a path
 * fails it with SMDMX_ERROR_EXISTS ("'PATH' exists") unless the set's flags or
 * smdmx_output_set_replace allow it. On success each final path is appended to *written, a
 * list made through the set's allocator (one list takes the commits of sets of one
 * allocator), and the set is empty, ready for more. Free the list with
 * smdmx_outputs_written_free (with the default allocator, free() each and the list will do). */
SMDMX_API smdmx_error_code smdmx_outputs_commit(smdmx_outputs *set, char ***written, size_t *written_count, char *why,
                                                size_t why_size);
/* A written list of smdmx_outputs_commit freed, with the allocator of its sets (NULL:
 * malloc's). */
SMDMX_API void smdmx_outputs_written_free(char **written, size_t count, const smdmx_allocator *allocator);
/* Removes every temporary file of the set; the set is empty, ready for more. */
SMDMX_API void smdmx_outputs_abort(smdmx_outputs *set);
/* Aborts the set and frees it (NULL: nothing). */
SMDMX_API void smdmx_outputs_free(smdmx_outputs *set);

/* Whether path may be written (SMDMX_ERROR_NONE): SMDMX_ERROR_EXISTS ("'PATH' exists") when
 * a file is there and force is false; SMDMX_ERROR_USAGE when it is one of the inputs (compared as
 * files, not as names), a directory, or a name Windows cannot hold (where paths are
 * Windows': a device name such as CON, ':' past the drive, a name ending in '.' or ' ', a
 * character Windows refuses). "-" (standard output) is always allowed. */
SMDMX_API smdmx_error_code smdmx_output_allowed(const char *path, const char *const *inputs, size_t input_count,
                                               bool force, char *why, size_t why_size);
/* The file at path holds the same bytes as the file at other (when other is not NULL) or
 * as the len bytes at data. */
SMDMX_API bool smdmx_file_same_bytes(const char *path, const char *other, const void *data, size_t len);
/* Removes the temporary file of every open output of the process. Async-signal-safe: for a
 * program's own handler of SIGINT, SIGTERM or SIGHUP (or Windows' console Ctrl-C), before it
 * ends. */
SMDMX_API void smdmx_outputs_remove_temporary(void);

#ifdef __cplusplus
}
#endif
#endif
