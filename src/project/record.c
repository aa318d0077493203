/* The record of the files smdmx qc (smdmx_projects_convert) wrote into OUTDIR
 * (OUTDIR/.smdmx-written): each file's path below OUTDIR, the QC it was written for, its size and a hash of its bytes. A later
 * run for that QC replaces a file the record names for it whose bytes are still those: its
 * own output, which nobody changed since. Any other file there (a user's, one written for
 * another QC, one edited since) is never overwritten without --force (doc/qc.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "project/project_internal.h"
#include "support/xxh64.h"

#define RECORD_NAME ".smdmx-written"
#define RECORD_HEAD "# smdmx qc: the files it wrote into this folder. A later run for the same QC replaces a file\n" \
	"# whose bytes are still these; it leaves any other alone. One line a file: the XXH64 hash of\n" \
	"# its bytes, its size, its QC (from this folder), its path here (tab-separated).\n"

struct qp_rec {
	char *path;          /* below OUTDIR, '/' between folders */
	char *qc;            /* from OUTDIR (qc_key) */
	uint64_t hash, size;
	bool fnv;            /* hash is FNV-1a: a line of a record an earlier smdmx wrote */
};

/* The XXH64 hash (into xxh) and, when fnv is not NULL, the FNV-1a hash (64 bits) of the file
 * at path, and its size; false when it cannot be read. */
static bool file_hash(const char *path, uint64_t *xxh, uint64_t *fnv, uint64_t *size)
{
	FILE *f = os_fopen(path, "rb");
	if (!f) return false;
	uint64_t h = 0xcbf29ce484222325u, n = 0;
	sm_xxh64_ctx x;
	sm_xxh64_init(&x, 0);
	unsigned char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		sm_xxh64_update(&x, buf, got);
		for (size_t i = 0; fnv && i < got; i++) h = (h ^ buf[i]) * 0x100000001b3u;
		n += got;
	}
	bool ok = !ferror(f);
	fclose(f);
	*xxh = sm_xxh64_final(&x);
	if (fnv) *fnv = h;
	*size = n;
	return ok;
}

bool qp_file_hash(const char *path, uint64_t *hash, uint64_t *size)
{
	return file_hash(path, hash, NULL, size);
}

void qp_task_sums(task *t)
{
	pj_free(&t->proj->lib->mem, t->sums);
	t->sums = t->written_count ? pj_calloc(&t->proj->lib->mem, t->written_count, sizeof(qp_sum)) : NULL;
	for (size_t k = 0; t->sums && k < t->written_count; k++)
		if (!qp_file_hash(t->written[k], &t->sums[k].hash, &t->sums[k].size)) {
			pj_free(&t->proj->lib->mem, t->sums);
			t->sums = NULL;
		}
	t->sum_count = t->sums ? t->written_count : 0;
}

bool qp_task_sum(const task *t, size_t k, uint64_t *hash, uint64_t *size)
{
	if (!t->sums || k >= t->sum_count) return qp_file_hash(t->written[k], hash, size);
	*hash = t->sums[k].hash;
	*size = t->sums[k].size;
	return true;
}

/* The QC a file was written for, as the record names it: from OUTDIR (the record holds the
 * same bytes on Linux and Windows, and stays right when OUTDIR moves with the sources), or
 * whole when there is no way there (another drive). */
static char *qc_key(const library *l, const char *qcpath)
{
	char *rec = pj_asprintf(&l->mem, "%s%s", l->outdir, RECORD_NAME);
	char *key = pj_path_relative(&l->mem, rec, qcpath);
	pj_free(&l->mem, rec);
	return key;
}

/* path below OUTDIR, or NULL when it is not there */
static const char *below_outdir(const library *l, const char *path)
{
	size_t n = strlen(l->outdir);
	return !strncmp(path, l->outdir, n) && path[n] ? path + n : NULL;
}

/* The records by file, as the file system names it (os_path_key: one file in two cases on
 * Windows is one record). */
static uint32_t rec_get(const library *l, const char *rel)
{
	char *key = pj_path_key(&l->mem, rel);
	uint32_t k = qp_str_get(&l->rec, key);
	pj_free(&l->mem, key);
	return k;
}

static void rec_put(library *l, const char *rel, const char *qc, uint64_t hash, uint64_t size, bool fnv)
{
	uint32_t k = rec_get(l, rel);
	if (k == SMDMX_NONE) {
		struct qp_rec *grown = pj_realloc(&l->mem, l->recs, (l->rec_count + 1) * sizeof(*grown));
		if (!grown) return; /* out of memory: said; the run stops */
		l->recs = grown;
		char *path = pj_strdup(&l->mem, rel);
		if (!path) return;
		k = (uint32_t)l->rec_count++;
		l->recs[k] = (struct qp_rec){ path, NULL, 0, 0, false };
		char *key = pj_path_key(&l->mem, rel);
		qp_str_set(&l->rec, key, k);
		pj_free(&l->mem, key);
	}
	pj_free(&l->mem, l->recs[k].qc);
	l->recs[k].qc = pj_strdup(&l->mem, qc);
	l->recs[k].hash = hash;
	l->recs[k].size = size;
	l->recs[k].fnv = fnv;
}

void qp_record_load(library *l)
{
	char *path = pj_asprintf(&l->mem, "%s%s", l->outdir, RECORD_NAME);
	size_t n;
	char *text = pj_read_whole(&l->mem, path, &n);
	pj_free(&l->mem, path);
	/* A record whose head does not name XXH64 is an earlier smdmx's, whose hashes are FNV-1a
	 * (decision 18): they are checked as such, and made XXH64 when it is saved. */
	bool fnv = true;
	for (const char *s = text; fnv && s && *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (*s == '#')
			for (size_t i = 0; fnv && i + 5 <= len; i++) fnv = memcmp(s + i, "XXH64", 5) != 0;
		s += len + (e != NULL);
	}
	/* a line it cannot read is left out, said: its file is then nobody's, and stays */
	size_t line = 0, unread = 0, first = 0;
	for (char *s = text; s && *s;) {
		char *e = strchr(s, '\n');
		if (e) *e = 0;
		line++;
		uint64_t hash, size;
		int at = 0;
		char *qc = NULL, *rel = NULL;
		if (*s != '#' && sscanf(s, "%16" SCNx64 " %" SCNu64 "\t%n", &hash, &size, &at) == 2 && at > 0) {
			qc = s + at;
			rel = strchr(qc, '\t');
		}
		bool read = *s == '#' || (!*s && !e);
		if (rel && rel[1]) {
			*rel++ = 0;
			if (*qc && !strchr(rel, '\t')) read = true, rec_put(l, rel, qc, hash, size, fnv);
		}
		if (!read && !unread++) first = line;
		s = e ? e + 1 : s + strlen(s);
	}
	pj_free(&l->mem, text);
	if (unread) {
		char *where = pj_asprintf(&l->mem, "%s%s", l->outdir, RECORD_NAME);
		pj_add(&l->said, where, (uint32_t)first, 1, "warning",
		         "%zu line%s of the record smdmx qc cannot read (the first here): left out; the files they name are taken as "
		         "someone else's and not replaced without --force",
		         unread, unread == 1 ? "" : "s");
		pj_free(&l->mem, where);
	}
}

bool qp_record_own(const library *l, const char *path, const char *qcpath)
{
	const char *rel = below_outdir(l, path);
	uint32_t k = rel ? rec_get(l, rel) : SMDMX_NONE;
	if (k == SMDMX_NONE) return false;
	const struct qp_rec *r = &l->recs[k];
	char *qc = qc_key(l, qcpath);
	bool same_qc = qc && r->qc && !os_path_compare(qc, r->qc);
	pj_free(&l->mem, qc);
	uint64_t xxh, fnv = 0, size;
	return same_qc && file_hash(path, &xxh, r->fnv ? &fnv : NULL, &size) && (r->fnv ? fnv : xxh) == r->hash &&
	       size == r->size;
}

void qp_record_summed(library *l, const char *path, const char *qcpath, uint64_t hash, uint64_t size)
{
	const char *rel = below_outdir(l, path);
	if (!rel || strpbrk(rel, "\t\n") || strpbrk(qcpath, "\t\n")) return; /* a name a line cannot hold */
	char *qc = qc_key(l, qcpath);
	rec_put(l, rel, qc, hash, size, false);
	pj_free(&l->mem, qc);
}

void qp_record_written(library *l, const char *path, const char *qcpath)
{
	uint64_t hash, size;
	if (qp_file_hash(path, &hash, &size)) qp_record_summed(l, path, qcpath, hash, size);
}

void qp_record_save(library *l)
{
	if (!l->outdir) return;
	for (size_t i = 0; i < l->task_count; i++) {
		const task *t = l->tasks[i];
		uint64_t hash, size;
		for (size_t k = 0; k < t->written_count; k++)
			if (qp_task_sum(t, k, &hash, &size)) qp_record_summed(l, t->written[k], t->proj->qcpath, hash, size);
	}
	pj_text t = { .mem = &l->mem };
	pj_puts(&t, RECORD_HEAD);
	size_t kept = 0;
	for (size_t i = 0; i < l->rec_count; i++) {
		const struct qp_rec *r = &l->recs[i];
		char *path = pj_asprintf(&l->mem, "%s%s", l->outdir, r->path);
		os_stat st;
		bool there = path && os_stat_path(path, &st) && st.kind == OS_REGULAR;
		/* An earlier smdmx's line (FNV-1a) not written again by this run: its file, if still
		 * as written, is named by its XXH64; else the line goes (a file whose bytes are not
		 * the record's is nobody's, line or no line). */
		uint64_t hash = r->hash, size = r->size, fnv;
		if (there && r->fnv) there = file_hash(path, &hash, &fnv, &size) && fnv == r->hash && size == r->size;
		pj_free(&l->mem, path);
		if (!there) continue; /* gone: nothing to say of it */
		char line[64];
		snprintf(line, sizeof(line), "%016" PRIx64 " %" PRIu64 "\t", hash, size);
		pj_puts(&t, line);
		pj_puts(&t, r->qc);
		pj_putc(&t, '\t');
		pj_puts(&t, r->path);
		pj_putc(&t, '\n');
		kept++;
	}
	char *path = pj_asprintf(&l->mem, "%s%s", l->outdir, RECORD_NAME);
	os_stat st;
	/* out of memory: no record rather than one cut short (the run fails; a later one takes
	 * the files for someone else's) */
	bool whole = path && !t.lost && !qp_ran_out(l);
	/* nothing written and no record there: none made (a run that wrote nothing leaves nothing) */
	if (whole && (kept || os_stat_path(path, &st))) {
		pj_outputs set = { .hooks = &l->mem.hooks, .mem = &l->mem };
		set.force = true;
		char why[1024];
		char **written = NULL;
		size_t written_count = 0;
		pj_output *o = pj_outputs_open(&set, path, why, sizeof(why));
		bool ok = o && (pj_output_write(o, t.text, t.len) || (snprintf(why, sizeof(why), "%s", os_error_text(smdmx_output_errno(o))), false));
		if (ok) ok = pj_outputs_commit(&set, &written, &written_count, why, sizeof(why));
		else pj_outputs_abort(&set);
		for (size_t k = 0; k < written_count; k++) pj_free(&l->mem, written[k]);
		pj_free(&l->mem, written);
		if (!ok)
			pj_add(&l->said, NULL, 0, 0, "warning", "cannot write the record of what was written '%s': %s (a later run takes its files for "
			       "someone else's, and writes beside them)", path, why);
	}
	pj_free(&l->mem, path);
	pj_free(&l->mem, t.text);
}

void qp_record_free(library *l)
{
	for (size_t i = 0; i < l->rec_count; i++) {
		pj_free(&l->mem, l->recs[i].path);
		pj_free(&l->mem, l->recs[i].qc);
	}
	pj_free(&l->mem, l->recs);
	qp_str_map_free(&l->rec);
}
