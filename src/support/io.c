/* Output files written all or nothing: a temporary file beside the target, renamed into
 * place only when everything was written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "support/internal.h"

bool sm_out_flush(sm_out *o)
{
	if (o->len && !o->write(o->user, o->buf, o->len)) return sm_fail(o->error, SMDMX_ERROR_IO, 0, 0, "write failed");
	o->len = 0;
	return true;
}

bool sm_out_put_slow(sm_out *o, const char *s, size_t n)
{
	while (n) {
		SM_CHECK(sm_out_room(o, 1));
		size_t k = SM_OUT_CAP - o->len < n ? SM_OUT_CAP - o->len : n;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
	return true;
}

size_t sm_write_part_min = (size_t)1 << 14;

void sm_team_start(sm_team *t, const smdmx_allocator *hooks, void (*fn)(void *), void *items, size_t size, size_t n)
{
	t->fn = fn;
	t->items = items;
	t->size = size;
	t->n = n < SM_TEAM_MAX ? n : SM_TEAM_MAX;
	os_mem mem = sm_os_mem(hooks);
	for (size_t i = 0; i < t->n; i++) t->threads[i] = os_thread_start_in(&mem, fn, t->items + i * size);
}

void sm_team_join(sm_team *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->threads[i]) os_thread_join(t->threads[i]);
		else t->fn(t->items + i * t->size);
	}
}

void sm_run_all(const smdmx_allocator *hooks, void (*fn)(void *), void *items, size_t size, size_t n)
{
	if (!n) return;
	sm_team t;
	sm_team_start(&t, hooks, fn, (char *)items + size, size, n - 1);
	fn(items);
	sm_team_join(&t);
}

/* ---- a crew: threads kept across rounds --------------------------------------------------- */

static void crew_worker(void *arg)
{
	sm_crew *c = arg;
	os_mutex_lock(c->m);
	for (;;) {
		if (c->next < c->n) {
			size_t i = c->next++;
			void (*fn)(void *) = c->fn;
			char *item = c->items + i * c->size;
			os_mutex_unlock(c->m);
			fn(item);
			os_mutex_lock(c->m);
			if (--c->left == 0) os_cond_broadcast(c->done);
		} else if (c->stop) {
			break;
		} else {
			os_cond_wait(c->go, c->m);
		}
	}
	os_mutex_unlock(c->m);
}

static bool crew_ready(sm_crew *c)
{
	if (c->m || c->broken) return !c->broken;
	os_mem mem = sm_os_mem(&c->hooks);
	c->m = os_mutex_create_in(&mem);
	c->go = c->m ? os_cond_create_in(&mem) : NULL;
	c->done = c->go ? os_cond_create_in(&mem) : NULL;
	if (c->done) return true;
	os_cond_destroy(c->go);
	os_mutex_destroy(c->m);
	c->m = NULL;
	c->go = NULL;
	c->broken = true;
	return false;
}

void sm_crew_run(sm_crew *c, void (*fn)(void *), void *items, size_t size, size_t n)
{
	if (n < 2 || !crew_ready(c)) {
		sm_run_all(&c->hooks, fn, items, size, n);
		return;
	}
	os_mutex_lock(c->m);
	c->fn = fn;
	c->items = items;
	c->size = size;
	c->n = n;
	c->next = 1;
	c->left = n - 1;
	while (c->started < n - 1 && c->started < SM_TEAM_MAX) {
		os_mem mem = sm_os_mem(&c->hooks);
		struct os_thread *t = os_thread_start_in(&mem, crew_worker, c);
		if (!t) break; /* the items go to the threads there are, this one among them */
		c->threads[c->started++] = t;
	}
	os_cond_broadcast(c->go);
	os_mutex_unlock(c->m);
	fn(items);
	os_mutex_lock(c->m);
	while (c->next < c->n) {
		char *item = c->items + c->next++ * size;
		os_mutex_unlock(c->m);
		fn(item);
		os_mutex_lock(c->m);
		c->left--;
	}
	while (c->left) os_cond_wait(c->done, c->m);
	c->n = c->next = 0;
	os_mutex_unlock(c->m);
}

void sm_crew_end(sm_crew *c)
{
	if (c->m) {
		os_mutex_lock(c->m);
		c->stop = true;
		os_cond_broadcast(c->go);
		os_mutex_unlock(c->m);
		for (size_t i = 0; i < c->started; i++) os_thread_join(c->threads[i]);
		os_cond_destroy(c->done);
		os_cond_destroy(c->go);
		os_mutex_destroy(c->m);
	}
	smdmx_allocator hooks = c->hooks;
	memset(c, 0, sizeof(*c));
	c->hooks = hooks;
}

typedef struct pipe_state {
	os_mutex *m;
	os_cond *c;
	char *slots;
	size_t size, nslots, items, chunk, count;
	void (*make)(void *slot, size_t from, size_t to);
	size_t next;            /* the next chunk to make */
	size_t written;         /* chunks put; chunk c's slot is free once c < written */
	bool ready[SM_TEAM_MAX];/* per slot: its chunk (the one written next in it) is made */
	bool stop;
} pipe_state;

/* With the lock held: a chunk to make, when one may be made now. */
static bool pipe_take(pipe_state *s, size_t *c)
{
	if (s->stop || s->next >= s->count || s->next >= s->written + s->nslots) return false;
	*c = s->next++;
	return true;
}

/* Makes chunk c in its slot. */
static void pipe_run(const pipe_state *s, size_t c)
{
	size_t from = c * s->chunk, to = s->items - from > s->chunk ? from + s->chunk : s->items;
	s->make(s->slots + (c % s->nslots) * s->size, from, to);
}

/* With the lock held: makes chunk c without it. */
static void pipe_make(pipe_state *s, size_t c)
{
	os_mutex_unlock(s->m);
	pipe_run(s, c);
	os_mutex_lock(s->m);
	s->ready[c % s->nslots] = true;
	os_cond_broadcast(s->c);
}

static void pipe_worker(void *arg)
{
	pipe_state *s = arg;
	os_mutex_lock(s->m);
	while (!s->stop && s->next < s->count) {
		size_t c;
		if (pipe_take(s, &c)) pipe_make(s, c);
		else os_cond_wait(s->c, s->m);
	}
	os_mutex_unlock(s->m);
}

bool sm_pipeline(const smdmx_allocator *hooks, void *slots, size_t size, size_t nslots, size_t items, size_t chunk,
                 unsigned threads, void (*make)(void *slot, size_t from, size_t to), bool (*put)(void *ctx, void *slot),
                 void *ctx)
{
	os_mem mem = sm_os_mem(hooks);
	if (nslots > SM_TEAM_MAX) nslots = SM_TEAM_MAX;
	size_t count = (items + chunk - 1) / chunk;
	pipe_state s = { .slots = slots, .size = size, .nslots = nslots, .items = items, .chunk = chunk, .count = count, .make = make };
	s.m = threads > 1 && nslots > 1 ? os_mutex_create_in(&mem) : NULL;
	s.c = s.m ? os_cond_create_in(&mem) : NULL;
	if (!s.c) {
		/* one thread: each chunk made and put in turn */
		os_mutex_destroy(s.m);
		s.nslots = 1;
		for (size_t c = 0; c < count; c++) {
			pipe_run(&s, c);
			if (!put(ctx, slots)) return false;
		}
		return true;
	}
	bool ok = true;
	sm_team team;
	os_mutex_lock(s.m);
	sm_team_start(&team, hooks, pipe_worker, &s, 0, threads - 1 < nslots - 1 ? threads - 1 : nslots - 1);
	while (s.written < count) {
		size_t slot = s.written % nslots, c;
		if (s.ready[slot]) {
			s.ready[slot] = false;
			os_mutex_unlock(s.m);
			ok = put(ctx, s.slots + slot * size);
			os_mutex_lock(s.m);
			s.written++;
			s.stop = !ok;
			os_cond_broadcast(s.c);
			if (!ok) break;
		} else if (pipe_take(&s, &c)) {
			pipe_make(&s, c);
		} else {
			os_cond_wait(s.c, s.m);
		}
	}
	s.stop = true;
	os_cond_broadcast(s.c);
	os_mutex_unlock(s.m);
	sm_team_join(&team);
	os_cond_destroy(s.c);
	os_mutex_destroy(s.m);
	return ok;
}

bool sm_out_put_direct(sm_out *o, const char *s, size_t n)
{
	if (n < SM_OUT_CAP / 2) return sm_out_put(o, s, n);
	SM_CHECK(sm_out_flush(o));
	if (!o->write(o->user, s, n)) return sm_fail(o->error, SMDMX_ERROR_IO, 0, 0, "write failed");
	return true;
}

static bool fd_write(void *user, const void *data, size_t size)
{
	return os_write_all(*(os_file *)user, data, size);
}

bool sm_write_file_atomic(const char *path, sm_produce_fn produce, void *ctx, smdmx_error *error)
{
	memset(error, 0, sizeof(*error));
	if (strcmp(path, "-") == 0) {
		os_file fd = os_stdout();
		return produce(ctx, fd_write, &fd, error);
	}
	/* a name of our own beside the target, created exclusively */
	static unsigned long counter;
	size_t n = strlen(path);
	char *tmp = malloc(n + 48);
	if (!tmp) return sm_fail_oom(error);
	os_file fd = OS_NO_FILE;
	for (int attempt = 0; attempt < 100 && fd == OS_NO_FILE; attempt++) {
		unsigned long k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		snprintf(tmp, n + 48, "%s.tmp-%ld-%lu", path, os_pid(), k);
		fd = os_create_new(tmp);
		if (fd == OS_NO_FILE && errno != EEXIST) break;
	}
	if (fd == OS_NO_FILE) {
		sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot create '%s': %s", tmp, os_error_text(errno));
		free(tmp);
		return false;
	}
	bool ok = produce(ctx, fd_write, &fd, error);
	if (ok && !os_sync(fd)) ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot write '%s': %s", path, os_error_text(errno));
	if (!os_close(fd) && ok) ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot write '%s': %s", path, os_error_text(errno));
	if (ok && !os_replace(tmp, path))
		ok = sm_fail(error, SMDMX_ERROR_IO, 0, 0, "cannot rename to '%s': %s", path, os_error_text(errno));
	if (!ok) os_remove(tmp);
	free(tmp);
	return ok;
}
