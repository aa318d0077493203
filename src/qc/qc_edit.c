/* QC edits: byte ranges of the files replaced, everything else written as it was read
 * (decision 15). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qc/qc_internal.h"

static qc_edit *edits(const smdmx_qc *qc)
{
	return qc->state->edits.data;
}

static bool edit_fail(const smdmx_qc *qc, const qc_tok *t, smdmx_error *error, const char *fmt, ...) SM_PRINTF(4, 5);
static bool edit_fail(const smdmx_qc *qc, const qc_tok *t, smdmx_error *error, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sm_fail(error, SMDMX_ERROR_USAGE, t ? t->line : 0, t ? t->column : 0, "%s", msg);
	if (t) qc_error_file(qc, t->file, error);
	return false;
}

/* Records a replacement of [start, end) of file. The same replacement twice (a macro's
 * body, expanded more than once) is made once; two that overlap otherwise are refused. */
static bool add_edit(smdmx_qc *qc, uint32_t file, uint32_t start, uint32_t end, const char *text, size_t len, bool replace,
                     const qc_tok *at, smdmx_error *error)
{
	struct smdmx_qc_state *st = qc->state;
	qc_edit *e = edits(qc);
	for (size_t i = 0; i < st->edits.count; i++) {
		if (e[i].file != file) continue;
		if (e[i].start == start && e[i].end == end && e[i].replace == replace && replace) {
			if (e[i].len == len && !memcmp(e[i].text, text, len)) return true;
			return edit_fail(qc, at, error, "'%s' is written once (in a macro?) but would have to change in two ways",
			                 at ? at->text : "");
		}
		bool overlap = start < e[i].end && e[i].start < end;
		if (overlap)
			return edit_fail(qc, at, error, "two changes to the same text near '%s'", at ? at->text : "");
	}
	const char *copy = sm_strdup(st->o, text, len, error);
	qc_edit *slot = copy ? sm_vec_push(st->o, &st->edits, sizeof(*slot), error) : NULL;
	if (!slot) return false;
	slot->file = file;
	slot->start = start;
	slot->end = end;
	slot->text = copy;
	slot->len = len;
	slot->replace = replace;
	slot->order = (uint32_t)st->edits.count;
	return true;
}

static bool needs_quotes(const char *s)
{
	if (!*s) return true;
	for (; *s; s++)
		if ((unsigned char)*s <= 32 || *s == ';' || *s == '"' || *s == '{' || *s == '}') return true;
	return false;
}

/* Every use of token src's text ends the name of a file the QC names (no command name, no
 * sequence name, no text in the middle of a name): then a new name may be written in it. */
static bool only_file_tails(const smdmx_qc *qc, uint32_t src)
{
	uint32_t tails = 0;
	const uint32_t *ref_tok = qc->state->ref_tok;
	for (size_t i = 0; i < qc->ref_count; i++) {
		/* a reference read through a chain of values: each link counts at its own source */
		for (uint32_t t = ref_tok[i], hops = 0; t != SMDMX_NONE && hops < 16; t = qc_tok_at(qc, t)->tail_src, hops++)
			if (qc_tok_at(qc, t)->tail_src == src) {
				tails++;
				break;
			}
	}
	return tails == qc_tok_at(qc, src)->uses;
}

/* Token t renamed: its raw text keeps everything but the end that differs. A token whose text
 * ends with a macro argument or a variable's value, the part that changes inside it, is renamed
 * where that value is written (the call's argument, the variable's definition): the same
 * macro body serves calls whose names differ. */
static bool rename_token(smdmx_qc *qc, uint32_t t, const char *name, smdmx_error *error, int depth, bool dry)
{
	const qc_tok *k = qc_tok_at(qc, t);
	const char *data = qc->files[k->file].data;
	bool quoted = k->flags & QTOK_QUOTED;
	uint32_t in_start = k->start + (quoted ? 1 : 0), in_end = k->end - (quoted ? 1 : 0);
	if (strchr(name, '"')) return edit_fail(qc, k, error, "a file name with a quote cannot be written in a QC ('%s')", name);
	if (!strcmp(name, k->text)) return true;
	/* The old and new names share a beginning; the old name's rest must be written as such at
	 * the end of the raw text. */
	size_t common = 0, lo = strlen(k->text), ln = strlen(name);
	while (common < lo && common < ln && k->text[common] == name[common]) common++;
	bool in_value = (k->flags & QTOK_EXPANDED) && k->tail_src != SMDMX_NONE && lo - common <= k->tail_len && depth < 16;
	if (in_value && only_file_tails(qc, k->tail_src)) {
		/* the value's own text, its end changed as the name's */
		const qc_tok *src = qc_tok_at(qc, k->tail_src);
		size_t keep = strlen(src->text) - (lo - common);
		sm_alloc a = qc_temp_alloc(qc);
		char *v = sm_malloc(&a, keep + (ln - common) + 1);
		if (!v) return sm_fail_oom(error);
		memcpy(v, src->text, keep);
		memcpy(v + keep, name + common, ln - common + 1);
		bool ok = rename_token(qc, k->tail_src, v, error, depth + 1, dry);
		sm_free(&a, v, keep + (ln - common) + 1);
		return ok;
	}
	size_t old_tail = lo - common;
	size_t raw_len = in_end - in_start;
	if (!(k->flags & QTOK_EXPANDED)) {
		common = 0;
		old_tail = lo;
	}
	if (old_tail > raw_len || memcmp(data + in_end - old_tail, k->text + common, old_tail) != 0) {
		if (in_value)
			return edit_fail(qc, k, error, "'%s' ends with the value of a variable or macro argument that also makes other text "
			                 "than file names: no new name can be written there", k->text);
		return edit_fail(qc, k, error, "'%s' is made from a variable or macro parameter: smdmx cannot rename it there", k->text);
	}
	const char *tail = name + common;
	size_t tl = ln - common;
	if (!quoted && !(k->flags & QTOK_EXPANDED) && needs_quotes(name)) {
		sm_alloc a = qc_temp_alloc(qc);
		char *q = sm_malloc(&a, ln + 3);
		if (!q) return sm_fail_oom(error);
		q[0] = '"';
		memcpy(q + 1, name, ln);
		q[ln + 1] = '"';
		q[ln + 2] = 0;
		bool ok = dry || add_edit(qc, k->file, k->start, k->end, q, ln + 2, true, k, error);
		sm_free(&a, q, ln + 3);
		return ok;
	}
	return dry || add_edit(qc, k->file, in_end - (uint32_t)old_tail, in_end, tail, tl, true, k, error);
}

bool smdmx_qc_rename(smdmx_qc *qc, uint32_t ref, const char *name, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !name) return sm_fail_null(error, __func__, !qc ? "qc" : "name");
	if (ref >= qc->ref_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no reference %u", ref);
	return rename_token(qc, qc->state->ref_tok[ref], name, error, 0, false);
}

/* An edit that changes bytes of [start, end) of file (an insertion at end counts: it lengthens
 * the text). */
static bool range_edited(const smdmx_qc *qc, uint32_t file, uint32_t start, uint32_t end)
{
	const qc_edit *e = edits(qc);
	for (size_t i = 0; i < qc->state->edits.count; i++)
		if (e[i].file == file && e[i].replace && e[i].start <= end && start <= e[i].end && (e[i].start < end || e[i].end == end))
			return true;
	return false;
}

void smdmx_qc_clear_edits(smdmx_qc *qc)
{
	if (!qc) return;
	qc->state->edits.count = 0; /* their texts stay owned by the QC, freed with it */
}

bool smdmx_qc_ref_changed(const smdmx_qc *qc, uint32_t ref)
{
	if (!qc) return false;
	if (ref >= qc->ref_count) return false;
	for (uint32_t t = qc->state->ref_tok[ref], hops = 0; t != SMDMX_NONE && hops < 16; hops++) {
		const qc_tok *k = qc_tok_at(qc, t);
		if (range_edited(qc, k->file, k->start, k->end)) return true;
		t = k->tail_src;
	}
	return false;
}

bool smdmx_qc_can_rename(smdmx_qc *qc, uint32_t ref, const char *name, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !name) return sm_fail_null(error, __func__, !qc ? "qc" : "name");
	if (ref >= qc->ref_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no reference %u", ref);
	return rename_token(qc, qc->state->ref_tok[ref], name, error, 0, true);
}

bool smdmx_qc_rename_include(smdmx_qc *qc, uint32_t file, const char *name, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !name) return sm_fail_null(error, __func__, !qc ? "qc" : "name");
	if (file == 0 || file >= qc->file_count || qc->state->include_tok[file] == SMDMX_NONE)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "file %u was not included", file);
	return rename_token(qc, qc->state->include_tok[file], name, error, 0, false);
}

/* [start, end) grown to its whole line when nothing but white space and a comment share it. */
static void whole_line(const smdmx_qc_file *f, uint32_t *start, uint32_t *end)
{
	const char *d = f->data;
	uint32_t s = *start, e = *end;
	while (s > 0 && (d[s - 1] == ' ' || d[s - 1] == '\t')) s--;
	bool line_start = s == 0 || d[s - 1] == '\n';
	uint32_t x = e;
	while (x < f->size && (d[x] == ' ' || d[x] == '\t' || d[x] == '\r')) x++;
	bool comment = x < f->size && (d[x] == ';' || d[x] == '#' || (d[x] == '/' && x + 1 < f->size && d[x + 1] == '/'));
	if (comment)
		while (x < f->size && d[x] != '\n') x++;
	bool line_end = x >= f->size || d[x] == '\n';
	if (line_start && line_end) {
		*start = s;
		*end = x < f->size ? x + 1 : x;
		return;
	}
	/* Only the tokens, and the blanks after them. */
	while (e < f->size && (d[e] == ' ' || d[e] == '\t')) e++;
	*end = e;
}

/* Token i lies in one of the lines removed. */
static bool tok_removed(const qc_model_x *mx, unsigned which, uint32_t i)
{
	const qc_span *lines = mx->lines.data;
	for (size_t k = 0; k < mx->lines.count; k++)
		if ((lines[k].kind & which) && lines[k].first <= i && i <= lines[k].last) return true;
	return false;
}

/* A block inside the $model block that holds nothing but lines removed (a flexfile's block
 * of flex lines) goes with them. */
static bool block_removed(const smdmx_qc *qc, const qc_model_x *mx, unsigned which, const qc_span *b)
{
	const qc_tok *open = qc_tok_at(qc, b->first), *close = qc_tok_at(qc, b->last);
	if ((open->flags & QTOK_MACRO) || (close->flags & QTOK_MACRO) || open->file != close->file) return false;
	for (uint32_t i = b->first + 1; i < b->last; i++)
		if (!tok_removed(mx, which, i)) return false;
	return true;
}

bool smdmx_qc_remove_lines(smdmx_qc *qc, uint32_t model, unsigned which, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc) return sm_fail_null(error, __func__, "qc");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const qc_model_x *mx = &qc->state->models[model];
	const qc_span *lines = mx->lines.data;
	const qc_span *blocks = mx->blocks.data;
	for (size_t i = 0; i < mx->lines.count; i++) {
		if (!(lines[i].kind & which)) continue;
		const qc_tok *a = qc_tok_at(qc, lines[i].first), *b = qc_tok_at(qc, lines[i].last);
		if ((a->flags & QTOK_MACRO) || (b->flags & QTOK_MACRO) || a->file != b->file)
			return edit_fail(qc, a, error, "'%s' is written in a macro: smdmx cannot move it out of the QC", a->text);
		uint32_t start = a->start, end = b->end;
		/* a block that opens on the line and goes with it: its '{' too */
		for (size_t k = 0; k < mx->blocks.count; k++)
			if (blocks[k].first == lines[i].last + 1 && qc_tok_at(qc, blocks[k].first)->file == a->file &&
			    block_removed(qc, mx, which, &blocks[k]))
				end = qc_tok_at(qc, blocks[k].first)->end;
		whole_line(&qc->files[a->file], &start, &end);
		SM_CHECK(add_edit(qc, a->file, start, end, "", 0, true, a, error));
	}
	for (size_t k = 0; k < mx->blocks.count; k++) {
		if (!block_removed(qc, mx, which, &blocks[k])) continue;
		bool opened = false;
		for (size_t i = 0; i < mx->lines.count && !opened; i++) opened = (lines[i].kind & which) && blocks[k].first == lines[i].last + 1;
		const qc_tok *o = qc_tok_at(qc, blocks[k].first), *c = qc_tok_at(qc, blocks[k].last);
		uint32_t start, end;
		if (!opened) {
			start = o->start;
			end = o->end;
			whole_line(&qc->files[o->file], &start, &end);
			SM_CHECK(add_edit(qc, o->file, start, end, "", 0, true, o, error));
		}
		start = c->start;
		end = c->end;
		whole_line(&qc->files[c->file], &start, &end);
		SM_CHECK(add_edit(qc, c->file, start, end, "", 0, true, c, error));
	}
	return true;
}

/* text with its line ends as the file writes them (in qc_temp_alloc's room of *len and one
 * byte). */
static char *with_line_ends(const smdmx_qc *qc, uint32_t file, const char *prefix, const char *text, const char *suffix,
                            size_t *len)
{
	sm_alloc a = qc_temp_alloc(qc);
	bool crlf = qc->state->crlf[file];
	size_t n = strlen(prefix) + strlen(text) + strlen(suffix), lines = 0;
	for (const char *p = prefix; *p; p++) lines += *p == '\n';
	for (const char *p = text; *p; p++) lines += *p == '\n';
	for (const char *p = suffix; *p; p++) lines += *p == '\n';
	size_t room = n + (crlf ? lines : 0) + 1;
	char *out = sm_malloc(&a, room);
	if (!out) return NULL;
	size_t k = 0;
	const char *parts[3] = { prefix, text, suffix };
	for (int i = 0; i < 3; i++) {
		for (const char *p = parts[i]; *p; p++) {
			if (*p == '\n' && crlf) out[k++] = '\r';
			out[k++] = *p;
		}
	}
	out[k] = 0;
	*len = k; /* (room - 1: every byte counted above) */
	return out;
}

static bool insert_text(smdmx_qc *qc, uint32_t file, uint32_t at, const char *prefix, const char *text, const char *suffix,
                        const qc_tok *tok, smdmx_error *error)
{
	size_t len;
	char *s = with_line_ends(qc, file, prefix, text, suffix, &len);
	if (!s) return sm_fail_oom(error);
	bool ok = add_edit(qc, file, at, at, s, len, false, tok, error);
	sm_alloc a = qc_temp_alloc(qc);
	sm_free(&a, s, len + 1);
	return ok;
}

bool smdmx_qc_append_to_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !text) return sm_fail_null(error, __func__, !qc ? "qc" : "text");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const qc_model_x *mx = &qc->state->models[model];
	const qc_tok *last = qc_tok_at(qc, mx->last);
	if (last->flags & QTOK_MACRO)
		return edit_fail(qc, last, error, "$model '%s' is written in a macro: smdmx cannot add to it", qc->models[model].name);
	const smdmx_qc_file *f = &qc->files[last->file];
	if (mx->open != SMDMX_NONE && last->len == 1 && last->text[0] == '}') {
		/* Before the closing '}': at the start of its line when it stands alone there. */
		uint32_t s = last->start;
		while (s > 0 && (f->data[s - 1] == ' ' || f->data[s - 1] == '\t')) s--;
		if (s == 0 || f->data[s - 1] == '\n') return insert_text(qc, last->file, s, "", text, "", last, error);
		return insert_text(qc, last->file, last->start, "\n", text, "", last, error);
	}
	/* No block: one, after the command's last token. */
	return insert_text(qc, last->file, last->end, " {\n", text, "}", last, error);
}

bool smdmx_qc_prepend_to_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !text) return sm_fail_null(error, __func__, !qc ? "qc" : "text");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const qc_model_x *mx = &qc->state->models[model];
	if (mx->open == SMDMX_NONE) return smdmx_qc_append_to_model(qc, model, text, error);
	const qc_tok *open = qc_tok_at(qc, mx->open);
	if (open->flags & QTOK_MACRO)
		return edit_fail(qc, open, error, "$model '%s' is written in a macro: smdmx cannot add to it", qc->models[model].name);
	const smdmx_qc_file *f = &qc->files[open->file];
	/* After the opening '{': at the start of the next line when nothing but blanks or a
	 * comment follows it on its line. */
	uint32_t at = open->end;
	while (at < f->size && (f->data[at] == ' ' || f->data[at] == '\t' || f->data[at] == '\r')) at++;
	bool comment = at + 1 < f->size && f->data[at] == '/' && f->data[at + 1] == '/';
	while (comment && at < f->size && f->data[at] != '\n') at++;
	if (at < f->size && f->data[at] == '\n') return insert_text(qc, open->file, at + 1, "", text, "", open, error);
	return insert_text(qc, open->file, open->end, "\n", text, "", open, error);
}

/* text on lines of their own after the line that ends with token last */
static bool insert_after_line(smdmx_qc *qc, const qc_tok *last, const char *text, smdmx_error *error)
{
	const smdmx_qc_file *f = &qc->files[last->file];
	uint32_t at = last->end;
	while (at < f->size && f->data[at] != '\n') at++;
	if (at < f->size) return insert_text(qc, last->file, at + 1, "", text, "", last, error);
	return insert_text(qc, last->file, at, "\n", text, "", last, error);
}

bool smdmx_qc_insert_after_model(smdmx_qc *qc, uint32_t model, const char *text, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !text) return sm_fail_null(error, __func__, !qc ? "qc" : "text");
	if (model >= qc->model_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no $model %u", model);
	const qc_model_x *mx = &qc->state->models[model];
	const qc_tok *last = qc_tok_at(qc, mx->last);
	if (last->flags & QTOK_MACRO)
		return edit_fail(qc, last, error, "$model '%s' is written in a macro: smdmx cannot add after it", qc->models[model].name);
	return insert_after_line(qc, last, text, error);
}

bool smdmx_qc_insert_after_ref(smdmx_qc *qc, uint32_t ref, const char *text, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !text) return sm_fail_null(error, __func__, !qc ? "qc" : "text");
	if (ref >= qc->ref_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no reference %u", ref);
	for (size_t k = 0; k < qc->model_count; k++)
		if (qc->models[k].ref == ref) return smdmx_qc_insert_after_model(qc, (uint32_t)k, text, error);
	uint32_t t = qc->state->ref_tok[ref];
	/* a $bodygroup's studio line: its block ends at the first '}' after it (it holds no other
	 * block); the tokens are in the order read */
	if (!strcmp(qc->refs[ref].command, "studio")) {
		size_t n = qc->state->toks.count;
		while (t + 1 < n && !(qc_tok_at(qc, t)->len == 1 && qc_tok_at(qc, t)->text[0] == '}' && !(qc_tok_at(qc, t)->flags & QTOK_QUOTED))) t++;
	}
	const qc_tok *last = qc_tok_at(qc, t);
	if (last->flags & QTOK_MACRO)
		return edit_fail(qc, last, error, "'%s' is written in a macro: smdmx cannot add after it", qc->refs[ref].command);
	return insert_after_line(qc, last, text, error);
}

bool smdmx_qc_file_changed(const smdmx_qc *qc, uint32_t file)
{
	if (!qc) return false;
	const qc_edit *e = edits(qc);
	for (size_t i = 0; i < qc->state->edits.count; i++)
		if (e[i].file == file) return true;
	return false;
}

static int edit_cmp(const void *a, const void *b)
{
	const qc_edit *x = *(const qc_edit *const *)a, *y = *(const qc_edit *const *)b;
	if (x->start != y->start) return x->start < y->start ? -1 : 1;
	/* At one place an insertion goes before a replacement that starts there. */
	if ((x->start == x->end) != (y->start == y->end)) return x->start == x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

bool smdmx_qc_write(const smdmx_qc *qc, uint32_t file, smdmx_write_fn write, void *user, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!qc || !write) return sm_fail_null(error, __func__, !qc ? "qc" : "write");
	if (file >= qc->file_count) return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "no file %u", file);
	const smdmx_qc_file *f = &qc->files[file];
	const qc_edit *e = edits(qc);
	size_t n = 0;
	for (size_t i = 0; i < qc->state->edits.count; i++) n += e[i].file == file;
	sm_alloc a = qc_temp_alloc(qc);
	const qc_edit **list = n ? sm_malloc(&a, n * sizeof(*list)) : NULL;
	if (n && !list) return sm_fail_oom(error);
	size_t k = 0;
	for (size_t i = 0; i < qc->state->edits.count; i++)
		if (e[i].file == file) list[k++] = &e[i];
	if (n > 1) qsort(list, n, sizeof(*list), edit_cmp);
	bool ok = true;
	uint32_t pos = 0;
	for (size_t i = 0; ok && i < n; i++) {
		if (list[i]->start > pos) ok = write(user, f->data + pos, list[i]->start - pos);
		if (ok && list[i]->len) ok = write(user, list[i]->text, list[i]->len);
		if (list[i]->end > pos) pos = list[i]->end;
	}
	if (ok && pos < f->size) ok = write(user, f->data + pos, f->size - pos);
	if (list) sm_free(&a, (void *)list, n * sizeof(*list));
	if (!ok) return sm_fail(error, SMDMX_ERROR_IO, 0, 0, "write failed");
	return true;
}
