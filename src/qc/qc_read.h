/* The QC reader's state, private to the reader's files: the script stack and tokenizer
 * (qc_script.c), flex rules (qc_rules.c), the $model block and references (qc_model.c) and the
 * other commands (qc.c). */
#ifndef SMDMX_QC_READ_H
#define SMDMX_QC_READ_H

#include <stdarg.h>

#include "qc/qc_internal.h"

/* ---- the reader ------------------------------------------------------------------------- */

typedef struct qc_var {
	const char *name, *value;
	uint32_t value_tok;                   /* the token value was read from */
} qc_var;

/* A prefix of a variable's name, ignoring case: the first variable that has it. */
typedef struct var_slot {
	uint64_t hash;                        /* of the prefix in lower case */
	uint32_t var;                         /* SMDMX_NONE: empty */
	uint32_t len;
} var_slot;

typedef struct qc_macro {
	const char *name;
	const char **params;
	size_t param_count;
	uint32_t file;
	uint32_t start, end;     /* the body: from after the parameters to the end of its last line */
	uint32_t line, line_start;
} qc_macro;

/* A script on the stack: a file, or a macro's body with its arguments. */
typedef struct qc_frame {
	uint32_t file;
	uint32_t pos, end;
	uint32_t line, line_start;
	uint32_t macro;          /* SMDMX_NONE for a file */
	const char **args;       /* the macro's arguments, one per parameter */
	const uint32_t *arg_toks; /* the tokens they were read from */
} qc_frame;

#define QC_MAX_DEPTH_LIMIT 64
#define QC_MAX_DIRS 64
#define QC_MAX_BLOCKS 64
#define QC_MAX_ERRORS 65536                /* keep_going: lines that may fail before the read does */

/* Names compared ignoring ASCII case, as studiomdl compares them: in the order added (the
 * model's flexdescs), and indexed by their lower-case form so that a QC of a million names
 * reads in linear time. */
typedef struct name_set {
	sm_vec list;                          /* const char *, as written */
	sm_names index;                       /* lower-case copies */
} name_set;

typedef struct qr {
	smdmx_qc *qc;
	struct smdmx_qc_state *st;
	sm_owner *o;
	smdmx_error *error;
	smdmx_warnings *warnings;
	smdmx_qc_files fs;
	size_t max_depth, max_file_size, max_tokens, max_read;
	size_t read;                          /* bytes of every frame pushed so far */

	sm_vec files, refs, models, atts;     /* smdmx_qc_file, smdmx_qc_ref, smdmx_qc_model, smdmx_qc_attachment */
	sm_vec parts, part_choices;           /* smdmx_qc_part; uint32_t, each part's in turn */
	sm_vec include_tok, crlf, ref_tok, model_x;
	sm_vec flexes, controllers, rules;    /* of the model being read */
	sm_vec vars, macros;
	name_set anims;                       /* names of $animation and $sequence, for telling files apart */
	name_set ctl_names, flex_names;       /* controllers and flexes so far, for checking rules */
	sm_names macro_index;                 /* lower-case names of macros */
	struct var_slot *var_slots;           /* every prefix of every variable's name */
	size_t var_cap, var_used, var_bytes;
	char *key;                            /* a name in lower case, being looked up */
	size_t key_cap;

	qc_frame frames[QC_MAX_DEPTH_LIMIT];
	size_t depth;
	bool pending;                         /* a token was put back (UnGetToken) */
	uint32_t pending_tok;
	bool end_of_script;

	char *buf;                            /* the token being built */
	size_t buf_len, buf_cap;
	uint32_t sub_src;                     /* its last value put in (qc_tok.tail_src), or SMDMX_NONE */
	size_t sub_end, sub_len;              /* buf_len after that value, and the value's length */

	const char *dirs[QC_MAX_DIRS];        /* $cd and $pushd: folders relative to the root */
	size_t dir_count;
	bool cd_set;
	bool abs_dir_said;                    /* an absolute $cd or $pushd not here was said */
	double scale;
	char up_axis;
	double origin[4];                     /* the last $origin: X Y Z and the turn about Z */
	bool origin_fixed;                    /* qc->origin taken, at the first $sequence or $animation */
	uint32_t model;                       /* the $model being read, or SMDMX_NONE */
	uint32_t vta;                         /* its flexfile */
	bool model_unchecked;                 /* its rules name things smdmx cannot see (a DMX, a vcafile) */
	bool keep_going;                      /* an error costs its line (smdmx_qc_read_options) */
	name_set missing;                     /* the $include files not there */
	name_set include_models;              /* the .mdl files $includemodel names */
	name_set textures;                    /* the textures $texturegroup names */
	sm_vec texture_dirs;                  /* const char *: $cdtexture's folders, relative to the root */
	bool goldsrc_textures;                /* a command that only GoldSrc's studiomdl knows of textures */
	bool resume;                          /* the pending token starts a command of the including
	                                         file (a block its include left open): kept */
	bool lost;                            /* keep_going: something went unread; rules can no longer
	                                         be checked against the names declared */
	sm_vec errs;                          /* smdmx_qc_error: what cost only itself */
	uint32_t block_open[QC_MAX_BLOCKS];   /* the '{' of the blocks open inside a $model block, by depth */
} qr;

static inline smdmx_qc_file *rfile(qr *r, uint32_t i)
{
	return (smdmx_qc_file *)r->files.data + i;
}

static inline qc_tok *rtok(qr *r, uint32_t i)
{
	return (qc_tok *)r->st->toks.data + i;
}

/* The script (qc_script.c). Errors at a token, at the reading position or at a place: each
 * returns false, and the first error stays. With keep_going, qcr_keep_error makes the error just
 * made cost only its line. */
bool qcr_vfail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, va_list ap) SM_PRINTF(6, 0);
bool qcr_fail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(6, 7);
bool qcr_fail_tok(qr *r, uint32_t t, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(4, 5);
bool qcr_fail_here(qr *r, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(3, 4);
void qcr_warn_tok(qr *r, uint32_t t, smdmx_warning_code code, const char *fmt, ...) SM_PRINTF(4, 5);
bool qcr_keep_error(qr *r);
const char *qcr_rdup(qr *r, const char *s, size_t n);
const char *qcr_lower_key(qr *r, const char *s, size_t n);
bool qcr_name_known(qr *r, const name_set *v, const char *name);
bool qcr_add_name(qr *r, name_set *v, const char *name);
const char *qcr_join_path(qr *r, const char *a, const char *b);
const char *qcr_shown(qr *r, const char *path, char *shown);
const char *qcr_path_ext(const char *name);
const char *qcr_base_name(const char *path);
uint32_t qcr_load_file(qr *r, const char *path, smdmx_qc_pos at, uint32_t name_tok, bool *missing);
bool qcr_push_frame(qr *r, uint32_t file, uint32_t start, uint32_t end, uint32_t line, uint32_t line_start,
                       uint32_t macro, const char **args, const uint32_t *arg_toks, uint32_t at_tok);
bool qcr_buf_put(qr *r, const char *s, size_t n);
const char *qcr_fdata(qr *r, const qc_frame *f);
/* What qcr_skip_space found: a token, a line end, the end of the script, or an error. */
enum { SKIP_TOKEN = 0, SKIP_LINE_END = 1, SKIP_SCRIPT_END = 2, SKIP_ERROR = 3 };
int qcr_skip_space(qr *r, qc_frame *f, bool crossline);
uint32_t qcr_add_token(qr *r, const qc_frame *f, uint32_t start, uint32_t end, uint32_t line, uint32_t col,
                          uint8_t flags);
int qcr_get_token(qr *r, bool crossline, uint32_t *out);
void qcr_unget(qr *r, uint32_t t);
bool qcr_available(qr *r);
bool qcr_is_brace(qr *r, uint32_t t, char c);
bool qcr_need(qr *r, uint32_t at, const char *what, uint32_t *out);
bool qcr_need_number(qr *r, uint32_t at, const char *what, double *out);
bool qcr_need_int(qr *r, uint32_t at, const char *what, int32_t *out);
bool qcr_skip_rest(qr *r);
int qcr_block_left_open(qr *r, uint32_t open, uint32_t t, const char *what);
bool qcr_skip_next_block(qr *r);
bool qcr_block_words(qr *r, bool (*fn)(qr *r, uint32_t word));
void qcr_skip_raw_line(qr *r);
bool qcr_recover_line(qr *r, bool in_block);

/* The $model block and the files commands name (qc_model.c). */
const char *qcr_cur_dir(qr *r);
bool qcr_add_ref(qr *r, uint32_t t, smdmx_qc_ref_kind kind, const char *command, const char *const *exts, uint32_t *out);
smdmx_qc_model *qcr_cur_model(qr *r);
bool qcr_add_line(qr *r, uint32_t first, uint32_t last, unsigned kind);
bool qcr_studio_file(qr *r, uint32_t cmd, const char *command, uint32_t *ref);
bool qcr_part_begin(qr *r, uint32_t cmd, uint32_t name, const char *command, uint32_t model);
bool qcr_part_choice(qr *r, uint32_t ref);
bool qcr_finish_model(qr *r);
bool qcr_cmd_model(qr *r, uint32_t cmd);
bool qcr_cmd_bodygroup(qr *r, uint32_t cmd);
bool qcr_cmd_lod(qr *r, uint32_t cmd, bool shadow);
/* The extensions studiomdl tries for a file named without one, by command. */
extern const char *const qcr_model_exts[], *const qcr_vta_exts[], *const qcr_dmx_exts[], *const qcr_no_exts[];

/* A %rule line of a $model block (qc_rules.c); *end: the token that stands for its last byte
 * (the line the caller records runs from cmd to it). */
bool qcr_model_rule(qr *r, uint32_t cmd, uint32_t *end);

/* One command of the script, its first token t (qc.c). */
bool qcr_command(qr *r, uint32_t t);

#endif
