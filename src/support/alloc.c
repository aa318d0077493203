/* Allocation through the user's hooks, with a memory limit, and the memory a scene owns. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "support/internal.h"

_Thread_local bool sm_alloc_lazy;

/* Big arrays fill page by page; faulting each 4 KiB page in on first touch costs
 * microseconds in a VM. The new part of a big block is populated in one call (os_populate),
 * unless several threads are about to fill it (sm_alloc_lazy): they fault its pages in at
 * once. */
static void populate(void *p, size_t from, size_t to, bool huge)
{
	if (p && !sm_alloc_lazy) os_populate(p, from, to, huge);
}

void sm_alloc_populate(void *p, size_t size)
{
	os_populate(p, 0, size, true);
}

static void *default_alloc(void *user, size_t size)
{
	(void)user;
	void *p = malloc(size);
	populate(p, 0, size, true);
	return p;
}

static void *default_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	(void)user;
	void *p = realloc(ptr, new_size);
	if (new_size > old_size) populate(p, old_size, new_size, false);
	return p;
}

static void default_free(void *user, void *ptr, size_t size)
{
	(void)user;
	(void)size;
	free(ptr);
}

void sm_alloc_init(sm_alloc *a, const smdmx_allocator *hooks)
{
	memset(a, 0, sizeof(*a));
	if (hooks) a->hooks = *hooks;
	if (!a->hooks.alloc_fn || !a->hooks.realloc_fn || !a->hooks.free_fn) {
		a->hooks.alloc_fn = default_alloc;
		a->hooks.realloc_fn = default_realloc;
		a->hooks.free_fn = default_free;
	}
}

static bool alloc_allowed(sm_alloc *a, size_t old_size, size_t new_size)
{
	if (a->hooks.fail_after && a->made >= a->hooks.fail_after) return false;
	if (a->hooks.memory_limit && new_size > old_size &&
	    (new_size - old_size > a->hooks.memory_limit ||
	     a->live > a->hooks.memory_limit - (new_size - old_size)))
		return false;
	return true;
}

void *sm_malloc(sm_alloc *a, size_t size)
{
	if (size == 0) size = 1;
	if (!alloc_allowed(a, 0, size)) return NULL;
	void *p = a->hooks.alloc_fn(a->hooks.user, size);
	if (!p) return NULL;
	a->made++;
	a->live += size;
	return p;
}

void *sm_realloc(sm_alloc *a, void *ptr, size_t old_size, size_t new_size)
{
	if (!ptr) return sm_malloc(a, new_size);
	if (new_size == 0) new_size = 1;
	if (!alloc_allowed(a, old_size, new_size)) return NULL;
	void *p = a->hooks.realloc_fn(a->hooks.user, ptr, old_size, new_size);
	if (!p) return NULL;
	a->made++;
	a->live = a->live - old_size + new_size;
	return p;
}

void sm_free(sm_alloc *a, void *ptr, size_t size)
{
	if (!ptr) return;
	if (size == 0) size = 1;
	a->hooks.free_fn(a->hooks.user, ptr, size);
	a->live -= size;
}

char *sm_str_copy(sm_alloc *a, const char *s)
{
	if (!s) return NULL;
	size_t n = strlen(s) + 1;
	char *c = sm_malloc(a, n);
	if (c) memcpy(c, s, n);
	return c;
}

void sm_str_free(sm_alloc *a, char *s)
{
	if (s) sm_free(a, s, strlen(s) + 1);
}

/* Header of an sm_new block: its size, padded so that the block is aligned as malloc's. */
#define SM_NEW_HEAD (sizeof(max_align_t) > sizeof(size_t) ? sizeof(max_align_t) : sizeof(size_t))

void *sm_new(sm_alloc *a, size_t count, size_t size)
{
	size_t bytes;
	if (!sm_mul(count ? count : 1, size ? size : 1, &bytes) || bytes > SIZE_MAX - SM_NEW_HEAD) return NULL;
	unsigned char *p = sm_malloc(a, bytes + SM_NEW_HEAD);
	if (!p) return NULL;
	memcpy(p, &bytes, sizeof(bytes));
	return p + SM_NEW_HEAD;
}

void *sm_new_zero(sm_alloc *a, size_t count, size_t size)
{
	unsigned char *p = sm_new(a, count, size);
	if (p) {
		size_t bytes;
		memcpy(&bytes, p - SM_NEW_HEAD, sizeof(bytes));
		memset(p, 0, bytes);
	}
	return p;
}

void *sm_renew(sm_alloc *a, void *p, size_t count, size_t size)
{
	if (!p) return sm_new(a, count, size);
	size_t bytes, old;
	if (!sm_mul(count ? count : 1, size ? size : 1, &bytes) || bytes > SIZE_MAX - SM_NEW_HEAD) return NULL;
	unsigned char *head = (unsigned char *)p - SM_NEW_HEAD;
	memcpy(&old, head, sizeof(old));
	head = sm_realloc(a, head, old + SM_NEW_HEAD, bytes + SM_NEW_HEAD);
	if (!head) return NULL;
	memcpy(head, &bytes, sizeof(bytes));
	return head + SM_NEW_HEAD;
}

void sm_del(sm_alloc *a, void *p)
{
	if (!p) return;
	unsigned char *head = (unsigned char *)p - SM_NEW_HEAD;
	size_t bytes;
	memcpy(&bytes, head, sizeof(bytes));
	sm_free(a, head, bytes + SM_NEW_HEAD);
}

/* ---- a job's budget ------------------------------------------------------------------- */

static bool budget_take(sm_budget *b, size_t grow)
{
	if (b->fail_after && atomic_fetch_add(&b->made, 1) >= b->fail_after) goto refused;
	if (grow) {
		size_t before = atomic_fetch_add(&b->live, grow);
		if (b->limit && (grow > b->limit || before > b->limit - grow)) {
			atomic_fetch_sub(&b->live, grow);
			goto refused;
		}
	}
	return true;
refused:
	atomic_store(&b->ran_out, true);
	return false;
}

static void *budget_alloc(void *user, size_t size)
{
	sm_budget *b = user;
	if (!budget_take(b, size)) return NULL;
	void *p = b->outer.alloc_fn(b->outer.user, size);
	if (!p) {
		atomic_fetch_sub(&b->live, size);
		atomic_store(&b->ran_out, true);
	}
	return p;
}

static void *budget_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
	sm_budget *b = user;
	size_t grow = new_size > old_size ? new_size - old_size : 0;
	if (!budget_take(b, grow)) return NULL;
	void *p = b->outer.realloc_fn(b->outer.user, ptr, old_size, new_size);
	if (!p) {
		atomic_fetch_sub(&b->live, grow);
		atomic_store(&b->ran_out, true);
	} else if (new_size < old_size) {
		atomic_fetch_sub(&b->live, old_size - new_size);
	}
	return p;
}

static void budget_free(void *user, void *ptr, size_t size)
{
	sm_budget *b = user;
	b->outer.free_fn(b->outer.user, ptr, size);
	atomic_fetch_sub(&b->live, size);
}

smdmx_allocator sm_budget_start(sm_budget *b, const smdmx_allocator *caller)
{
	sm_alloc a;
	sm_alloc_init(&a, caller); /* malloc's hooks where the caller gave none */
	b->outer = a.hooks;
	b->limit = a.hooks.memory_limit;
	b->fail_after = a.hooks.fail_after;
	atomic_init(&b->live, 0);
	atomic_init(&b->made, 0);
	atomic_init(&b->ran_out, false);
	return (smdmx_allocator){ .alloc_fn = budget_alloc, .realloc_fn = budget_realloc, .free_fn = budget_free, .user = b };
}

bool sm_budget_count(sm_budget *b, size_t bytes)
{
	return budget_take(b, bytes);
}

bool sm_budget_ran_out(const sm_budget *b)
{
	return atomic_load(&b->ran_out);
}

void sm_budget_leave(sm_budget *b, sm_alloc *a)
{
	if (a->hooks.alloc_fn != budget_alloc || a->hooks.user != b) return;
	atomic_fetch_sub(&b->live, a->live);
	a->hooks = b->outer;
	a->hooks.memory_limit = a->hooks.fail_after = 0;
}

/* ---- scene ownership ------------------------------------------------------------------ */

static bool owner_new_slot(sm_owner *o, void *ptr, size_t size, size_t *slot)
{
	if (o->slot_count == o->slot_cap) {
		size_t cap = o->slot_cap ? o->slot_cap * 2 : 64, bytes;
		if (!sm_mul(cap, sizeof(sm_slot), &bytes)) return false;
		sm_slot *s = sm_realloc(&o->alloc, o->slots, o->slot_cap * sizeof(sm_slot), bytes);
		if (!s) return false;
		o->slots = s;
		o->slot_cap = cap;
	}
	o->slots[o->slot_count].ptr = ptr;
	o->slots[o->slot_count].size = size;
	*slot = o->slot_count++;
	return true;
}

sm_owner *sm_owner_new(const smdmx_allocator *hooks, smdmx_error *error)
{
	sm_alloc a;
	sm_alloc_init(&a, hooks);
	sm_owner *o = sm_malloc(&a, sizeof(*o));
	if (!o) {
		sm_fail_oom(error);
		return NULL;
	}
	memset(o, 0, sizeof(*o));
	o->alloc = a;
	return o;
}

void sm_owner_free(sm_owner *o)
{
	if (!o) return;
	for (size_t i = 0; i < o->slot_count; i++) sm_free(&o->alloc, o->slots[i].ptr, o->slots[i].size);
	sm_free(&o->alloc, o->slots, o->slot_cap * sizeof(sm_slot));
	sm_alloc a = o->alloc;
	sm_free(&a, o, sizeof(*o));
}

smdmx_scene *sm_scene_new(const smdmx_allocator *hooks, smdmx_error *error)
{
	sm_owner *o = sm_owner_new(hooks, error);
	if (!o) return NULL;
	smdmx_scene *scene = sm_owned_calloc(o, 1, sizeof(*scene), error);
	if (!scene) {
		sm_owner_free(o);
		return NULL;
	}
	scene->owner = o;
	scene->up_axis = 'Z';
	return scene;
}

smdmx_scene *smdmx_scene_new(const smdmx_allocator *allocator, smdmx_error *error)
{
	SM_ERROR_START(error);
	return sm_scene_new(allocator, error);
}

sm_owner *sm_scene_memory(smdmx_scene *scene, smdmx_error *error)
{
	if (!scene->owner) scene->owner = sm_owner_new(NULL, error);
	return scene->owner;
}

void *smdmx_scene_alloc(smdmx_scene *scene, size_t size, smdmx_error *error)
{
	SM_ERROR_SLOT(error);
	if (!scene) return sm_fail_null(error, __func__, "scene"), NULL;
	sm_owner *o = sm_scene_memory(scene, error);
	return o ? sm_owned_calloc(o, 1, size ? size : 1, error) : NULL;
}

const char *smdmx_scene_strdup(smdmx_scene *scene, const char *text, smdmx_error *error)
{
	SM_ERROR_SLOT(error);
	if (!scene || !text) return sm_fail_null(error, __func__, !scene ? "scene" : "text"), NULL;
	sm_owner *o = sm_scene_memory(scene, error);
	return o ? sm_strdup(o, text, strlen(text), error) : NULL;
}

sm_alloc sm_scene_room(const smdmx_scene *scene)
{
	sm_alloc a;
	sm_alloc_init(&a, scene && scene->owner ? &scene->owner->alloc.hooks : NULL);
	return a;
}

void smdmx_scene_free(smdmx_scene *scene)
{
	if (!scene) return;
	sm_owner *o = scene->owner;
	/* a scene of smdmx_scene_new lives in its own memory; one built by hand does not: what the
	 * library gave it goes, the struct stays its caller's */
	bool inside = o && o->slot_count && o->slots[0].ptr == (void *)scene; /* sm_scene_new's first */
	if (!inside) scene->owner = NULL;
	sm_owner_free(o);
}

void *sm_owned_alloc(sm_owner *o, size_t size, smdmx_error *error)
{
	void *p = sm_malloc(&o->alloc, size);
	size_t slot;
	if (!p) {
		sm_fail_oom(error);
		return NULL;
	}
	if (!owner_new_slot(o, p, size ? size : 1, &slot)) {
		sm_free(&o->alloc, p, size);
		sm_fail_oom(error);
		return NULL;
	}
	return p;
}

void *sm_owned_calloc(sm_owner *o, size_t count, size_t elem, smdmx_error *error)
{
	size_t bytes;
	if (!sm_mul(count, elem, &bytes)) {
		sm_fail_oom(error);
		return NULL;
	}
	void *p = sm_owned_alloc(o, bytes, error);
	if (p) memset(p, 0, bytes);
	return p;
}

bool sm_vec_reserve(sm_owner *o, sm_vec *v, size_t elem, size_t need, smdmx_error *error)
{
	if (need <= v->cap) return true;
	size_t cap = v->cap ? v->cap : 16, bytes;
	while (cap < need) {
		if (cap > SIZE_MAX / 2) return sm_fail_oom(error);
		cap = cap < 1024 ? cap * 2 : cap + cap / 2;
	}
	if (!sm_mul(cap, elem, &bytes)) return sm_fail_oom(error);
	if (v->slot == SIZE_MAX) {
		void *p = sm_malloc(&o->alloc, bytes);
		if (!p) return sm_fail_oom(error);
		if (!owner_new_slot(o, p, bytes, &v->slot)) {
			sm_free(&o->alloc, p, bytes);
			return sm_fail_oom(error);
		}
		v->data = p;
	} else {
		void *p = sm_realloc(&o->alloc, v->data, v->cap * elem, bytes);
		if (!p) return sm_fail_oom(error);
		v->data = p;
		o->slots[v->slot].ptr = p;
		o->slots[v->slot].size = bytes;
	}
	v->cap = cap;
	return true;
}

void *sm_vec_push_slow(sm_owner *o, sm_vec *v, size_t elem, smdmx_error *error)
{
	if (v->count == v->cap && !sm_vec_reserve(o, v, elem, v->count + 1, error)) return NULL;
	return (char *)v->data + elem * v->count++;
}

void sm_vec_release(sm_owner *o, sm_vec *v, size_t elem)
{
	if (v->slot != SIZE_MAX) {
		sm_free(&o->alloc, v->data, v->cap * elem);
		/* The slot stays, empty: slots are never reused, so indices held elsewhere hold. */
		o->slots[v->slot].ptr = NULL;
		o->slots[v->slot].size = 0;
	}
	v->data = NULL;
	v->count = v->cap = 0;
	v->slot = SIZE_MAX;
}

const char *sm_strdup(sm_owner *o, const char *s, size_t len, smdmx_error *error)
{
	if (len >= 4096) {
		char *p = sm_owned_alloc(o, len + 1, error);
		if (!p) return NULL;
		memcpy(p, s, len);
		p[len] = '\0';
		return p;
	}
	if (!o->str_block || o->str_cap - o->str_used < len + 1) {
		o->str_block = sm_owned_alloc(o, 16384, error);
		if (!o->str_block) return NULL;
		o->str_cap = 16384;
		o->str_used = 0;
	}
	char *p = o->str_block + o->str_used;
	memcpy(p, s, len);
	p[len] = '\0';
	o->str_used += len + 1;
	return p;
}

/* ---- names ---------------------------------------------------------------------------- */

static size_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static sm_name_slot *names_find(const sm_names *x, const char *name)
{
	size_t mask = x->cap - 1, h = name_hash(name) & mask;
	while (x->slots[h].name && strcmp(x->slots[h].name, name) != 0) h = (h + 1) & mask;
	return &x->slots[h];
}

bool sm_names_init(sm_alloc *a, sm_names *x, size_t n)
{
	size_t cap = 16, bytes;
	while (cap < 2 * n + 2) {
		if (cap > SIZE_MAX / 4) return false;
		cap *= 2;
	}
	x->slots = sm_mul(cap, sizeof(sm_name_slot), &bytes) ? sm_malloc(a, bytes) : NULL;
	if (!x->slots) return false;
	memset(x->slots, 0, bytes);
	x->cap = cap;
	x->count = 0;
	return true;
}

void sm_names_free(sm_alloc *a, sm_names *x)
{
	if (x->slots) sm_free(a, x->slots, x->cap * sizeof(sm_name_slot));
	memset(x, 0, sizeof(*x));
}

uint32_t sm_names_get(const sm_names *x, const char *name)
{
	if (!x->cap) return SMDMX_NONE;
	const sm_name_slot *s = names_find(x, name);
	return s->name ? s->value : SMDMX_NONE;
}

bool sm_names_put(sm_alloc *a, sm_names *x, const char *name, uint32_t value, bool keep_first)
{
	if (2 * (x->count + 1) > x->cap) {
		sm_names bigger;
		if (!sm_names_init(a, &bigger, x->count + 1)) return false; /* twice the slots */
		for (size_t i = 0; i < x->cap; i++)
			if (x->slots[i].name) *names_find(&bigger, x->slots[i].name) = x->slots[i];
		bigger.count = x->count;
		sm_names_free(a, x);
		*x = bigger;
	}
	sm_name_slot *s = names_find(x, name);
	if (!s->name) {
		s->name = name;
		s->value = value;
		x->count++;
	} else if (!keep_first) {
		s->value = value;
	}
	return true;
}

/* ---- grouping --------------------------------------------------------------------------- */

void sm_group(const uint32_t *key, const uint32_t *through, size_t n, size_t keys, uint32_t *first, uint32_t *order)
{
	memset(first, 0, (keys + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) first[key[through ? through[i] : i] + 1]++;
	for (size_t k = 0; k < keys; k++) first[k + 1] += first[k];
	for (size_t i = 0; i < n; i++) order[first[key[through ? through[i] : i]]++] = (uint32_t)i;
	for (size_t k = keys; k > 0; k--) first[k] = first[k - 1]; /* back to the starts */
	first[0] = 0;
}

/* ---- adopting another owner's allocations ------------------------------------------------- */

size_t sm_adopt_min = (size_t)1 << 16;

void sm_adopt_init(sm_adopt *a, sm_owner *from, sm_owner *to)
{
	memset(a, 0, sizeof(*a));
	const smdmx_allocator *f = &from->alloc.hooks, *t = &to->alloc.hooks;
	bool same = f->alloc_fn == t->alloc_fn && f->realloc_fn == t->realloc_fn && f->free_fn == t->free_fn && f->user == t->user;
	bool counted = f->memory_limit || f->fail_after || t->memory_limit || t->fail_after;
	if (same && !counted) {
		a->from = from;
		a->to = to;
	}
}

static int by_address(const void *x, const void *y)
{
	uintptr_t p = ((const sm_adopt_ref *)x)->at, q = ((const sm_adopt_ref *)y)->at;
	return p < q ? -1 : p > q;
}

/* The index of from's big slots, sorted by address: built at the first take. */
static bool adopt_ready(sm_adopt *a)
{
	if (a->ready) return true;
	if (a->failed || !a->from) return false;
	const sm_owner *o = a->from;
	size_t n = 0;
	for (size_t i = 0; i < o->slot_count; i++) n += o->slots[i].ptr && o->slots[i].size >= sm_adopt_min;
	a->big = n ? sm_malloc(&a->to->alloc, n * sizeof(sm_adopt_ref)) : NULL;
	if (n && !a->big) {
		a->failed = true;
		return false;
	}
	for (size_t i = 0; i < o->slot_count; i++)
		if (o->slots[i].ptr && o->slots[i].size >= sm_adopt_min) a->big[a->count++] = (sm_adopt_ref){ (uintptr_t)o->slots[i].ptr, i };
	if (a->count > 1) qsort(a->big, a->count, sizeof(sm_adopt_ref), by_address);
	a->ready = true;
	return true;
}

bool sm_adopt_take(sm_adopt *a, const void *ptr)
{
	if (!ptr || !adopt_ready(a)) return false;
	size_t lo = 0, hi = a->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->big[mid].at < (uintptr_t)ptr) lo = mid + 1;
		else hi = mid;
	}
	if (lo == a->count || a->big[lo].at != (uintptr_t)ptr) return false;
	sm_slot *from = &a->from->slots[a->big[lo].slot];
	if (from->ptr != ptr) return false; /* taken already */
	size_t slot;
	if (!owner_new_slot(a->to, from->ptr, from->size, &slot)) return false;
	a->from->alloc.live -= from->size;
	a->to->alloc.live += from->size;
	/* the slot stays, empty, as sm_vec_release leaves one */
	from->ptr = NULL;
	from->size = 0;
	return true;
}

void sm_adopt_free(sm_adopt *a)
{
	if (a->big) sm_free(&a->to->alloc, a->big, a->count * sizeof(sm_adopt_ref));
	a->big = NULL;
	a->count = 0;
	a->ready = false;
}
