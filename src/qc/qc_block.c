/* QC reading, blocks skipped: a command smdmx keeps as written (its line, and a block that
 * opens on it or on the next line), read to its '}' as studiomdl's readers take tokens, and
 * what a block open where its file ends costs. */
#include <string.h>

#include "qc/qc_read.h"

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
 * token after it is left to read; *cut set), or where the QC ends. */
static int block_token(qr *r, size_t floor, uint32_t *t, bool *cut)
{
	int g = qcr_get_token(r, true, t);
	*cut = g > 0 && r->depth < floor;
	if (*cut) {
		qcr_unget(r, *t);
		r->resume = true; /* keep_going: reading goes on with it, in the including file */
		return 0;
	}
	return g;
}

/* A skipped command's block open at the end: where the QC ends (not an include of it), the
 * rest of the QC is its block, as studiomdl reads it (its readers take tokens to the '}' or
 * the end; Left 4 Dead 2's SubwayCar QCs end inside a $collisiontext block), with a warning;
 * an include that ends inside one is an error. */
static bool block_left_open(qr *r, uint32_t open, bool cut)
{
	if (cut)
		return qcr_fail_tok(r, open, SMDMX_ERROR_UNTERMINATED,
		                    "this '{' is never closed in its file: studiomdl would read the file that includes it as its block too; close it");
	qcr_warn_tok(r, open, SMDMX_WARNING_QC_BLOCK_OPEN,
	             "this '{' is never closed: the rest of the QC is read as its block, as studiomdl reads it; close it for other tools");
	return true;
}

/* The rest of the line, and a block that opens on it, unread. */
bool qcr_skip_rest(qr *r)
{
	int depth = 0;
	uint32_t open = SMDMX_NONE;
	size_t floor = 0;
	for (;;) {
		uint32_t t;
		bool cut = false;
		int g = depth > 0 ? block_token(r, floor, &t, &cut) : (qcr_available(r) ? qcr_get_token(r, false, &t) : 0);
		if (g < 0) return false;
		if (g == 0) return depth > 0 ? block_left_open(r, open, cut) : true;
		const char *x = rtok(r, t)->text;
		if (!strcmp(x, "{") && !(rtok(r, t)->flags & QTOK_QUOTED)) {
			if (depth++ == 0) {
				open = t;
				floor = file_depth(r);
			}
		} else if (!strcmp(x, "}") && !(rtok(r, t)->flags & QTOK_QUOTED)) {
			if (depth == 0) return qcr_fail_tok(r, t, SMDMX_ERROR_SYNTAX, "a '}' that closes nothing");
			depth--;
		}
	}
}

/* A block that starts on this line or a following one, read: each word in it (no brace) to
 * fn. No block there: nothing read. */
bool qcr_block_words(qr *r, bool (*fn)(qr *r, uint32_t word))
{
	uint32_t t;
	int g = qcr_get_token(r, true, &t);
	if (g <= 0) return g == 0;
	if (!qcr_is_brace(r, t, '{')) {
		qcr_unget(r, t);
		return true;
	}
	int depth = 1;
	uint32_t open = t;
	size_t floor = file_depth(r);
	while (depth > 0) {
		bool cut;
		g = block_token(r, floor, &t, &cut);
		if (g < 0) return false;
		if (g == 0) return block_left_open(r, open, cut);
		if (qcr_is_brace(r, t, '{')) depth++;
		else if (qcr_is_brace(r, t, '}')) depth--;
		else SM_CHECK(fn(r, t));
	}
	return true;
}

/* A block that starts on a following line ("{" first there), skipped. */
static bool no_word(qr *r, uint32_t word)
{
	(void)r;
	(void)word;
	return true;
}

bool qcr_skip_next_block(qr *r)
{
	return qcr_block_words(r, no_word);
}
