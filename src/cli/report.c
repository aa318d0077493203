/* Batch reports (report.h): rows drawn and compared on several threads, one HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report.h"

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
			free(row->result->expected);
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
	if (!picture_png(s, &ro, &png, &size, NULL, 0, NULL, &err)) {
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

/* Differences that one known cause explains, named (NULL when none does): a DMX animation's
 * bind pose, which an SMD animation cannot hold (its first frame is its bind pose, as
 * dmx2smd says), and clips of one frame rate against another (a QC's fps applied to one
 * side, the other read at its format's default). The scenes' rates are put back. */
static char *expected_cause(smdmx_scene *a, smdmx_scene *b, const smdmx_compare_options *opts)
{
	smdmx_compare_options o = *opts;
	o.ignore_bind_when_animated = a->clip_count && b->clip_count;
	bool bind = o.ignore_bind_when_animated && smdmx_scene_diff(a, b, &o, NULL, NULL) == 0;
	if (bind)
		return xstrdup("the bind pose of an animation: an SMD animation's is its first frame (dmx2smd says so where it "
		               "differs); nothing to do");
	if (a->clip_count != b->clip_count || !a->clip_count) return NULL;
	double ra = a->clips[0].frame_rate, rb = b->clips[0].frame_rate;
	bool one_rate = true;
	for (size_t c = 0; c < a->clip_count; c++) one_rate = one_rate && a->clips[c].frame_rate == ra && b->clips[c].frame_rate == rb;
	if (!one_rate || ra == rb) return NULL;
	for (size_t c = 0; c < b->clip_count; c++) b->clips[c].frame_rate = ra;
	bool rate = smdmx_scene_diff(a, b, opts, NULL, NULL) == 0;
	bool rate_bind = !rate && smdmx_scene_diff(a, b, &o, NULL, NULL) == 0;
	for (size_t c = 0; c < b->clip_count; c++) b->clips[c].frame_rate = rb;
	if (!rate && !rate_bind) return NULL;
	return xasprintf("the frame rate: %g fps against %g (an fps a QC gives one side, the other read at its format's "
	                 "default)%s; nothing to do", ra, rb, rate_bind ? ", and the bind pose of an animation" : "");
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
	smdmx_scene *cmp[2] = { qcs ? as_files[0] : s[0], qcs ? as_files[1] : s[1] };
	if (cmp[0] && cmp[1]) {
		smdmx_compare_options opts;
		smdmx_diff_options(NULL, NULL, &opts);
		smdmx_diff_options(cmp[0], cmp[1], &opts);
		diff_ctx c = { res, 0 };
		res->differences = (long long)smdmx_scene_diff(cmp[0], cmp[1], &opts, note_difference, &c);
		if (res->differences > 0) res->expected = expected_cause(cmp[0], cmp[1], &opts);
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
	report_files files = { NULL, 0 };
	ok = ok && report_page_files(r, path, &files);
	size_t nread;
	char **read = files_read(r, &nread);
	char why[1024] = "out of memory";
	ok = ok && read && write_files_whole(files.files, files.count, read, nread, force, why, sizeof(why));
	free(read);
	rows_free(r);
	report_files_free(&files);
	if (!ok) say(name, "error", "the report was not written: %s", why);
	return ok;
}

/* ---- smdmx report A_DIR B_DIR -------------------------------------------------------------- */

static const char report_help[] =
	"usage: smdmx report A_DIR B_DIR -o FILE.html [-j N] [-f] [-q]\n"
	"Pairs the model files of two trees by their place (a/x.smd with b/x.dmx, the other format\n"
	"first; X.vta goes with X.smd), draws each side, compares them as smdmx diff does, and writes\n"
	"an HTML page: a row per pair with both pictures, their counts, what reading them said and\n"
	"the verdict (differences a known cause explains named as expected); a summary, a search,\n"
	"filters by state and sorting in the page. A file with no partner is a row of its own. A\n"
	"report of more than 100 rows keeps its pictures beside the page, in FILE_files/.\n"
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
		char *why = NULL;
		bool copied = p->path[0] && p->path[1] && !strcasecmp(os_path_extension(p->path[0]), os_path_extension(p->path[1])) &&
		              smdmx_file_same_bytes(p->path[0], p->path[1], NULL, 0);
		if (!p->path[0] || !p->path[1])
			why = xasprintf("%s: note: only in %s: %s has no model file at its place (its path below %s, in any model "
			                "format)\n", p->path[0] ? p->path[0] : p->path[1], p->path[0] ? "A" : "B", p->path[0] ? "B" : "A",
			                p->path[0] ? dirs[1] : dirs[0]);
		else if (copied)
			why = xasprintf("%s: note: copied: B holds the same bytes, as smdmx qc copies a file it does not convert (one in "
			                "the format already, or one that failed with -k)\n", p->path[1]);
		report_add(&r, p->path[0], p->path[1], -1,
		           copied ? "copied" : p->path[0] && p->path[1] ? "paired" : p->path[0] ? "only in A" : "only in B", why, 0, 0);
		free(why);
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
