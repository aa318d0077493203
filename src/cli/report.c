/* Batch reports (report.h): rows drawn and compared on several threads, one HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"

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
	text_buf shown;        /* the first differences, a line each */
	text_buf said;         /* smdmx report: what reading the two sides said */
} report_result;

/* ---- rows -------------------------------------------------------------------------------- */

void report_add(report_page *r, const char *a, const char *b, int status, const char *state, const char *messages,
                size_t warnings, size_t errors)
{
	report_row *g = realloc(r->rows, (r->count + 1) * sizeof(*g));
	if (!g) {
		fputs("smdmx: error: out of memory\n", stderr);
		exit(EXIT_FAILED);
	}
	r->rows = g;
	report_row *row = &r->rows[r->count++];
	memset(row, 0, sizeof(*row));
	row->a.path = a ? xstrdup(a) : NULL;
	row->b.path = b ? xstrdup(b) : NULL;
	row->status = status;
	row->state = state;
	row->messages = xstrdup(messages ? messages : "");
	row->warnings = warnings;
	row->errors = errors;
}

/* Side 0 (a) or 1 (b) of the last row. */
static report_side *last_side(report_page *r, int side)
{
	return side ? &r->rows[r->count - 1].b : &r->rows[r->count - 1].a;
}

void report_vta(report_page *r, int side, const char *vta)
{
	report_side *s = last_side(r, side);
	free(s->vta);
	s->vta = xstrdup(vta);
}

void report_clip(report_page *r, int side, const char *clip)
{
	report_side *s = last_side(r, side);
	char **g = realloc(s->clips, (s->clip_count + 1) * sizeof(char *));
	if (!g) return;
	s->clips = g;
	s->clips[s->clip_count++] = xstrdup(clip);
}

void report_rig_in_qc(report_page *r, int side)
{
	last_side(r, side)->rig_in_qc = true;
}

static void side_free(report_side *s)
{
	free(s->path);
	free(s->vta);
	for (size_t i = 0; i < s->clip_count; i++) free(s->clips[i]);
	free(s->clips);
}

static void rows_free(report_page *r)
{
	for (size_t i = 0; i < r->count; i++) {
		report_row *row = &r->rows[i];
		side_free(&row->a);
		side_free(&row->b);
		free(row->messages);
		if (row->result) {
			for (int k = 0; k < 2; k++) {
				free(row->result->side[k].png64);
				free(row->result->side[k].uv64);
				free(row->result->side[k].problem);
			}
			free(row->result->shown.text);
			free(row->result->said.text);
			free(row->result);
		}
	}
	free(r->rows);
	r->rows = NULL;
	r->count = 0;
}

/* ---- one row: read, draw, compare --------------------------------------------------------- */

static char *base64(const uint8_t *data, size_t n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	if (!out) return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
		*o++ = digits[v >> 18 & 63];
		*o++ = digits[v >> 12 & 63];
		*o++ = i + 1 < n ? digits[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? digits[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* The first line of an error said in d ("path:line:col: error: ..."), without the path. */
static char *first_error(const diag_buf *d)
{
	const char *t = d->text ? strstr(d->text, "error: ") : NULL;
	if (!t) return xstrdup("cannot be read");
	const char *end = strchr(t, '\n');
	return xasprintf("%.*s", (int)(end ? end - t : (ptrdiff_t)strlen(t)), t);
}

/* A side read as smdmx diff reads it (an SMD with its VTA, a DMX, a QC's $model), its clips
 * added. NULL with the problem in res. */
static smdmx_scene *read_side(const report_side *s, side_result *res, text_buf *said, bool as_files)
{
	diag_buf d = { 0 };
	conv_opts shown;
	memset(&shown, 0, sizeof(shown));
	shown.rig_in_qc = s->rig_in_qc;
	shown.qc_as_files = as_files;
	smdmx_scene *scene = picture_scene(s->path, s->vta, NULL, &d, &shown);
	for (size_t i = 0; scene && i < s->clip_count; i++) {
		smdmx_error err;
		smdmx_warnings w;
		smdmx_scene *c = cli_read_smd(s->clips[i], NULL, &err, &w);
		bool ok = c && smdmx_scene_add_clips(scene, c, &err);
		if (c) diag_warnings(&d, NULL, s->clips[i], &w);
		if (!ok) {
			diag_error(&d, s->clips[i], &err);
			smdmx_scene_free(scene);
			scene = NULL;
		}
		smdmx_scene_free(c);
	}
	if (d.text) tb_puts(said, d.text);
	if (!scene) res->problem = first_error(&d);
	diag_free(&d);
	return scene;
}

/* A side drawn in the frame both sides share (other may be NULL). */
static void draw_side(const smdmx_scene *s, const smdmx_scene *other, side_result *res)
{
	res->read = true;
	res->joints = s->joint_count;
	res->shapes = s->flex_shape_count;
	res->clips = s->clip_count;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) res->polygons += s->meshes[m].face_sets[f].polygon_count;
	sm_render_options ro = { .view = SM_VIEW_THREE_QUARTER, .size = PICTURE_SIZE, .frame_with = other };
	uint8_t *png = NULL;
	size_t size = 0;
	smdmx_error err;
	if (!picture_png(s, &ro, &png, &size, NULL, 0, &err)) {
		res->problem = xasprintf("error: %s", err.message);
		return;
	}
	res->png64 = base64(png, size);
	free(png);
	/* the UV layouts beside it, small: a V turned the wrong way shows at a glance */
	sm_render_options uv = { .uv = true, .size = UV_SIZE };
	sm_image img;
	if (!sm_render(s, &uv, &img, NULL, &err)) return; /* no UVs: no layout */
	if (sm_png_encode(&img, &png, &size)) {
		res->uv64 = base64(png, size);
		res->uv_width = img.width;
		res->uv_height = img.height;
		free(png);
	}
	sm_render_free(&img, NULL);
}

typedef struct diff_ctx {
	report_result *res;
	size_t shown;
} diff_ctx;

static void note_difference(void *user, const char *message)
{
	diff_ctx *c = user;
	if (c->shown++ >= DIFFERENCES_SHOWN) return;
	tb_puts(&c->res->shown, message);
	tb_putc(&c->res->shown, '\n');
}

static void make_row(void *ctx, size_t i)
{
	report_page *r = ctx;
	report_row *row = &r->rows[i];
	report_result *res = calloc(1, sizeof(*res));
	if (!res) return;
	res->differences = -1;
	smdmx_scene *s[2] = { NULL, NULL };
	const report_side *sides[2] = { &row->a, &row->b };
	for (int k = 0; k < 2; k++) {
		if (!sides[k]->path) continue;
		s[k] = read_side(sides[k], &res->side[k], &res->said, false);
	}
	for (int k = 0; k < 2; k++)
		if (s[k]) draw_side(s[k], s[1 - k], &res->side[k]);
	/* Two QCs are compared as their files are, as smdmx diff compares files: the same QC
	 * lines scale and turn both alike, and turning a joint's rotation and a vertex rounds
	 * differently (smdmx_qc_scene_options.as_files). Their messages were said above. */
	smdmx_scene *as_files[2] = { NULL, NULL };
	bool qcs = row->a.path && row->b.path && !strcasecmp(os_path_extension(row->a.path), "qc") &&
	           !strcasecmp(os_path_extension(row->b.path), "qc");
	for (int k = 0; qcs && s[0] && s[1] && k < 2; k++) {
		side_result scratch;
		text_buf quiet = { 0 };
		memset(&scratch, 0, sizeof(scratch));
		as_files[k] = read_side(sides[k], &scratch, &quiet, true);
		free(scratch.problem);
		free(quiet.text);
	}
	const smdmx_scene *cmp[2] = { qcs ? as_files[0] : s[0], qcs ? as_files[1] : s[1] };
	if (cmp[0] && cmp[1]) {
		smdmx_compare_options opts;
		smdmx_diff_options(NULL, NULL, &opts);
		smdmx_diff_options(cmp[0], cmp[1], &opts);
		diff_ctx c = { res, 0 };
		res->differences = (long long)smdmx_scene_diff(cmp[0], cmp[1], &opts, note_difference, &c);
		if (c.shown > DIFFERENCES_SHOWN) {
			char more[64];
			snprintf(more, sizeof(more), "... and %zu more\n", c.shown - DIFFERENCES_SHOWN);
			tb_puts(&res->shown, more);
		}
	}
	for (int k = 0; k < 2; k++) {
		smdmx_scene_free(s[k]);
		smdmx_scene_free(as_files[k]);
	}
	row->result = res;
}

/* ---- the page ------------------------------------------------------------------------------ */

static void html(text_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': tb_puts(b, "&amp;"); break;
		case '<': tb_puts(b, "&lt;"); break;
		case '>': tb_puts(b, "&gt;"); break;
		case '"': tb_puts(b, "&quot;"); break;
		case '\'': tb_puts(b, "&#39;"); break;
		default: tb_putc(b, *s);
		}
	}
}

static void putf(text_buf *b, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
static void putf(text_buf *b, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tb_puts(b, buf);
}

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2330;background:#f4f5f7}"
	"h1{font-size:1.4em;margin:0 0 .2em}.title{color:#5a6272;margin:0 0 1em;font-family:monospace}"
	".controls{margin:.6em 0 1em}.controls button{font:inherit;margin-right:.4em;padding:.3em .8em;border:1px solid #9aa3b5;"
	"border-radius:4px;background:#fff;cursor:pointer}.controls button.on{background:#26324a;color:#fff;border-color:#26324a}"
	"table#rows{border-collapse:collapse;background:#fff}#rows>thead>tr>th{position:sticky;top:0;background:#26324a;color:#fff;"
	"padding:.4em .6em;text-align:left}#rows>thead>tr>th[data-sort]{cursor:pointer}"
	"#rows>tbody>tr>td{border-top:1px solid #d5d9e0;padding:.4em .6em;vertical-align:top}"
	"td.file{max-width:22em;word-break:break-all;font-family:monospace;font-size:12px}"
	"td.pic img{display:block;image-rendering:pixelated}td.pic img.uv{margin-top:4px;max-width:256px;height:auto}"
	".none{width:256px;height:256px;display:flex;align-items:center;justify-content:center;text-align:center;"
	"background:#e6e8ec;color:#8a1c1c;font-size:12px;padding:0 1em;box-sizing:border-box}"
	"table.counts td{padding:0 .5em 0 0}.state{font-weight:600}.state.failed,.bad{color:#a31515}.good{color:#1c6b2c}"
	"pre{white-space:pre-wrap;font-size:12px;max-width:36em;margin:.3em 0}details summary{cursor:pointer}";

static const char page_script[] =
	"(function(){\n"
	"var body=document.querySelector('#rows>tbody');\n"
	"var rows=Array.prototype.slice.call(body.children);\n"
	"var show='all',dir={};\n"
	"function on(r){var d=r.dataset;return show==='all'||(show==='warnings'&&+d.warnings>0)||\n"
	"  (show==='errors'&&+d.errors>0)||(show==='differences'&&+d.differences>0);}\n"
	"function apply(){rows.forEach(function(r){r.hidden=!on(r);});\n"
	"  document.querySelectorAll('.controls button').forEach(function(b){b.classList.toggle('on',b.dataset.show===show);});}\n"
	"document.querySelectorAll('.controls button').forEach(function(b){\n"
	"  b.addEventListener('click',function(){show=b.dataset.show;apply();});});\n"
	"document.querySelectorAll('th[data-sort]').forEach(function(h){h.addEventListener('click',function(){\n"
	"  var k=h.dataset.sort;dir[k]=dir[k]===1?-1:1;\n"
	"  rows.sort(function(x,y){var a=x.dataset[k],b=y.dataset[k];\n"
	"    var c=k==='name'?(a<b?-1:a>b?1:0):(+a)-(+b);return c*dir[k]||(+x.dataset.index)-(+y.dataset.index);});\n"
	"  rows.forEach(function(r){body.appendChild(r);});});});\n"
	"apply();})();\n";

static void picture_cell(text_buf *b, const side_result *s, const char *path, const char *alt)
{
	tb_puts(b, "<td class=\"pic\">");
	if (s->png64) {
		putf(b, "<img alt=\"%s\" width=\"%d\" height=\"%d\" src=\"data:image/png;base64,", alt, PICTURE_SIZE, PICTURE_SIZE);
		tb_puts(b, s->png64);
		tb_puts(b, "\">");
		if (s->uv64) {
			putf(b, "<img class=\"uv\" alt=\"%s UVs\" width=\"%u\" height=\"%u\" src=\"data:image/png;base64,", alt, s->uv_width,
			     s->uv_height);
			tb_puts(b, s->uv64);
			tb_puts(b, "\">");
		}
	} else {
		tb_puts(b, "<div class=\"none\">");
		html(b, !path ? "no result" : s->problem ? s->problem : "not drawn");
		tb_puts(b, "</div>");
	}
	tb_puts(b, "</td>");
}

static size_t count_lines(const char *text, const char *kind)
{
	size_t n = 0;
	for (const char *t = text; t && (t = strstr(t, kind)); t += strlen(kind)) n++;
	return n;
}

static void counts_cell(text_buf *b, const report_result *res)
{
	static const char *const names[] = { "joints", "polygons", "shapes", "clips" };
	tb_puts(b, "<td><table class=\"counts\"><tr><td></td><td>source</td><td>result</td></tr>");
	for (int k = 0; k < 4; k++) {
		putf(b, "<tr><td>%s</td>", names[k]);
		for (int s = 0; s < 2; s++) {
			const side_result *r = &res->side[s];
			size_t v = k == 0 ? r->joints : k == 1 ? r->polygons : k == 2 ? r->shapes : r->clips;
			if (r->read) putf(b, "<td>%zu</td>", v);
			else tb_puts(b, "<td>-</td>");
		}
		tb_puts(b, "</tr>");
	}
	tb_puts(b, "</table></td>");
}

static void row_html(text_buf *b, const report_row *row, size_t index, size_t warnings, size_t errors)
{
	const report_result *res = row->result;
	const char *name = row->a.path ? row->a.path : row->b.path;
	putf(b, "<tr data-index=\"%zu\" data-warnings=\"%zu\" data-errors=\"%zu\" data-differences=\"%lld\" data-polygons=\"%zu\" data-name=\"",
	     index, warnings, errors, res->differences, res->side[0].read ? res->side[0].polygons : res->side[1].polygons);
	html(b, name);
	tb_puts(b, "\"><td class=\"file\">");
	html(b, row->a.path ? row->a.path : "(none)");
	if (row->a.vta) tb_puts(b, "<br>+ "), html(b, row->a.vta);
	tb_puts(b, "<br>&rarr; ");
	html(b, row->b.path ? row->b.path : "(none)");
	if (row->b.vta) tb_puts(b, "<br>+ "), html(b, row->b.vta);
	putf(b, "<div class=\"state%s\">", row->status == EXIT_FAILED ? " failed" : "");
	html(b, row->state);
	tb_puts(b, "</div></td>");
	picture_cell(b, &res->side[0], row->a.path, "source");
	picture_cell(b, &res->side[1], row->b.path, "result");
	counts_cell(b, res);
	const char *said = row->status >= 0 ? row->messages : res->said.text;
	tb_puts(b, "<td>");
	if (warnings || errors) {
		tb_puts(b, "<details><summary");
		if (errors) tb_puts(b, " class=\"bad\"");
		putf(b, ">%zu error%s, %zu warning%s</summary><pre>", errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
		html(b, said);
		for (int s = 0; s < 2; s++)
			if (res->side[s].problem && row->status >= 0) {
				html(b, s ? row->b.path : row->a.path);
				tb_puts(b, ": ");
				html(b, res->side[s].problem);
				tb_putc(b, '\n');
			}
		tb_puts(b, "</pre></details>");
	} else
		tb_puts(b, "none");
	tb_puts(b, "</td><td>");
	if (res->differences == 0) tb_puts(b, "<span class=\"good\">same</span>");
	else if (res->differences < 0) tb_puts(b, "not compared");
	else {
		putf(b, "<details><summary class=\"bad\">%lld difference%s</summary><pre>", res->differences, res->differences == 1 ? "" : "s");
		html(b, res->shown.text);
		tb_puts(b, "</pre></details>");
	}
	tb_puts(b, "</td></tr>\n");
}

/* A row's counts for the filters: the messages said for it (the conversion's, or what reading
 * its sides said), and a side that could not be read or drawn as an error. */
static void row_counts(const report_row *row, size_t *warnings, size_t *errors)
{
	const report_result *res = row->result;
	if (row->status >= 0) *warnings = row->warnings, *errors = row->errors;
	else *warnings = count_lines(res->said.text, ": warning: "), *errors = 0;
	for (int s = 0; s < 2; s++)
		if (res->side[s].problem && (s ? row->b.path : row->a.path)) ++*errors;
	if (row->status < 0 && (!row->a.path || !row->b.path)) ++*errors;
}

static void page(text_buf *b, const report_page *r)
{
	size_t n[4] = { r->count, 0, 0, 0 };
	size_t *w = calloc(r->count + 1, sizeof(size_t)), *e = calloc(r->count + 1, sizeof(size_t));
	for (size_t i = 0; w && e && i < r->count; i++) {
		row_counts(&r->rows[i], &w[i], &e[i]);
		n[1] += w[i] > 0;
		n[2] += e[i] > 0;
		n[3] += r->rows[i].result->differences > 0;
	}
	tb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>smdmx report</title>\n<style>");
	tb_puts(b, page_style);
	tb_puts(b, "</style></head>\n<body><h1>smdmx report</h1><p class=\"title\">");
	html(b, r->title);
	putf(b, "</p>\n<p>%zu file%s: %zu with warnings, %zu with errors, %zu with differences (smdmx diff)</p>\n", n[0],
	     n[0] == 1 ? "" : "s", n[1], n[2], n[3]);
	static const char *const shows[] = { "all", "warnings", "errors", "differences" };
	tb_puts(b, "<div class=\"controls\">Show:");
	for (int k = 0; k < 4; k++) putf(b, " <button type=\"button\" id=\"show-%s\" data-show=\"%s\">%s (%zu)</button>", shows[k], shows[k], k ? shows[k] : "all", n[k]);
	tb_puts(b, "</div>\n<table id=\"rows\"><thead><tr><th data-sort=\"name\">file</th><th>source</th><th>result</th>"
	           "<th data-sort=\"polygons\">counts</th><th data-sort=\"warnings\">messages</th>"
	           "<th data-sort=\"differences\">smdmx diff</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; w && e && i < r->count; i++) row_html(b, &r->rows[i], i, w[i], e[i]);
	tb_puts(b, "</tbody></table>\n<script>\n");
	tb_puts(b, page_script);
	tb_puts(b, "</script></body></html>\n");
	free(w);
	free(e);
}

/* Every file the rows read: the page never takes the place of one. */
static char **files_read(const report_page *r, size_t *n)
{
	*n = 0;
	char **v = malloc((4 * r->count + 1) * sizeof(char *));
	for (size_t i = 0; v && i < r->count; i++) {
		const report_side *s[2] = { &r->rows[i].a, &r->rows[i].b };
		for (int k = 0; k < 2; k++) {
			if (s[k]->path) v[(*n)++] = s[k]->path;
			if (s[k]->vta) v[(*n)++] = s[k]->vta;
		}
	}
	return v;
}

bool report_write(report_page *r, const char *path, unsigned workers, bool force, const char *name)
{
	run_parallel(workers, r->count, make_row, r);
	bool ok = true;
	for (size_t i = 0; i < r->count; i++) ok = ok && r->rows[i].result;
	text_buf b = { 0 };
	if (ok) page(&b, r);
	size_t nread;
	char **read = files_read(r, &nread);
	char why[1024] = "out of memory";
	ok = ok && b.text && read && write_file_whole(path, b.text, b.len, read, nread, force, why, sizeof(why));
	free(read);
	rows_free(r);
	if (!ok) say(name, "error", "the report was not written: %s", why);
	free(b.text);
	return ok;
}

/* ---- smdmx report A_DIR B_DIR -------------------------------------------------------------- */

static const char report_help[] =
	"usage: smdmx report A_DIR B_DIR -o FILE.html [-j N] [-f] [-q]\n"
	"Pairs the model files of two trees by their place (a/x.smd with b/x.dmx, the other format\n"
	"first; X.vta goes with X.smd), draws each side, compares them as smdmx diff does, and writes\n"
	"one self-contained HTML page: a row per pair with both pictures, their counts, what reading\n"
	"them said and the verdict; rows filtered to those with warnings, errors or differences, and\n"
	"sorted, in the page. A file with no partner is a row of its own.\n"
	"Exit codes: 0 the report was written, 1 it could not be, 2 a usage error.";

int cmd_report(int argc, char **argv)
{
	const char *dirs[2] = { NULL, NULL }, *out = NULL;
	unsigned jobs = 0;
	bool force = false, quiet = false;
	size_t nd = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			puts(report_help);
			return EXIT_OK;
		} else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
		else if ((!strcmp(a, "-j") && i + 1 < argc) || (!strncmp(a, "-j", 2) && a[2])) {
			char *end;
			long n = strtol(a[2] ? a + 2 : argv[++i], &end, 10);
			if (*end || n < 1 || n > 256) return say("smdmx", "error", "-j is a count from 1 to 256 (try 'smdmx report --help')"), EXIT_USAGE;
			jobs = (unsigned)n;
		} else if (!strcmp(a, "-f") || !strcmp(a, "--force")) force = true;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) quiet = true;
		else if (a[0] == '-' && a[1]) return say("smdmx", "error", "unknown option '%s' (try 'smdmx report --help')", a), EXIT_USAGE;
		else if (nd < 2) dirs[nd++] = a;
		else return say("smdmx", "error", "report compares two folders (try 'smdmx report --help')"), EXIT_USAGE;
	}
	if (nd != 2 || !out) return say("smdmx", "error", "report needs two folders and -o FILE.html (try 'smdmx report --help')"), EXIT_USAGE;
	smdmx_error err;
	smdmx_tree_pairs *pairs = smdmx_batch_pair_trees(dirs[0], dirs[1], &err);
	if (!pairs && err.code == SMDMX_ERROR_OUT_OF_MEMORY) have(NULL);
	if (!pairs) say("smdmx", "error", "%s", err.message);
	bool ok = pairs != NULL;
	report_page r = { NULL, NULL, 0 };
	char *title = xasprintf("smdmx report %s %s", dirs[0], dirs[1]);
	r.title = title;
	for (size_t i = 0; ok && i < pairs->count; i++) {
		const smdmx_tree_pair *p = &pairs->pairs[i];
		report_add(&r, p->path[0], p->path[1], -1, p->path[0] && p->path[1] ? "paired" : p->path[0] ? "only in A" : "only in B",
		           NULL, 0, 0);
		for (int k = 0; k < 2; k++)
			if (p->vta[k]) report_vta(&r, k, p->vta[k]);
	}
	size_t rows = r.count;
	if (ok) ok = report_write(&r, out, jobs, force, "smdmx");
	else rows_free(&r);
	if (ok && !quiet) printf("%s: %zu rows\n", out, rows);
	smdmx_tree_pairs_free(pairs);
	free(title);
	return ok ? EXIT_OK : EXIT_FAILED;
}
