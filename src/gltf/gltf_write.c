/* A scene as glTF 2.0 (smdmx/gltf.h; doc/gltf.md says what goes where and why).
 *
 * The scene's numbers are kept in Source's space: one root node turns them into glTF's Y up,
 * so joints, clips and vertices are written as they are (a skinned mesh's vertices in model
 * space, its inverse bind matrices those of the bind pose without the root's turn). A
 * glTF vertex is a scene corner: both are what a polygon's corners index. The JSON is made in
 * pieces (nodes, meshes, accessors...) beside one binary buffer, then put together as GLB or
 * as glTF with the buffer in a data URI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf/gltf_internal.h"
#include "gltf/gltf_valid.h"
#include "support/num.h"

/* ---- clips ---------------------------------------------------------------------------------- */

/* Clip ci as an animation: a sampler and a channel per joint's positions and orientations
 * (LINEAR: positions linearly, orientations by slerp, as the keys are). A key whose time in
 * seconds, as float, is not past the one before is merged into it (counted). */
static bool write_clip(gw *w, size_t ci)
{
	const smdmx_clip *c = &w->s->clips[ci];
	gbuf samplers = { 0 }, channels = { 0 };
	size_t sampler_count = 0;
	int32_t base = c->start;
	for (size_t k = 0; k < c->channel_count; k++) {
		const smdmx_channel *ch = &c->channels[k];
		if (ch->position_count && ch->position_times[0] < base) base = ch->position_times[0];
		if (ch->orientation_count && ch->orientation_times[0] < base) base = ch->orientation_times[0];
	}
	for (size_t k = 0; k < c->channel_count && !w->oom; k++) {
		const smdmx_channel *ch = &c->channels[k];
		for (int rot = 0; rot < 2; rot++) {
			size_t n = rot ? ch->orientation_count : ch->position_count;
			if (!n) continue;
			const int32_t *times = rot ? ch->orientation_times : ch->position_times;
			unsigned comps = rot ? 4 : 3;
			float *in = gl_scratch(w, n * sizeof(float)), *out = gl_scratch(w, n * comps * sizeof(float));
			if (!in || !out) break;
			size_t kept = 0;
			for (size_t i = 0; i < n; i++) {
				float t = (float)((double)(times[i] - base) / 10000.0);
				if (kept && !(t > in[kept - 1])) {
					w->keys_merged++;
					continue;
				}
				in[kept] = t;
				const float *v = rot ? ch->orientations[i] : ch->positions[i];
				double len = 1;
				if (rot) len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3]);
				for (unsigned q = 0; q < comps; q++) out[kept * comps + q] = (float)(v[q] / len);
				kept++;
			}
			size_t input = gl_add_floats(w, in, kept, 1, true, 0), output = gl_add_floats(w, out, kept, comps, false, 0);
			gl_comma(w, &samplers);
			gl_puts(w, &samplers, "{\"input\":");
			gl_put_uint(w, &samplers, input);
			gl_puts(w, &samplers, ",\"output\":");
			gl_put_uint(w, &samplers, output);
			gl_puts(w, &samplers, ",\"interpolation\":\"LINEAR\"}");
			gl_comma(w, &channels);
			gl_puts(w, &channels, "{\"sampler\":");
			gl_put_uint(w, &channels, sampler_count++);
			gl_puts(w, &channels, ",\"target\":{\"node\":");
			gl_put_uint(w, &channels, (size_t)ch->joint + 1);
			gl_puts(w, &channels, rot ? ",\"path\":\"rotation\"}}" : ",\"path\":\"translation\"}}");
		}
		gl_scratch_free(w);
	}
	gl_scratch_free(w);
	if (sampler_count && !w->oom) {
		gl_comma(w, &w->animations);
		gl_puts(w, &w->animations, "{\"name\":");
		gl_put_string(w, &w->animations, c->name ? c->name : "");
		gl_puts(w, &w->animations, ",\"channels\":[");
		gl_put(w, &w->animations, channels.data, channels.len);
		gl_puts(w, &w->animations, "],\"samplers\":[");
		gl_put(w, &w->animations, samplers.data, samplers.len);
		gl_puts(w, &w->animations, "]}");
		w->animation_count++;
	} else if (!sampler_count) {
		w->clips_empty++;
	}
	gl_gbuf_free(w, &samplers);
	gl_gbuf_free(w, &channels);
	return !w->oom;
}

/* ---- nodes ---------------------------------------------------------------------------------- */

/* The root's turn of Source's up axis into glTF's Y up: Z up (Source's -Y forward to glTF's
 * +Z) -90 degrees about X; X up first +90 about Y to Z (smdmx_scene_transform's turn). */
static rigid root_turn(char up)
{
	const double h = 0.70710678118654752440;
	rigid r = { { 0, 0, 0, 1 }, { 0, 0, 0 } };
	if (up == 'Y') return r;
	rigid z = { { -h, 0, 0, h }, { 0, 0, 0 } };
	if (up != 'X') return z;
	rigid x = { { 0, h, 0, h }, { 0, 0, 0 } };
	return gl_rigid_then(&z, &x);
}

/* The children of node parent (joint j + 1, or 0 the root for SMDMX_NONE): joints, meshes
 * that are not skinned, attachments. */
static void put_children(gw *w, uint32_t joint)
{
	const smdmx_scene *s = w->s;
	gbuf kids = { 0 };
	for (size_t j = 0; j < s->joint_count; j++)
		if (s->joints[j].parent == joint) gl_comma(w, &kids), gl_put_uint(w, &kids, j + 1);
	for (size_t m = 0; m < s->mesh_count; m++)
		if (w->mesh_node[m] != SMDMX_NONE && !w->skinned[m] && s->meshes[m].parent_joint == joint)
			gl_comma(w, &kids), gl_put_uint(w, &kids, w->mesh_node[m]);
	for (size_t a = 0; a < s->attachment_count; a++)
		if (s->attachments[a].parent_joint == joint) gl_comma(w, &kids), gl_put_uint(w, &kids, 1 + s->joint_count + w->mesh_count + a);
	if (kids.len) {
		gl_puts(w, &w->nodes, ",\"children\":[");
		gl_put(w, &w->nodes, kids.data, kids.len);
		gl_puts(w, &w->nodes, "]");
	}
	gl_gbuf_free(w, &kids);
}

/* Every node: the root, the joints, the meshes, the attachments. */
static void write_nodes(gw *w, bool skin)
{
	const smdmx_scene *s = w->s;
	rigid turn = root_turn(s->up_axis);
	gl_puts(w, &w->nodes, "{\"name\":");
	gl_put_string(w, &w->nodes, s->name ? s->name : "model");
	gl_put_trs(w, &w->nodes, &turn);
	put_children(w, SMDMX_NONE);
	gl_puts(w, &w->nodes, "}");
	for (uint32_t j = 0; j < s->joint_count; j++) {
		rigid bind = gl_rigid_of(&s->joints[j].bind);
		gl_puts(w, &w->nodes, ",{\"name\":");
		gl_put_string(w, &w->nodes, s->joints[j].name ? s->joints[j].name : "");
		gl_put_trs(w, &w->nodes, &bind);
		put_children(w, j);
		gl_puts(w, &w->nodes, "}");
	}
	size_t mesh = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		if (w->mesh_node[m] == SMDMX_NONE) continue;
		gl_puts(w, &w->nodes, ",{\"name\":");
		gl_put_string(w, &w->nodes, s->meshes[m].name ? s->meshes[m].name : "");
		gl_puts(w, &w->nodes, ",\"mesh\":");
		gl_put_uint(w, &w->nodes, mesh++);
		if (w->skinned[m] && skin) {
			gl_puts(w, &w->nodes, ",\"skin\":0");
		} else {
			rigid place = gl_rigid_of(&s->meshes[m].transform);
			gl_put_trs(w, &w->nodes, &place);
		}
		gl_puts(w, &w->nodes, "}");
	}
	for (size_t a = 0; a < s->attachment_count; a++) {
		rigid place = gl_rigid_of(&s->attachments[a].transform);
		gl_puts(w, &w->nodes, ",{\"name\":");
		gl_put_string(w, &w->nodes, s->attachments[a].name ? s->attachments[a].name : "");
		gl_put_trs(w, &w->nodes, &place);
		gl_puts(w, &w->nodes, "}");
	}
}

/* The skin over every joint, the root its skeleton: the inverse bind matrices of the bind
 * pose in model space. */
static void write_skin(gw *w)
{
	const smdmx_scene *s = w->s;
	float *ibm = gl_scratch(w, s->joint_count * 16 * sizeof(float));
	if (!ibm) return;
	for (size_t j = 0; j < s->joint_count; j++) gl_inverse_matrix(&w->global[j], &ibm[j * 16]);
	gl_puts(w, &w->skins, "{\"inverseBindMatrices\":");
	gl_put_uint(w, &w->skins, gl_add_floats(w, ibm, s->joint_count, 16, false, 0));
	gl_puts(w, &w->skins, ",\"skeleton\":0,\"joints\":[");
	for (size_t j = 0; j < s->joint_count; j++) {
		if (j) gl_puts(w, &w->skins, ",");
		gl_put_uint(w, &w->skins, j + 1);
	}
	gl_puts(w, &w->skins, "]}");
	gl_scratch_free(w);
}

/* ---- the file ------------------------------------------------------------------------------- */

static bool out_put(sm_out *o, const void *data, size_t n)
{
	return sm_out_put(o, data, n);
}

/* The JSON document, its buffer's URI left for out to write where "uri" goes. */
static void put_document(gw *w, gbuf *doc, const char *generator)
{
	const smdmx_scene *s = w->s;
	gl_puts(w, doc, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
	gl_put_string(w, doc, generator);
	gl_puts(w, doc, "},\"scene\":0,\"scenes\":[{\"name\":");
	gl_put_string(w, doc, s->name ? s->name : "model");
	gl_puts(w, doc, ",\"nodes\":[0");
	for (size_t m = 0; m < s->mesh_count; m++) /* skinned meshes beside the root: skinning places them */
		if (w->mesh_node[m] != SMDMX_NONE && w->skinned[m]) gl_puts(w, doc, ","), gl_put_uint(w, doc, w->mesh_node[m]);
	gl_puts(w, doc, "]}],\"nodes\":[");
	gl_put(w, doc, w->nodes.data, w->nodes.len);
	gl_puts(w, doc, "]");
	const struct {
		const char *name;
		const gbuf *b;
	} arrays[] = { { "meshes", &w->meshes }, { "skins", &w->skins }, { "materials", &w->materials }, { "animations", &w->animations },
		       { "accessors", &w->accessors }, { "bufferViews", &w->views } };
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		if (!arrays[i].b->len) continue;
		gl_puts(w, doc, ",\"");
		gl_puts(w, doc, arrays[i].name);
		gl_puts(w, doc, "\":[");
		gl_put(w, doc, arrays[i].b->data, arrays[i].b->len);
		gl_puts(w, doc, "]");
	}
	if (w->bin_len) {
		gl_puts(w, doc, ",\"buffers\":[{\"byteLength\":");
		gl_put_uint(w, doc, w->bin_len);
	}
}

/* What glTF cannot hold, said with a count. */
static void say_losses(gw *w, smdmx_warnings *warnings)
{
	const smdmx_scene *s = w->s;
	sm_warn_n(warnings, SMDMX_WARNING_LINKS_TRUNCATED, w->links_cut, 0, 0,
	          "glTF holds %u weight links a vertex here: %zu vertices kept their %u strongest, renormalised; %s", w->max_links,
	          w->links_cut, w->max_links, w->max_links < 8 ? "use --links 8 to keep 8" : "reduce the links in the source to keep them");
	sm_warn_n(warnings, SMDMX_WARNING_UNWEIGHTED, w->unweighted, 0, 0,
	          "%zu vertices without a weight link put whole on their mesh's bone (or the first); nothing to do", w->unweighted);
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_CONTROLLERS, s->flex_controller_count, 0, 0,
	          "glTF has no flex controllers: %zu left out (their shapes are morph targets, named); keep the DMX for them",
	          s->flex_controller_count);
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_RULES, s->flex_rule_count + s->domination_rule_count, 0, 0,
	          "glTF has no flex or domination rules: %zu left out; keep the DMX for them", s->flex_rule_count + s->domination_rule_count);
	size_t balance = 0, wrinkle = 0;
	for (size_t m = 0; m < s->mesh_count; m++) {
		balance += s->meshes[m].balance.indices != NULL;
		wrinkle += s->meshes[m].wrinkle.indices != NULL;
	}
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_BALANCE, balance, 0, 0,
	          "glTF has no stereo balance: left out of %zu meshes; keep the DMX for it", balance);
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_WRINKLE, wrinkle, 0, 0,
	          "glTF has no wrinkle data: left out of %zu meshes; keep the DMX for it", wrinkle);
	sm_warn_n(warnings, SMDMX_WARNING_MESHES_EMPTY, w->meshes_empty, 0, 0, "%zu meshes without a polygon left out; nothing to do",
	          w->meshes_empty);
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_CLIPS, w->clips_empty, 0, 0, "%zu clips without a key left out; nothing to do",
	          w->clips_empty);
	size_t flags = 0, corrective = 0;
	for (size_t a = 0; a < s->attachment_count; a++) flags += s->attachments[a].rigid || s->attachments[a].world_aligned;
	for (size_t f = 0; f < s->flex_shape_count; f++) corrective += s->flex_shapes[f].corrective;
	sm_warn_n(warnings, SMDMX_WARNING_DROPPED_ATTACHMENTS, flags, 0, 0,
	          "glTF has no rigid or world-aligned attachments: %zu attachments left plain nodes; keep the DMX for them", flags);
	sm_warn_n(warnings, SMDMX_WARNING_CORRECTIVE_PLAIN, corrective, 0, 0,
	          "glTF has no corrective shapes: %zu written as plain morph targets; keep the DMX for their rules", corrective);
	sm_warn_n(warnings, SMDMX_WARNING_NORMALS_ZERO, w->normals_zero, 0, 0,
	          "%zu corners of zero normals written with the normal (0, 0, 1), as glTF's are unit length; fix the normals in the source",
	          w->normals_zero);
	sm_warn_n(warnings, SMDMX_WARNING_NORMALS_SCALED, w->normals_scaled, 0, 0,
	          "%zu corners' normals not unit length made so, as glTF's are; fix the normals in the source", w->normals_scaled);
	sm_warn_n(warnings, SMDMX_WARNING_NAMES_LATIN1, w->names_latin1, 0, 0,
	          "%zu names not UTF-8 written as the Latin-1 characters of their bytes, as glTF's are UTF-8; rename them in UTF-8 to "
	          "keep their bytes",
	          w->names_latin1);
	sm_warn_n(warnings, SMDMX_WARNING_KEYS_MERGED, w->keys_merged, 0, 0,
	          "%zu keys closer in time than a float holds in seconds merged into the key before; nothing to do", w->keys_merged);
}

/* Each joint's bind pose in model space (a parent may come after its child). */
static bool globals(gw *w)
{
	const smdmx_scene *s = w->s;
	bool *done = gl_scratch(w, s->joint_count);
	if (!done) return false;
	memset(done, 0, s->joint_count);
	for (size_t left = s->joint_count; left;) {
		size_t before = left;
		for (size_t j = 0; j < s->joint_count; j++) {
			uint32_t p = s->joints[j].parent;
			if (done[j] || (p != SMDMX_NONE && !done[p])) continue;
			rigid bind = gl_rigid_of(&s->joints[j].bind);
			w->global[j] = p == SMDMX_NONE ? bind : gl_rigid_then(&w->global[p], &bind);
			done[j] = true;
			left--;
		}
		if (left == before) break; /* (the scene is valid: no circle) */
	}
	gl_scratch_free(w);
	return true;
}

/* The pieces: materials, meshes, the skin, the clips, the nodes. */
static bool write_pieces(gw *w)
{
	const smdmx_scene *s = w->s;
	if (!globals(w)) return false;
	for (size_t i = 0; i < s->material_count; i++) {
		gl_comma(w, &w->materials);
		gl_puts(w, &w->materials, "{\"name\":");
		gl_put_string(w, &w->materials, s->materials[i].name ? s->materials[i].name : "");
		gl_puts(w, &w->materials, ",\"pbrMetallicRoughness\":{\"metallicFactor\":0,\"roughnessFactor\":1}}");
	}
	bool skin = false;
	for (uint32_t m = 0; m < s->mesh_count; m++) {
		const smdmx_mesh *mesh = &s->meshes[m];
		bool triangles = false;
		for (size_t k = 0; k < mesh->face_set_count; k++) triangles |= mesh->face_sets[k].polygon_count > 0;
		w->mesh_node[m] = SMDMX_NONE;
		if (!triangles) {
			w->meshes_empty++;
			continue;
		}
		w->skinned[m] = s->joint_count && mesh->weight_offsets;
		skin |= w->skinned[m];
		w->mesh_node[m] = (uint32_t)(1 + s->joint_count + w->mesh_count++);
		if (!gl_write_mesh(w, m)) return false;
	}
	if (skin) write_skin(w);
	for (size_t c = 0; c < s->clip_count && !w->oom; c++) write_clip(w, c);
	if (!w->oom) write_nodes(w, skin);
	return !w->oom;
}

/* The counts a pass makes, set back for the next. */
static void restart(gw *w)
{
	w->view_count = w->accessor_count = w->mesh_count = w->animation_count = 0;
	w->links_cut = w->unweighted = w->keys_merged = w->clips_empty = w->meshes_empty = 0;
	w->normals_zero = w->normals_scaled = 0;
	w->bin_len = 0;
}

/* The document through o: the JSON the first pass made, then the buffer the second makes as
 * it goes; GLB, or glTF with the buffer in a data URI. */
static bool write_out(gw *w, sm_out *o, const char *generator, bool binary)
{
	gbuf doc = { 0 };
	put_document(w, &doc, generator);
	size_t bin_len = w->bin_len, bin_padded = (bin_len + 3) / 4 * 4;
	if (binary) {
		if (bin_len) gl_puts(w, &doc, "}]");
		gl_puts(w, &doc, "}");
		while (doc.len % 4 && !w->oom) gl_puts(w, &doc, " ");
	}
	if (w->oom) return gl_gbuf_free(w, &doc), false;
	bool ok;
	if (binary) {
		uint64_t total = 12 + 8 + (uint64_t)doc.len + (bin_len ? 8 + (uint64_t)bin_padded : 0);
		if (total > UINT32_MAX) {
			gl_gbuf_free(w, &doc);
			return sm_fail(o->error, SMDMX_ERROR_LIMIT, 0, 0, "a GLB holds at most 4 GiB: this one would be %llu bytes",
			               (unsigned long long)total);
		}
		uint8_t head[28];
		uint32_t words[7] = { 0x46546C67u, 2, (uint32_t)total, (uint32_t)doc.len, 0x4E4F534Au, (uint32_t)bin_padded, 0x004E4942u };
		for (int i = 0; i < 7; i++)
			for (int k = 0; k < 4; k++) head[i * 4 + k] = (uint8_t)(words[i] >> (8 * k));
		ok = out_put(o, head, 20) && out_put(o, doc.data, doc.len) && (!bin_len || out_put(o, head + 20, 8));
	} else {
		static const char uri[] = ",\"uri\":\"data:application/octet-stream;base64,";
		ok = out_put(o, doc.data, doc.len) && (!bin_len || out_put(o, uri, sizeof(uri) - 1));
	}
	gl_gbuf_free(w, &doc);
	/* the second pass: the same data, written as it is made */
	if (ok && bin_len) {
		restart(w);
		w->streaming = true;
		w->base64 = !binary;
		w->out = o;
		ok = write_pieces(w);
		gl_emit_end(w);
		if (ok && !w->io_failed && w->bin_len != bin_len)
			return sm_fail(o->error, SMDMX_ERROR_INVALID_SCENE, 0, 0,
			               "the scene changed while it was written: its glTF buffer came out %zu bytes, laid out as %zu", w->bin_len,
			               bin_len);
		static const char zero[4] = { 0, 0, 0, 0 };
		ok = ok && !w->io_failed && (binary ? out_put(o, zero, bin_padded - bin_len) : out_put(o, "\"}]", 3));
	}
	ok = ok && (binary || out_put(o, "}\n", 2));
	return ok && sm_out_flush(o);
}

bool smdmx_gltf_write(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_gltf_write_options *options,
                      smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	sm_warnings_start(warnings, options ? &options->allocator : NULL);
	return smdmx_scene_validate(scene, error) && sm_gltf_write_valid(scene, write, user, options, error, warnings);
}

bool sm_gltf_write_valid(const smdmx_scene *scene, smdmx_write_fn write, void *user, const smdmx_gltf_write_options *options,
                         smdmx_error *error, smdmx_warnings *warnings)
{
	SM_ERROR_START(error);
	smdmx_gltf_write_options opts;
	memset(&opts, 0, sizeof(opts));
	if (options) opts = *options;
	sm_warnings_start(warnings, &opts.allocator);
	if (!write) return sm_fail_null(error, __func__, "write");
	if (opts.max_links && opts.max_links != 4 && opts.max_links != 8)
		return sm_fail(error, SMDMX_ERROR_USAGE, 0, 0, "--links is 4 or 8, not %u", opts.max_links);
	if (scene->joint_count > 65535)
		return sm_fail(error, SMDMX_ERROR_LIMIT, 0, 0, "glTF joints are written as 16-bit numbers: %zu joints are too many",
		               scene->joint_count);
	sm_alloc a;
	sm_alloc_init(&a, &opts.allocator);
	gw *w = sm_malloc(&a, sizeof(gw));
	sm_out *o = w ? sm_malloc(&a, sizeof(sm_out)) : NULL;
	size_t jn = scene->joint_count ? scene->joint_count : 1, mn = scene->mesh_count ? scene->mesh_count : 1;
	if (w) {
		memset(w, 0, sizeof(*w));
		w->a = a;
		w->s = scene;
		w->max_links = opts.max_links ? opts.max_links : 4;
		w->global = sm_malloc(&w->a, jn * sizeof(rigid));
		w->mesh_node = sm_malloc(&w->a, mn * sizeof(uint32_t));
		w->skinned = sm_malloc(&w->a, mn);
		if (w->skinned) memset(w->skinned, 0, mn);
	}
	if (o) {
		o->write = write;
		o->user = user;
		o->error = error;
		o->len = 0;
	}
	bool ok = w && o && w->global && w->mesh_node && w->skinned && write_pieces(w);
	if (!ok && (!w || w->oom || !o || !w->global || !w->mesh_node || !w->skinned)) sm_fail_oom(error);
	if (ok) {
		char gen[64];
		snprintf(gen, sizeof(gen), "smdmx %s", SMDMX_VERSION_STRING);
		ok = write_out(w, o, opts.generator ? opts.generator : gen, opts.binary);
		if (!ok && w->oom) sm_fail_oom(error);
		if (ok) say_losses(w, warnings);
	}
	if (w) {
		gl_scratch_free(w);
		gbuf *bufs[] = { &w->views, &w->accessors, &w->meshes, &w->nodes, &w->skins, &w->materials, &w->animations };
		for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) gl_gbuf_free(w, bufs[i]);
		sm_free(&w->a, w->tmp, w->tmp_cap * sizeof(*w->tmp));
		sm_free(&w->a, w->global, jn * sizeof(rigid));
		sm_free(&w->a, w->mesh_node, mn * sizeof(uint32_t));
		sm_free(&w->a, w->skinned, mn);
		sm_alloc keep = w->a;
		sm_free(&keep, w, sizeof(gw));
		a = keep;
	}
	if (o) sm_free(&a, o, sizeof(sm_out));
	return ok && sm_warnings_kept(warnings, error);
}
