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

enum { PICTURE_SIZE = 256, UV_SIZE = 96, DIFFERENCES_SHOWN = 8 };

/* What a row's two sides are, once read, drawn and compared. */
typedef struct side_result {
	char *png64;          /* the picture, base64; NULL when there is none */
	char *uv64;           /* the UV layouts, base64; NULL without UVs */
	uint32_t uv_width, uv_height;
	char *problem;        /* why there is no picture (or no model), or NULL */
	size_t joints, polygons, shapes, clips;
	bool read;
} side_result;

typedef struct report_result {
	side_result side[2];
	long long differences; /* smdmx diff's count; -1: not compared */
	char *expected;       /* differences > 0 that one known cause explains, named; else NULL */
	text_buf shown;       /* the first differences, a line each */
	text_buf said;        /* smdmx report: what reading the two sides said */
} report_result;

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

/* The page of rows made (report_page.c): path's text, and beside it, for a report of more
 * rows than a page holds its pictures in, the files of pictures it loads as rows appear.
 * false when memory ran out. */
typedef struct report_files {
	whole_file *files;    /* files[0] the page */
	size_t count;
} report_files;
bool report_page_files(const report_page *r, const char *path, report_files *out);
void report_files_free(report_files *f);

/* smdmx report A_DIR B_DIR -o FILE.html: the two trees' model files paired by their place. */
int cmd_report(int argc, char **argv);

#endif
