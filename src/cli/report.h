/* Batch reports (report.c): one self-contained HTML page with a row per file, the source and
 * the result drawn side by side, their counts, the messages said about them and smdmx diff's
 * verdict; rows filtered and sorted in the page. Written by --report on the conversions and
 * smdmx qc, and by smdmx report over two trees. */
#ifndef SMDMX_CLI_REPORT_H
#define SMDMX_CLI_REPORT_H

#include "cli.h"

/* One side of a row: a model file, with the VTA that carries its shapes and the files that
 * carry its clips (all may be NULL or empty). */
typedef struct report_side {
	char *path, *vta;
	bool rig_in_qc;       /* a QC: its rig stays in the QC, as smdmx qc --rig qc writes it */
	char **clips;
	size_t clip_count;
} report_side;

typedef struct report_row {
	report_side a, b;     /* the source and the result (b.path NULL: there is none) */
	int status;           /* the conversion's: EXIT_OK, EXIT_FAILED; -1 none ran (smdmx report) */
	const char *state;    /* what happened, in a word or two ("converted", "failed", ...) */
	char *messages;       /* what was said about it, as printed */
	size_t warnings, errors;
	struct report_result *result; /* made by report_write */
} report_row;

typedef struct report_page {
	const char *title;    /* what made it: the command line */
	report_row *rows;
	size_t count;
} report_page;

/* A row added with copies of its paths (b may be NULL) and messages; the side's VTA and clips
 * are added to the last row with report_vta and report_clip (side 0: a, 1: b). */
void report_add(report_page *r, const char *a, const char *b, int status, const char *state, const char *messages,
                size_t warnings, size_t errors);
void report_vta(report_page *r, int side, const char *vta);
void report_clip(report_page *r, int side, const char *clip);
void report_rig_in_qc(report_page *r, int side);

/* Draws both sides of every row (workers at once, 0: the cores), compares them as smdmx
 * diff does, and writes the page to path, all or nothing: never over a file a row reads,
 * over another existing file only with force. False with the error said (as name's). Frees
 * the rows either way. */
bool report_write(report_page *r, const char *path, unsigned workers, bool force, const char *name);

/* smdmx report A_DIR B_DIR -o FILE.html: the two trees' model files paired by their place. */
int cmd_report(int argc, char **argv);

#endif
