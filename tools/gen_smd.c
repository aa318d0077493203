/* gen_smd: writes large synthetic SMD files for the benchmark.
 *
 *   gen_smd reference TRIANGLES OUT.smd   a skinned, wavy grid of about TRIANGLES triangles
 *                                         over a chain of 16 bones, two weight links per vertex
 *   gen_smd animation FRAMES OUT.smd      the same skeleton moving over FRAMES frames
 *   gen_smd vta TRIANGLES SHAPES OUT.vta  a VTA for the reference grid of TRIANGLES: its
 *                                         corners as base vertices, numbered in a shuffled
 *                                         order (so they must be matched by position), and
 *                                         SHAPES shapes, each a bump over a tenth of the grid
 *
 * Numbers are written like exporters do ("%.6f"), in the C locale. Deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BONES 16

static void header(FILE *f)
{
	fputs("version 1\r\nnodes\r\n", f);
	for (int b = 0; b < BONES; b++) fprintf(f, "%d \"bone_%02d\" %d\r\n", b, b, b - 1);
	fputs("end\r\nskeleton\r\n", f);
}

static void bone_line(FILE *f, int b, double t)
{
	double len = b ? 10.0 : 0.0;
	fprintf(f, "%d %.6f %.6f %.6f %.6f %.6f %.6f\r\n", b, len, 0.0, 0.0, 0.05 * sin(t + b), 0.1 * sin(0.5 * t + b),
	        0.2 * sin(0.25 * t + 0.3 * b));
}

/* Position and normal of grid point (x, y). */
static void grid_point(int w, int x, int y, double *p, double *n)
{
	p[0] = x * 160.0 / w;
	p[1] = y * 160.0 / w;
	p[2] = 4.0 * sin(p[0] * 0.1) * cos(p[1] * 0.1);
	double nx = -0.4 * cos(p[0] * 0.1) * cos(p[1] * 0.1), ny = 0.4 * sin(p[0] * 0.1) * sin(p[1] * 0.1), nz = 1.0;
	double nl = sqrt(nx * nx + ny * ny + nz * nz);
	n[0] = nx / nl;
	n[1] = ny / nl;
	n[2] = nz / nl;
}

static void vertex(FILE *f, int w, int x, int y)
{
	double p[3], n[3];
	grid_point(w, x, y, p, n);
	double px = p[0], py = p[1], pz = p[2];
	double bf = px / 10.0;
	int b0 = (int)bf;
	if (b0 > BONES - 2) b0 = BONES - 2;
	double w1 = bf - b0;
	if (w1 > 1) w1 = 1;
	fprintf(f, "%d %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f 2 %d %.6f %d %.6f\r\n", b0, px, py, pz, n[0], n[1], n[2],
	        (double)x / w, (double)y / w, b0, 1.0 - w1, b0 + 1, w1);
}

/* The reference's triangles, as grid points: corner k of the file is (cx[k], cy[k]). */
static long grid_corners(long n, int w, int *cx, int *cy)
{
	static const int dx[6] = { 0, 1, 1, 0, 1, 0 }, dy[6] = { 0, 0, 1, 0, 1, 1 };
	long written = 0, k = 0;
	for (int y = 0; y < w && written < n; y++)
		for (int x = 0; x < w && written < n; x++)
			for (int t = 0; t < 2 && written < n; t++, written++)
				for (int c = 0; c < 3; c++, k++) {
					cx[k] = x + dx[3 * t + c];
					cy[k] = y + dy[3 * t + c];
				}
	return k;
}

static int write_vta(long tris, long shapes, const char *out)
{
	FILE *f = fopen(out, "wb");
	if (!f || tris <= 0 || shapes <= 0) {
		fprintf(stderr, "gen_smd: cannot write %s\n", out);
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	int w = (int)ceil(sqrt(tris / 2.0));
	int *cx = malloc(3 * (size_t)tris * sizeof(int)), *cy = malloc(3 * (size_t)tris * sizeof(int));
	long *at = malloc(3 * (size_t)tris * sizeof(long));
	if (!cx || !cy || !at) return 1;
	long n = grid_corners(tris, w, cx, cy);
	/* vertex number v holds corner at[v]: a fixed shuffle (a step coprime with n) */
	long step = 7919;
	while (n % step == 0) step += 2;
	for (long k = 0; k < n; k++) at[(k * step + 12345) % n] = k;
	fputs("version 1\r\nnodes\r\n0 \"bone_00\" -1\r\nend\r\nskeleton\r\ntime 0\r\n", f);
	for (long s = 1; s <= shapes; s++) fprintf(f, "time %ld # bump_%ld\r\n", s, s);
	fputs("end\r\nvertexanimation\r\ntime 0\r\n", f);
	for (long v = 0; v < n; v++) {
		double p[3], q[3];
		grid_point(w, cx[at[v]], cy[at[v]], p, q);
		fprintf(f, "%ld %.6f %.6f %.6f %.6f %.6f %.6f\r\n", v, p[0], p[1], p[2], q[0], q[1], q[2]);
	}
	for (long s = 1; s <= shapes; s++) {
		fprintf(f, "time %ld # bump_%ld\r\n", s, s);
		/* a bump over the tenth of the grid's width starting at s / shapes of it */
		double x0 = 160.0 * (double)(s - 1) / (double)shapes, x1 = x0 + 16.0;
		for (long v = 0; v < n; v++) {
			double p[3], q[3];
			grid_point(w, cx[at[v]], cy[at[v]], p, q);
			if (p[0] < x0 || p[0] >= x1) continue;
			fprintf(f, "%ld %.6f %.6f %.6f %.6f %.6f %.6f\r\n", v, p[0], p[1], p[2] + sin((p[0] - x0) / 16.0 * 3.14159265),
			        q[0], q[1], q[2]);
		}
	}
	fputs("end\r\n", f);
	free(cx);
	free(cy);
	free(at);
	return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "vta")) return write_vta(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10), argv[4]);
	if (argc != 4) {
		fprintf(stderr, "usage: gen_smd reference TRIANGLES OUT.smd | gen_smd animation FRAMES OUT.smd | "
		                "gen_smd vta TRIANGLES SHAPES OUT.vta\n");
		return 2;
	}
	long n = strtol(argv[2], NULL, 10);
	FILE *f = fopen(argv[3], "wb");
	if (!f || n <= 0) {
		fprintf(stderr, "gen_smd: cannot write %s\n", argv[3]);
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	header(f);
	if (!strcmp(argv[1], "reference")) {
		fputs("time 0\r\n", f);
		for (int b = 0; b < BONES; b++) bone_line(f, b, 0);
		fputs("end\r\ntriangles\r\n", f);
		int w = (int)ceil(sqrt(n / 2.0));
		long written = 0;
		for (int y = 0; y < w && written < n; y++) {
			for (int x = 0; x < w && written < n; x++) {
				fputs("grid_material\r\n", f);
				vertex(f, w, x, y);
				vertex(f, w, x + 1, y);
				vertex(f, w, x + 1, y + 1);
				if (++written == n) break;
				fputs("grid_material\r\n", f);
				vertex(f, w, x, y);
				vertex(f, w, x + 1, y + 1);
				vertex(f, w, x, y + 1);
				written++;
			}
		}
	} else if (!strcmp(argv[1], "vta")) {
		/* gen_smd vta TRIANGLES SHAPES OUT.vta: argv[3] is SHAPES, argv[4] OUT */
		fprintf(stderr, "gen_smd: vta takes TRIANGLES SHAPES OUT.vta\n");
		return 2;
	} else if (!strcmp(argv[1], "animation")) {
		for (long t = 0; t < n; t++) {
			fprintf(f, "time %ld\r\n", t);
			for (int b = 0; b < BONES; b++) bone_line(f, b, (double)t / 10.0);
		}
	} else {
		fprintf(stderr, "gen_smd: unknown kind '%s'\n", argv[1]);
		return 2;
	}
	fputs("end\r\n", f);
	return fclose(f) == 0 ? 0 : 1;
}
