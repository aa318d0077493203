/* Many files converted (smdmx/batch.h): the jobs planned (batch_plan.c), workers run them
 * (smdmx_convert), biggest first with keep_going, else in input order with the outputs put
 * in place in that order, so that the first failure stops the batch the same way at any
 * number of workers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "project/batch_internal.h"

/* ---- running ---------------------------------------------------------------------------------- */

/* The public view of job i, as it is now. */
static void publish(batch *b, size_t i)
{
	const bjob *j = &b->jobs[i];
	b->pubjobs[i] = (smdmx_batch_job){
		.inputs = (const char *const *)j->inputs,
		.input_count = j->input_count,
		.vta = j->vta,
		.output = j->out,
		.size = j->size,
		.read = j->read,
		.state = j->cancelled    ? SMDMX_BATCH_CANCELLED
		       : !j->ran         ? SMDMX_BATCH_NOT_RUN
		       : j->up_to_date   ? SMDMX_BATCH_UP_TO_DATE
		       : j->failed       ? SMDMX_BATCH_FAILED
		                         : SMDMX_BATCH_CONVERTED,
		.messages = j->msgs.items,
		.message_count = j->msgs.count,
		.messages_lost = j->msgs.lost,
		.written = (const char *const *)j->written,
		.written_count = j->written_count,
		.deps = (const char *const *)j->deps,
		.dep_count = j->dep_count,
		.used = j->used,
	};
}

/* Bytes more of job j's input read (the readers' progress): on_change told at each hundredth
 * of its size; the progress the caller's reading options had, told too. */
typedef struct job_reading {
	batch *b;
	size_t index;
	smdmx_progress given;
} job_reading;

static void job_read(void *user, uint64_t bytes)
{
	job_reading *jr = user;
	batch *b = jr->b;
	if (jr->given.fn) jr->given.fn(jr->given.user, bytes);
	os_mutex_lock(b->lock);
	bjob *j = &b->jobs[jr->index];
	j->read += bytes;
	b->pubjobs[jr->index].read = j->read;
	uint64_t read = j->read < j->size ? j->read : j->size;
	unsigned hundredths = j->size ? (unsigned)(read * 100 / j->size) : 100;
	if (hundredths != j->read_told) {
		j->read_told = hundredths;
		if (b->o->on_change && !b->oom) b->o->on_change(b->o->user, &b->pub);
	}
	os_mutex_unlock(b->lock);
}

/* Runs job j (not under the lock). */
static void job_run(batch *b, bjob *j)
{
	smdmx_convert_options c = b->conv;
	job_reading smd_reading = { b, (size_t)(j - b->jobs), c.smd_read.progress };
	job_reading dmx_reading = { b, (size_t)(j - b->jobs), c.dmx_read.progress };
	c.smd_read.progress = (smdmx_progress){ job_read, &smd_reading };
	c.dmx_read.progress = (smdmx_progress){ job_read, &dmx_reading };
	c.way = bt_job_way(b, j);
	c.inputs = (const char *const *)j->inputs;
	c.input_count = j->input_count;
	c.vta = j->vta;
	c.output = j->out;
	c.qc = c.way == SMDMX_CONVERT_DMX_TO_SMD ? b->o->convert.qc : NULL;
	c.alone = b->count == 1;
	c.force = b->o->convert.force || j->replace;
	c.defer = b->deferred;
	if (!strcmp(j->inputs[0], "-") && !c.smd_read.name) c.smd_read.name = b->o->stdin_name ? b->o->stdin_name : "stdin";
	if (c.way == SMDMX_CONVERT_SMD_TO_SMD && b->o->to && !strcasecmp(b->o->to, "vta")) c.smd_write.kind = SMDMX_SMD_WRITE_VTA;
	if (c.way == SMDMX_CONVERT_TO_GLTF && !strcmp(j->out, "-")) c.gltf.binary = b->o->to && !strcasecmp(b->o->to, "glb");
	smdmx_convert_result *r = smdmx_convert(&c, NULL);
	if (!r) { /* (out of memory before anything was done: the batch ends so) */
		j->failed = j->lost = true;
		return;
	}
	/* the files in place are the job's as its conversion lists them, a list that nothing
	 * after can shorten (also when memory ran out once they were in place) */
	if (r->written_count) {
		j->result = r;
		j->written = (char **)r->written;
		j->written_count = r->written_count;
	}
	for (size_t i = 0; i < r->message_count; i++) pj_add_message(&j->msgs, &r->messages[i]);
	j->msgs.lost += r->messages_lost;
	if (r->out_of_memory) { /* (the batch ends so) */
		j->failed = j->lost = true;
		if (r->pending) smdmx_outputs_free(r->pending);
		if (!j->result) smdmx_convert_result_free(r);
		return;
	}
	for (size_t i = 0; i < r->dep_count; i++) bt_job_dep(&j->mem, j, r->deps[i]);
	j->used |= r->used;
	if (r->pending) j->pending = (pj_outputs){ .set = r->pending, .force = c.force };
	j->failed = !r->ok;
	if (r->broken_pipe) { /* standard output's reader is gone: the caller ends quietly */
		os_mutex_lock(b->lock);
		b->pub.broken_pipe = b->stop = true;
		os_mutex_unlock(b->lock);
	}
	if (!j->result) smdmx_convert_result_free(r);
}

/* The jobs whose outputs are put in place next (into b->group; their count): ordered, those
 * that ran from the first not in place on, up to the first failure; else those that ran since
 * the last commit. None when it is not due: it is at the end, when enough of them wait, when
 * nothing would follow them soon (the end of the inputs, a failure, a large job next). */
static size_t commit_group(batch *b, bool at_end)
{
	size_t n = 0, next = b->next < b->count ? b->order[b->next] : SIZE_MAX;
	uint64_t bytes = 0;
	bool ends = at_end || b->stop || next == SIZE_MAX;
	if (b->ordered) {
		size_t p = b->committed;
		for (; p < b->count && p <= b->limit && b->jobs[p].ran; p++) b->group[n++] = p;
		ends = ends || p == b->count || p > b->limit;
		next = p < b->count ? p : SIZE_MAX;
	} else {
		n = b->waiting;
		memcpy(b->group, b->wait, n * sizeof(*b->group));
	}
	size_t files = 0;
	for (size_t i = 0; i < n; i++) {
		bytes += b->jobs[b->group[i]].size;
		files += pj_outputs_count(&b->jobs[b->group[i]].pending);
	}
	bool due = ends || n >= COMMIT_JOBS || files >= COMMIT_FILES || bytes >= COMMIT_BYTES ||
	           (next != SIZE_MAX && b->jobs[next].size >= COMMIT_BYTES);
	if (!due || !n) return 0;
	if (!b->ordered) b->waiting = 0;
	return n;
}

/* The n jobs of b->group put in place (under the lock, which their flush does without: the
 * other workers go on meanwhile, and do not commit). Ordered, none after the first failure. */
static void commit_group_now(batch *b, size_t n)
{
	b->flushing = true;
	os_mutex_unlock(b->lock);
	for (size_t i = 0; i < n; i++) pj_outputs_flush(&b->jobs[b->group[i]].pending);
	os_mutex_lock(b->lock);
	b->flushing = false;
	for (size_t i = 0; i < n && (!b->ordered || b->group[i] <= b->limit); i++) {
		bjob *j = &b->jobs[b->group[i]];
		if (!j->failed && j->pending.set) {
			char why[1024];
			if (!pj_outputs_commit(&j->pending, &j->written, &j->written_count, why, sizeof(why))) {
				pj_error(&j->msgs, j->pending.code, j->out, 0, 0, "%s", why);
				j->failed = true;
			}
		}
		pj_outputs_abort(&j->pending); /* (nothing left of it after a commit) */
		if (!b->ordered) continue;
		if (j->failed && b->committed < b->limit) b->limit = b->committed;
		b->committed++;
	}
	if (b->moved) os_cond_broadcast(b->moved);
}

/* The jobs whose turn it is put in place, when it is due (under the lock). */
static void commit_ready(batch *b, bool at_end)
{
	if (b->flushing) return;
	/* (again while more is due: what the other workers finished during the flush) */
	for (size_t n; (n = commit_group(b, at_end)) != 0;)
		commit_group_now(b, n);
}

/* The jobs settled in input order, told (under the lock). */
static void settle(batch *b)
{
	size_t s = b->pub.settled;
	while (s < b->count && b->jobs[s].ran && !b->jobs[s].pending.set && (!b->ordered || (s < b->committed && s <= b->limit)))
		publish(b, s++);
	b->pub.settled = s;
	if (b->o->on_change) b->o->on_change(b->o->user, &b->pub);
}

static void worker(void *arg)
{
	batch *b = arg;
	for (;;) {
		os_mutex_lock(b->lock);
		/* ordered: not past the first failure, nor too far ahead of what is in place */
		while (b->ordered && b->next < b->count && b->order[b->next] <= b->limit && b->order[b->next] >= b->committed + ORDER_WINDOW)
			os_cond_wait(b->moved, b->lock);
		if (b->stop || b->next == b->count || (b->ordered && b->order[b->next] > b->limit)) {
			os_mutex_unlock(b->lock);
			return;
		}
		size_t index = b->order[b->next++];
		bjob *j = &b->jobs[index];
		if (j->ran) { /* failed in planning, or up to date */
			os_mutex_unlock(b->lock);
			continue;
		}
		os_mutex_unlock(b->lock);
		job_run(b, j);
		os_mutex_lock(b->lock);
		if (j->lost) b->oom = b->stop = true;
		j->ran = true;
		b->pub.finished++;
		if (b->ordered && j->failed && index < b->limit) b->limit = index;
		if (!b->ordered && j->pending.set) b->wait[b->waiting++] = index;
		if (b->deferred) commit_ready(b, false);
		/* the batch's own memory ran out (on any thread): it stops, and ends so */
		if (sm_budget_ran_out(&b->own)) b->oom = b->stop = true;
		if (!b->oom) settle(b);
		os_mutex_unlock(b->lock);
	}
}

/* The jobs run on the workers; false when the batch could not start them. */
static bool run_jobs(batch *b)
{
	const smdmx_batch_options *o = b->o;
	unsigned workers = o->jobs ? o->jobs : os_cpu_count();
	if (workers > b->count) workers = (unsigned)b->count;
	if (workers > SMDMX_PROJECT_JOBS_MAX) workers = SMDMX_PROJECT_JOBS_MAX;
	if (!workers) workers = 1;
	/* Threads for one file: as given, else the cores shared by the files converted at once
	 * (one big file gets them all; a batch of many gets one each). An allocator's limits count
	 * over them all (the batch's budget, or a step's own). */
	unsigned cores = os_cpu_count();
	b->conv.smd_read.threads = o->threads ? o->threads : (cores / workers ? cores / workers : 1);
	b->conv.dmx_read.threads = b->conv.smd_write.threads = b->conv.dmx_write.threads = b->conv.smd_read.threads;
	os_mem om = pj_os_mem(&b->mem);
	b->lock = os_mutex_create_in(&om);
	b->ordered = !o->keep_going && b->count > 1;
	b->limit = SIZE_MAX;
	b->moved = b->ordered ? os_cond_create_in(&om) : NULL;
	b->deferred = b->count > 1;
	b->group = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t));
	b->wait = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t));
	/* biggest_first (with keep_going): several workers start the biggest first, so that no
	 * large file is left to run alone at the end; else the inputs go in order. */
	if (workers > 1 && !b->ordered && o->biggest_first) b->order = bt_sorted(b, bt_by_size);
	else if ((b->order = pj_malloc(&b->mem, (b->count ? b->count : 1) * sizeof(size_t))))
		for (size_t i = 0; i < b->count; i++) b->order[i] = i;
	if (!b->lock || (b->ordered && !b->moved) || !b->order || !b->group || !b->wait) return false;
	for (size_t i = 0; i < b->count; i++) {
		if (b->jobs[i].ran) {
			b->pub.finished++;
			if (!o->keep_going && b->jobs[i].failed) {
				if (!b->ordered) b->stop = true;
				else if (i < b->limit) b->limit = i;
			}
		}
	}
	os_mutex_lock(b->lock);
	if (b->ordered) commit_ready(b, false);
	os_mutex_unlock(b->lock);
	os_thread *threads[SMDMX_PROJECT_JOBS_MAX];
	unsigned started = 0;
	os_mem mem = pj_os_mem(&b->mem);
	for (unsigned t = 1; t < workers; t++) {
		if (!(threads[started] = os_thread_start_in(&mem, worker, b))) break;
		started++;
	}
	worker(b);
	for (unsigned t = 0; t < started; t++) os_thread_join(threads[t]);
	/* the last jobs put in place, and told; after memory ran out, none more: their outputs
	 * are dropped, as a cancelled job's */
	if (b->deferred) {
		os_mutex_lock(b->lock);
		if (!b->oom && !sm_budget_ran_out(&b->own)) commit_ready(b, true);
		if (!b->oom) settle(b);
		os_mutex_unlock(b->lock);
	}
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
		if (!j->pending.set) continue;
		pj_outputs_abort(&j->pending);
		j->ran = false;
		j->cancelled = true;
	}
	/* ordered: what ran after the first failure is dropped, as if it never ran */
	for (size_t i = 0; b->ordered && i < b->count; i++) {
		bjob *j = &b->jobs[i];
		if (i <= b->limit || !j->ran) continue;
		pj_outputs_abort(&j->pending);
		bt_written_free(b, j);
		j->ran = false;
		j->cancelled = true;
	}
	return true;
}

/* What the batch says at its end: options about animation that took effect on no input, the
 * failures counted. */
/* The code of the first failed job's first error, in input order (a batch's own message of
 * its failures says it). */
static smdmx_error_code first_failure(const batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		const bjob *j = &b->jobs[i];
		if (!j->failed) continue;
		for (size_t k = 0; k < j->msgs.count; k++)
			if (j->msgs.items[k].kind == SMDMX_MESSAGE_ERROR) return j->msgs.items[k].code;
	}
	return SMDMX_ERROR_IO; /* (a failed job says its error; memory ran out saying it) */
}

/* The jobs not run and failed, counted. */
static void count_jobs(batch *b)
{
	b->pub.failed = b->pub.not_run = 0;
	for (size_t i = 0; i < b->count; i++) {
		const bjob *j = &b->jobs[i];
		if (!j->ran) b->pub.not_run++;
		else if (j->failed) b->pub.failed++;
	}
}

static void summarize(batch *b)
{
	const smdmx_batch_options *o = b->o;
	count_jobs(b);
	b->pub.ok = !b->pub.failed;
	if (b->pub.up_to_date) pj_add(&b->said, NULL, 0, 0, "note", "%zu of %zu inputs up to date (-u)", b->pub.up_to_date, b->count);
	if (b->count > 1 && !b->pub.not_run) {
		static const unsigned anim[] = { SMDMX_BATCH_GIVEN_FPS, SMDMX_BATCH_GIVEN_KEYS, SMDMX_BATCH_GIVEN_KEY_TOLERANCE };
		for (size_t k = 0; k < 3; k++) {
			if (!(o->given & anim[k])) continue;
			bool used = false, fits = false;
			for (size_t i = 0; i < b->count; i++) {
				used |= (b->jobs[i].used & anim[k]) != 0;
				fits |= b->jobs[i].ran && !b->jobs[i].failed && (bt_applies(bt_job_way(b, &b->jobs[i])) & anim[k]);
			}
			if (used || !fits) continue;
			unsigned bit = 0;
			while ((1u << bit) != anim[k]) bit++;
			pj_add(&b->said, NULL, 0, 0, "warning", "'%s' took effect on no input: none of them has an animation; leave it out", bt_given_names[bit]);
			if (o->convert.warnings_fail) b->pub.ok = false;
		}
	}
	if (b->pub.failed && b->count > 1) {
		if (b->pub.not_run)
			pj_error(&b->said, first_failure(b), NULL, 0, 0,
			       "stopped after the first failure: %zu of %zu inputs not converted (--keep-going converts the rest)", b->pub.not_run,
			       b->count);
		else
			pj_error(&b->said, first_failure(b), NULL, 0, 0, "%zu of %zu inputs failed", b->pub.failed, b->count);
	}
}

/* The batch as the caller sees it at its end: every job final, the batch's own messages. */
static smdmx_batch *hand_back(batch *b)
{
	b->pub.jobs = b->pubjobs;
	b->pub.job_count = b->count;
	for (size_t i = 0; i < b->count; i++) publish(b, i);
	b->pub.settled = b->count;
	b->pub.messages = b->said.items;
	b->pub.message_count = b->said.count;
	b->pub.messages_lost = b->said.lost;
	return &b->pub;
}

/* Memory ran out (on any thread): the batch ends so. Freed, NULL, when no job put a file in
 * place; else handed back saying which did (out_of_memory), since those files stay. */
static smdmx_batch *out_of_memory(batch *b, smdmx_error *error)
{
	sm_fail_oom(error);
	bool placed = false;
	for (size_t i = 0; i < b->count && b->pubjobs; i++) placed |= !b->jobs[i].up_to_date && b->jobs[i].written_count > 0;
	if (!placed) {
		smdmx_batch_free(&b->pub);
		return NULL;
	}
	b->pub.status = SMDMX_ERROR_OUT_OF_MEMORY;
	b->pub.out_of_memory = true;
	b->pub.ok = false;
	count_jobs(b);
	return hand_back(b);
}

smdmx_batch *smdmx_batch_convert(const smdmx_batch_options *o, smdmx_error *error)
{
	SM_ERROR_START(error);
	if (!o) return sm_fail_null(error, __func__, "options"), NULL;
	for (size_t i = 0; i < o->input_count; i++)
		if (!o->inputs || !o->inputs[i]) return sm_fail_null(error, __func__, "an input"), NULL;
	/* the batch itself in the caller's memory, all else in its budget (when given) */
	sm_alloc home;
	sm_alloc_init(&home, pj_allocator_twice(&o->convert) ? NULL : &o->convert.allocator);
	batch *b = sm_malloc(&home, sizeof(*b));
	if (!b) {
		sm_fail_oom(error);
		return NULL;
	}
	memset(b, 0, sizeof(*b));
	b->home = home;
	b->o = o;
	b->conv = o->convert;
	b->conv.given = o->given & SMDMX_CONVERT_GIVEN_ALL; /* (the same bits) */
	/* one budget for the whole batch: each job's conversion counts into it */
	if (pj_allocator_given(&o->convert.allocator) && !pj_allocator_twice(&o->convert)) {
		b->conv.allocator = sm_budget_start(&b->budget, &o->convert.allocator);
		if (!sm_budget_count(&b->budget, sizeof(*b))) { /* the batch itself is the batch's memory too */
			sm_free(&home, b, sizeof(*b));
			return sm_fail_oom(error), NULL;
		}
	}
	b->own_hooks = sm_budget_start(&b->own, &b->conv.allocator);
	sm_alloc_init(&b->mem, &b->own_hooks);
	b->said.mem = &b->mem;
	bool planned = bt_options_valid(b) && bt_make_plan(b) && bt_check_options(b);
	if (planned && o->update) bt_plan_update(b);
	b->pubjobs = pj_calloc(&b->mem, b->count ? b->count : 1, sizeof(smdmx_batch_job));
	if (!b->pubjobs || b->oom || sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
	b->pub.jobs = b->pubjobs;
	b->pub.job_count = b->count;
	if (!planned) {
		b->pub.status = SMDMX_ERROR_USAGE;
	} else {
		/* every job's inputs and output seen from the start (its state as it settles); each
		 * job's memory of its own from here, for its worker (the batch's hooks: one budget) */
		for (size_t i = 0; i < b->count; i++) {
			sm_alloc_init(&b->jobs[i].mem, &b->own_hooks);
			b->jobs[i].msgs.mem = &b->jobs[i].mem;
			publish(b, i);
		}
		if (!run_jobs(b) || b->oom || sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
		summarize(b);
		if (sm_budget_ran_out(&b->own)) return out_of_memory(b, error);
	}
	return hand_back(b);
}

void smdmx_batch_free(smdmx_batch *pub)
{
	if (!pub) return;
	batch *b = (batch *)pub; /* pub is the first member */
	for (size_t i = 0; i < b->count; i++) {
		bjob *j = &b->jobs[i];
		for (size_t k = 0; k < j->input_count; k++) pj_free(&b->mem, j->inputs[k]);
		pj_free(&b->mem, j->inputs);
		pj_free(&b->mem, j->vta);
		pj_free(&b->mem, j->out);
		bt_written_free(b, j);
		for (size_t k = 0; k < j->dep_count; k++) pj_free(&b->mem, j->deps[k]);
		pj_free(&b->mem, j->deps);
		pj_msgs_free(&j->msgs);
		pj_outputs_abort(&j->pending);
	}
	pj_free(&b->mem, b->jobs);
	pj_free(&b->mem, b->pubjobs);
	pj_free(&b->mem, b->order);
	pj_free(&b->mem, b->group);
	pj_free(&b->mem, b->wait);
	pj_msgs_free(&b->said);
	if (b->lock) os_mutex_destroy(b->lock);
	if (b->moved) os_cond_destroy(b->moved);
	sm_alloc home = b->home;
	sm_free(&home, b, sizeof(*b));
}
