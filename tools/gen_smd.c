/* gen_smd: writes large synthetic SMD files for the benchmark.
 *
 *   gen_smd reference TRIANGLES OUT.smd   a skinned, wavy grid of about TRIANGLES triangles
 *                                         over a chain of 16 bones, two weight links per vertex
 *   gen_smd animation FRAMES OUT.smd      the same skeleton moving over FRAMES frames
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

static void vertex(FILE *f, int w, int x, int y)
{
	double px = x * 160.0 / w, py = y * 160.0 / w;
	double pz = 4.0 * sin(px * 0.1) * cos(py * 0.1);
	double nx = -0.4 * cos(px * 0.1) * cos(py * 0.1), ny = 0.4 * sin(px * 0.1) * sin(py * 0.1), nz = 1.0;
	double nl = sqrt(nx * nx + ny * ny + nz * nz);
	double bf = px / 10.0;
	int b0 = (int)bf;
	if (b0 > BONES - 2) b0 = BONES - 2;
	double w1 = bf - b0;
	if (w1 > 1) w1 = 1;
	fprintf(f, "%d %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f 2 %d %.6f %d %.6f\r\n", b0, px, py, pz, nx / nl, ny / nl,
	        nz / nl, (double)x / w, (double)y / w, b0, 1.0 - w1, b0 + 1, w1);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gen_smd reference TRIANGLES OUT.smd | gen_smd animation FRAMES OUT.smd\n");
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
