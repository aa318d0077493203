/* QC reading: studiomdl's tokenizer (scriplib: GetToken, TokenAvailable, GetExprToken, the
 * script stack of includes and macros) and the commands of FORMATS G2 and G3, recorded with
 * where every token came from so that edits can be made to the text (qc_edit.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"
#include "qc/qc_internal.h"

/* The file system, as io.c provides it. */

/* ---- the reader ------------------------------------------------------------------------- */

typedef struct qc_var {
	const char *name, *value;
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

	const char *dirs[QC_MAX_DIRS];        /* $cd and $pushd: folders relative to the root */
	size_t dir_count;
	bool cd_set;
	double scale;
	char up_axis;
	uint32_t model;                       /* the $model being read, or SMDMX_NONE */
	uint32_t vta;                         /* its flexfile */
	bool model_unchecked;                 /* its rules name things smdmx cannot see (a DMX, a vcafile) */
	bool keep_going;                      /* an error costs its line (smdmx_qc_read_options) */
	name_set missing;                     /* the $include files not there */
	bool resume;                          /* the pending token starts a command of the including
	                                         file (a block its include left open): kept */
	bool lost;                            /* keep_going: something went unread; rules can no longer
	                                         be checked against the names declared */
	sm_vec errs;                          /* smdmx_qc_error: what cost only itself */
	uint32_t block_open[QC_MAX_BLOCKS];   /* the '{' of the blocks open inside a $model block, by depth */
} qr;

static smdmx_qc_file *rfile(qr *r, uint32_t i)
{
	return (smdmx_qc_file *)r->files.data + i;
}

static qc_tok *rtok(qr *r, uint32_t i)
{
	return (qc_tok *)r->st->toks.data + i;
}

static bool vfail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, va_list ap)
    SM_PRINTF(6, 0);
static bool vfail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, va_list ap)
{
	if (r->error->code != SMDMX_ERROR_NONE) return false;
	char msg[256];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	sm_fail(r->error, code, line, col, "%s", msg);
	if (file != 0 && file < r->files.count) snprintf(r->error->file, sizeof(r->error->file), "%s", rfile(r, file)->path);
	return false;
}

static bool fail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, ...)
    SM_PRINTF(6, 7);
static bool fail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail_at(r, file, line, col, code, fmt, ap);
	va_end(ap);
	return false;
}

static bool fail_tok(qr *r, uint32_t t, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(4, 5);
static bool fail_tok(qr *r, uint32_t t, smdmx_error_code code, const char *fmt, ...)
{
	const qc_tok *k = rtok(r, t);
	va_list ap;
	va_start(ap, fmt);
	vfail_at(r, k->file, k->line, k->column, code, fmt, ap);
	va_end(ap);
	return false;
}

/* At the reading position of the current script (for "expected ..." at a line's end). */
static bool fail_here(qr *r, smdmx_error_code code, const char *fmt, ...) SM_PRINTF(3, 4);
static bool fail_here(qr *r, smdmx_error_code code, const char *fmt, ...)
{
	const qc_frame *f = &r->frames[r->depth ? r->depth - 1 : 0];
	va_list ap;
	va_start(ap, fmt);
	vfail_at(r, f->file, f->line, f->pos - f->line_start + 1, code, fmt, ap);
	va_end(ap);
	return false;
}

static void warn_tok(qr *r, uint32_t t, smdmx_warning_code code, const char *fmt, ...) SM_PRINTF(4, 5);
static void warn_tok(qr *r, uint32_t t, smdmx_warning_code code, const char *fmt, ...)
{
	if (!r->warnings) return;
	const qc_tok *k = rtok(r, t);
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t before = r->warnings->count;
	sm_warn(r->warnings, code, k->line, k->column, "%s", msg);
	if (r->warnings->count > before && k->file != 0)
		snprintf(r->warnings->data[before].file, sizeof(r->warnings->data[before].file), "%s", rfile(r, k->file)->path);
}

/* keep_going: the error just made costs only what it is about. It joins the QC's errors and
 * reading goes on; false (the error stays) when it is one no line can cost: memory, limits. */
static bool keep_as(qr *r, bool limit, bool include)
{
	smdmx_error_code c = r->error->code;
	if (!r->keep_going || (c != SMDMX_ERROR_IO && !(limit && c == SMDMX_ERROR_LIMIT) && c != SMDMX_ERROR_SYNTAX && c != SMDMX_ERROR_BAD_NUMBER &&
	                       c != SMDMX_ERROR_BAD_VALUE && c != SMDMX_ERROR_UNTERMINATED && c != SMDMX_ERROR_NUL_BYTE))
		return false;
	if (r->errs.count >= QC_MAX_ERRORS) return false;
	smdmx_error saved = *r->error;
	memset(r->error, 0, sizeof(*r->error));
	smdmx_qc_error *e = sm_vec_push(r->o, &r->errs, sizeof(*e), r->error);
	if (!e) return false;
	e->error = saved;
	e->include = include;
	r->lost = true;
	if (r->model != SMDMX_NONE) {
		smdmx_qc_model *m = (smdmx_qc_model *)r->models.data + r->model;
		if (include) m->incomplete = true;
		else m->lost_lines = true;
	}
	return true;
}

static bool name_known(qr *r, const name_set *v, const char *name);
static bool add_name(qr *r, name_set *v, const char *name);

static bool keep_error(qr *r)
{
	return keep_as(r, false, false);
}

/* keep_going: an $include that cannot be read is skipped, as studiomdl skips it; path, when it
 * is not there, counts once however often it is included. */
static bool keep_include(qr *r, const char *path)
{
	if (!keep_as(r, true, true)) return false;
	if (path && !name_known(r, &r->missing, path) && !add_name(r, &r->missing, path)) return false;
	return true;
}

static const char *rdup(qr *r, const char *s, size_t n)
{
	return sm_strdup(r->o, s, n, r->error);
}

/* s[0..n) in ASCII lower case, in the reader's key buffer (valid until the next call). */
static const char *lower_key(qr *r, const char *s, size_t n)
{
	if (n + 1 > r->key_cap) {
		size_t cap = r->key_cap ? r->key_cap : 64;
		while (cap < n + 1) cap *= 2;
		char *k = sm_realloc(&r->o->alloc, r->key, r->key_cap, cap);
		if (!k) {
			sm_fail_oom(r->error);
			return NULL;
		}
		r->key = k;
		r->key_cap = cap;
	}
	for (size_t i = 0; i < n; i++) r->key[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
	r->key[n] = 0;
	return r->key;
}

/* ---- paths -------------------------------------------------------------------------------- */

/* a joined with b ('\' read as '/'), "." and ".." folded where they can be; absolute when b is
 * ("/x" or "C:..."). */
static const char *join_path(qr *r, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool absolute = b[0] == '/' || b[0] == '\\' || (b[0] && b[1] == ':');
	if (absolute) la = 0;
	char *s = malloc(la + lb + 2);
	if (!s) {
		sm_fail_oom(r->error);
		return NULL;
	}
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	for (char *p = s; *p; p++)
		if (*p == '\\') *p = '/';
	/* Fold "x/../" and "./" pieces, keeping leading ".." that cannot fold. */
	char *out = s;
	size_t n = 0, keep = 0; /* keep: bytes that must stay (a leading "/" or "../" run) */
	const char *p = s;
	if (*p == '/') {
		out[n++] = '/';
		p++;
		keep = 1;
	}
	while (*p) {
		const char *q = strchr(p, '/');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		bool last = !q;
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.' && n > keep) {
			/* drop the last component */
			size_t m = n - 1;
			while (m > keep && out[m - 1] != '/') m--;
			n = m;
		} else {
			memmove(out + n, p, len);
			n += len;
			if (!last) out[n++] = '/';
			if (len == 2 && p[0] == '.' && p[1] == '.') keep = n;
		}
		if (last) break;
		p = q + 1;
	}
	out[n] = 0;
	const char *d = rdup(r, out, n);
	free(s);
	return d;
}

static const char *path_ext(const char *name)
{
	const char *slash = strrchr(name, '/'), *bs = strrchr(name, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	const char *dot = strrchr(name, '.');
	if (!dot || (slash && dot < slash) || dot == name || (slash && dot == slash + 1)) return "";
	return dot + 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- files --------------------------------------------------------------------------------- */

/* Loads a file onto the list; returns its index or SMDMX_NONE (error set, or *missing when it
 * does not exist). */
static uint32_t load_file(qr *r, const char *path, smdmx_qc_pos at, uint32_t name_tok, bool *missing)
{
	void *data = NULL;
	size_t size = 0;
	int rc = r->fs.read(r->fs.user, path, &data, &size);
	if (rc == 1) {
		if (missing) *missing = true;
		return SMDMX_NONE;
	}
	if (rc != 0) {
		if (at.file == SMDMX_NONE) sm_fail(r->error, SMDMX_ERROR_IO, 0, 0, "cannot read '%s'", path);
		else fail_at(r, at.file, at.line, at.column, SMDMX_ERROR_IO, "cannot read '%s'", path);
		return SMDMX_NONE;
	}
	bool ok = true;
	if (size > r->max_file_size) {
		ok = at.file == SMDMX_NONE
		         ? sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "'%s' is %zu bytes, more than the QC limit of %zu", path, size,
		                   r->max_file_size)
		         : fail_at(r, at.file, at.line, at.column, SMDMX_ERROR_LIMIT, "'%s' is %zu bytes, more than the QC limit of %zu",
		                   path, size, r->max_file_size);
	}
	char *copy = NULL;
	if (ok) {
		copy = sm_owned_alloc(r->o, size + 1, r->error);
		ok = copy != NULL;
	}
	if (ok) {
		if (size) memcpy(copy, data, size);
		copy[size] = 0;
	}
	if (data) r->fs.free_data(r->fs.user, data);
	if (!ok) return SMDMX_NONE;
	/* A NUL byte would end studiomdl's reading early: refuse it. */
	const char *nul = memchr(copy, 0, size);
	uint32_t index = (uint32_t)r->files.count;
	smdmx_qc_file *f = sm_vec_push(r->o, &r->files, sizeof(*f), r->error);
	uint32_t *it = sm_vec_push(r->o, &r->include_tok, sizeof(uint32_t), r->error);
	bool *cr = sm_vec_push(r->o, &r->crlf, sizeof(bool), r->error);
	const char *pcopy = rdup(r, path, strlen(path));
	if (!f || !it || !cr || !pcopy) return SMDMX_NONE;
	f->path = pcopy;
	f->data = copy;
	f->size = size;
	f->included_at = at;
	*it = name_tok;
	const char *nl = memchr(copy, '\n', size);
	*cr = nl && nl > copy && nl[-1] == '\r';
	r->qc->files = r->files.data;
	r->qc->file_count = r->files.count;
	if (nul) {
		uint32_t line = 1, col = 1;
		for (const char *p = copy; p < nul; p++) {
			if (*p == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		fail_at(r, index, line, col, SMDMX_ERROR_NUL_BYTE, "a NUL byte in a QC");
		if (index == 0) r->error->file[0] = 0;
		return SMDMX_NONE;
	}
	return index;
}

static bool push_frame(qr *r, uint32_t file, uint32_t start, uint32_t end, uint32_t line, uint32_t line_start,
                       uint32_t macro, const char **args, uint32_t at_tok)
{
	if (r->depth >= r->max_depth) {
		if (macro != SMDMX_NONE)
			return fail_tok(r, at_tok, SMDMX_ERROR_LIMIT,
			                "macro '%s' nests scripts %zu deep (includes and macros), past the limit of %zu (a macro that "
			                "expands into itself?)",
			                ((qc_macro *)r->macros.data)[macro].name, r->depth + 1, r->max_depth);
		return fail_tok(r, at_tok, SMDMX_ERROR_LIMIT, "includes nest %zu deep, past the limit of %zu (studiomdl's MAX_INCLUDES)",
		                r->depth + 1, r->max_depth);
	}
	if (end - start > r->max_read - r->read) {
		if (at_tok >= r->st->toks.count) /* the main QC */
			return sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "the QC is %u bytes, more than the limit of %zu bytes read",
			               end - start, r->max_read);
		return fail_tok(r, at_tok, SMDMX_ERROR_LIMIT,
		                "the QC reads more than %zu bytes, each include and each macro call counted (a macro called "
		                "too often?)",
		                r->max_read);
	}
	r->read += end - start;
	qc_frame *f = &r->frames[r->depth++];
	f->file = file;
	f->pos = start;
	f->end = end;
	f->line = line;
	f->line_start = line_start;
	f->macro = macro;
	f->args = args;
	return true;
}

/* ---- tokens -------------------------------------------------------------------------------- */

static bool buf_put(qr *r, const char *s, size_t n)
{
	if (r->buf_len + n + 1 > r->buf_cap) {
		size_t cap = r->buf_cap ? r->buf_cap : 256;
		while (cap < r->buf_len + n + 1) cap *= 2;
		char *b = sm_realloc(&r->o->alloc, r->buf, r->buf_cap, cap);
		if (!b) return sm_fail_oom(r->error);
		r->buf = b;
		r->buf_cap = cap;
	}
	if (n) memcpy(r->buf + r->buf_len, s, n);
	r->buf_len += n;
	r->buf[r->buf_len] = 0;
	return true;
}

static const char *fdata(qr *r, const qc_frame *f)
{
	return rfile(r, f->file)->data;
}

enum { SKIP_TOKEN = 0, SKIP_LINE_END = 1, SKIP_SCRIPT_END = 2, SKIP_ERROR = 3 };

/* Skips white space and comments in the current script. crossline: line ends too. */
static int skip_space(qr *r, qc_frame *f, bool crossline)
{
	const char *d = fdata(r, f);
	for (;;) {
		if (f->pos >= f->end) return SKIP_SCRIPT_END;
		unsigned char c = (unsigned char)d[f->pos];
		bool two = f->pos + 1 < f->end;
		if (f->macro != SMDMX_NONE && c == '\\' && two && d[f->pos + 1] == '\\') {
			/* In a macro's body "\\" and what follows it on its line are white space. */
			while (f->pos < f->end && d[f->pos] != '\n') f->pos++;
			continue;
		}
		if (c <= 32) {
			if (c == '\n') {
				if (!crossline) return SKIP_LINE_END;
				f->line++;
				f->line_start = f->pos + 1;
			}
			f->pos++;
			continue;
		}
		if (c == ';' || c == '#' || (c == '/' && two && d[f->pos + 1] == '/')) {
			if (!crossline) return SKIP_LINE_END;
			while (f->pos < f->end && d[f->pos] != '\n') f->pos++;
			continue;
		}
		if (c == '/' && two && d[f->pos + 1] == '*') {
			uint32_t line = f->line, col = f->pos - f->line_start + 1;
			f->pos += 2;
			while (f->pos + 1 < f->end && !(d[f->pos] == '*' && d[f->pos + 1] == '/')) {
				if (d[f->pos] == '\n') {
					f->line++;
					f->line_start = f->pos + 1;
				}
				f->pos++;
			}
			if (f->pos + 1 >= f->end) {
				fail_at(r, f->file, line, col, SMDMX_ERROR_UNTERMINATED, "a '/*' comment that is never closed");
				return SKIP_ERROR;
			}
			f->pos += 2;
			continue;
		}
		return SKIP_TOKEN;
	}
}

/* ---- variables ------------------------------------------------------------------------------- */

static uint64_t var_hash_step(uint64_t h, char c)
{
	unsigned char l = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	return (h ^ l) * 1099511628211u;
}

#define VAR_HASH_BASIS 14695981039346656037u

/* The first variable whose name starts with name[0..len), ignoring case, or SMDMX_NONE: one
 * probe of the table of every prefix, so that lookups cost what their letters do. */
static uint32_t var_find(const qr *r, const char *name, size_t len)
{
	if (!len || !r->var_cap) return SMDMX_NONE;
	uint64_t h = VAR_HASH_BASIS;
	for (size_t i = 0; i < len; i++) h = var_hash_step(h, name[i]);
	const qc_var *vars = r->vars.data;
	size_t mask = r->var_cap - 1;
	for (size_t k = (size_t)h & mask;; k = (k + 1) & mask) {
		const var_slot *s = &r->var_slots[k];
		if (s->var == SMDMX_NONE) return SMDMX_NONE;
		if (s->hash == h && s->len == len && qc_same_nocase_n(vars[s->var].name, name, len)) return s->var;
	}
}

/* Adds every prefix of variable v's name that no earlier variable has. */
static bool var_index(qr *r, uint32_t v)
{
	const char *name = ((const qc_var *)r->vars.data)[v].name;
	size_t n = strlen(name);
	if (n > SMDMX_QC_MAX_VARIABLE_BYTES - r->var_bytes)
		return fail_here(r, SMDMX_ERROR_LIMIT, "the names of $definevariable add up to more than %zu bytes",
		                 SMDMX_QC_MAX_VARIABLE_BYTES);
	r->var_bytes += n;
	if (2 * (r->var_used + n) + 2 > r->var_cap) {
		size_t cap = r->var_cap ? r->var_cap : 64;
		while (2 * (r->var_used + n) + 2 > cap) cap *= 2;
		var_slot *ns = sm_malloc(&r->o->alloc, cap * sizeof(var_slot));
		if (!ns) return sm_fail_oom(r->error);
		for (size_t i = 0; i < cap; i++) ns[i].var = SMDMX_NONE;
		for (size_t i = 0; i < r->var_cap; i++) {
			if (r->var_slots[i].var == SMDMX_NONE) continue;
			size_t k = (size_t)r->var_slots[i].hash & (cap - 1);
			while (ns[k].var != SMDMX_NONE) k = (k + 1) & (cap - 1);
			ns[k] = r->var_slots[i];
		}
		if (r->var_slots) sm_free(&r->o->alloc, r->var_slots, r->var_cap * sizeof(var_slot));
		r->var_slots = ns;
		r->var_cap = cap;
	}
	const qc_var *vars = r->vars.data;
	size_t mask = r->var_cap - 1;
	uint64_t h = VAR_HASH_BASIS;
	for (size_t len = 1; len <= n; len++) {
		h = var_hash_step(h, name[len - 1]);
		for (size_t k = (size_t)h & mask;; k = (k + 1) & mask) {
			var_slot *s = &r->var_slots[k];
			if (s->var == SMDMX_NONE) {
				s->hash = h;
				s->var = v;
				s->len = (uint32_t)len;
				r->var_used++;
				break;
			}
			if (s->hash == h && s->len == len && qc_same_nocase_n(vars[s->var].name, name, len)) break; /* an earlier one has it */
		}
	}
	return true;
}

/* At a '$' of the current script: a "$NAME$" that is a macro parameter or a variable puts its
 * value into the token and moves past it. Returns 1 when it did, 0 when the text stays, -1 on
 * error. */
static int expand_dollar(qr *r, qc_frame *f, bool quoted)
{
	const char *d = fdata(r, f);
	uint32_t p = f->pos + 1;
	while (p < f->end && (unsigned char)d[p] > 32 && d[p] != '$' && (!quoted || d[p] != '"')) p++;
	if (p >= f->end || d[p] != '$') return 0;
	const char *name = d + f->pos + 1;
	size_t len = p - f->pos - 1;
	if (f->macro != SMDMX_NONE) {
		const qc_macro *m = (const qc_macro *)r->macros.data + f->macro;
		for (size_t i = 0; i < m->param_count; i++) {
			if (strlen(m->params[i]) == len && qc_same_nocase_n(m->params[i], name, len)) {
				if (!buf_put(r, f->args[i], strlen(f->args[i]))) return -1;
				f->pos = p + 1;
				return 1;
			}
		}
		if (!quoted && r->vars.count == 0) {
			fail_at(r, f->file, f->line, f->pos - f->line_start + 1, SMDMX_ERROR_SYNTAX,
			        "unknown macro parameter '$%.*s$' in macro '%s'", (int)len, name, m->name);
			return -1;
		}
	}
	/* Variables: the first whose name starts with these letters, as studiomdl compares. */
	uint32_t vi = var_find(r, name, len);
	if (vi != SMDMX_NONE) {
		const qc_var *v = (const qc_var *)r->vars.data + vi;
		if (!buf_put(r, v->value, strlen(v->value))) return -1;
		f->pos = p + 1;
		return 1;
	}
	if (quoted) return 0; /* older studiomdl did not expand inside quotes: the text stays */
	fail_at(r, f->file, f->line, f->pos - f->line_start + 1, SMDMX_ERROR_SYNTAX, "unknown variable '$%.*s$'", (int)len,
	        name);
	return -1;
}

/* Records the token in the buffer; returns its index or SMDMX_NONE. */
static uint32_t add_token(qr *r, const qc_frame *f, uint32_t start, uint32_t end, uint32_t line, uint32_t col,
                          uint8_t flags)
{
	if (r->buf_len > SMDMX_QC_MAX_TOKEN_BYTES) {
		fail_at(r, f->file, line, col, SMDMX_ERROR_LIMIT, "a token of %zu bytes: studiomdl takes at most %zu", r->buf_len,
		        SMDMX_QC_MAX_TOKEN_BYTES);
		return SMDMX_NONE;
	}
	if (r->st->toks.count >= r->max_tokens) {
		fail_at(r, f->file, line, col, SMDMX_ERROR_LIMIT, "more than %zu tokens (macros expanded)", r->max_tokens);
		return SMDMX_NONE;
	}
	const char *text = rdup(r, r->buf ? r->buf : "", r->buf_len);
	qc_tok *t = sm_vec_push(r->o, &r->st->toks, sizeof(qc_tok), r->error);
	if (!text || !t) return SMDMX_NONE;
	t->text = text;
	t->len = (uint32_t)r->buf_len;
	t->file = f->file;
	t->start = start;
	t->end = end;
	t->line = line;
	t->column = col;
	t->flags = flags | (f->macro != SMDMX_NONE ? QTOK_MACRO : 0);
	return (uint32_t)(r->st->toks.count - 1);
}

static int get_token(qr *r, bool crossline, uint32_t *out);

/* $include NAME: the file is read against the main QC's folder (G1). */
static bool do_include(qr *r, uint32_t at)
{
	uint32_t name;
	int got = get_token(r, false, &name);
	if (got < 0) return false;
	if (got == 0) return fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$include needs a file name") || keep_error(r);
	const qc_tok *t = rtok(r, name);
	const char *path = join_path(r, r->st->root, t->text);
	if (!path) return false;
	bool nocase = false;
	char *found = r->fs.find(r->fs.user, path, &nocase);
	if (!found) {
		if (r->error->code) return false;
		return fail_tok(r, name, SMDMX_ERROR_IO, "cannot find '%s' (included as '%s', against the folder of the main QC)", path,
		                t->text) ||
		       keep_include(r, path);
	}
	const char *use = rdup(r, found, strlen(found));
	r->fs.free_data(r->fs.user, found);
	if (!use) return false;
	if (nocase) warn_tok(r, name, SMDMX_WARNING_QC_NOCASE, "'%s' is '%s' when case is ignored (as Windows finds it): read; make the "
			              "spellings match for systems that tell case",
			     t->text, base_name(use));
	/* A file already open on the stack includes itself. */
	for (size_t i = 0; i < r->depth; i++) {
		if (r->frames[i].macro == SMDMX_NONE && !strcmp(rfile(r, r->frames[i].file)->path, use))
			return fail_tok(r, name, SMDMX_ERROR_LIMIT, "'%s' includes itself (through %zu file%s)", use, r->depth - i,
			                r->depth - i == 1 ? "" : "s") ||
			       keep_include(r, NULL);
	}
	if (r->depth >= r->max_depth)
		return fail_tok(r, name, SMDMX_ERROR_LIMIT, "includes nest %zu deep, past the limit of %zu (studiomdl's MAX_INCLUDES)",
		                r->depth + 1, r->max_depth) ||
		       keep_include(r, NULL);
	/* A file included again is read again, from the bytes already kept. */
	uint32_t file = SMDMX_NONE;
	for (size_t i = 1; i < r->files.count && file == SMDMX_NONE; i++)
		if (!strcmp(rfile(r, (uint32_t)i)->path, use)) file = (uint32_t)i;
	if (file == SMDMX_NONE) {
		smdmx_qc_pos pos = { t->file, t->line, t->column };
		bool missing = false;
		file = load_file(r, use, pos, name, &missing);
		if (file == SMDMX_NONE) {
			if (missing) return fail_tok(r, name, SMDMX_ERROR_IO, "cannot read '%s'", use) || keep_include(r, use);
			return keep_include(r, NULL);
		}
	}
	return push_frame(r, file, 0, (uint32_t)rfile(r, file)->size, 1, 0, SMDMX_NONE, NULL, name);
}

/* $definevariable NAME VALUE */
static bool do_variable(qr *r, uint32_t at)
{
	uint32_t name, value;
	int g1 = get_token(r, false, &name);
	if (g1 < 0) return false;
	int g2 = g1 ? get_token(r, false, &value) : 0;
	if (g2 < 0) return false;
	if (!g1 || !g2) return fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$definevariable needs a name and a value");
	qc_var *v = sm_vec_push(r->o, &r->vars, sizeof(*v), r->error);
	if (!v) return false;
	v->name = rtok(r, name)->text;
	v->value = rtok(r, value)->text;
	return var_index(r, (uint32_t)(r->vars.count - 1));
}

/* $definemacro NAME PARAM... \\ then body lines, each ending in \\ but the last. */
static bool do_macro(qr *r, uint32_t at)
{
	uint32_t name;
	int got = get_token(r, false, &name);
	if (got < 0) return false;
	if (!got) return fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$definemacro needs a name");
	qc_frame *f = &r->frames[r->depth - 1];
	sm_vec params = SM_VEC_INIT;
	uint32_t body = f->pos;
	for (;;) {
		int s = skip_space(r, f, false);
		if (s == SKIP_ERROR) return false;
		if (s != SKIP_TOKEN) break;
		const char *d = fdata(r, f);
		if (d[f->pos] == '\\' && f->pos + 1 < f->end && d[f->pos + 1] == '\\') break;
		uint32_t p;
		int g = get_token(r, false, &p);
		if (g < 0) return false;
		if (!g) break;
		const char **slot = sm_vec_push(r->o, &params, sizeof(char *), r->error);
		if (!slot) return false;
		*slot = rtok(r, p)->text;
		body = f->pos;
		if (params.count > 64) return fail_tok(r, p, SMDMX_ERROR_LIMIT, "macro '%s' has more than 64 parameters", rtok(r, name)->text);
	}
	/* The body runs to the end of the first line without "\\". */
	const char *d = fdata(r, f);
	uint32_t cp = body, line = f->line, line_start = f->line_start;
	uint32_t bline = f->line, bline_start = f->line_start;
	while (cp < f->end && d[cp] != '\n') {
		if (d[cp] == '\\' && cp + 1 < f->end && d[cp + 1] == '\\') {
			while (cp < f->end && d[cp] != '\n') cp++;
			if (cp < f->end) {
				cp++;
				line++;
				line_start = cp;
			}
		} else {
			cp++;
		}
	}
	qc_macro *m = sm_vec_push(r->o, &r->macros, sizeof(*m), r->error);
	if (!m) return false;
	m->name = rtok(r, name)->text;
	m->params = params.data;
	m->param_count = params.count;
	m->file = f->file;
	m->start = body;
	m->end = cp;
	m->line = bline;
	m->line_start = bline_start;
	/* the first macro of a name is the one a call finds, as studiomdl looks them up */
	size_t nl = strlen(m->name);
	const char *k = lower_key(r, m->name, nl);
	const char *key = k ? rdup(r, k, nl) : NULL;
	if (!key) return false;
	if (!sm_names_put(&r->o->alloc, &r->macro_index, key, (uint32_t)(r->macros.count - 1), true)) return sm_fail_oom(r->error);
	f->pos = cp;
	f->line = line;
	f->line_start = line_start;
	return true;
}

/* $NAME ARG...: a macro's body on the stack with its arguments. Returns 1 when t names a
 * macro, 0 when not, -1 on error. */
static int do_macro_call(qr *r, uint32_t t)
{
	const qc_tok *k = rtok(r, t);
	if (k->text[0] != '$') return 0;
	const char *key = lower_key(r, k->text + 1, strlen(k->text + 1));
	if (!key) return -1;
	uint32_t i = sm_names_get(&r->macro_index, key);
	if (i == SMDMX_NONE) return 0;
	const qc_macro *ms = r->macros.data;
	/* Reading the arguments may define macros and add tokens: the macro is copied, and no
	 * pointer into either table is kept across a read. */
	qc_macro m = ms[i];
	const char **args = NULL;
	if (m.param_count) {
		args = sm_owned_calloc(r->o, m.param_count, sizeof(char *), r->error);
		if (!args) return -1;
	}
	for (size_t a = 0; a < m.param_count; a++) {
		uint32_t v;
		int g = get_token(r, false, &v);
		if (g < 0) return -1;
		if (!g) {
			fail_tok(r, t, SMDMX_ERROR_SYNTAX, "macro '%s' takes %zu argument%s, given %zu", m.name, m.param_count,
			         m.param_count == 1 ? "" : "s", a);
			return -1;
		}
		args[a] = rtok(r, v)->text;
	}
	return push_frame(r, m.file, m.start, m.end, m.line, m.line_start, i, args, t) ? 1 : -1;
}

/* GetToken: the next token, on this line unless crossline. Returns 1 with *out, 0 when there
 * is none (end of line, or of the QC), -1 on error. $include, $definevariable, $definemacro
 * and macro calls are done here, as studiomdl does them. */
static int get_token(qr *r, bool crossline, uint32_t *out)
{
	if (r->pending) {
		r->pending = false;
		*out = r->pending_tok;
		return 1;
	}
	for (;;) {
		if (r->depth == 0) {
			r->end_of_script = true;
			return 0;
		}
		qc_frame *f = &r->frames[r->depth - 1];
		int s = skip_space(r, f, crossline);
		if (s == SKIP_ERROR) return -1;
		if (s == SKIP_LINE_END) return 0;
		if (s == SKIP_SCRIPT_END) {
			if (!crossline) return 0;
			if (r->depth == 1) {
				r->end_of_script = true;
				return 0;
			}
			r->depth--;
			continue;
		}
		const char *d = fdata(r, f);
		uint32_t start = f->pos, line = f->line, col = f->pos - f->line_start + 1;
		uint8_t flags = 0;
		r->buf_len = 0;
		if (!buf_put(r, "", 0)) return -1;
		if (d[f->pos] == '"') {
			flags |= QTOK_QUOTED;
			f->pos++;
			for (;;) {
				if (f->pos >= f->end)
					return fail_at(r, f->file, line, col, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
				char c = d[f->pos];
				if (c == '"') break;
				if (c == '$') {
					int e = expand_dollar(r, f, true);
					if (e < 0) return -1;
					if (e) {
						flags |= QTOK_EXPANDED;
						continue;
					}
				}
				if (c == '\n') {
					f->line++;
					f->line_start = f->pos + 1;
				}
				if (!buf_put(r, &c, 1)) return -1;
				f->pos++;
			}
			f->pos++;
		} else {
			while (f->pos < f->end && (unsigned char)d[f->pos] > 32 && d[f->pos] != ';') {
				if (d[f->pos] == '$') {
					int e = expand_dollar(r, f, false);
					if (e < 0) return -1;
					if (e) {
						flags |= QTOK_EXPANDED;
						continue;
					}
				}
				if (!buf_put(r, d + f->pos, 1)) return -1;
				f->pos++;
			}
		}
		uint32_t t = add_token(r, f, start, f->pos, line, col, flags);
		if (t == SMDMX_NONE) return -1;
		const char *text = rtok(r, t)->text;
		if (text[0] == '$') {
			if (qc_same_nocase(text, "$include")) {
				if (!do_include(r, t)) return -1;
				continue;
			}
			if (qc_same_nocase(text, "$definemacro")) {
				if (!do_macro(r, t)) return -1;
				continue;
			}
			if (qc_same_nocase(text, "$definevariable")) {
				if (!do_variable(r, t)) return -1;
				continue;
			}
			int m = do_macro_call(r, t);
			if (m < 0) return -1;
			if (m) continue;
		}
		*out = t;
		return 1;
	}
}

static void unget(qr *r, uint32_t t)
{
	r->pending = true;
	r->pending_tok = t;
}

/* TokenAvailable: another token on this line of the current script. */
static bool available(qr *r)
{
	if (r->pending) return true;
	if (r->depth == 0) return false;
	qc_frame *f = &r->frames[r->depth - 1];
	const char *d = fdata(r, f);
	uint32_t p = f->pos;
	for (;;) {
		if (p >= f->end) return false;
		unsigned char c = (unsigned char)d[p];
		if (f->macro != SMDMX_NONE && c == '\\' && p + 1 < f->end && d[p + 1] == '\\') {
			while (p < f->end && d[p] != '\n') p++;
			continue;
		}
		if (c == '\n') return false;
		if (c <= 32) {
			p++;
			continue;
		}
		if (c == ';' || c == '#' || (c == '/' && p + 1 < f->end && d[p + 1] == '/')) return false;
		return true;
	}
}

/* A required token on this line. */
static bool need(qr *r, uint32_t at, const char *what, uint32_t *out)
{
	int g = get_token(r, false, out);
	if (g < 0) return false;
	if (g == 0) {
		const qc_tok *k = rtok(r, at);
		return fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs %s", k->text, what);
	}
	return true;
}

static bool need_number(qr *r, uint32_t at, const char *what, double *out)
{
	uint32_t t;
	SM_CHECK(need(r, at, what, &t));
	const qc_tok *k = rtok(r, t);
	const char *next;
	if (sm_parse_double(k->text, k->text + k->len, out, &next) != SM_NUM_OK || next == k->text)
		return fail_tok(r, t, SMDMX_ERROR_BAD_NUMBER, "'%s' is not a number (%s of '%s')", k->text, what, rtok(r, at)->text);
	if (next != k->text + k->len)
		/* the SDK's studiomdl checks a number's first character and reads it with atof
		 * (verify_atof): Valve's own QCs say "FPS 30s" */
		warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' read as %g, as studiomdl's atof reads it (%s of '%s'); nothing to do", k->text, *out, what,
		         rtok(r, at)->text);
	return true;
}

static bool need_int(qr *r, uint32_t at, const char *what, int32_t *out)
{
	uint32_t t;
	SM_CHECK(need(r, at, what, &t));
	const qc_tok *k = rtok(r, t);
	const char *next;
	int64_t v;
	if (sm_parse_int(k->text, k->text + k->len, &v, &next) != SM_NUM_OK || next != k->text + k->len || v < INT32_MIN ||
	    v > INT32_MAX)
		return fail_tok(r, t, SMDMX_ERROR_BAD_NUMBER, "'%s' is not a whole number (%s of '%s')", k->text, what,
		                rtok(r, at)->text);
	*out = (int32_t)v;
	return true;
}

/* The number of scripts open down to the file the current token is read from (macros on top
 * of it not counted): a block opened there ends, unclosed, where that file ends. */
static size_t file_depth(const qr *r)
{
	size_t d = r->depth;
	while (d > 1 && r->frames[d - 1].macro != SMDMX_NONE) d--;
	return d;
}

/* The next token of a block opened in the file at depth floor (file_depth): 0 where that file
 * ends, as a block an included file opens cannot close in the file that included it (the
 * token after it is left to read). */
static int block_token(qr *r, size_t floor, uint32_t *t)
{
	int g = get_token(r, true, t);
	if (g > 0 && r->depth < floor) {
		unget(r, *t);
		r->resume = true; /* keep_going: reading goes on with it, in the including file */
		return 0;
	}
	return g;
}

/* The rest of the line, and a block that opens on it, unread. */
static bool skip_rest(qr *r)
{
	int depth = 0;
	uint32_t open = SMDMX_NONE;
	size_t floor = 0;
	for (;;) {
		uint32_t t;
		int g = depth > 0 ? block_token(r, floor, &t) : (available(r) ? get_token(r, false, &t) : 0);
		if (g < 0) return false;
		if (g == 0) {
			if (depth > 0) return fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' is never closed");
			return true;
		}
		const char *x = rtok(r, t)->text;
		if (!strcmp(x, "{") && !(rtok(r, t)->flags & QTOK_QUOTED)) {
			if (depth++ == 0) {
				open = t;
				floor = file_depth(r);
			}
		} else if (!strcmp(x, "}") && !(rtok(r, t)->flags & QTOK_QUOTED)) {
			if (depth == 0) return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
			depth--;
		}
	}
}

static bool is_brace(qr *r, uint32_t t, char c)
{
	const qc_tok *k = rtok(r, t);
	return !(k->flags & QTOK_QUOTED) && k->len == 1 && k->text[0] == c;
}

/* A block that starts on a following line ("{" first there), skipped. */
static bool skip_next_block(qr *r)
{
	uint32_t t;
	int g = get_token(r, true, &t);
	if (g <= 0) return g == 0;
	if (!is_brace(r, t, '{')) {
		unget(r, t);
		return true;
	}
	int depth = 1;
	uint32_t open = t;
	size_t floor = file_depth(r);
	while (depth > 0) {
		g = block_token(r, floor, &t);
		if (g < 0) return false;
		if (g == 0) return fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' is never closed");
		if (is_brace(r, t, '{')) depth++;
		else if (is_brace(r, t, '}')) depth--;
	}
	return true;
}

/* keep_going: the bytes of the current script up to its line's end, unread (after an error
 * in the tokens themselves). */
static void skip_raw_line(qr *r)
{
	if (r->depth == 0) return;
	qc_frame *f = &r->frames[r->depth - 1];
	const char *d = fdata(r, f);
	while (f->pos < f->end && d[f->pos] != '\n') f->pos++;
}

/* keep_going: a command that failed costs its line. The error joins the QC's errors and the
 * rest of the line is skipped, with any block that opens on it; in a block (in_block) a '}'
 * that closes it is left to the block. False when the error is not one a line can cost. */
static bool recover_line(qr *r, bool in_block)
{
	if (!keep_error(r)) return false;
	if (r->resume) {
		r->resume = false;
		return true;
	}
	int depth = 0;
	for (;;) {
		uint32_t t;
		int g = depth > 0 ? get_token(r, true, &t) : available(r) ? get_token(r, false, &t) : 0;
		if (g < 0) {
			if (!keep_error(r)) return false;
			skip_raw_line(r);
			if (depth == 0) return true;
			continue;
		}
		if (g == 0) return true;
		if (is_brace(r, t, '{')) {
			depth++;
		} else if (is_brace(r, t, '}')) {
			if (depth > 0) depth--;
			else if (in_block) {
				unget(r, t);
				return true;
			}
		}
	}
}

/* ---- references ------------------------------------------------------------------------------ */

static const char *const model_exts[] = { "smd", "dmx", "sma", "phys", NULL };
static const char *const vta_exts[] = { "vta", NULL };
static const char *const dmx_exts[] = { "dmx", NULL };
static const char *const no_exts[] = { NULL };

/* The current folder for file names: root joined with $cd/$pushd. */
static const char *cur_dir(qr *r)
{
	return r->dir_count ? r->dirs[r->dir_count - 1] : "";
}

/* Records the file named by token t; *out its index. */
static bool add_ref(qr *r, uint32_t t, smdmx_qc_ref_kind kind, const char *command, const char *const *exts, uint32_t *out)
{
	const qc_tok *k = rtok(r, t);
	smdmx_qc_ref ref;
	memset(&ref, 0, sizeof(ref));
	ref.kind = kind;
	ref.command = command;
	ref.name = k->text;
	ref.dir = cur_dir(r);
	ref.model = r->model;
	ref.line_of = SMDMX_NONE;
	ref.pos.file = k->file;
	ref.pos.line = k->line;
	ref.pos.column = k->column;
	const char *base = join_path(r, r->st->root, ref.dir);
	if (!base) return false;
	size_t bl = strlen(base);
	char *dirpart = malloc(bl + 2);
	if (!dirpart) return sm_fail_oom(r->error);
	memcpy(dirpart, base, bl + 1);
	if (bl && dirpart[bl - 1] != '/') memcpy(dirpart + bl, "/", 2);
	const char *plain = join_path(r, dirpart, k->text);
	free(dirpart);
	if (!plain) return false;
	const char *ext = path_ext(k->text);
	if (!*ext && exts[0]) {
		ref.default_extension = true;
		ref.path = NULL;
		for (size_t e = 0; exts[e]; e++) {
			size_t n = strlen(plain) + strlen(exts[e]) + 2;
			char *p = malloc(n);
			if (!p) return sm_fail_oom(r->error);
			snprintf(p, n, "%s.%s", plain, exts[e]);
			bool nocase = false;
			char *found = r->fs.find(r->fs.user, p, &nocase);
			if (!ref.path) ref.path = rdup(r, p, strlen(p));
			free(p);
			if (found) {
				ref.path = rdup(r, found, strlen(found));
				r->fs.free_data(r->fs.user, found);
				ref.found = true;
				ref.nocase = nocase;
				break;
			}
			if (r->error->code || !ref.path) return false;
		}
	} else {
		bool nocase = false;
		char *found = r->fs.find(r->fs.user, plain, &nocase);
		if (found) {
			ref.path = rdup(r, found, strlen(found));
			r->fs.free_data(r->fs.user, found);
			ref.found = true;
			ref.nocase = nocase;
		} else {
			if (r->error->code) return false;
			ref.path = plain;
		}
	}
	if (!ref.path) return false;
	if (ref.nocase) warn_tok(r, t, SMDMX_WARNING_QC_NOCASE, "'%s' is '%s' when case is ignored (as Windows finds it): read; make the "
			               "spellings match for systems that tell case",
			     k->text, base_name(ref.path));
	smdmx_qc_ref *slot = sm_vec_push(r->o, &r->refs, sizeof(*slot), r->error);
	uint32_t *rt = sm_vec_push(r->o, &r->ref_tok, sizeof(uint32_t), r->error);
	if (!slot || !rt) return false;
	*slot = ref;
	*rt = t;
	if (out) *out = (uint32_t)(r->refs.count - 1);
	return true;
}

/* ---- names the rules may use ------------------------------------------------------------------ */

static bool name_known(qr *r, const name_set *v, const char *name)
{
	const char *k = lower_key(r, name, strlen(name));
	return k && sm_names_get(&v->index, k) != SMDMX_NONE;
}

static bool add_name(qr *r, name_set *v, const char *name)
{
	size_t n = strlen(name);
	const char *k = lower_key(r, name, n);
	if (!k) return false;
	if (sm_names_get(&v->index, k) != SMDMX_NONE) return true;
	char *copy = (char *)rdup(r, k, n);
	const char **slot = copy ? sm_vec_push(r->o, &v->list, sizeof(char *), r->error) : NULL;
	if (!slot) return false;
	*slot = name;
	if (!sm_names_put(&r->o->alloc, &v->index, copy, (uint32_t)(v->list.count - 1), true)) return sm_fail_oom(r->error);
	return true;
}

static bool add_name_fmt(qr *r, name_set *v, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);
	if (!s) return sm_fail_oom(r->error);
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	const char *d = rdup(r, s, la + lb);
	free(s);
	return d && add_name(r, v, d);
}

/* ---- the $model block -------------------------------------------------------------------------- */

static smdmx_qc_model *cur_model(qr *r)
{
	return (smdmx_qc_model *)r->models.data + r->model;
}

static qc_model_x *cur_model_x(qr *r)
{
	return (qc_model_x *)r->model_x.data + r->model;
}

static bool add_line(qr *r, uint32_t first, uint32_t last, unsigned kind)
{
	qc_span *s = sm_vec_push(r->o, &cur_model_x(r)->lines, sizeof(*s), r->error);
	if (!s) return false;
	s->first = first;
	s->last = last;
	s->kind = kind;
	return true;
}

static uint32_t last_tok(qr *r)
{
	return (uint32_t)r->st->toks.count - 1;
}

/* flex NAME [VTA] options, flexpair NAME SPLIT [VTA] options, defaultflex [VTA] options
 * (studiomdl's Option_Flex). A VTA is named on the line only outside a block. */
static bool model_flex(qr *r, uint32_t cmd, smdmx_qc_flex_kind kind, int depth)
{
	smdmx_qc_flex fl;
	memset(&fl, 0, sizeof(fl));
	fl.kind = kind;
	fl.position = 1;
	fl.decay = 1;
	fl.frame = 0;
	fl.vta = r->vta;
	const qc_tok *c = rtok(r, cmd);
	fl.pos.file = c->file;
	fl.pos.line = c->line;
	fl.pos.column = c->column;
	if (kind != SMDMX_QC_DEFAULTFLEX) {
		uint32_t n;
		SM_CHECK(need(r, cmd, "a flex name", &n));
		fl.name = rtok(r, n)->text;
	} else {
		fl.name = NULL;
	}
	if (kind == SMDMX_QC_FLEXPAIR) SM_CHECK(need_number(r, cmd, "a split width", &fl.split));
	if (depth == 0) {
		uint32_t v;
		SM_CHECK(need(r, cmd, "a VTA file", &v));
		SM_CHECK(add_ref(r, v, SMDMX_QC_REF_FLEX, "flex", vta_exts, &fl.vta));
	}
	while (available(r)) {
		uint32_t o;
		SM_CHECK(need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (qc_same_nocase(x, "frame")) SM_CHECK(need_int(r, o, "a frame number", &fl.frame));
		else if (qc_same_nocase(x, "position")) SM_CHECK(need_number(r, o, "a position", &fl.position));
		else if (qc_same_nocase(x, "split")) SM_CHECK(need_number(r, o, "a split width", &fl.split));
		else if (qc_same_nocase(x, "decay")) SM_CHECK(need_number(r, o, "a decay", &fl.decay));
		else return fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of '%s'", x, rtok(r, cmd)->text);
	}
	if (fl.frame < 0) return fail_tok(r, cmd, SMDMX_ERROR_BAD_VALUE, "a negative frame number");
	smdmx_qc_flex *slot = sm_vec_push(r->o, &r->flexes, sizeof(*slot), r->error);
	if (!slot) return false;
	*slot = fl;
	if (kind == SMDMX_QC_FLEXPAIR) {
		SM_CHECK(add_name_fmt(r, &r->flex_names, fl.name, "R"));
		SM_CHECK(add_name_fmt(r, &r->flex_names, fl.name, "L"));
	} else {
		SM_CHECK(add_name(r, &r->flex_names, fl.name ? fl.name : "default"));
	}
	return add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_FLEX);
}

/* flexcontroller GROUP [range MIN MAX] NAME... (Option_Flexcontroller). */
static bool model_controller(qr *r, uint32_t cmd)
{
	uint32_t g;
	SM_CHECK(need(r, cmd, "a group", &g));
	double mn = 0, mx = 1;
	while (available(r)) {
		uint32_t t;
		SM_CHECK(need(r, cmd, "a name", &t));
		const char *x = rtok(r, t)->text;
		if (qc_same_nocase(x, "range")) {
			SM_CHECK(need_number(r, t, "a minimum", &mn));
			SM_CHECK(need_number(r, t, "a maximum", &mx));
			continue;
		}
		smdmx_qc_controller *c = sm_vec_push(r->o, &r->controllers, sizeof(*c), r->error);
		if (!c) return false;
		c->group = rtok(r, g)->text;
		c->name = x;
		c->min = mn;
		c->max = mx;
		const qc_tok *k = rtok(r, t);
		c->pos.file = k->file;
		c->pos.line = k->line;
		c->pos.column = k->column;
		SM_CHECK(add_name(r, &r->ctl_names, x));
	}
	return add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_RIG);
}

/* localvar NAME... */
static bool model_localvar(qr *r, uint32_t cmd)
{
	while (available(r)) {
		uint32_t t;
		SM_CHECK(need(r, cmd, "a name", &t));
		smdmx_qc_rule *rule = sm_vec_push(r->o, &r->rules, sizeof(*rule), r->error);
		if (!rule) return false;
		const qc_tok *k = rtok(r, t);
		rule->name = k->text;
		rule->expression = NULL;
		rule->pos.file = k->file;
		rule->pos.line = k->line;
		rule->pos.column = k->column;
		SM_CHECK(add_name(r, &r->flex_names, k->text));
	}
	return add_line(r, cmd, last_tok(r), SMDMX_QC_LINES_RIG);
}

/* ---- flex rules ------------------------------------------------------------------------------- */

/* GetExprToken: C-like tokens (names, numbers, single characters) in the current script. */
typedef struct qc_etok {
	uint32_t start, end;   /* in the frame's file */
	uint32_t line, column;
	char kind;             /* 'n' name, '0' number, 'q' quoted, else the character */
	bool continued;        /* a "\\" line continuation came before it */
} qc_etok;

static int expr_token(qr *r, bool crossline, qc_etok *e)
{
	if (r->depth == 0) return 0;
	qc_frame *f = &r->frames[r->depth - 1];
	int s = skip_space(r, f, crossline);
	if (s == SKIP_ERROR) return -1;
	if (s != SKIP_TOKEN) return 0;
	const char *d = fdata(r, f);
	e->start = f->pos;
	e->line = f->line;
	e->column = f->pos - f->line_start + 1;
	e->continued = false;
	char c = d[f->pos];
	if (c == '"') {
		f->pos++;
		while (f->pos < f->end && d[f->pos] != '"') {
			if (d[f->pos] == '\n') return fail_at(r, f->file, e->line, e->column, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
			f->pos++;
		}
		if (f->pos >= f->end) return fail_at(r, f->file, e->line, e->column, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
		f->pos++;
		e->kind = 'q';
	} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
		while (f->pos < f->end && ((d[f->pos] >= 'a' && d[f->pos] <= 'z') || (d[f->pos] >= 'A' && d[f->pos] <= 'Z') ||
		                           sm_is_digit(d[f->pos]) || d[f->pos] == '_'))
			f->pos++;
		e->kind = 'n';
	} else if (sm_is_digit(c) || c == '.') {
		while (f->pos < f->end && (sm_is_digit(d[f->pos]) || d[f->pos] == '.')) f->pos++;
		e->kind = '0';
	} else {
		f->pos++;
		e->kind = c;
	}
	e->end = f->pos;
	return 1;
}

typedef struct qc_expr {
	qr *r;
	const qc_etok *t;
	size_t n, i;
	uint32_t file;
	const char *data;
	bool check;            /* names must be known controllers and flexes */
	int depth;
} qc_expr;

static bool expr_fail(qc_expr *x, size_t i, const char *fmt, ...) SM_PRINTF(3, 4);
static bool expr_fail(qc_expr *x, size_t i, const char *fmt, ...)
{
	const qc_etok *t = i < x->n ? &x->t[i] : &x->t[x->n - 1];
	uint32_t col = i < x->n ? t->column : t->column + (t->end - t->start);
	va_list ap;
	va_start(ap, fmt);
	vfail_at(x->r, x->file, t->line, col, SMDMX_ERROR_SYNTAX, fmt, ap);
	va_end(ap);
	return false;
}

static bool etok_is(const qc_expr *x, size_t i, const char *word)
{
	if (i >= x->n || x->t[i].kind != 'n') return false;
	size_t len = x->t[i].end - x->t[i].start;
	return strlen(word) == len && qc_same_nocase_n(x->data + x->t[i].start, word, len);
}

static bool parse_sum(qc_expr *x);

/* primary: number | name | %flex | ( sum ) | min ( sum , sum ) | max ( sum , sum ) | - primary */
static bool parse_primary(qc_expr *x)
{
	if (x->i >= x->n) return expr_fail(x, x->i, "the rule ends where a value should be");
	const qc_etok *t = &x->t[x->i];
	char name[128];
	size_t len = t->end - t->start;
	if (t->kind == '-') {
		x->i++;
		return parse_primary(x);
	}
	if (t->kind == '0') {
		if (!sm_is_digit(x->data[t->start])) return expr_fail(x, x->i, "a number must start with a digit (studiomdl reads '%.*s' as a controller)", (int)len, x->data + t->start);
		double v;
		const char *next;
		if (sm_parse_double(x->data + t->start, x->data + t->end, &v, &next) != SM_NUM_OK || next != x->data + t->end)
			return expr_fail(x, x->i, "'%.*s' is not a number", (int)len, x->data + t->start);
		x->i++;
		return true;
	}
	if (t->kind == '(') {
		size_t open = x->i++;
		if (++x->depth > 64) return expr_fail(x, x->i, "parentheses nested more than 64 deep");
		SM_CHECK(parse_sum(x));
		x->depth--;
		if (x->i >= x->n || x->t[x->i].kind != ')') return expr_fail(x, open, "a '(' that is not closed");
		x->i++;
		return true;
	}
	if (t->kind == '%') {
		x->i++;
		if (x->i >= x->n || (x->t[x->i].kind != 'n' && x->t[x->i].kind != 'q'))
			return expr_fail(x, x->i, "'%%' must be followed by a flex name");
		const qc_etok *nt = &x->t[x->i];
		bool q = nt->kind == 'q';
		size_t nl = nt->end - nt->start - (q ? 2 : 0);
		if (x->check) {
			if (nl >= sizeof(name)) nl = sizeof(name) - 1;
			memcpy(name, x->data + nt->start + (q ? 1 : 0), nl);
			name[nl] = 0;
			if (!name_known(x->r, &x->r->flex_names, name)) return expr_fail(x, x->i, "unknown flex '%s'", name);
		}
		x->i++;
		return true;
	}
	if (t->kind == 'q') {
		if (x->check) {
			size_t ql = len - 2;
			if (ql >= sizeof(name)) ql = sizeof(name) - 1;
			memcpy(name, x->data + t->start + 1, ql);
			name[ql] = 0;
			if (!name_known(x->r, &x->r->ctl_names, name)) return expr_fail(x, x->i, "unknown controller '%s'", name);
		}
		x->i++;
		return true;
	}
	if (t->kind == 'n') {
		if (etok_is(x, x->i, "min") || etok_is(x, x->i, "max")) {
			size_t fn = x->i++;
			if (x->i >= x->n || x->t[x->i].kind != '(') return expr_fail(x, x->i, "'%.*s' must be followed by '('", (int)len, x->data + t->start);
			size_t open = x->i++;
			if (++x->depth > 64) return expr_fail(x, x->i, "parentheses nested more than 64 deep");
			SM_CHECK(parse_sum(x));
			if (x->i >= x->n || x->t[x->i].kind != ',') return expr_fail(x, x->i, "'%.*s' takes two values separated by ','", (int)(x->t[fn].end - x->t[fn].start), x->data + x->t[fn].start);
			x->i++;
			SM_CHECK(parse_sum(x));
			x->depth--;
			if (x->i >= x->n || x->t[x->i].kind != ')') return expr_fail(x, open, "a '(' that is not closed");
			x->i++;
			return true;
		}
		if (x->check) {
			if (len >= sizeof(name)) len = sizeof(name) - 1;
			memcpy(name, x->data + t->start, len);
			name[len] = 0;
			if (!name_known(x->r, &x->r->ctl_names, name)) return expr_fail(x, x->i, "unknown controller '%s'", name);
		}
		x->i++;
		return true;
	}
	return expr_fail(x, x->i, "'%.*s' where a value should be", (int)len, x->data + t->start);
}

static bool parse_product(qc_expr *x)
{
	SM_CHECK(parse_primary(x));
	while (x->i < x->n && (x->t[x->i].kind == '*' || x->t[x->i].kind == '/')) {
		x->i++;
		SM_CHECK(parse_primary(x));
	}
	return true;
}

static bool parse_sum(qc_expr *x)
{
	SM_CHECK(parse_product(x));
	while (x->i < x->n && (x->t[x->i].kind == '+' || x->t[x->i].kind == '-')) {
		x->i++;
		SM_CHECK(parse_product(x));
	}
	return true;
}

/* %NAME = EXPR (Option_Flexrule): the expression's text is kept as written, lines continued
 * with "\\" joined by a space. */
static bool model_rule(qr *r, uint32_t cmd)
{
	const qc_tok *c = rtok(r, cmd);
	const char *name = c->text + 1;
	if (!*name) return fail_tok(r, cmd, SMDMX_ERROR_SYNTAX, "a rule without a flex name after '%%'");
	bool check = !r->model_unchecked && !r->lost;
	if (check && !name_known(r, &r->flex_names, name)) return fail_tok(r, cmd, SMDMX_ERROR_SYNTAX, "a rule for unknown flex '%s'", name);
	uint32_t eq;
	SM_CHECK(need(r, cmd, "'=' and an expression", &eq));
	if (strcmp(rtok(r, eq)->text, "=")) return fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "expected '=' after '%s'", rtok(r, cmd)->text);
	if (r->depth == 0) return fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "a rule without an expression");
	qc_frame *f = &r->frames[r->depth - 1];
	uint32_t file = f->file;
	sm_vec toks = SM_VEC_INIT;
	bool cont = false;
	for (;;) {
		if (!cont && !available(r)) break;
		qc_etok e;
		int g = expr_token(r, cont, &e);
		if (g < 0) return false;
		if (g == 0) break;
		e.continued = cont;
		cont = false;
		if (e.kind == '\\') {
			qc_etok e2;
			int g2 = expr_token(r, false, &e2);
			if (g2 < 0) return false;
			if (g2 == 0 || e2.kind != '\\' || e2.start != e.end)
				return fail_at(r, file, e.line, e.column, SMDMX_ERROR_SYNTAX, "a single '\\' in a rule ('\\\\' continues it on the next line)");
			cont = true;
			continue;
		}
		if (toks.count >= 4096) return fail_at(r, file, e.line, e.column, SMDMX_ERROR_LIMIT, "a rule of more than 4096 tokens");
		qc_etok *slot = sm_vec_push(r->o, &toks, sizeof(e), r->error);
		if (!slot) return false;
		*slot = e;
	}
	qc_expr x = { r, toks.data, toks.count, 0, file, rfile(r, file)->data, check, 0 };
	if (toks.count == 0) return fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "a rule without an expression");
	SM_CHECK(parse_sum(&x));
	if (x.i < x.n) {
		const qc_etok *t = &x.t[x.i];
		return expr_fail(&x, x.i, "'%.*s' where an operator or the rule's end should be", (int)(t->end - t->start),
		                 x.data + t->start);
	}
	/* The text: bytes as written between tokens on a line, one space for a continuation. */
	r->buf_len = 0;
	SM_CHECK(buf_put(r, "", 0));
	for (size_t i = 0; i < toks.count; i++) {
		const qc_etok *t = &x.t[i];
		if (i) {
			if (t->continued) SM_CHECK(buf_put(r, " ", 1));
			else SM_CHECK(buf_put(r, x.data + x.t[i - 1].end, t->start - x.t[i - 1].end));
		}
		SM_CHECK(buf_put(r, x.data + t->start, t->end - t->start));
	}
	smdmx_qc_rule *rule = sm_vec_push(r->o, &r->rules, sizeof(*rule), r->error);
	if (!rule) return false;
	rule->name = name;
	rule->expression = rdup(r, r->buf, r->buf_len);
	if (!rule->expression) return false;
	c = rtok(r, cmd); /* the tokens read since may have moved it */
	rule->pos.file = c->file;
	rule->pos.line = c->line;
	rule->pos.column = c->column;
	/* The rule's last raw byte: a token standing for it keeps the line removable. */
	const qc_etok *lt = &x.t[x.n - 1];
	r->buf_len = 0;
	SM_CHECK(buf_put(r, "", 0));
	uint32_t end_tok = add_token(r, f, lt->start, lt->end, lt->line, lt->column, 0);
	if (end_tok == SMDMX_NONE) return false;
	return add_line(r, cmd, end_tok, SMDMX_QC_LINES_RIG);
}

/* eyelid TYPE VTA lowerer F T neutral F T raiser F T split S eyeball NAME */
static bool model_eyelid(qr *r, uint32_t cmd)
{
	uint32_t type, vta;
	SM_CHECK(need(r, cmd, "an eyelid name", &type));
	SM_CHECK(need(r, cmd, "a VTA file", &vta));
	SM_CHECK(add_ref(r, vta, SMDMX_QC_REF_FLEX, "eyelid", vta_exts, NULL));
	const char *tn = rtok(r, type)->text;
	SM_CHECK(add_name(r, &r->flex_names, tn));
	while (available(r)) {
		uint32_t o;
		SM_CHECK(need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (qc_same_nocase(x, "lowerer") || qc_same_nocase(x, "neutral") || qc_same_nocase(x, "raiser")) {
			int32_t frame;
			double target;
			SM_CHECK(need_int(r, o, "a frame number", &frame));
			SM_CHECK(need_number(r, o, "a target", &target));
			size_t lt = strlen(tn), lx = strlen(x);
			char *s = malloc(lt + lx + 2);
			if (!s) return sm_fail_oom(r->error);
			memcpy(s, tn, lt);
			s[lt] = '_';
			memcpy(s + lt + 1, x, lx + 1);
			const char *d = rdup(r, s, lt + lx + 1);
			free(s);
			if (!d || !add_name(r, &r->flex_names, d)) return false;
		} else if (qc_same_nocase(x, "split")) {
			double s;
			SM_CHECK(need_number(r, o, "a split", &s));
		} else if (qc_same_nocase(x, "eyeball")) {
			uint32_t e;
			SM_CHECK(need(r, o, "an eyeball name", &e));
		} else {
			return fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of 'eyelid'", x);
		}
	}
	return true;
}

/* One option of a $model block: token t and the rest of its line; *depth counts braces. */
static bool model_option(qr *r, uint32_t t, int *depth)
{
	qc_model_x *mx = cur_model_x(r);
	const qc_tok *k = rtok(r, t);
	const char *x = k->text;
	bool quoted = k->flags & QTOK_QUOTED;
	if (!quoted && !strcmp(x, "{")) {
		if (*depth > 0 && *depth <= QC_MAX_BLOCKS) r->block_open[*depth - 1] = t;
		if ((*depth)++ == 0 && mx->open == SMDMX_NONE) mx->open = t;
		cur_model(r)->has_block = true;
	} else if (!quoted && !strcmp(x, "}")) {
		if (*depth > 1 && *depth - 1 <= QC_MAX_BLOCKS) {
			/* a block inside the block (a flexfile's): removed with the lines it holds */
			qc_span *b = sm_vec_push(r->o, &mx->blocks, sizeof(*b), r->error);
			if (!b) return false;
			b->first = r->block_open[*depth - 2];
			b->last = t;
			b->kind = 0;
		}
		(*depth)--;
		mx->last = t;
	} else if (qc_same_nocase(x, "eyeball") || qc_same_nocase(x, "spherenormals")) {
		cur_model(r)->qc_only_count++;
		SM_CHECK(skip_rest(r));
	} else if (qc_same_nocase(x, "eyelid")) {
		cur_model(r)->qc_only_count++;
		SM_CHECK(model_eyelid(r, t));
	} else if (qc_same_nocase(x, "dmxeyelid") || qc_same_nocase(x, "vcafile")) {
		/* They name flexes that only their files hold: rules cannot be checked. */
		cur_model(r)->qc_only_count++;
		r->model_unchecked = true;
		bool dmx = qc_same_nocase(x, "dmxeyelid");
		uint32_t f;
		if (dmx) SM_CHECK(need(r, t, "upper or lower", &f));
		SM_CHECK(need(r, t, "a file", &f));
		SM_CHECK(add_ref(r, f, SMDMX_QC_REF_FLEX, dmx ? "dmxeyelid" : "vcafile", dmx ? dmx_exts : vta_exts, NULL));
		SM_CHECK(skip_rest(r));
	} else if (qc_same_nocase(x, "mouth")) {
		cur_model(r)->qc_only_count++;
		uint32_t n, f;
		SM_CHECK(need(r, t, "a mouth number", &n));
		SM_CHECK(need(r, t, "a flex name", &f));
		SM_CHECK(add_name(r, &r->flex_names, rtok(r, f)->text));
		SM_CHECK(skip_rest(r));
	} else if (qc_same_nocase(x, "flex")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_FLEX, *depth));
	} else if (qc_same_nocase(x, "flexpair")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_FLEXPAIR, *depth));
	} else if (qc_same_nocase(x, "defaultflex")) {
		SM_CHECK(model_flex(r, t, SMDMX_QC_DEFAULTFLEX, *depth));
	} else if (qc_same_nocase(x, "flexfile")) {
		uint32_t f;
		SM_CHECK(need(r, t, "a VTA file", &f));
		SM_CHECK(add_ref(r, f, SMDMX_QC_REF_FLEX, "flexfile", vta_exts, &r->vta));
		SM_CHECK(add_line(r, t, f, SMDMX_QC_LINES_FLEX));
	} else if (qc_same_nocase(x, "localvar")) {
		SM_CHECK(model_localvar(r, t));
	} else if (qc_same_nocase(x, "flexcontroller")) {
		SM_CHECK(model_controller(r, t));
	} else if (x[0] == '%') {
		SM_CHECK(model_rule(r, t));
	} else if (qc_same_nocase(x, "attachment")) {
		SM_CHECK(skip_rest(r)); /* studiomdl ignores it here */
	} else if (qc_same_nocase(x, "noautodmxrules")) {
		cur_model(r)->noautodmxrules = true;
		SM_CHECK(add_line(r, t, t, SMDMX_QC_LINES_NOAUTODMXRULES));
	} else {
		return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "unknown $model option '%s'", x);
	}
	return true;
}

/* The options of a $model block (Option_Model). */
static bool model_block(qr *r, uint32_t cmd)
{
	qc_model_x *mx = cur_model_x(r);
	int depth = 0;
	for (;;) {
		uint32_t t;
		int g;
		if (depth > 0) {
			g = get_token(r, true, &t);
			if (g == 0) return fail_tok(r, mx->open, SMDMX_ERROR_UNTERMINATED, "this '{' of $model '%s' is never closed", cur_model(r)->name);
		} else {
			if (!available(r)) {
				/* studiomdl takes a block only when "{" is on the $model line; a block on the next
				 * line is read too, with a warning. */
				if (mx->open != SMDMX_NONE) break;
				g = get_token(r, true, &t);
				if (g < 0) return false;
				if (g == 0) break;
				if (!is_brace(r, t, '{')) {
					unget(r, t);
					break;
				}
				warn_tok(r, t, SMDMX_WARNING_QC_BENT, "the block of $model '%s' starts on the next line: read as its block, but studiomdl reads a block only when '{' is on the $model line; move the '{' up", cur_model(r)->name);
			} else {
				g = get_token(r, false, &t);
			}
		}
		if (g < 0) {
			if (!recover_line(r, depth > 0)) return false;
			continue;
		}
		/* what looked like a token was none (a variable defined there): studiomdl's "line
		 * incomplete" */
		if (g == 0) return fail_here(r, SMDMX_ERROR_SYNTAX, "'$model' needs an option");
		if (!model_option(r, t, &depth)) {
			if (!recover_line(r, depth > 0)) return false;
			if (depth == 0 && mx->open != SMDMX_NONE) break;
			continue;
		}
		if (depth < 0) return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
		if (depth == 0 && mx->open != SMDMX_NONE && !available(r)) break;
	}
	(void)cmd;
	return true;
}

/* The file of $body, $model and studio, and its options (Option_Studio). */
static bool studio_file(qr *r, uint32_t cmd, const char *command, uint32_t *ref)
{
	uint32_t f;
	SM_CHECK(need(r, cmd, "a file", &f));
	SM_CHECK(add_ref(r, f, SMDMX_QC_REF_MODEL, command, model_exts, ref));
	while (available(r)) {
		uint32_t o;
		SM_CHECK(need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (is_brace(r, o, '{')) {
			unget(r, o);
			break;
		}
		if (qc_same_nocase(x, "reverse")) continue;
		if (qc_same_nocase(x, "scale") || qc_same_nocase(x, "faces") || qc_same_nocase(x, "bias")) {
			uint32_t v;
			SM_CHECK(need(r, o, "a value", &v));
			if (qc_same_nocase(x, "scale"))
				warn_tok(r, o, SMDMX_WARNING_QC_BENT, "'scale' on the '%s' line: the QC keeps it for studiomdl, and smd2dmx --qc applies only $scale; nothing to do", rtok(r, cmd)->text);
			continue;
		}
		return fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of '%s'", x, rtok(r, cmd)->text);
	}
	return true;
}

static bool finish_model(qr *r)
{
	if (r->model == SMDMX_NONE) return true;
	smdmx_qc_model *m = cur_model(r);
	m->flexes = r->flexes.data;
	m->flex_count = r->flexes.count;
	m->controllers = r->controllers.data;
	m->controller_count = r->controllers.count;
	m->rules = r->rules.data;
	m->rule_count = r->rules.count;
	m->flexdesc_count = r->flex_names.list.count;
	sm_vec empty = SM_VEC_INIT;
	r->flexes = r->controllers = r->rules = empty;
	r->model = SMDMX_NONE;
	r->vta = SMDMX_NONE;
	r->model_unchecked = false;
	return true;
}

/* $model NAME FILE [options] [{ ... }] (Cmd_Model). */
static bool cmd_model(qr *r, uint32_t cmd)
{
	uint32_t n;
	SM_CHECK(need(r, cmd, "a name", &n));
	smdmx_qc_model *m = sm_vec_push(r->o, &r->models, sizeof(*m), r->error);
	qc_model_x *mx = sm_vec_push(r->o, &r->model_x, sizeof(*mx), r->error);
	if (!m || !mx) return false;
	memset(m, 0, sizeof(*m));
	memset(mx, 0, sizeof(*mx));
	sm_vec empty = SM_VEC_INIT;
	mx->lines = mx->blocks = empty;
	mx->command = cmd;
	mx->open = SMDMX_NONE;
	m->name = rtok(r, n)->text;
	m->ref = SMDMX_NONE; /* until its file is read */
	m->scale = r->scale;
	m->up_axis = r->up_axis;
	const qc_tok *c = rtok(r, cmd);
	m->pos.file = c->file;
	m->pos.line = c->line;
	m->pos.column = c->column;
	r->model = (uint32_t)(r->models.count - 1);
	r->vta = SMDMX_NONE;
	uint32_t ref;
	SM_CHECK(studio_file(r, cmd, "$model", &ref));
	m = cur_model(r);
	m->ref = ref;
	const smdmx_qc_ref *rf = (const smdmx_qc_ref *)r->refs.data + ref;
	r->model_unchecked = qc_same_nocase(path_ext(rf->path), "dmx");
	cur_model_x(r)->last = last_tok(r);
	SM_CHECK(model_block(r, cmd));
	return finish_model(r);
}

/* $bodygroup NAME { studio FILE [options] | blank ... } */
static bool cmd_bodygroup(qr *r, uint32_t cmd)
{
	uint32_t n, t;
	SM_CHECK(need(r, cmd, "a name", &n));
	int g = get_token(r, true, &t);
	if (g < 0) return false;
	if (g == 0 || !is_brace(r, t, '{')) return fail_here(r, SMDMX_ERROR_SYNTAX, "$bodygroup needs a '{' block");
	uint32_t open = t;
	for (;;) {
		g = get_token(r, true, &t);
		if (g < 0) return false;
		if (g == 0) return fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of $bodygroup is never closed");
		if (is_brace(r, t, '}')) return true;
		const char *x = rtok(r, t)->text;
		if (qc_same_nocase(x, "studio")) SM_CHECK(studio_file(r, t, "studio", NULL));
		else if (qc_same_nocase(x, "blank")) continue;
		else return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "unknown $bodygroup option '%s'", x);
	}
}

/* $lod N { replacemodel OLD NEW [reverse] ... } and $shadowlod { ... } */
static bool cmd_lod(qr *r, uint32_t cmd, bool shadow)
{
	uint32_t t;
	if (!shadow) SM_CHECK(need(r, cmd, "a distance", &t));
	int g = get_token(r, true, &t);
	if (g < 0) return false;
	if (g == 0 || !is_brace(r, t, '{')) return fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs a '{' block", rtok(r, cmd)->text);
	uint32_t open = t;
	int depth = 1;
	while (depth > 0) {
		g = get_token(r, true, &t);
		if (g < 0) return false;
		if (g == 0) return fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of '%s' is never closed", rtok(r, cmd)->text);
		if (is_brace(r, t, '{')) {
			depth++;
			continue;
		}
		if (is_brace(r, t, '}')) {
			depth--;
			continue;
		}
		if (qc_same_nocase(rtok(r, t)->text, "replacemodel")) {
			uint32_t old, neu, ref;
			SM_CHECK(need(r, t, "the model it replaces", &old));
			SM_CHECK(need(r, t, "a file", &neu));
			SM_CHECK(add_ref(r, neu, SMDMX_QC_REF_MODEL, "replacemodel", model_exts, &ref));
			/* OLD names a model's file: it follows that file's renaming. */
			const char *on = rtok(r, old)->text;
			const smdmx_qc_ref *refs = r->refs.data;
			uint32_t of = SMDMX_NONE;
			for (size_t i = 0; i < r->refs.count && of == SMDMX_NONE; i++) {
				if (refs[i].kind != SMDMX_QC_REF_MODEL || i == ref) continue;
				const char *a = refs[i].name;
				size_t la = strlen(a), lo = strlen(on);
				const char *ea = path_ext(a);
				size_t sa = *ea ? (size_t)(ea - a - 1) : la;
				const char *eo = path_ext(on);
				size_t so = *eo ? (size_t)(eo - on - 1) : lo;
				if (sa == so && qc_same_nocase_n(a, on, sa)) of = (uint32_t)i;
			}
			((smdmx_qc_ref *)r->refs.data)[ref].line_of = of;
			SM_CHECK(skip_rest(r));
			continue;
		}
		SM_CHECK(skip_rest(r));
	}
	return true;
}

/* The words of $sequence and $animation and how many values follow each (ParseSequence,
 * ParseAnimationToken, ParseCmdlistToken). */
typedef struct qc_word {
	const char *word;
	signed char args;      /* -1: to the end of the line */
	unsigned char prefix;  /* compared on this many letters (studiomdl's strnicmp), 0: whole word */
	bool sequence_only;
} qc_word;

static const qc_word anim_words[] = {
	{ "fps", 1, 0, false },        { "origin", 3, 0, false },      { "rotate", 1, 0, false },
	{ "angles", 3, 0, false },     { "scale", 1, 0, false },       { "loop", 0, 4, false },
	{ "startloop", 1, 5, false },  { "fudgeloop", 0, 0, false },   { "snap", 0, 4, false },
	{ "frame", 2, 5, false },      { "post", 0, 0, false },        { "noautoik", 0, 0, false },
	{ "autoik", 0, 0, false },     { "fixuploop", 2, 0, false },   { "weightlist", 1, 6, false },
	{ "subtract", 2, 0, false },   { "presubtract", 2, 0, false }, { "alignto", 1, 0, false },
	{ "alignboneto", 2, 0, false }, { "match", 1, 0, false },      { "matchblend", 5, 0, false },
	{ "worldspaceblend", 1, 0, false }, { "worldspaceblendloop", 2, 0, false }, { "rotateto", 1, 0, false },
	{ "ikrule", -1, 0, false },    { "ikfixup", -1, 0, false },    { "derivative", 1, 0, false },
	{ "noanimation", 0, 0, false }, { "lineardelta", 0, 0, false }, { "splinedelta", 0, 0, false },
	{ "compress", 1, 0, false },   { "numframes", 1, 0, false },   { "counterrotate", 1, 0, false },
	{ "counterrotateto", 4, 0, false }, { "cmdlist", 1, 0, false },
	/* with motion controls after them: to the end of the line is near enough */
	{ "align", -1, 0, false },     { "walkframe", -1, 0, false },  { "walkalignto", -1, 0, false },
	{ "walkalign", -1, 0, false },
	{ "x", 0, 0, false },  { "y", 0, 0, false },  { "z", 0, 0, false },  { "xr", 0, 0, false },
	{ "yr", 0, 0, false }, { "zr", 0, 0, false }, { "lx", 0, 0, false }, { "ly", 0, 0, false },
	{ "lz", 0, 0, false }, { "lxr", 0, 0, false }, { "lyr", 0, 0, false }, { "lzr", 0, 0, false },
	{ "lm", 0, 0, false }, { "lq", 0, 0, false },
	{ NULL, 0, 0, false },
};

static const qc_word seq_words[] = {
	{ "activity", 2, 0, true },    { "activitymodifier", 1, 0, true }, { "snap", 0, 0, true },
	{ "blendwidth", 1, 0, true },  { "blend", 3, 0, true },        { "calcblend", 3, 0, true },
	{ "blendref", 1, 0, true },    { "blendcomp", 1, 0, true },    { "blendcenter", 1, 0, true },
	{ "node", 1, 0, true },        { "transition", 2, 0, true },   { "rtransition", 2, 0, true },
	{ "exitphase", 1, 0, true },   { "delta", 0, 0, true },        { "worldspace", 0, 0, true },
	{ "post", 0, 0, true },        { "predelta", 0, 0, true },     { "autoplay", 0, 0, true },
	{ "fadein", 1, 0, true },      { "fadeout", 1, 0, true },      { "realtime", 0, 0, true },
	{ "hidden", 0, 0, true },      { "addlayer", 1, 0, true },     { "iklock", 3, 0, true },
	{ "blendlayer", -1, 0, true },
	{ NULL, 0, 0, false },
};

static const qc_word *find_word(const qc_word *list, const char *x)
{
	for (const qc_word *w = list; w->word; w++) {
		if (w->prefix ? qc_same_nocase_n(w->word, x, w->prefix) && strlen(x) >= w->prefix : qc_same_nocase(w->word, x)) return w;
	}
	return NULL;
}

static bool anim_known(qr *r, const char *name)
{
	return name_known(r, &r->anims, name);
}

/* Skips a word's values; "if" and "keyvalues" blocks and "event" as studiomdl reads them.
 * *depth_change gets -1 when an event's options were the block's "}". */
static bool skip_word(qr *r, uint32_t t, const qc_word *w)
{
	if (w->args < 0) {
		while (available(r)) {
			uint32_t v;
			SM_CHECK(need(r, t, "a value", &v));
			if (is_brace(r, v, '{') || is_brace(r, v, '}')) {
				unget(r, v);
				break;
			}
		}
		return true;
	}
	for (int i = 0; i < w->args; i++) {
		uint32_t v;
		SM_CHECK(need(r, t, "a value", &v));
	}
	return true;
}

/* $sequence NAME ... and $animation NAME FILE ... */
static bool cmd_sequence(qr *r, uint32_t cmd, bool animation)
{
	uint32_t n;
	SM_CHECK(need(r, cmd, "a name", &n));
	const char *seq = rtok(r, n)->text;
	size_t blends = 0;
	if (animation) {
		uint32_t f;
		SM_CHECK(need(r, cmd, "a file", &f));
		SM_CHECK(add_ref(r, f, SMDMX_QC_REF_ANIMATION, "$animation", model_exts, NULL));
		((smdmx_qc_ref *)r->refs.data)[r->refs.count - 1].sequence = seq;
		blends = 1;
		/* a $sequence names $animations; its own name and other sequences' are no animation
		 * to it (ParseSequence looks among g_panimation only) */
		SM_CHECK(add_name(r, &r->anims, seq));
	}
	int depth = 0;
	uint32_t open = SMDMX_NONE;
	for (;;) {
		uint32_t t;
		int g;
		if (depth > 0) {
			g = get_token(r, true, &t);
			if (g == 0) return fail_tok(r, open, SMDMX_ERROR_UNTERMINATED, "this '{' of '%s' is never closed", seq);
		} else {
			if (!available(r)) break;
			g = get_token(r, false, &t);
		}
		if (g < 0) return false;
		if (g == 0) return fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs an option", rtok(r, cmd)->text); /* as above */
		const char *x = rtok(r, t)->text;
		if (is_brace(r, t, '{')) {
			if (depth++ == 0) open = t;
			continue;
		}
		if (is_brace(r, t, '}')) {
			if (--depth < 0) return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
			continue;
		}
		if (qc_same_nocase(x, "if")) {
			uint32_t v;
			SM_CHECK(need(r, t, "a condition", &v));
			continue;
		}
		if (qc_same_nocase(x, "keyvalues")) {
			SM_CHECK(skip_rest(r));
			SM_CHECK(skip_next_block(r));
			continue;
		}
		if (!animation && qc_same_nocase(x, "event")) {
			uint32_t v;
			SM_CHECK(need(r, t, "an event", &v));
			SM_CHECK(need(r, t, "a frame", &v));
			if (available(r)) {
				SM_CHECK(need(r, t, "options", &v));
				if (is_brace(r, v, '}')) depth--;
			}
			continue;
		}
		if (!animation && !strncmp(x, "ACT_", 4)) {
			uint32_t v;
			SM_CHECK(need(r, t, "a weight", &v));
			continue;
		}
		const qc_word *w = animation ? NULL : find_word(seq_words, x);
		if (!w && (animation || blends)) w = find_word(anim_words, x);
		if (w && qc_same_nocase(w->word, "fps")) {
			double fps;
			SM_CHECK(need_number(r, t, "frames per second", &fps));
			/* the animations of this command read so far take it */
			smdmx_qc_ref *rs = r->refs.data;
			for (size_t k = r->refs.count; k-- > 0 && rs[k].sequence == seq;) rs[k].fps = fps;
			continue;
		}
		if (w) {
			SM_CHECK(skip_word(r, t, w));
			continue;
		}
		if (animation) continue; /* studiomdl refuses an unknown option; the QC keeps it as written */
		/* An animation: one named before, else a file. */
		blends++;
		if (anim_known(r, x)) continue;
		SM_CHECK(add_ref(r, t, SMDMX_QC_REF_ANIMATION, "$sequence", model_exts, NULL));
		smdmx_qc_ref *rf = (smdmx_qc_ref *)r->refs.data + r->refs.count - 1;
		rf->sequence = seq;
		if (!rf->found && blends > 1) {
			/* Past the first: maybe an option smdmx does not know. The QC keeps it as written. */
			warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' in $sequence '%s' is no option smdmx knows, no animation and no file: kept as written; check it if it names a file", x, seq);
			r->refs.count--;
			r->ref_tok.count--;
		} else if (!rf->found && r->lost) {
			/* keep_going: an include that went unread may have declared it */
			warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' in $sequence '%s' is no animation read and no file: maybe one declared where the QC could not be read; kept as written; fix that error first", x, seq);
			r->refs.count--;
			r->ref_tok.count--;
		}
	}
	if (blends == 0) return fail_tok(r, n, SMDMX_ERROR_SYNTAX, "$sequence '%s' names no animation", seq);
	return true;
}

/* $attachment NAME BONE X Y Z [absolute] [rigid] [world_align] [rotate P Y R] [x_and_z_axes ...] */
static bool cmd_attachment(qr *r, uint32_t cmd)
{
	smdmx_qc_attachment a;
	memset(&a, 0, sizeof(a));
	uint32_t n, b;
	SM_CHECK(need(r, cmd, "a name", &n));
	SM_CHECK(need(r, cmd, "a bone", &b));
	for (int i = 0; i < 3; i++) SM_CHECK(need_number(r, cmd, "a position", &a.position[i]));
	for (int i = 0; i < 3; i++) a.position[i] *= r->scale;
	a.name = rtok(r, n)->text;
	a.bone = rtok(r, b)->text;
	const qc_tok *c = rtok(r, cmd);
	a.pos.file = c->file;
	a.pos.line = c->line;
	a.pos.column = c->column;
	while (available(r)) {
		uint32_t o;
		SM_CHECK(need(r, cmd, "an option", &o));
		const char *x = rtok(r, o)->text;
		if (qc_same_nocase(x, "absolute")) a.absolute = true;
		else if (qc_same_nocase(x, "rigid")) a.rigid = true;
		else if (qc_same_nocase(x, "world_align")) a.world_align = true;
		else if (qc_same_nocase(x, "rotate")) {
			a.rotate = true;
			for (int i = 0; i < 3 && available(r); i++) SM_CHECK(need_number(r, o, "an angle", &a.angles[i]));
		} else if (qc_same_nocase(x, "x_and_z_axes")) {
			return fail_tok(r, o, SMDMX_ERROR_SYNTAX, "'x_and_z_axes' of $attachment '%s' is not read by smdmx: write its rotation with 'rotate'", a.name);
		} else {
			return fail_tok(r, o, SMDMX_ERROR_SYNTAX, "unknown option '%s' of $attachment '%s'", x, a.name);
		}
	}
	smdmx_qc_attachment *slot = sm_vec_push(r->o, &r->atts, sizeof(*slot), r->error);
	if (!slot) return false;
	*slot = a;
	return true;
}

static bool cmd_dir(qr *r, uint32_t cmd, int which)
{
	if (which == 2) { /* $popd */
		if (r->dir_count == 0 || (r->cd_set && r->dir_count == 1))
			warn_tok(r, cmd, SMDMX_WARNING_QC_BENT, "$popd without a $pushd: ignored; remove it");
		else
			r->dir_count--;
		return true;
	}
	uint32_t d;
	SM_CHECK(need(r, cmd, "a folder", &d));
	const char *name = rtok(r, d)->text;
	const char *base = which == 0 ? "" : cur_dir(r);
	size_t lb = strlen(base), ln = strlen(name);
	char *s = malloc(lb + ln + 2);
	if (!s) return sm_fail_oom(r->error);
	memcpy(s, base, lb);
	memcpy(s + lb, name, ln + 1);
	const char *joined = join_path(r, "", s);
	free(s);
	if (!joined) return false;
	size_t lj = strlen(joined);
	const char *dir = joined;
	if (lj && joined[lj - 1] != '/') {
		char *t = malloc(lj + 2);
		if (!t) return sm_fail_oom(r->error);
		memcpy(t, joined, lj);
		memcpy(t + lj, "/", 2);
		dir = rdup(r, t, lj + 1);
		free(t);
		if (!dir) return false;
	}
	if (which == 0) { /* $cd: the base folder */
		if (r->cd_set) warn_tok(r, cmd, SMDMX_WARNING_QC_BENT, "a second $cd: read, though studiomdl refuses it; remove it for studiomdl");
		r->cd_set = true;
		if (r->dir_count == 0) r->dir_count = 1;
		r->dirs[0] = dir;
		return true;
	}
	if (r->dir_count >= QC_MAX_DIRS) return fail_tok(r, cmd, SMDMX_ERROR_LIMIT, "$pushd nested more than %d deep", QC_MAX_DIRS);
	if (r->dir_count == 0) r->dirs[r->dir_count++] = "";
	r->dirs[r->dir_count++] = dir;
	return true;
}

/* One command: token t and what belongs to it. */
static bool command(qr *r, uint32_t t)
{
	const char *x = rtok(r, t)->text;
	if (qc_same_nocase(x, "$model")) SM_CHECK(cmd_model(r, t));
	else if (qc_same_nocase(x, "$body")) {
		uint32_t n;
		SM_CHECK(need(r, t, "a name", &n));
		SM_CHECK(studio_file(r, t, "$body", NULL));
	} else if (qc_same_nocase(x, "$bodygroup")) SM_CHECK(cmd_bodygroup(r, t));
	else if (qc_same_nocase(x, "$lod")) SM_CHECK(cmd_lod(r, t, false));
	else if (qc_same_nocase(x, "$shadowlod")) SM_CHECK(cmd_lod(r, t, true));
	else if (qc_same_nocase(x, "$collisionmodel") || qc_same_nocase(x, "$collisionjoints")) {
		uint32_t f;
		SM_CHECK(need(r, t, "a file", &f));
		SM_CHECK(add_ref(r, f, SMDMX_QC_REF_COLLISION, qc_same_nocase(x, "$collisionmodel") ? "$collisionmodel" : "$collisionjoints",
		                 model_exts, NULL));
		SM_CHECK(skip_rest(r));
		SM_CHECK(skip_next_block(r));
	} else if (qc_same_nocase(x, "$sequence")) SM_CHECK(cmd_sequence(r, t, false));
	else if (qc_same_nocase(x, "$animation")) SM_CHECK(cmd_sequence(r, t, true));
	else if (qc_same_nocase(x, "$declaresequence") || qc_same_nocase(x, "$declareanimation")) {
		uint32_t n;
		SM_CHECK(need(r, t, "a name", &n));
		SM_CHECK(add_name(r, &r->anims, rtok(r, n)->text));
	} else if (qc_same_nocase(x, "$attachment")) SM_CHECK(cmd_attachment(r, t));
	else if (qc_same_nocase(x, "$proceduralbones")) {
		uint32_t f;
		SM_CHECK(need(r, t, "a file", &f));
		SM_CHECK(add_ref(r, f, SMDMX_QC_REF_OTHER, "$proceduralbones", no_exts, NULL));
	} else if (qc_same_nocase(x, "$cd")) SM_CHECK(cmd_dir(r, t, 0));
	else if (qc_same_nocase(x, "$pushd")) SM_CHECK(cmd_dir(r, t, 1));
	else if (qc_same_nocase(x, "$popd")) SM_CHECK(cmd_dir(r, t, 2));
	else if (qc_same_nocase(x, "$upaxis")) {
		uint32_t a;
		SM_CHECK(need(r, t, "X, Y or Z", &a));
		const char *v = rtok(r, a)->text;
		char ax = v[0] >= 'a' ? (char)(v[0] - 32) : v[0];
		if (v[1] || (ax != 'X' && ax != 'Y' && ax != 'Z')) return fail_tok(r, a, SMDMX_ERROR_BAD_VALUE, "$upaxis is X, Y or Z, not '%s'", v);
		r->up_axis = ax;
	} else if (qc_same_nocase(x, "$scale")) {
		SM_CHECK(need_number(r, t, "a scale", &r->scale));
		if (!(r->scale > 0)) return fail_tok(r, t, SMDMX_ERROR_BAD_VALUE, "$scale must be above 0");
	} else if (is_brace(r, t, '}')) {
		return fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
	} else if (is_brace(r, t, '{')) {
		warn_tok(r, t, SMDMX_WARNING_QC_BENT, "a block that belongs to no command: skipped, though studiomdl refuses it; remove it for studiomdl");
		unget(r, t);
		SM_CHECK(skip_next_block(r));
	} else {
		SM_CHECK(skip_rest(r));
		SM_CHECK(skip_next_block(r));
	}
	return true;
}

static bool parse_script(qr *r)
{
	for (;;) {
		uint32_t t;
		int g = get_token(r, true, &t);
		if (g < 0) {
			if (!keep_error(r)) return false;
			skip_raw_line(r);
			continue;
		}
		if (g == 0) return true;
		if (!command(r, t)) {
			if (!recover_line(r, false)) return false;
			if (r->model != SMDMX_NONE) {
				cur_model(r)->incomplete = true;
				finish_model(r);
			}
		}
	}
}

/* ---- public -------------------------------------------------------------------------------- */

static const char *folder_of(qr *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? rdup(r, path, (size_t)(slash - path + 1)) : "";
}

smdmx_qc *smdmx_qc_read_file(const char *path, const smdmx_qc_read_options *options, smdmx_error *error,
                             smdmx_warnings *warnings)
{
	memset(error, 0, sizeof(*error));
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	smdmx_qc_read_options opt;
	memset(&opt, 0, sizeof(opt));
	if (options) opt = *options;
	sm_owner *o = sm_owner_new(&opt.allocator, error);
	if (!o) return NULL;
	qr r;
	memset(&r, 0, sizeof(r));
	sm_vec empty = SM_VEC_INIT;
	r.files = r.refs = r.models = r.atts = r.include_tok = r.crlf = r.ref_tok = r.model_x = empty;
	r.flexes = r.controllers = r.rules = r.vars = r.macros = r.errs = empty;
	r.anims.list = r.ctl_names.list = r.flex_names.list = r.missing.list = empty;
	r.o = o;
	r.error = error;
	r.warnings = warnings;
	r.fs = opt.files;
	r.keep_going = opt.keep_going;
	if (!r.fs.read) {
		r.fs.read = sm_fs_read;
		r.fs.find = sm_fs_find;
		r.fs.free_data = sm_fs_free;
		r.fs.user = NULL;
	}
	r.max_depth = opt.max_depth ? opt.max_depth : SMDMX_QC_DEFAULT_MAX_DEPTH;
	if (r.max_depth > QC_MAX_DEPTH_LIMIT) r.max_depth = QC_MAX_DEPTH_LIMIT;
	r.max_file_size = opt.max_file_size ? opt.max_file_size : SMDMX_QC_DEFAULT_MAX_FILE_SIZE;
	r.max_tokens = opt.max_tokens ? opt.max_tokens : SMDMX_QC_DEFAULT_MAX_TOKENS;
	r.max_read = opt.max_read ? opt.max_read : SMDMX_QC_DEFAULT_MAX_READ;
	r.scale = 1;
	r.model = SMDMX_NONE;
	r.vta = SMDMX_NONE;
	smdmx_qc *qc = sm_owned_calloc(o, 1, sizeof(*qc), error);
	struct smdmx_qc_state *st = qc ? sm_owned_calloc(o, 1, sizeof(*st), error) : NULL;
	bool ok = st != NULL;
	if (ok) {
		qc->state = st;
		st->o = o;
		st->toks = empty;
		st->edits = empty;
		r.qc = qc;
		r.st = st;
		char *norm = malloc(strlen(path) + 1);
		ok = norm != NULL;
		if (!ok) sm_fail_oom(error);
		if (ok) {
			strcpy(norm, path);
			for (char *p = norm; *p; p++)
				if (*p == '\\') *p = '/';
			st->root = folder_of(&r, norm);
			ok = st->root != NULL;
			smdmx_qc_pos none = { SMDMX_NONE, 0, 0 };
			bool missing = false;
			uint32_t f = ok ? load_file(&r, norm, none, SMDMX_NONE, &missing) : SMDMX_NONE;
			if (ok && f == SMDMX_NONE) {
				if (missing) sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot open '%s'", path);
				ok = false;
			}
			free(norm);
		}
	}
	ok = ok && push_frame(&r, 0, 0, (uint32_t)rfile(&r, 0)->size, 1, 0, SMDMX_NONE, NULL, 0);
	ok = ok && parse_script(&r);
	if (r.buf) sm_free(&o->alloc, r.buf, r.buf_cap);
	if (r.key) sm_free(&o->alloc, r.key, r.key_cap);
	sm_names_free(&o->alloc, &r.anims.index);
	sm_names_free(&o->alloc, &r.ctl_names.index);
	sm_names_free(&o->alloc, &r.flex_names.index);
	sm_names_free(&o->alloc, &r.missing.index);
	if (r.var_slots) sm_free(&o->alloc, r.var_slots, r.var_cap * sizeof(var_slot));
	sm_names_free(&o->alloc, &r.macro_index);
	if (!ok) {
		if (!error->code) sm_fail(error, SMDMX_ERROR_SYNTAX, 0, 0, "the QC could not be read");
		sm_owner_free(o);
		return NULL;
	}
	qc->files = r.files.data;
	qc->file_count = r.files.count;
	qc->refs = r.refs.data;
	qc->ref_count = r.refs.count;
	qc->models = r.models.data;
	qc->model_count = r.models.count;
	qc->attachments = r.atts.data;
	qc->attachment_count = r.atts.count;
	qc->up_axis = r.up_axis;
	qc->scale = r.scale;
	qc->errors = r.errs.data;
	qc->error_count = r.errs.count;
	qc->missing_includes = r.missing.list.data;
	qc->missing_include_count = r.missing.list.count;
	for (size_t i = 0; i < qc->model_count; i++) qc->models[i].flexdescs = r.flex_names.list.data;
	st->ref_tok = r.ref_tok.data;
	st->include_tok = r.include_tok.data;
	st->crlf = r.crlf.data;
	st->models = r.model_x.data;
	return qc;
}

void smdmx_qc_free(smdmx_qc *qc)
{
	if (qc) sm_owner_free(qc->state->o);
}

uint32_t smdmx_qc_find_model(const smdmx_qc *qc, const char *name)
{
	for (size_t i = 0; i < qc->model_count; i++)
		if (!name || qc_same_nocase(qc->models[i].name, name)) return (uint32_t)i;
	return SMDMX_NONE;
}

void qc_error_file(const smdmx_qc *qc, uint32_t file, smdmx_error *error)
{
	if (file != 0 && file < qc->file_count) snprintf(error->file, sizeof(error->file), "%s", qc->files[file].path);
}
