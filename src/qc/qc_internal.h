/* Internals of the QC module shared by the reader (qc.c and its parts, whose own state is in
 * qc_read.h), the editor (qc_edit.c) and the rig conversions (src/model). */
#ifndef SMDMX_QC_INTERNAL_H
#define SMDMX_QC_INTERNAL_H

#include "support/internal.h"
#include "smdmx/qc.h"
#include "smdmx/rig.h"

/* The files on disk (qc_fs.c): a file read whole (0; 1 when it is not there, 2 when it
 * cannot be read; freed with sm_fs_free), and the path a name finds (freed with sm_fs_free,
 * NULL when none; *nocase when only by ignoring case). Their blocks are the cache's memory
 * (user, an sm_fs_cache), or malloc's when user is NULL. */
int sm_fs_read(void *user, const char *path, void **data, size_t *size);
char *sm_fs_find(void *user, const char *path, bool *nocase);
void sm_fs_free(void *user, void *data);
/* sm_fs_find's user: the folders it looked through, read once (for one QC's reading, while
 * nothing writes there); NULL reads them each time. Its memory through hooks (NULL:
 * malloc's). NULL when out of memory. */
typedef struct sm_fs_cache sm_fs_cache;
sm_fs_cache *sm_fs_cache_new(const smdmx_allocator *hooks);
void sm_fs_cache_free(sm_fs_cache *c);
/* Whether an allocation of any lookup or read through c failed (a name then seems not to be
 * there, a file not to be readable): what they told may be wrong, and the reading fails out
 * of memory. */
bool sm_fs_cache_ran_out(const sm_fs_cache *c);

enum {
	QTOK_QUOTED = 1,   /* written in quotes */
	QTOK_EXPANDED = 2, /* a variable or macro parameter was put into it */
	QTOK_MACRO = 4     /* read from a macro's body (start and end are in the defining file) */
};

/* One token as read: its text after expansion, and where its raw text is. */
typedef struct qc_tok {
	const char *text;
	uint32_t len;
	uint32_t file;     /* the file its raw text is in */
	uint32_t start;    /* raw byte range in that file, quotes included */
	uint32_t end;
	uint32_t line, column;
	uint8_t flags;
	/* QTOK_EXPANDED whose text ends with a macro argument's or a variable's value: the token
	 * that value was read from (the call's argument, the $definevariable's value), and the
	 * value's length; SMDMX_NONE when the text ends otherwise. A new name for a file whose
	 * changing end lies there is written there. */
	uint32_t tail_src;
	uint32_t tail_len;
	uint32_t uses;     /* how often its text was put into a token as an argument or a value */
} qc_tok;

/* A command's tokens: first to last, inclusive. */
typedef struct qc_span {
	uint32_t first, last;
	unsigned kind;     /* SMDMX_QC_LINES_* */
} qc_span;

typedef struct qc_model_x {
	uint32_t command;  /* the "$model" token */
	uint32_t last;     /* the last token of the command (the block's "}" when there is one) */
	uint32_t open;     /* the block's "{" token, or SMDMX_NONE */
	sm_vec lines;      /* qc_span: the block's flex and rig lines */
	sm_vec blocks;     /* qc_span: blocks inside the block (first its '{', last its '}') */
} qc_model_x;

/* A replacement of bytes [start, end) of a file; order breaks ties at one place. */
typedef struct qc_edit {
	uint32_t file;
	uint32_t start, end;
	const char *text;
	size_t len;
	bool replace;      /* a rename or removal (one per range), else an insertion (several in order) */
	uint32_t order;
} qc_edit;

struct smdmx_qc_state {
	sm_owner *o;
	sm_vec toks;       /* qc_tok */
	sm_vec edits;      /* qc_edit */
	uint32_t *ref_tok; /* per reference: its name token */
	uint32_t *include_tok; /* per file: the token naming it in its $include, SMDMX_NONE for the main QC */
	bool *crlf;        /* per file: its first line end is CRLF */
	qc_model_x *models;
	const char *root;  /* the main QC's folder: "" or ending in '/' */
	smdmx_qc_files fs; /* how the QC's files were found (smdmx_qc_find_texture looks so too) */
};

static inline const qc_tok *qc_tok_at(const smdmx_qc *qc, uint32_t i)
{
	return (const qc_tok *)qc->state->toks.data + i;
}

/* Room for a moment (a name put together, a list sorted) through the QC's allocator: its
 * hooks alone, so that calls on one QC from several threads share nothing. */
static inline sm_alloc qc_temp_alloc(const smdmx_qc *qc)
{
	sm_alloc a = { qc->state->o->alloc.hooks, 0, 0 };
	return a;
}

/* Sets error's file to the QC file's path unless it is the main QC. */
void qc_error_file(const smdmx_qc *qc, uint32_t file, smdmx_error *error);

#endif
