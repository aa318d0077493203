/* QC reading, the script: studiomdl's tokenizer (scriplib: GetToken, TokenAvailable), the
 * stack of included files and macro bodies, $definevariable and $definemacro, and how an error
 * costs only its line when reading goes on (keep_going). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "support/num.h"
#include "qc/qc_read.h"

bool qcr_vfail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, va_list ap)
{
	if (r->error->code != SMDMX_ERROR_NONE) return false;
	char msg[256];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	sm_fail(r->error, code, line, col, "%s", msg);
	if (file != 0 && file < r->files.count) snprintf(r->error->file, sizeof(r->error->file), "%s", rfile(r, file)->path);
	return false;
}

bool qcr_fail_at(qr *r, uint32_t file, uint32_t line, uint32_t col, smdmx_error_code code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	qcr_vfail_at(r, file, line, col, code, fmt, ap);
	va_end(ap);
	return false;
}

bool qcr_fail_tok(qr *r, uint32_t t, smdmx_error_code code, const char *fmt, ...)
{
	const qc_tok *k = rtok(r, t);
	va_list ap;
	va_start(ap, fmt);
	qcr_vfail_at(r, k->file, k->line, k->column, code, fmt, ap);
	va_end(ap);
	return false;
}

/* At the reading position of the current script (for "expected ..." at a line's end). */
bool qcr_fail_here(qr *r, smdmx_error_code code, const char *fmt, ...)
{
	const qc_frame *f = &r->frames[r->depth ? r->depth - 1 : 0];
	va_list ap;
	va_start(ap, fmt);
	qcr_vfail_at(r, f->file, f->line, f->pos - f->line_start + 1, code, fmt, ap);
	va_end(ap);
	return false;
}

void qcr_warn_tok(qr *r, uint32_t t, smdmx_warning_code code, const char *fmt, ...)
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


bool qcr_keep_error(qr *r)
{
	return keep_as(r, false, false);
}

/* keep_going: an $include that cannot be read is skipped, as studiomdl skips it; path, when it
 * is not there, counts once however often it is included. */
static bool keep_include(qr *r, const char *path)
{
	if (!keep_as(r, true, true)) return false;
	if (path && !qcr_name_known(r, &r->missing, path) && !qcr_add_name(r, &r->missing, path)) return false;
	return true;
}

const char *qcr_rdup(qr *r, const char *s, size_t n)
{
	return sm_strdup(r->o, s, n, r->error);
}

/* s[0..n) in ASCII lower case, in the reader's key buffer (valid until the next call). */
const char *qcr_lower_key(qr *r, const char *s, size_t n)
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

/* ---- names the rules may use (a set of them, by their lower case) ------------------------- */

bool qcr_name_known(qr *r, const name_set *v, const char *name)
{
	const char *k = qcr_lower_key(r, name, strlen(name));
	return k && sm_names_get(&v->index, k) != SMDMX_NONE;
}

bool qcr_add_name(qr *r, name_set *v, const char *name)
{
	size_t n = strlen(name);
	const char *k = qcr_lower_key(r, name, n);
	if (!k) return false;
	if (sm_names_get(&v->index, k) != SMDMX_NONE) return true;
	char *copy = (char *)qcr_rdup(r, k, n);
	const char **slot = copy ? sm_vec_push(r->o, &v->list, sizeof(char *), r->error) : NULL;
	if (!slot) return false;
	*slot = name;
	if (!sm_names_put(&r->o->alloc, &v->index, copy, (uint32_t)(v->list.count - 1), true)) return sm_fail_oom(r->error);
	return true;
}

/* ---- paths -------------------------------------------------------------------------------- */

/* path (which the reader holds with '/') for a message, in the separator of the QC's path as
 * given: shown[1024]. */
const char *qcr_shown(qr *r, const char *path, char *shown)
{
	return os_path_shown(path, r->qc->separator, shown, 1024);
}

/* a joined with b ('\' read as '/'), "." and ".." folded where they can be; absolute when b is
 * ("/x" or "C:..."). */
const char *qcr_join_path(qr *r, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool absolute = b[0] == '/' || b[0] == '\\' || (b[0] && b[1] == ':');
	if (absolute) la = 0;
	char *s = sm_malloc(&r->o->alloc, la + lb + 2);
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
	/* keep: bytes that must stay (the root, os_path_root: "/", "C:/", "//server/share/",
	 * "//?/C:/"; or a leading "../" run) */
	size_t keep = os_path_root(s), n = keep;
	const char *p = s + keep;
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
	const char *d = qcr_rdup(r, out, n);
	sm_free(&r->o->alloc, s, la + lb + 2);
	return d;
}

const char *qcr_path_ext(const char *name)
{
	const char *slash = strrchr(name, '/'), *bs = strrchr(name, '\\');
	if (bs && (!slash || bs > slash)) slash = bs;
	const char *dot = strrchr(name, '.');
	if (!dot || (slash && dot < slash) || dot == name || (slash && dot == slash + 1)) return "";
	return dot + 1;
}

const char *qcr_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* ---- files --------------------------------------------------------------------------------- */

/* Loads a file onto the list; returns its index or SMDMX_NONE (error set, or *missing when it
 * does not exist). */
uint32_t qcr_load_file(qr *r, const char *path, smdmx_qc_pos at, uint32_t name_tok, bool *missing)
{
	void *data = NULL;
	size_t size = 0;
	int rc = r->fs.read(r->fs.user, path, &data, &size);
	if (rc == 1) {
		if (missing) *missing = true;
		return SMDMX_NONE;
	}
	char shown[1024];
	if (rc != 0) {
		qcr_shown(r, path, shown);
		if (at.file == SMDMX_NONE) sm_fail(r->error, SMDMX_ERROR_IO, 0, 0, "cannot read '%s'", shown);
		else qcr_fail_at(r, at.file, at.line, at.column, SMDMX_ERROR_IO, "cannot read '%s'", shown);
		return SMDMX_NONE;
	}
	bool ok = true;
	if (size > r->max_file_size) {
		qcr_shown(r, path, shown);
		ok = at.file == SMDMX_NONE
		         ? sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "'%s' is %zu bytes, more than the QC limit of %zu", shown, size,
		                   r->max_file_size)
		         : qcr_fail_at(r, at.file, at.line, at.column, SMDMX_ERROR_LIMIT, "'%s' is %zu bytes, more than the QC limit of %zu",
		                   shown, size, r->max_file_size);
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
	const char *pcopy = qcr_rdup(r, path, strlen(path));
	if (!f || !it || !cr || !pcopy) return SMDMX_NONE;
	f->path = pcopy;
	f->data = copy;
	f->size = size;
	f->included_at = at;
	f->name = name_tok != SMDMX_NONE && index > 0 ? rtok(r, name_tok)->text : NULL;
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
		qcr_fail_at(r, index, line, col, SMDMX_ERROR_NUL_BYTE, "a NUL byte in a QC");
		if (index == 0) r->error->file[0] = 0;
		return SMDMX_NONE;
	}
	return index;
}

bool qcr_push_frame(qr *r, uint32_t file, uint32_t start, uint32_t end, uint32_t line, uint32_t line_start,
                       uint32_t macro, const char **args, const uint32_t *arg_toks, uint32_t at_tok)
{
	if (r->depth >= r->max_depth) {
		if (macro != SMDMX_NONE)
			return qcr_fail_tok(r, at_tok, SMDMX_ERROR_LIMIT,
			                "macro '%s' nests scripts %zu deep (includes and macros), past the limit of %zu (a macro that "
			                "expands into itself?)",
			                ((qc_macro *)r->macros.data)[macro].name, r->depth + 1, r->max_depth);
		return qcr_fail_tok(r, at_tok, SMDMX_ERROR_LIMIT, "includes nest %zu deep, past the limit of %zu (studiomdl's MAX_INCLUDES)",
		                r->depth + 1, r->max_depth);
	}
	if (end - start > r->max_read - r->read) {
		if (at_tok >= r->st->toks.count) /* the main QC */
			return sm_fail(r->error, SMDMX_ERROR_LIMIT, 0, 0, "the QC is %u bytes, more than the limit of %zu bytes read",
			               end - start, r->max_read);
		return qcr_fail_tok(r, at_tok, SMDMX_ERROR_LIMIT,
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
	f->arg_toks = arg_toks;
	return true;
}

/* ---- tokens -------------------------------------------------------------------------------- */

bool qcr_buf_put(qr *r, const char *s, size_t n)
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

const char *qcr_fdata(qr *r, const qc_frame *f)
{
	return rfile(r, f->file)->data;
}

/* Skips white space and comments in the current script. crossline: line ends too. */
int qcr_skip_space(qr *r, qc_frame *f, bool crossline)
{
	const char *d = qcr_fdata(r, f);
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
				qcr_fail_at(r, f->file, line, col, SMDMX_ERROR_UNTERMINATED, "a '/*' comment that is never closed");
				return SKIP_ERROR;
			}
			f->pos += 2;
			continue;
		}
		return SKIP_TOKEN;
	}
}

bool qcr_is_brace(qr *r, uint32_t t, char c)
{
	const qc_tok *k = rtok(r, t);
	return !(k->flags & QTOK_QUOTED) && k->len == 1 && k->text[0] == c;
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
		if (s->hash == h && s->len == len && sm_same_nocase_n(vars[s->var].name, name, len)) return s->var;
	}
}

/* Adds every prefix of variable v's name that no earlier variable has. */
static bool var_index(qr *r, uint32_t v)
{
	const char *name = ((const qc_var *)r->vars.data)[v].name;
	size_t n = strlen(name);
	if (n > SMDMX_QC_MAX_VARIABLE_BYTES - r->var_bytes)
		return qcr_fail_here(r, SMDMX_ERROR_LIMIT, "the names of $definevariable add up to more than %zu bytes",
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
			if (s->hash == h && s->len == len && sm_same_nocase_n(vars[s->var].name, name, len)) break; /* an earlier one has it */
		}
	}
	return true;
}

/* At a '$' of the current script: a "$NAME$" that is a macro parameter or a variable puts its
 * value into the token and moves past it. Returns 1 when it did, 0 when the text stays, -1 on
 * error. */
static int expand_dollar(qr *r, qc_frame *f, bool quoted)
{
	const char *d = qcr_fdata(r, f);
	uint32_t p = f->pos + 1;
	while (p < f->end && (unsigned char)d[p] > 32 && d[p] != '$' && (!quoted || d[p] != '"')) p++;
	if (p >= f->end || d[p] != '$') return 0;
	const char *name = d + f->pos + 1;
	size_t len = p - f->pos - 1;
	if (f->macro != SMDMX_NONE) {
		const qc_macro *m = (const qc_macro *)r->macros.data + f->macro;
		for (size_t i = 0; i < m->param_count; i++) {
			if (strlen(m->params[i]) == len && sm_same_nocase_n(m->params[i], name, len)) {
				if (!qcr_buf_put(r, f->args[i], strlen(f->args[i]))) return -1;
				f->pos = p + 1;
				r->sub_src = f->arg_toks[i];
				r->sub_end = r->buf_len;
				r->sub_len = strlen(f->args[i]);
				rtok(r, r->sub_src)->uses++;
				return 1;
			}
		}
		if (!quoted && r->vars.count == 0) {
			qcr_fail_at(r, f->file, f->line, f->pos - f->line_start + 1, SMDMX_ERROR_SYNTAX,
			        "unknown macro parameter '$%.*s$' in macro '%s'", (int)len, name, m->name);
			return -1;
		}
	}
	/* Variables: the first whose name starts with these letters, as studiomdl compares. */
	uint32_t vi = var_find(r, name, len);
	if (vi != SMDMX_NONE) {
		const qc_var *v = (const qc_var *)r->vars.data + vi;
		if (!qcr_buf_put(r, v->value, strlen(v->value))) return -1;
		f->pos = p + 1;
		r->sub_src = v->value_tok;
		r->sub_end = r->buf_len;
		r->sub_len = strlen(v->value);
		rtok(r, r->sub_src)->uses++;
		return 1;
	}
	if (quoted) return 0; /* older studiomdl did not expand inside quotes: the text stays */
	qcr_fail_at(r, f->file, f->line, f->pos - f->line_start + 1, SMDMX_ERROR_SYNTAX, "unknown variable '$%.*s$'", (int)len,
	        name);
	return -1;
}

/* Records the token in the buffer; returns its index or SMDMX_NONE. */
uint32_t qcr_add_token(qr *r, const qc_frame *f, uint32_t start, uint32_t end, uint32_t line, uint32_t col,
                          uint8_t flags)
{
	if (r->buf_len > SMDMX_QC_MAX_TOKEN_BYTES) {
		qcr_fail_at(r, f->file, line, col, SMDMX_ERROR_LIMIT, "a token of %zu bytes: studiomdl takes at most %zu", r->buf_len,
		        SMDMX_QC_MAX_TOKEN_BYTES);
		return SMDMX_NONE;
	}
	if (r->st->toks.count >= r->max_tokens) {
		qcr_fail_at(r, f->file, line, col, SMDMX_ERROR_LIMIT, "more than %zu tokens (macros expanded)", r->max_tokens);
		return SMDMX_NONE;
	}
	const char *text = qcr_rdup(r, r->buf ? r->buf : "", r->buf_len);
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
	bool tail = (flags & QTOK_EXPANDED) && r->sub_src != SMDMX_NONE && r->sub_end == r->buf_len;
	t->tail_src = tail ? r->sub_src : SMDMX_NONE;
	t->tail_len = tail ? (uint32_t)r->sub_len : 0;
	t->uses = 0;
	r->sub_src = SMDMX_NONE;
	return (uint32_t)(r->st->toks.count - 1);
}


/* $include NAME: the file is read against the main QC's folder (G1). */
static bool do_include(qr *r, uint32_t at)
{
	uint32_t name;
	int got = qcr_get_token(r, false, &name);
	if (got < 0) return false;
	if (got == 0) return qcr_fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$include needs a file name") || qcr_keep_error(r);
	const qc_tok *t = rtok(r, name);
	const char *path = qcr_join_path(r, r->st->root, t->text);
	if (!path) return false;
	bool nocase = false;
	char *found = r->fs.find(r->fs.user, path, &nocase);
	if (!found) {
		if (r->error->code) return false;
		char shown[1024];
		return qcr_fail_tok(r, name, SMDMX_ERROR_IO, "cannot find '%s' (included as '%s', against the folder of the main QC)",
		                    qcr_shown(r, path, shown), t->text) ||
		       keep_include(r, path);
	}
	const char *use = qcr_rdup(r, found, strlen(found));
	r->fs.free_data(r->fs.user, found);
	if (!use) return false;
	if (nocase) qcr_warn_tok(r, name, SMDMX_WARNING_QC_NOCASE, "'%s' is '%s' when case is ignored (as Windows finds it): read; make the "
			              "spellings match for systems that tell case",
			     t->text, qcr_base_name(use));
	/* A file already open on the stack includes itself. */
	for (size_t i = 0; i < r->depth; i++) {
		if (r->frames[i].macro == SMDMX_NONE && !strcmp(rfile(r, r->frames[i].file)->path, use))
			return qcr_fail_tok(r, name, SMDMX_ERROR_LIMIT, "'%s' includes itself (through %zu file%s)", use, r->depth - i,
			                r->depth - i == 1 ? "" : "s") ||
			       keep_include(r, NULL);
	}
	if (r->depth >= r->max_depth)
		return qcr_fail_tok(r, name, SMDMX_ERROR_LIMIT, "includes nest %zu deep, past the limit of %zu (studiomdl's MAX_INCLUDES)",
		                r->depth + 1, r->max_depth) ||
		       keep_include(r, NULL);
	/* A file included again is read again, from the bytes already kept. */
	uint32_t file = SMDMX_NONE;
	for (size_t i = 1; i < r->files.count && file == SMDMX_NONE; i++)
		if (!strcmp(rfile(r, (uint32_t)i)->path, use)) file = (uint32_t)i;
	if (file == SMDMX_NONE) {
		smdmx_qc_pos pos = { t->file, t->line, t->column };
		bool missing = false;
		file = qcr_load_file(r, use, pos, name, &missing);
		if (file == SMDMX_NONE) {
			char shown[1024];
			if (missing) return qcr_fail_tok(r, name, SMDMX_ERROR_IO, "cannot read '%s'", qcr_shown(r, use, shown)) || keep_include(r, use);
			return keep_include(r, NULL);
		}
	}
	return qcr_push_frame(r, file, 0, (uint32_t)rfile(r, file)->size, 1, 0, SMDMX_NONE, NULL, NULL, name);
}

/* $definevariable NAME VALUE */
static bool do_variable(qr *r, uint32_t at)
{
	uint32_t name, value;
	int g1 = qcr_get_token(r, false, &name);
	if (g1 < 0) return false;
	int g2 = g1 ? qcr_get_token(r, false, &value) : 0;
	if (g2 < 0) return false;
	if (!g1 || !g2) return qcr_fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$definevariable needs a name and a value");
	qc_var *v = sm_vec_push(r->o, &r->vars, sizeof(*v), r->error);
	if (!v) return false;
	v->name = rtok(r, name)->text;
	v->value = rtok(r, value)->text;
	v->value_tok = value;
	return var_index(r, (uint32_t)(r->vars.count - 1));
}

/* $definemacro NAME PARAM... \\ then body lines, each ending in \\ but the last. */
static bool do_macro(qr *r, uint32_t at)
{
	uint32_t name;
	int got = qcr_get_token(r, false, &name);
	if (got < 0) return false;
	if (!got) return qcr_fail_tok(r, at, SMDMX_ERROR_SYNTAX, "$definemacro needs a name");
	qc_frame *f = &r->frames[r->depth - 1];
	sm_vec params = SM_VEC_INIT;
	uint32_t body = f->pos;
	for (;;) {
		int s = qcr_skip_space(r, f, false);
		if (s == SKIP_ERROR) return false;
		if (s != SKIP_TOKEN) break;
		const char *d = qcr_fdata(r, f);
		if (d[f->pos] == '\\' && f->pos + 1 < f->end && d[f->pos + 1] == '\\') break;
		uint32_t p;
		int g = qcr_get_token(r, false, &p);
		if (g < 0) return false;
		if (!g) break;
		const char **slot = sm_vec_push(r->o, &params, sizeof(char *), r->error);
		if (!slot) return false;
		*slot = rtok(r, p)->text;
		body = f->pos;
		if (params.count > 64) return qcr_fail_tok(r, p, SMDMX_ERROR_LIMIT, "macro '%s' has more than 64 parameters", rtok(r, name)->text);
	}
	/* The body runs to the end of the first line without "\\". */
	const char *d = qcr_fdata(r, f);
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
	const char *k = qcr_lower_key(r, m->name, nl);
	const char *key = k ? qcr_rdup(r, k, nl) : NULL;
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
	const char *key = qcr_lower_key(r, k->text + 1, strlen(k->text + 1));
	if (!key) return -1;
	uint32_t i = sm_names_get(&r->macro_index, key);
	if (i == SMDMX_NONE) return 0;
	const qc_macro *ms = r->macros.data;
	/* Reading the arguments may define macros and add tokens: the macro is copied, and no
	 * pointer into either table is kept across a read. */
	qc_macro m = ms[i];
	const char **args = NULL;
	uint32_t *arg_toks = NULL;
	if (m.param_count) {
		args = sm_owned_calloc(r->o, m.param_count, sizeof(char *), r->error);
		arg_toks = args ? sm_owned_calloc(r->o, m.param_count, sizeof(uint32_t), r->error) : NULL;
		if (!arg_toks) return -1;
	}
	for (size_t a = 0; a < m.param_count; a++) {
		uint32_t v;
		int g = qcr_get_token(r, false, &v);
		if (g < 0) return -1;
		if (!g) {
			qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "macro '%s' takes %zu argument%s, given %zu", m.name, m.param_count,
			         m.param_count == 1 ? "" : "s", a);
			return -1;
		}
		args[a] = rtok(r, v)->text;
		arg_toks[a] = v;
	}
	return qcr_push_frame(r, m.file, m.start, m.end, m.line, m.line_start, i, args, arg_toks, t) ? 1 : -1;
}

/* GetToken: the next token, on this line unless crossline. Returns 1 with *out, 0 when there
 * is none (end of line, or of the QC), -1 on error. $include, $definevariable, $definemacro
 * and macro calls are done here, as studiomdl does them. */
int qcr_get_token(qr *r, bool crossline, uint32_t *out)
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
		int s = qcr_skip_space(r, f, crossline);
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
		const char *d = qcr_fdata(r, f);
		uint32_t start = f->pos, line = f->line, col = f->pos - f->line_start + 1;
		uint8_t flags = 0;
		r->buf_len = 0;
		r->sub_src = SMDMX_NONE;
		if (!qcr_buf_put(r, "", 0)) return -1;
		if (d[f->pos] == '"') {
			flags |= QTOK_QUOTED;
			f->pos++;
			for (;;) {
				if (f->pos >= f->end)
					return qcr_fail_at(r, f->file, line, col, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
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
				if (!qcr_buf_put(r, &c, 1)) return -1;
				f->pos++;
			}
			f->pos++;
		} else {
			while (f->pos < f->end && (unsigned char)d[f->pos] > 32 && d[f->pos] != ';') {
				/* studiomdl blanks a macro body's "\\" to its line's end before reading it:
				 * "}\\" is "}" (Valve's sdk_macros.qci) */
				if (f->macro != SMDMX_NONE && d[f->pos] == '\\' && f->pos + 1 < f->end && d[f->pos + 1] == '\\') break;
				if (d[f->pos] == '$') {
					int e = expand_dollar(r, f, false);
					if (e < 0) return -1;
					if (e) {
						flags |= QTOK_EXPANDED;
						continue;
					}
				}
				if (!qcr_buf_put(r, d + f->pos, 1)) return -1;
				f->pos++;
			}
		}
		uint32_t t = qcr_add_token(r, f, start, f->pos, line, col, flags);
		if (t == SMDMX_NONE) return -1;
		const char *text = rtok(r, t)->text;
		if (text[0] == '$') {
			if (sm_same_nocase(text, "$include")) {
				if (!do_include(r, t)) return -1;
				continue;
			}
			if (sm_same_nocase(text, "$definemacro")) {
				if (!do_macro(r, t)) return -1;
				continue;
			}
			if (sm_same_nocase(text, "$definevariable")) {
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

void qcr_unget(qr *r, uint32_t t)
{
	r->pending = true;
	r->pending_tok = t;
}

/* TokenAvailable: another token on this line of the current script. */
bool qcr_available(qr *r)
{
	if (r->pending) return true;
	if (r->depth == 0) return false;
	qc_frame *f = &r->frames[r->depth - 1];
	const char *d = qcr_fdata(r, f);
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
bool qcr_need(qr *r, uint32_t at, const char *what, uint32_t *out)
{
	int g = qcr_get_token(r, false, out);
	if (g < 0) return false;
	if (g == 0) {
		const qc_tok *k = rtok(r, at);
		return qcr_fail_here(r, SMDMX_ERROR_SYNTAX, "'%s' needs %s", k->text, what);
	}
	return true;
}

bool qcr_need_number(qr *r, uint32_t at, const char *what, double *out)
{
	uint32_t t;
	SM_CHECK(qcr_need(r, at, what, &t));
	const qc_tok *k = rtok(r, t);
	const char *next;
	if (sm_parse_double(k->text, k->text + k->len, out, &next) != SM_NUM_OK || next == k->text)
		return qcr_fail_tok(r, t, SMDMX_ERROR_BAD_NUMBER, "'%s' is not a number (%s of '%s')", k->text, what, rtok(r, at)->text);
	if (next != k->text + k->len)
		/* the SDK's studiomdl checks a number's first character and reads it with atof
		 * (verify_atof): Valve's own QCs say "FPS 30s" */
		qcr_warn_tok(r, t, SMDMX_WARNING_QC_BENT, "'%s' read as %g, as studiomdl's atof reads it (%s of '%s'); nothing to do", k->text, *out, what,
		         rtok(r, at)->text);
	return true;
}

bool qcr_need_int(qr *r, uint32_t at, const char *what, int32_t *out)
{
	uint32_t t;
	SM_CHECK(qcr_need(r, at, what, &t));
	const qc_tok *k = rtok(r, t);
	const char *next;
	int64_t v;
	if (sm_parse_int(k->text, k->text + k->len, &v, &next) != SM_NUM_OK || next != k->text + k->len || v < INT32_MIN ||
	    v > INT32_MAX)
		return qcr_fail_tok(r, t, SMDMX_ERROR_BAD_NUMBER, "'%s' is not a whole number (%s of '%s')", k->text, what,
		                rtok(r, at)->text);
	*out = (int32_t)v;
	return true;
}

/* keep_going: the bytes of the current script up to its line's end, unread (after an error
 * in the tokens themselves). */
void qcr_skip_raw_line(qr *r)
{
	if (r->depth == 0) return;
	qc_frame *f = &r->frames[r->depth - 1];
	const char *d = qcr_fdata(r, f);
	while (f->pos < f->end && d[f->pos] != '\n') f->pos++;
}

/* keep_going: a command that failed costs its line. The error joins the QC's errors and the
 * rest of the line is skipped, with any block that opens on it; in a block (in_block) a '}'
 * that closes it is left to the block. False when the error is not one a line can cost. */
bool qcr_recover_line(qr *r, bool in_block)
{
	if (!qcr_keep_error(r)) return false;
	if (r->resume) {
		r->resume = false;
		return true;
	}
	int depth = 0;
	for (;;) {
		uint32_t t;
		int g = depth > 0 ? qcr_get_token(r, true, &t) : qcr_available(r) ? qcr_get_token(r, false, &t) : 0;
		if (g < 0) {
			if (!qcr_keep_error(r)) return false;
			qcr_skip_raw_line(r);
			if (depth == 0) return true;
			continue;
		}
		if (g == 0) return true;
		if (qcr_is_brace(r, t, '{')) {
			depth++;
		} else if (qcr_is_brace(r, t, '}')) {
			if (depth > 0) depth--;
			else if (in_block) {
				qcr_unget(r, t);
				return true;
			}
		}
	}
}
