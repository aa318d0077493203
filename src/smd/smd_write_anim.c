/* SMD writer, the skeleton block's frames: the bind pose as one frame, or a clip sampled at
 * every frame of its rate (decision 11), each bone's rotation as Euler angles continuous from
 * frame to frame, six decimals (decision 12). */
#include <math.h>
#include <string.h>

#include "smd/smd_write.h"

/* ---- skeleton -------------------------------------------------------------------------------- */

static bool write_bone(writer *w, size_t id, const float *pos, const float *quat, double *euler, bool have_prev)
{
	double q[4] = { quat[0], quat[1], quat[2], quat[3] }, e[3];
	smdmx_quat_to_euler(q, have_prev ? euler : NULL, e);
	memcpy(euler, e, sizeof(e));
	SM_CHECK(put_int(w, (int64_t)id, false));
	for (int i = 0; i < 3; i++) SM_CHECK(put_float(w, pos[i]));
	for (int i = 0; i < 3; i++) SM_CHECK(put_angle(w, e[i]));
	return eol(w);
}

/* The bones of meshes that follow their own nodes, at their nodes' transforms: nothing
 * animates them. */
static bool write_own_bones(writer *w)
{
	const smdmx_scene *s = w->scene;
	for (size_t k = 0; k < w->own.count; k++) {
		const smdmx_transform *t = &s->meshes[w->own.mesh[k]].transform;
		double e[3];
		SM_CHECK(write_bone(w, s->joint_count + k, t->position, t->orientation, e, false));
	}
	return true;
}

bool smdw_write_bind_frame(writer *w)
{
	const smdmx_scene *s = w->scene;
	SM_CHECK(sm_out_puts(&w->out, "time 0"));
	SM_CHECK(eol(w));
	if (w->implicit_root) {
		SM_CHECK(sm_out_puts(&w->out, "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000"));
		SM_CHECK(eol(w));
	}
	for (size_t i = 0; i < s->joint_count; i++) {
		double e[3];
		SM_CHECK(write_bone(w, i, s->joints[i].bind.position, s->joints[i].bind.orientation, e, false));
	}
	return write_own_bones(w);
}

static int64_t tick_to_frame(int64_t t, double rate)
{
	return (int64_t)llround((double)t * rate / 10000.0);
}

bool sm_smd_reference_clip(const smdmx_scene *s, bool any)
{
	if (s->clip_count == 0) return false;
	if (s->source.format == SMDMX_SOURCE_SMD && s->source.smd_kind == SMDMX_SMD_REFERENCE) return true;
	if (!any || s->clip_count != 1) return false;
	const smdmx_clip *c = &s->clips[0];
	int64_t first = tick_to_frame(c->start, c->frame_rate);
	int32_t t = (int32_t)floor((double)first * 10000.0 / c->frame_rate);
	for (size_t i = 0; i < c->channel_count; i++) {
		const smdmx_joint *jt = &s->joints[c->channels[i].joint];
		float pos[3], q[4];
		sm_sample_position(&c->channels[i], t, jt->bind.position, pos);
		sm_sample_orientation(&c->channels[i], t, jt->bind.orientation, q);
		const float *b = jt->bind.orientation;
		bool same_q = (q[0] == b[0] && q[1] == b[1] && q[2] == b[2] && q[3] == b[3]) ||
		              (q[0] == -b[0] && q[1] == -b[1] && q[2] == -b[2] && q[3] == -b[3]);
		if (memcmp(pos, jt->bind.position, sizeof(pos)) || !same_q) return false;
	}
	return true;
}

bool smdw_write_clip_frames(writer *w, const smdmx_clip *c)
{
	const smdmx_scene *s = w->scene;
	int64_t first = tick_to_frame(c->start, c->frame_rate);
	int64_t last = tick_to_frame((int64_t)c->start + c->duration, c->frame_rate);
	if (last < first || (uint64_t)(last - first) >= w->limits.max_frames)
		return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s' spans %lld frames; the limit is %zu", c->name,
		               (long long)(last - first + 1), w->limits.max_frames);
	size_t nj = s->joint_count, bytes;
	/* Sparse keys over many bones can stand for far more text than the input holds: frames
	 * times bones is bounded as when reading. */
	if ((uint64_t)(last - first + 1) * (nj ? nj : 1) > w->limits.max_keys)
		return sm_fail(w->error, SMDMX_ERROR_LIMIT, 0, 0, "clip '%s': %lld frames of %zu bones; the limit is %zu bone poses",
		               c->name, (long long)(last - first + 1), nj, w->limits.max_keys);
	/* Per joint: its channel (or none), and the previous frame's angles for continuity. */
	if (!sm_mul(nj ? nj : 1, sizeof(const smdmx_channel *) + 3 * sizeof(double), &bytes)) return sm_fail_oom(w->error);
	void *mem = sm_malloc(&w->alloc, bytes);
	if (!mem) return sm_fail_oom(w->error);
	double(*eulers)[3] = mem;
	const smdmx_channel **chan = (const smdmx_channel **)(eulers + nj);
	for (size_t j = 0; j < nj; j++) chan[j] = NULL;
	for (size_t i = 0; i < c->channel_count; i++) chan[c->channels[i].joint] = &c->channels[i];
	bool ok = true;
	for (int64_t f = first; ok && f <= last; f++) {
		int32_t t = (int32_t)floor((double)f * 10000.0 / c->frame_rate);
		ok = sm_out_puts(&w->out, "time") && put_int(w, f, true) && eol(w);
		if (ok && w->implicit_root) ok = sm_out_puts(&w->out, "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000") && eol(w);
		for (size_t j = 0; ok && j < nj; j++) {
			float pos[3], q[4];
			const smdmx_joint *jt = &s->joints[j];
			if (chan[j]) {
				sm_sample_position(chan[j], t, jt->bind.position, pos);
				sm_sample_orientation(chan[j], t, jt->bind.orientation, q);
			} else {
				memcpy(pos, jt->bind.position, sizeof(pos));
				memcpy(q, jt->bind.orientation, sizeof(q));
			}
			ok = write_bone(w, j, pos, q, eulers[j], f != first);
		}
		ok = ok && write_own_bones(w);
	}
	sm_free(&w->alloc, mem, bytes);
	return ok;
}
