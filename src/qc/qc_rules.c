/* QC reading, flex rules: studiomdl's expression tokens (GetExprToken) and the expression
 * of a %rule line, checked against the controllers and flexes declared before it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/num.h"
#include "qc/qc_read.h"

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
	int s = qcr_skip_space(r, f, crossline);
	if (s == SKIP_ERROR) return -1;
	if (s != SKIP_TOKEN) return 0;
	const char *d = qcr_fdata(r, f);
	e->start = f->pos;
	e->line = f->line;
	e->column = f->pos - f->line_start + 1;
	e->continued = false;
	char c = d[f->pos];
	if (c == '"') {
		f->pos++;
		while (f->pos < f->end && d[f->pos] != '"') {
			if (d[f->pos] == '\n') return qcr_fail_at(r, f->file, e->line, e->column, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
			f->pos++;
		}
		if (f->pos >= f->end) return qcr_fail_at(r, f->file, e->line, e->column, SMDMX_ERROR_UNTERMINATED, "a quoted name that is never closed"), -1;
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
	qcr_vfail_at(x->r, x->file, t->line, col, SMDMX_ERROR_SYNTAX, fmt, ap);
	va_end(ap);
	return false;
}

static bool etok_is(const qc_expr *x, size_t i, const char *word)
{
	if (i >= x->n || x->t[i].kind != 'n') return false;
	size_t len = x->t[i].end - x->t[i].start;
	return strlen(word) == len && sm_same_nocase_n(x->data + x->t[i].start, word, len);
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
			if (!qcr_name_known(x->r, &x->r->flex_names, name)) return expr_fail(x, x->i, "unknown flex '%s'", name);
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
			if (!qcr_name_known(x->r, &x->r->ctl_names, name)) return expr_fail(x, x->i, "unknown controller '%s'", name);
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
			if (!qcr_name_known(x->r, &x->r->ctl_names, name)) return expr_fail(x, x->i, "unknown controller '%s'", name);
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
bool qcr_model_rule(qr *r, uint32_t cmd, uint32_t *end)
{
	const qc_tok *c = rtok(r, cmd);
	const char *name = c->text + 1;
	if (!*name) return qcr_fail_tok(r, cmd, SMDMX_ERROR_SYNTAX, "a rule without a flex name after '%%'");
	bool check = !r->model_unchecked && !r->lost;
	if (check && !qcr_name_known(r, &r->flex_names, name)) return qcr_fail_tok(r, cmd, SMDMX_ERROR_SYNTAX, "a rule for unknown flex '%s'", name);
	uint32_t eq;
	SM_CHECK(qcr_need(r, cmd, "'=' and an expression", &eq));
	if (strcmp(rtok(r, eq)->text, "=")) return qcr_fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "expected '=' after '%s'", rtok(r, cmd)->text);
	if (r->depth == 0) return qcr_fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "a rule without an expression");
	qc_frame *f = &r->frames[r->depth - 1];
	uint32_t file = f->file;
	sm_vec toks = SM_VEC_INIT;
	bool cont = false;
	for (;;) {
		if (!cont && !qcr_available(r)) break;
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
				return qcr_fail_at(r, file, e.line, e.column, SMDMX_ERROR_SYNTAX, "a single '\\' in a rule ('\\\\' continues it on the next line)");
			cont = true;
			continue;
		}
		if (toks.count >= 4096) return qcr_fail_at(r, file, e.line, e.column, SMDMX_ERROR_LIMIT, "a rule of more than 4096 tokens");
		qc_etok *slot = sm_vec_push(r->o, &toks, sizeof(e), r->error);
		if (!slot) return false;
		*slot = e;
	}
	qc_expr x = { r, toks.data, toks.count, 0, file, rfile(r, file)->data, check, 0 };
	if (toks.count == 0) return qcr_fail_tok(r, eq, SMDMX_ERROR_SYNTAX, "a rule without an expression");
	SM_CHECK(parse_sum(&x));
	if (x.i < x.n) {
		const qc_etok *t = &x.t[x.i];
		return expr_fail(&x, x.i, "'%.*s' where an operator or the rule's end should be", (int)(t->end - t->start),
		                 x.data + t->start);
	}
	/* The text: bytes as written between tokens on a line, one space for a continuation. */
	r->buf_len = 0;
	SM_CHECK(qcr_buf_put(r, "", 0));
	for (size_t i = 0; i < toks.count; i++) {
		const qc_etok *t = &x.t[i];
		if (i) {
			if (t->continued) SM_CHECK(qcr_buf_put(r, " ", 1));
			else SM_CHECK(qcr_buf_put(r, x.data + x.t[i - 1].end, t->start - x.t[i - 1].end));
		}
		SM_CHECK(qcr_buf_put(r, x.data + t->start, t->end - t->start));
	}
	smdmx_qc_rule *rule = sm_vec_push(r->o, &r->rules, sizeof(*rule), r->error);
	if (!rule) return false;
	rule->name = name;
	rule->expression = qcr_rdup(r, r->buf, r->buf_len);
	if (!rule->expression) return false;
	c = rtok(r, cmd); /* the tokens read since may have moved it */
	rule->pos.file = c->file;
	rule->pos.line = c->line;
	rule->pos.column = c->column;
	/* The rule's last raw byte: a token standing for it keeps the line removable. */
	const qc_etok *lt = &x.t[x.n - 1];
	r->buf_len = 0;
	SM_CHECK(qcr_buf_put(r, "", 0));
	*end = qcr_add_token(r, f, lt->start, lt->end, lt->line, lt->column, 0);
	return *end != SMDMX_NONE;
}
