/* The SMD and VTA writer's state, private to its files: the SMD writer (smd_write.c) and the
 * VTA writer (smd_write_vta.c), with the writer's output helpers inline here. */
#ifndef SMDMX_SMD_WRITE_H
#define SMDMX_SMD_WRITE_H

#include <string.h>

#include "support/internal.h"
#include "support/num.h"
#include "platform/os.h"
#include "scene/scene_util.h"
#include "smdmx/math.h"
#include "smdmx/smd.h"

typedef struct writer {
	sm_out out;          /* first: the writer struct is mostly this buffer */
	const char *eol;
	size_t eol_len;
	smdmx_error *error;
	sm_alloc alloc;
	smdmx_limits limits;
	const smdmx_scene *scene;
	bool implicit_root; /* the scene has no joints: write one "root" bone */
	sm_own_bones own;   /* after the joints, a bone for each mesh that follows its own node */
	bool goldsrc;
	unsigned threads;   /* for the triangles of large meshes */
	smdmx_error error_store; /* a part's own error (emit_parallel) */
} writer;

static inline bool eol(writer *w)
{
	return sm_out_put(&w->out, w->eol, w->eol_len);
}

/* " <value>" */
static inline bool put_float(writer *w, float v)
{
	SM_CHECK(sm_out_room(&w->out, SM_FLOAT_MAX + 1));
	w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_float(v, w->out.buf + w->out.len);
	return true;
}

/* " <angle>": six decimals (decision 12). */
static inline bool put_angle(writer *w, double v)
{
	SM_CHECK(sm_out_room(&w->out, SM_FIXED6_MAX + 1));
	w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_fixed6_double(v, w->out.buf + w->out.len);
	return true;
}

static inline bool put_int(writer *w, int64_t v, bool space)
{
	SM_CHECK(sm_out_room(&w->out, 24));
	if (space) w->out.buf[w->out.len++] = ' ';
	w->out.len += sm_format_int(v, w->out.buf + w->out.len);
	return true;
}

/* A joint's transform as a matrix and a translation. */
typedef struct xform {
	double r[3][3];
	double t[3];
} xform;

/* Called for every triangle corner in written order (smdw_for_each_written_corner). */
typedef bool (*corner_fn)(writer *w, const smdmx_mesh *m, uint32_t corner, size_t polygon, void *ctx);

/* Shared by the SMD and VTA writers (smd_write.c): a name SMD can write (else the error); the
 * transform that puts a mesh in the model's space (false: none); x applied to v (as a point
 * with translate, else as a direction); the bind pose as a time 0 block; every triangle
 * corner in written order (polygons by first corner, fanned from it: decision 9). */
bool smdw_check_text(writer *w, const char *s, const char *what, bool allow_quote);
bool smdw_mesh_xform(const smdmx_scene *s, const smdmx_mesh *m, xform *out);
void smdw_apply(const xform *x, const float *v, bool translate, float *out);
bool smdw_write_bind_frame(writer *w);
/* A clip's frames, each bone at each frame (smd_write_anim.c). */
bool smdw_write_clip_frames(writer *w, const smdmx_clip *c);
bool smdw_for_each_written_corner(writer *w, const smdmx_mesh *m, corner_fn emit, void *ctx);

/* The VTA of the scene's shapes (smd_write_vta.c). */
bool smdw_write_vta(writer *w);

/* A material's texture name in a GoldSrc SMD: a known image extension becomes ".bmp", any
 * other name gets ".bmp" appended ("socks.001" is "socks.001.bmp"). Returns the length
 * written into out (at most SM_GOLDSRC_NAME_MAX - 1, cut there). */
#define SM_GOLDSRC_NAME_MAX 512

/* The length of a material name as an SMD line holds it: studiomdl takes the line without the
 * white space at its end (Grab_Triangles), so that is left out; white space at its start is
 * part of the name and written. */
static inline size_t sm_material_line_len(const char *name)
{
	size_t n = strlen(name);
	while (n && (name[n - 1] == ' ' || name[n - 1] == '\t' || name[n - 1] == '\v' || name[n - 1] == '\f')) n--;
	return n;
}
size_t sm_goldsrc_texture(const char *material, char out[SM_GOLDSRC_NAME_MAX]);
/* A reference SMD of the scene holds its animation in its skeleton block: a clip read from a
 * reference SMD, or (any) a model's only clip whose first frame is its bind pose (studiomdl
 * takes the bind pose from that frame). */
bool sm_smd_reference_clip(const smdmx_scene *s, bool any);

#endif
