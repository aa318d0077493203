/* Pictures and reports: a model read for a picture, its picture as PNG bytes, pictures on
 * several threads, and the batch report: one HTML page with a row per file, the source and
 * the result drawn side by side, their counts, the messages said about them and smdmx diff's
 * verdict; rows filtered and sorted in the page. Built, with the renderer (render/), into
 * the programs, which give the rows, write the files and say what happened: --report on the
 * conversions and smdmx qc, smdmx report over two trees, smdmx preview.
 *
 * Nothing here prints or ends the program: running out of memory is a false (or NULL)
 * return, or a text marked failed. */
#ifndef SMDMX_REPORT_H
#define SMDMX_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/os.h"
#include "../render/render.h"
#include "smdmx/smdmx.h"

/* ---- text -------------------------------------------------------------------------------- */

/* A growing text; failed once memory ran out (the text then ends where it did). */
typedef struct text_buf {
	char *text;
	size_t len, cap;
	bool failed;
} text_buf;
void tb_putc(text_buf *b, char c);
void tb_puts(text_buf *b, const char *s); /* NULL: nothing */

/* A file to write: its path and bytes. */
typedef struct whole_file {
	const char *path;
	const void *data;
	size_t size;
} whole_file;

/* ---- a model read for a picture (picture.c) ------------------------------------------------ */

/* What reading said, as the library says it, the texts owned; failed once memory ran out. */
typedef struct said_list {
	smdmx_message *m;
	size_t count, cap;
	bool failed;
} said_list;
void said_free(said_list *l);

typedef struct picture_input {
	const char *path;         /* an SMD or VTA, a DMX, or a QC; "-": data, read as name */
	const char *vta;          /* the VTA of the SMD at path, or NULL */
	const void *data;         /* path "-": standard input's bytes */
	size_t size;
	const char *name;         /* path "-": the model's name */
	const char *model;        /* a QC's $model or body part (NULL: the whole model) */
	const char *const *bodygroups; /* a QC's "PART=CHOICE" each */
	size_t bodygroup_count;
	bool as_files;            /* a QC: its model as its files hold it, to compare */
	const char *const *clips; /* SMDs whose animations join the model */
	size_t clip_count;
} picture_input;

/* An SMD (with its VTA), a DMX or a QC's model (its shapes rigged, scaled, turned, placed by
 * its $origin and with its attachments; an animation-only QC's first animation over the
 * model that includes it, where there is one), the clips added; what reading said in said.
 * *posed (may be NULL): the scene is shown at the first frame of its first clip, not at rest.
 * NULL when it cannot be read, with an error in said. */
smdmx_scene *picture_scene(const picture_input *in, said_list *said, bool *posed);

/* The picture of s as PNG bytes (malloc'd), and a legend: its size and what its cells show;
 * *empty (may be NULL) the cells that show nothing but the background. */
bool picture_png(const smdmx_scene *s, const sm_render_options *ro, uint8_t **png, size_t *size, char *legend,
                 size_t legend_size, uint32_t *empty, smdmx_error *err);

/* fn(ctx, i) for i below n, on up to workers threads (0: the cores; at most
 * SMDMX_PROJECT_JOBS_MAX). */
void run_parallel(unsigned workers, size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

/* ---- the report (report.c, report_page.c) -------------------------------------------------- */

/* One side of a row: a model file, with the VTA that carries its shapes and the files that
 * carry its clips (all may be NULL or empty). */
typedef struct report_side {
	char *path, *vta;
	char **clips;
	size_t clip_count;
} report_side;

/* A row's status: the conversion's, or none ran (smdmx report). */
enum { REPORT_CONVERTED = 0, REPORT_FAILED = 1, REPORT_NOT_RUN = -1 };

typedef struct report_row {
	report_side a, b;     /* the source and the result (b.path NULL: there is none) */
	int status;           /* REPORT_* */
	const char *state;    /* what happened, in a word or two ("converted", "failed", ...) */
	char *messages;       /* what was said about it, as printed */
	size_t warnings, errors;
	struct report_result *result; /* made by report_make */
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
	/* what reading a side said, as the program prints it, appended to out (NULL: a line
	 * "path:line:col: kind: text" each) */
	void (*format)(text_buf *out, const smdmx_message *m, size_t n);
} report_page;

/* A row added with copies of its paths (b may be NULL) and messages; the side's VTA and clips
 * are added to the last row with report_vta and report_clip (side 0: a, 1: b). False when
 * memory ran out (the row is not added, or lacks the file). */
bool report_add(report_page *r, const char *a, const char *b, int status, const char *state, const char *messages,
                size_t warnings, size_t errors);
bool report_vta(report_page *r, int side, const char *vta);
bool report_clip(report_page *r, int side, const char *clip);

/* Reads and draws both sides of every row (workers at once, 0: the cores) and compares them
 * as smdmx diff does; false when memory ran out. */
bool report_make(report_page *r, unsigned workers);

/* The files of the page made: path's text and beside it, for a report of more rows than a
 * page holds its pictures in, the files of pictures it loads as rows appear (files[0] the
 * page); and every file the rows read, which none of them may replace. false when memory
 * ran out. */
typedef struct report_files {
	whole_file *files;
	size_t count;
	char **read;          /* the rows' paths (not copies) */
	size_t read_count;
} report_files;
bool report_page_files(const report_page *r, const char *path, report_files *out);
void report_files_free(report_files *f);
/* The rows' files (out->read; report_page_files calls it). */
bool report_files_read(const report_page *r, report_files *out);
/* Frees the rows. */
void report_free(report_page *r);

#endif
