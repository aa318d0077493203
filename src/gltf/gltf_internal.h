/* The glTF writer's pieces (src/gltf/): the writer's state, the JSON text and the binary
 * buffer (gltf_json.c), rigid transforms (gltf_rigid.c), a mesh (gltf_mesh.c); the scene as a
 * document (gltf_write.c) calls them, never the other way. doc/gltf.md says what goes where. */
#ifndef SMDMX_GLTF_INTERNAL_H
#define SMDMX_GLTF_INTERNAL_H

#include "smdmx/gltf.h"
#include "smdmx/smdmx.h"
#include "support/internal.h"

enum { GL_FLOAT = 5126, GL_UNSIGNED_SHORT = 5123, GL_UNSIGNED_INT = 5125 };
enum { GL_ARRAY_BUFFER = 34962, GL_ELEMENT_ARRAY_BUFFER = 34963 };

/* A growing run of bytes in the writer's memory; failed: memory ran out. */
typedef struct gbuf {
	char *data;
	size_t len, cap;
} gbuf;

/* A rigid transform in doubles: a unit quaternion (x, y, z, w) and a translation. */
typedef struct rigid {
	double q[4], t[3];
} rigid;

typedef struct gw {
	const smdmx_scene *s;
	sm_alloc a;
	bool oom;
	unsigned max_links;
	gbuf views, accessors, meshes, nodes, skins, materials, animations;
	/* Two passes make the file: the first lays the buffer out (bin_len: its bytes so far) and
	 * makes the JSON; the second, streaming, makes the same data again and writes it to out
	 * as it comes (base64: in a data URI, b64 the bytes not yet encoded), the JSON left be. */
	size_t bin_len;
	bool streaming, base64, io_failed;
	struct sm_out *out;
	unsigned char b64[3];
	size_t b64_len;
	size_t view_count, accessor_count, mesh_count, animation_count;
	rigid *global;          /* each joint's bind pose in model space */
	uint32_t *mesh_node;    /* each mesh's node, SMDMX_NONE: none (no polygons) */
	bool *skinned;          /* each mesh: skinned (its weights), else a node of its parent */
	size_t links_cut, unweighted, keys_merged, clips_empty, meshes_empty;
	size_t normals_zero, normals_scaled; /* normals written (0, 0, 1); made unit length */
	size_t names_latin1;    /* names not UTF-8, written as Latin-1 (the first pass counts) */
	struct tmp_block {
		void *p;
		size_t size;
	} *tmp;                 /* scratch blocks (scratch), their count and room */
	size_t tmp_count, tmp_cap;
} gw;

/* ---- the JSON text and the buffer (gltf_json.c) -------------------------------------------- */

/* n bytes of s appended to b (nothing once memory ran out: w->oom). */
void gl_put(gw *w, gbuf *b, const void *s, size_t n);
void gl_puts(gw *w, gbuf *b, const char *s);
void gl_put_uint(gw *w, gbuf *b, size_t v);
/* v in the fewest digits that read back as v. */
void gl_put_float(gw *w, gbuf *b, float v);
/* "," before every item but the first of b. */
void gl_comma(gw *w, gbuf *b);
/* s as a JSON string (escaped; bytes that are no UTF-8 as Latin-1 characters). */
void gl_put_string(gw *w, gbuf *b, const char *s);
void gl_put_floats(gw *w, gbuf *b, const float *v, size_t n);
/* Bytes of the buffer written out (streaming), as GLB's binary chunk or base64; the end of the
 * base64 (its last bytes and padding). A failed write sets w->io_failed. */
void gl_emit(gw *w, const void *data, size_t n);
void gl_emit_end(gw *w);
/* data as a buffer view of its own, 4-byte aligned (target 0: none): its index. */
size_t gl_add_view(gw *w, const void *data, size_t size, int target);
/* count floats of n components as an accessor (with min and max when minmax): its index. */
size_t gl_add_floats(gw *w, const float *v, size_t count, unsigned n, bool minmax, int target);
/* count unsigned integers (GL_UNSIGNED_SHORT or _INT) of n components as an accessor. */
size_t gl_add_uints(gw *w, const void *v, size_t count, unsigned n, int type, int target);
/* size bytes of scratch memory, given back together by gl_scratch_free; NULL (w->oom) when
 * memory ran out. */
void *gl_scratch(gw *w, size_t size);
void gl_scratch_free(gw *w);
void gl_gbuf_free(gw *w, gbuf *b);

/* ---- rigid transforms (gltf_rigid.c) -------------------------------------------------------- */

void gl_quat_mul(const double a[4], const double b[4], double out[4]);
void gl_quat_rotate(const double q[4], const double v[3], double out[3]);
/* t's orientation made unit length. */
rigid gl_rigid_of(const smdmx_transform *t);
/* a then b (b relative to a). */
rigid gl_rigid_then(const rigid *a, const rigid *b);
bool gl_rigid_identity(const rigid *r);
/* The column-major 4x4 matrix of the inverse of r. */
void gl_inverse_matrix(const rigid *r, float m[16]);
/* A node's "translation" and "rotation" of t, each left out where zero. */
void gl_put_trs(gw *w, gbuf *b, const rigid *t);

/* ---- a mesh (gltf_mesh.c) ------------------------------------------------------------------- */

/* Mesh mi as a glTF mesh into w->meshes (its accessors into the buffer): false when memory
 * ran out. */
bool gl_write_mesh(gw *w, uint32_t mi);

#endif
