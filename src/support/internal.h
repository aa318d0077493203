/* smdmx internals shared by the library's modules: allocation through the user's hooks,
 * the memory a scene owns, and error/warning reporting. Comments that cite "decision N" mean
 * doc/decisions.md, N. */
#ifndef SMDMX_INTERNAL_H
#define SMDMX_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "platform/os.h"
#include "smdmx/error.h"
#include "smdmx/scene.h"

#if defined(__GNUC__)
#define SM_NODISCARD __attribute__((warn_unused_result))
#define SM_PRINTF(f, a) __attribute__((format(OS_PRINTF, f, a)))
#define SM_LIKELY(x) __builtin_expect(!!(x), 1)
#define SM_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SM_NODISCARD
#define SM_PRINTF(f, a)
#define SM_LIKELY(x) (x)
#define SM_UNLIKELY(x) (x)
#endif

/* Names compared as studiomdl compares them (QC names): ASCII letters ignoring case. */
static inline bool sm_same_nocase(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
		if (x != y) return false;
		if (!x) return true;
	}
}

/* The extension of a path's file name, after its last '.' ("" when it has none, or when the
 * name starts with its only dot): the name is what follows the last '/' or '\\' (QC names
 * and materials take either). */
static inline const char *sm_extension(const char *path)
{
	const char *base = path, *dot = NULL;
	for (const char *c = path; *c; c++) {
		if (*c == '/' || *c == '\\') base = c + 1, dot = NULL;
		else if (*c == '.') dot = c;
	}
	return dot && dot != base ? dot + 1 : "";
}

/* The first n bytes (or up to a NUL in both) alike but for case. */
static inline bool sm_same_nocase_n(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] + 32) : a[i];
		char y = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] + 32) : b[i];
		if (x != y) return false;
		if (!x) return true;
	}
	return true;
}

/* Propagate a failure: every fallible internal function returns bool. */
#define SM_CHECK(expr) do { if (SM_UNLIKELY(!(expr))) return false; } while (0)

/* ---- allocation ---------------------------------------------------------------------- */

typedef struct sm_alloc {
	smdmx_allocator hooks;
	size_t live;        /* bytes currently allocated */
	size_t made;        /* allocations made so far */
} sm_alloc;

void sm_alloc_init(sm_alloc *a, const smdmx_allocator *hooks);
/* Set around allocations that several threads fill at once: the default allocator then
 * leaves their pages to be faulted in by those threads, in parallel, rather than populating
 * them here. */
extern _Thread_local bool sm_alloc_lazy;
/* The pages of a block allocated lazily made resident in one call, by the thread about to
 * fill it (huge pages asked for a block of 4 MiB or more). */
void sm_alloc_populate(void *p, size_t size);
SM_NODISCARD void *sm_malloc(sm_alloc *a, size_t size);
SM_NODISCARD void *sm_realloc(sm_alloc *a, void *ptr, size_t old_size, size_t new_size);
void sm_free(sm_alloc *a, void *ptr, size_t size);
/* Blocks that keep their size (in a header before them, aligned as malloc aligns): count *
 * size bytes (0: 1 byte), NULL when the product overflows or memory ran out; sm_new_zero's
 * zeroed. sm_del frees one (NULL: nothing), through the allocator that made it. */
/* A string copied (NULL: NULL), freed by its length and one byte. */
SM_NODISCARD char *sm_str_copy(sm_alloc *a, const char *s);
void sm_str_free(sm_alloc *a, char *s);
SM_NODISCARD void *sm_new(sm_alloc *a, size_t count, size_t size);
SM_NODISCARD void *sm_new_zero(sm_alloc *a, size_t count, size_t size);
/* An sm_new block grown or shrunk to count * size bytes, kept whole where it cannot be (NULL
 * then); NULL p: sm_new. */
SM_NODISCARD void *sm_renew(sm_alloc *a, void *p, size_t count, size_t size);
void sm_del(sm_alloc *a, void *p);

/* One job's memory, however many readers, writers, owners and threads take from it: the
 * caller's allocator (its hooks, or malloc), its memory_limit and fail_after counted over the
 * whole job rather than per reader. sm_budget_start gives the hooks every allocator of the
 * job is made with (sm_alloc_init, a reader's options): they count into b, safely from
 * several threads, and call the caller's. b must outlive every block made through them. */
typedef struct sm_budget {
	smdmx_allocator outer;      /* the caller's hooks (malloc's when none) */
	size_t limit, fail_after;
	_Atomic size_t live, made;
	_Atomic bool ran_out;       /* an allocation was refused or failed */
} sm_budget;
smdmx_allocator sm_budget_start(sm_budget *b, const smdmx_allocator *caller);
/* bytes made outside the budget (the job's own struct, which holds it) counted in it as if
 * made through it: false, refused, when they pass its limit. */
bool sm_budget_count(sm_budget *b, size_t bytes);
/* Whether an allocation of the job was refused or failed (wherever its NULL went). */
bool sm_budget_ran_out(const sm_budget *b);
/* What outlives the job (a scene handed back), made through b's hooks, taken out of it: a
 * then calls the caller's hooks directly, no longer counted. */
void sm_budget_leave(sm_budget *b, sm_alloc *a);

/* Room for a moment beside a scene (a list sorted, a text put together): its allocator's hooks
 * (malloc's for a scene built by hand) in an sm_alloc of its own, the scene's counts untouched;
 * take blocks with sm_new and kin, which free without their size. */
sm_alloc sm_scene_room(const smdmx_scene *scene);

/* Where a platform object of a job lives (os_dir_open_in, os_thread_start_in,
 * os_mutex_create_in): its allocator's hooks; NULL: malloc's. */
static inline os_mem sm_os_mem(const smdmx_allocator *hooks)
{
	return hooks ? (os_mem){ hooks->alloc_fn, hooks->free_fn, hooks->user } : (os_mem){ 0 };
}

/* Overflow-checked a * b; false when it overflows. */
static inline bool sm_mul(size_t a, size_t b, size_t *out)
{
	if (b != 0 && a > SIZE_MAX / b) return false;
	*out = a * b;
	return true;
}

/* ---- names ---------------------------------------------------------------------------- */

/* Strings to values in O(1), so that matching things by name never compares every pair:
 * open addressing over (name, value) pairs; the names are borrowed, not copied. */
typedef struct sm_name_slot {
	const char *name; /* NULL: empty */
	uint32_t value;
} sm_name_slot;

typedef struct sm_names {
	sm_name_slot *slots;
	size_t cap;      /* a power of two, at least twice count */
	size_t count;
} sm_names;

/* Room for n names without growing. */
SM_NODISCARD bool sm_names_init(sm_alloc *a, sm_names *x, size_t n);
void sm_names_free(sm_alloc *a, sm_names *x);
/* The value of name, or SMDMX_NONE. */
uint32_t sm_names_get(const sm_names *x, const char *name);
/* Sets name's value (a name already there keeps its first value when keep_first). */
SM_NODISCARD bool sm_names_put(sm_alloc *a, sm_names *x, const char *name, uint32_t value, bool keep_first);

/* Items 0..n-1 grouped by key (a counting sort, stable): the items of key k are
 * order[first[k] .. first[k + 1]). Item i's key is key[through[i]], or key[i] when through
 * is NULL; every key is below keys. first has keys + 1 entries, order n. */
void sm_group(const uint32_t *key, const uint32_t *through, size_t n, size_t keys, uint32_t *first, uint32_t *order);

/* ---- scene ownership ------------------------------------------------------------------ */

/* The first joint whose parents never end (on or into a cycle); SIZE_MAX when none,
 * SIZE_MAX - 1 when memory ran out (a NULL allocator walks instead, in quadratic time). */
size_t sm_first_cyclic_joint(sm_alloc *a, const smdmx_joint *joints, size_t n);

/* Every allocation of a scene is a slot in its owner: freeing the scene frees the slots. */
typedef struct sm_slot {
	void *ptr;
	size_t size;
} sm_slot;

typedef struct smdmx_scene_owner {
	sm_alloc alloc;
	sm_slot *slots;
	size_t slot_count, slot_cap;
	char *str_block;            /* current block for small strings */
	size_t str_used, str_cap;
} sm_owner;
/* The hooks a scene's memory comes from: NULL (malloc's) for a scene built by hand. */
static inline const smdmx_allocator *sm_scene_hooks(const smdmx_scene *scene)
{
	return scene && scene->owner ? &scene->owner->alloc.hooks : NULL;
}

/* A growable array owned by a scene. */
typedef struct sm_vec {
	void *data;
	size_t count;   /* elements in use */
	size_t cap;     /* elements allocated */
	size_t slot;    /* owner slot, SIZE_MAX before the first allocation */
} sm_vec;

#define SM_VEC_INIT { NULL, 0, 0, SIZE_MAX }

/* An owner with nothing in it yet; sm_owner_free releases every slot and the owner. */
sm_owner *sm_owner_new(const smdmx_allocator *hooks, smdmx_error *error);
void sm_owner_free(sm_owner *o);
smdmx_scene *sm_scene_new(const smdmx_allocator *hooks, smdmx_error *error);
/* The scene's memory: a scene built by hand gets its own here (NULL, error set, when out of
 * memory). */
SM_NODISCARD sm_owner *sm_scene_memory(smdmx_scene *scene, smdmx_error *error);
SM_NODISCARD void *sm_owned_alloc(sm_owner *o, size_t size, smdmx_error *error);
SM_NODISCARD void *sm_owned_calloc(sm_owner *o, size_t count, size_t elem, smdmx_error *error);
SM_NODISCARD bool sm_vec_reserve(sm_owner *o, sm_vec *v, size_t elem, size_t need, smdmx_error *error);
/* Reserve room for one more element and return a pointer to it (count is incremented). */
SM_NODISCARD void *sm_vec_push_slow(sm_owner *o, sm_vec *v, size_t elem, smdmx_error *error);
SM_NODISCARD static inline void *sm_vec_push(sm_owner *o, sm_vec *v, size_t elem, smdmx_error *error)
{
	if (SM_LIKELY(v->count < v->cap)) return (char *)v->data + elem * v->count++;
	return sm_vec_push_slow(o, v, elem, error);
}
/* Give the memory of a vector back early (temporary tables). */
void sm_vec_release(sm_owner *o, sm_vec *v, size_t elem);
SM_NODISCARD const char *sm_strdup(sm_owner *o, const char *s, size_t len, smdmx_error *error);

/* Big allocations moved from one owner to another: a scene adopting its datamodel's arrays
 * instead of copying them (doc/speed.md, "Arrays adopted, not copied"). Possible when both
 * owners free through the same hooks and neither counts against a limit. take moves the slot
 * that starts at ptr, when it holds sm_adopt_min bytes or more, and says whether it did (else
 * the caller copies: a smaller array, one inside a larger allocation, one taken already, or
 * no memory for the index). */
typedef struct sm_adopt_ref {
	uintptr_t at;      /* a slot's address */
	size_t slot;
} sm_adopt_ref;

typedef struct sm_adopt {
	sm_owner *from, *to;  /* NULL: nothing is taken */
	sm_adopt_ref *big;    /* slots of from of sm_adopt_min bytes or more, by address */
	size_t count;
	bool ready, failed;
} sm_adopt;

extern size_t sm_adopt_min;
void sm_adopt_init(sm_adopt *a, sm_owner *from, sm_owner *to);
bool sm_adopt_take(sm_adopt *a, const void *ptr);
void sm_adopt_free(sm_adopt *a);

/* Items (keyvalues2 number arrays), polygons or values (SMD meshes and their text pools) a
 * writer's thread takes at once (16,384; twice that are written on one thread). */
extern size_t sm_write_part_min;
/* How the SMD writer keeps the text of a mesh's values (src/smd/smd_write.c; tests set it):
 * 0 as each array's order asks, 1 in caches of two slots, 2 in pools. */
extern int sm_smd_value_texts;

/* ---- errors ----------------------------------------------------------------------------- */

/* Fills *error unless it already holds a failure (the first one wins). Returns false. */
/* The SMD reader gives what a vertex's weights leave below this to its parent bone (decision
 * 6); the writer scales weights that sum below it to 1. */
#define SM_WEIGHT_SUM_LOW (1.0 - 1e-5)
/* The sum of position p's weights. */
static inline double sm_weight_sum(const smdmx_mesh *m, size_t p)
{
	double sum = 0;
	if (m->weight_offsets)
		for (uint32_t k = m->weight_offsets[p]; k < m->weight_offsets[p + 1]; k++) sum += m->weights[k].weight;
	return sum;
}

/* The rule for a public call's error (doc/library.md): it may be NULL. SM_ERROR_START, first
 * in a call that starts a job (a read, a write, a conversion), points a NULL error at one of
 * its own and clears it; SM_ERROR_SLOT, first in a builder (an element, an attribute, a
 * string added), only points a NULL error at one of its own, so that a run of builders keeps
 * its first failure. */
#define SM_ERROR_SLOT(e) \
	smdmx_error sm_error_spare_; \
	if (!(e)) (e) = &sm_error_spare_, memset(&sm_error_spare_, 0, sizeof(sm_error_spare_))
#define SM_ERROR_START(e) \
	smdmx_error sm_error_spare_; \
	if (!(e)) (e) = &sm_error_spare_; \
	memset((e), 0, sizeof(*(e)))

bool sm_fail(smdmx_error *error, smdmx_error_code code, uint32_t line, uint32_t column,
             const char *fmt, ...) SM_PRINTF(5, 6);
bool sm_fail_oom(smdmx_error *error);
/* The rule for a public call's pointers (doc/library.md): NULL where the call needs one is a
 * usage error, "CALL: ARG is NULL", never a crash. False. */
bool sm_fail_null(smdmx_error *error, const char *call, const char *arg);
/* A call's warnings (error.h): emptied, its room kept where the call's allocator made it, the
 * call's allocator taken (NULL: malloc's); at the call's end, sm_warnings_kept fails it out of
 * memory if a warning found no room. */
void sm_warnings_start(smdmx_warnings *w, const smdmx_allocator *allocator);
/* A list started with a budget's hooks taken out of it as the call ends (sm_budget_leave). */
void sm_warnings_leave(smdmx_warnings *w, sm_budget *budget);
SM_NODISCARD bool sm_warnings_kept(const smdmx_warnings *w, smdmx_error *error);
/* from's warnings added to into's (NULL: none wanted), one entry per kind (counts of a kind
 * into has add up, its first place stays), lines moved by line_base, a new entry with its
 * file: its own, else file ("": none); what from lost counted in into; from given back. */
void sm_warnings_merge(smdmx_warnings *into, smdmx_warnings *from, uint32_t line_base, const char *file);
void sm_warn(smdmx_warnings *w, smdmx_warning_code code, uint32_t line, uint32_t column,
             const char *fmt, ...) SM_PRINTF(5, 6);
/* The same, n occurrences at once (none when n is 0). */
void sm_warn_n(smdmx_warnings *w, smdmx_warning_code code, size_t n, uint32_t line, uint32_t column,
               const char *fmt, ...) SM_PRINTF(6, 7);

/* ---- buffered output ---------------------------------------------------------------------- */

#define SM_OUT_CAP ((size_t)1 << 16)

/* The writers' output buffer in front of a smdmx_write_fn; a failed write is an IO error. */
typedef struct sm_out {
	smdmx_write_fn write;
	void *user;
	smdmx_error *error;
	size_t len;
	char buf[SM_OUT_CAP];
} sm_out;

SM_NODISCARD bool sm_out_flush(sm_out *o);
/* Copies n bytes through the buffer, flushing as it fills. */
SM_NODISCARD bool sm_out_put_slow(sm_out *o, const char *s, size_t n);

/* Appends n bytes; a large piece goes to the sink as it is, after what is buffered. */
SM_NODISCARD bool sm_out_put_direct(sm_out *o, const char *s, size_t n);

/* Makes room for n bytes (n <= SM_OUT_CAP) at o->buf + o->len. */
SM_NODISCARD static inline bool sm_out_room(sm_out *o, size_t n)
{
	return SM_LIKELY(SM_OUT_CAP - o->len >= n) || sm_out_flush(o);
}

/* Appends n bytes; a piece that fits in the buffer is copied inline. */
SM_NODISCARD static inline bool sm_out_put(sm_out *o, const char *s, size_t n)
{
	if (SM_LIKELY(SM_OUT_CAP - o->len >= n)) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
		return true;
	}
	return sm_out_put_slow(o, s, n);
}

/* Appends a string. */
SM_NODISCARD static inline bool sm_out_puts(sm_out *o, const char *s)
{
	return sm_out_put(o, s, strlen(s));
}

/* ---- progress ------------------------------------------------------------------------------- */

/* Bytes read between two calls of a reading's progress (smdmx_progress). */
#define SM_PROGRESS_STEP ((uint64_t)4 << 20)

/* A reader at byte at of its input, *told of them told: the rest told when it is a step or
 * more, or any of it with all (the end). */
static inline void sm_progress_at(const smdmx_progress *p, uint64_t *told, uint64_t at, bool all)
{
	if (p->fn && at > *told && (all || at - *told >= SM_PROGRESS_STEP)) {
		p->fn(p->user, at - *told);
		*told = at;
	}
}

/* ---- work on several threads ---------------------------------------------------------------- */

#define SM_TEAM_MAX 64

/* Items run by fn on threads of their own (an item whose thread cannot start runs on the
 * caller's thread when it joins). Item i is (char *)items + i * size; n <= SM_TEAM_MAX. */
typedef struct sm_team {
	void (*fn)(void *);
	char *items;
	size_t size, n;
	struct os_thread *threads[SM_TEAM_MAX];
} sm_team;

/* hooks: where the threads live (the job's allocator; NULL: malloc's). */
void sm_team_start(sm_team *t, const smdmx_allocator *hooks, void (*fn)(void *), void *items, size_t size, size_t n);
/* Returns when every item has run. */
void sm_team_join(sm_team *t);
/* Runs fn on n items: the first on this thread, the others on threads of their own. */
void sm_run_all(const smdmx_allocator *hooks, void (*fn)(void *), void *items, size_t size, size_t n);

/* Threads kept for one job that runs many short rounds of items (keyvalues2's large arrays,
 * each found and read on threads): a thread is started when a round first needs it and
 * waits for the next round, so a file of many arrays starts each thread once, not once per
 * array (a thread start is 0.1 ms on Linux and several on Wine). Zeroed, a crew has no
 * threads; sm_crew_end stops them. Items of a round must not wait on each other: a round
 * may be run by fewer threads than it has items (this one takes items too). */
typedef struct sm_crew {
	struct os_mutex *m;
	struct os_cond *go, *done;
	struct os_thread *threads[SM_TEAM_MAX];
	size_t started;
	void (*fn)(void *);
	char *items;
	size_t size, n, next, left; /* the round: its items, the next one to take, those not done */
	bool stop, broken;          /* broken: no lock could be made (sm_run_all instead) */
	smdmx_allocator hooks;      /* where its threads and locks live (the job's; zero: malloc's),
	                               set by its owner, kept by sm_crew_end */
} sm_crew;

/* Runs fn on n items, the first on this thread (at most SM_TEAM_MAX others); returns when
 * all ran. */
void sm_crew_run(sm_crew *c, void (*fn)(void *), void *items, size_t size, size_t n);
void sm_crew_end(sm_crew *c);

/* An output of items items in chunks of chunk items, made on threads threads (this one among
 * them) and put in order on this thread. The c-th chunk, items [from, to), is made in slot
 * c % nslots (slots of size bytes, nslots <= SM_TEAM_MAX) by make(slot, from, to); put(ctx,
 * slot) writes a made chunk and returns false to stop. This thread puts each chunk as soon
 * as it is ready and otherwise makes the next one, while the others make the chunks after
 * it, so writing overlaps making. Returns false when a put did. */
bool sm_pipeline(const smdmx_allocator *hooks, void *slots, size_t size, size_t nslots, size_t items, size_t chunk,
                 unsigned threads, void (*make)(void *slot, size_t from, size_t to), bool (*put)(void *ctx, void *slot),
                 void *ctx);
/* The slots sm_pipeline keeps busy on threads threads: two per thread. */
static inline size_t sm_pipeline_slots(unsigned threads)
{
	return threads > SM_TEAM_MAX / 2 ? SM_TEAM_MAX : 2 * (size_t)threads;
}

/* ---- output files ------------------------------------------------------------------------ */

/* Writes a file through produce into a temporary file beside path and renames it into place,
 * so a failure never leaves a partial file ("-" is standard output). */
typedef bool (*sm_produce_fn)(void *ctx, smdmx_write_fn write, void *user, smdmx_error *error);
SM_NODISCARD bool sm_write_file_atomic(const char *path, sm_produce_fn produce, void *ctx, smdmx_error *error);

/* The writing to the disk of every byte of set's files not yet on its way started, without
 * waiting (os_sync_start): a set committed later flushes what is left, often nothing. Its
 * files stay open until then. */
struct smdmx_outputs;
void sm_outputs_start(struct smdmx_outputs *set);
/* smdmx_outputs_open, its failure's code in *code. */
struct smdmx_output *sm_outputs_open(struct smdmx_outputs *set, const char *path, char *why, size_t why_size,
                                     smdmx_error_code *code);
/* The set's allocator (a conversion hands a set on: sm_budget_leave). */
sm_alloc *sm_outputs_alloc(struct smdmx_outputs *set);
/* Waits for set's files to be on the disk, closing nothing: a failure is kept for the commit
 * (smdmx_outputs_finish) to say. Several sets flushed so, one after another, share the file
 * system's journal commits. */
void sm_outputs_flush(struct smdmx_outputs *set);

static inline smdmx_limits sm_limits_resolve(const smdmx_limits *in)
{
	smdmx_limits l = { 0, 0, 0, 0, 0, 0, 0 };
	if (in) l = *in;
	if (!l.max_line_length) l.max_line_length = SMDMX_DEFAULT_MAX_LINE_LENGTH;
	if (!l.max_joints) l.max_joints = SMDMX_DEFAULT_MAX_JOINTS;
	if (!l.max_links) l.max_links = SMDMX_DEFAULT_MAX_LINKS;
	if (!l.max_frames) l.max_frames = SMDMX_DEFAULT_MAX_FRAMES;
	if (!l.max_corners) l.max_corners = SMDMX_DEFAULT_MAX_CORNERS;
	if (!l.max_keys) l.max_keys = SMDMX_DEFAULT_MAX_KEYS;
	if (!l.max_file_size) l.max_file_size = SMDMX_DEFAULT_MAX_FILE_SIZE;
	return l;
}

#endif
