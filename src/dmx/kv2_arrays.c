/* keyvalues2 reading, a large number array on several threads: its end found and its items
 * counted together, then parts read in the fast form straight into their places, or the
 * array left whole to the single-threaded reader (kv2_read.c). */
#include <stdatomic.h>
#include <string.h>

#include "dmx/kv2_read.h"

/* ---- a large number array on several threads -------------------------------------------------
 *
 * The threads first find the first ']' together, counting quotes on the way (scan_run).
 * The items before it are cut into parts at quotes that follow a separator (an item's
 * opening quote in a number array), each part is given its place in the array by the quotes
 * before it, and each is read on a thread of its own, in the fast form only, straight into
 * its place. When every part reads, and each stops exactly where the next starts, the array is theirs
 * in order; anything else (a comment, an escape, a number in another form, too many items)
 * leaves the whole array to the single-threaded reader, which says what it says of it. So
 * the result, and any error or warning, is the same at any thread count. */

uint64_t sm_kv2_part_min = (uint64_t)1 << 20; /* bytes; smaller arrays are read on one thread */

typedef struct array_part {
	const char *data;
	size_t start, end;      /* offsets: its first item's quote; where the next part starts */
	smdmx_dm_type type;
	int comps;
	size_t item;            /* bytes per item */
	size_t count;           /* items */
	char *items;            /* read them here */
	bool ok;
} array_part;

static void array_part_run(void *arg)
{
	array_part *p = arg;
	const char *d = p->data;
	p->ok = false;
	const char *end = d + p->end;
	size_t q = p->start, got = 0;
	for (;;) {
		if (p->type == SMDMX_DM_INT)
			got += fast_int_run(d, q, p->end, (int32_t *)(void *)p->items + got, p->count - got, &q);
		while (q < p->end && skip_class[(uint8_t)d[q]]) q++;
		if (q >= p->end) break;
		if (d[q] != '"' || got == p->count) return;
		const char *next;
		if (!fast_item(d + q + 1, end, p->type, p->comps, p->items + got * p->item, &next)) return;
		got++;
		q = (size_t)(next - d) + 1;
	}
	p->ok = q == p->end && got == p->count;
}

/* Runs every part; true when all of them are ok. */
static bool run_parts(kv2 *k, array_part *ps, size_t n)
{
	sm_crew_run(&k->crew, array_part_run, ps, sizeof(*ps), n);
	bool ok = true;
	for (size_t i = 0; i < n; i++) ok = ok && ps[i].ok;
	return ok;
}

/* Finding the array's end, and counting its items, on every thread at once: the text from
 * the array's start is taken in blocks, thread t scanning blocks t, t + T, ..., each block's
 * quotes counted up to its first ']', until a block before the one at hand has a ']'. */
typedef struct scan_job {
	const char *data;
	size_t from, size, blocks, block; /* block: bytes */
	size_t first, stride;   /* this thread's blocks */
	_Atomic size_t *found;  /* the first block known to hold a ']' */
	size_t *ends;           /* per block: its first ']', or SIZE_MAX */
	size_t *quotes;         /* per block: its quotes before that */
} scan_job;

static void scan_run(void *arg)
{
	scan_job *j = arg;
	for (size_t b = j->first; b < j->blocks; b += j->stride) {
		if (b > atomic_load(j->found)) return;
		const char *p = j->data + j->from + b * j->block;
		size_t n = j->size - (j->from + b * j->block);
		if (n > j->block) n = j->block;
		const char *close = memchr(p, ']', n);
		size_t upto = close ? (size_t)(close - p) : n, q = 0;
		for (size_t i = 0; i < upto; i++) q += p[i] == '"';
		j->quotes[b] = q;
		j->ends[b] = close ? (size_t)(close - j->data) : SIZE_MAX;
		if (close) {
			size_t f = atomic_load(j->found);
			while (b < f && !atomic_compare_exchange_weak(j->found, &f, b)) {
			}
			return;
		}
	}
}

/* 1: the array was read; 0: read it on this thread; -1: out of memory. */
int kv2_read_array_parallel(kv2 *k, smdmx_dm_attr *a, sm_vec *items, size_t item, int comps)
{
	const char *d = k->data;
	size_t from = k->pos, small = (size_t)sm_kv2_part_min * 2;
	if (k->size - from <= small || memchr(d + from, ']', small)) return 0; /* a small array */
	/* Its end, and the quotes of each block. */
	/* a quarter of a part, and at most 4,096 blocks from here to the end of the file */
	size_t block = (size_t)sm_kv2_part_min / 4, rest = k->size - from;
	if (block < rest / 4096 + 1) block = rest / 4096 + 1;
	size_t blocks = (rest + block - 1) / block;
	size_t *ends = sm_malloc(&k->mem->alloc, blocks * 2 * sizeof(size_t));
	if (!ends) {
		sm_fail_oom(k->error);
		return -1;
	}
	size_t *quotes = ends + blocks;
	_Atomic size_t found = SIZE_MAX;
	unsigned threads = k->threads > SM_TEAM_MAX ? SM_TEAM_MAX : k->threads;
	scan_job sj[SM_TEAM_MAX];
	for (unsigned t = 0; t < threads; t++)
		sj[t] = (scan_job){ .data = d, .from = from, .size = k->size, .blocks = blocks, .block = block, .first = t, .stride = threads,
			            .found = &found, .ends = ends, .quotes = quotes };
	sm_crew_run(&k->crew, scan_run, sj, sizeof(*sj), threads);
	size_t last = atomic_load(&found);
	int done = 0;
	if (last == SIZE_MAX) goto out; /* never closed: the reader says so */
	size_t to = ends[last];
	uint64_t parts = (to - from) / sm_kv2_part_min;
	if (parts > threads) parts = threads;
	if (parts < 2) goto out;
	/* Quotes before each block. */
	for (size_t b = 0, sum = 0; b <= last; b++) {
		size_t q = quotes[b];
		quotes[b] = sum;
		sum += q;
		if (b == last) ends[0] = sum; /* all of the array's quotes (ends[] is done with) */
	}
	size_t all_quotes = ends[0];
	/* Part starts: the first item, then at opening quotes (a quote after a separator; a
	 * closing quote follows a digit) from block boundaries on, with the quotes before each. */
	size_t first = from;
	while (first < to && skip_class[(uint8_t)d[first]]) first++;
	if (first >= to || d[first] != '"') goto out;
	size_t starts[65], before[65], n = 0;
	starts[n] = first;
	before[n++] = 0;
	for (uint64_t i = 1; i < parts; i++) {
		size_t b = (size_t)((last + 1) * i / parts), q = from + b * block, gap = 0;
		if (q <= starts[n - 1]) continue;
		while (q < to && !(d[q] == '"' && skip_class[(uint8_t)d[q - 1]])) gap += d[q++] == '"';
		if (q >= to) continue;
		starts[n] = q;
		before[n++] = quotes[b] + gap;
	}
	if (n < 2) goto out;
	starts[n] = to;
	before[n] = all_quotes;
	array_part ps[64];
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		size_t q = before[i + 1] - before[i];
		if (q % 2) goto out; /* not items of the fast form: the reader says what it is */
		ps[i] = (array_part){ .data = d, .start = starts[i], .end = starts[i + 1], .type = a->type, .comps = comps,
			              .item = item, .count = q / 2 };
		total += q / 2;
	}
	if (total > k->limits.max_array_items) goto out;
	if (!sm_vec_reserve(k->mem, items, item, total, k->error)) {
		done = -1;
		goto out;
	}
	char *dst = items->data;
	for (size_t i = 0; i < n; i++) {
		ps[i].items = dst;
		dst += ps[i].count * item;
	}
	if (!run_parts(k, ps, n)) goto out;
	items->count = total;
	k->pos = to + 1;
	release_behind(k);
	done = 1;
out:
	sm_free(&k->mem->alloc, ends, blocks * 2 * sizeof(size_t));
	return done;
}
