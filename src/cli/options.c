/* The command-line options the conversions (smd2dmx, dmx2smd, smdmx convert) and smdmx qc
 * share, read in one place: what each sets, its value checked, its usage error; and the
 * engine targets' encodings and model formats filled in where not said (decision 4). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

int opt_error(opt_state *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_v(st->o->name, "error", st->hint, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

static bool parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (!*s || *end || !(v >= lo) || !(v <= hi)) return false;
	*out = v;
	return true;
}

/* The option at i takes the next argument: true, i moved past it; else the usage error. */
static bool takes_value(opt_state *st, const char *a)
{
	if (st->i + 1 < st->argc) {
		st->i++;
		return true;
	}
	st->rc = opt_error(st, "'%s' needs a value", a);
	return false;
}
#define TAKES_VALUE takes_value(st, a)

/* The options of every conversion: outputs, batch, messages, threads. False: not one. */
bool batch_option(opt_state *st, const char *a, const char *v)
{
	conv_opts *o = st->o;
	double num = 0;
	if (!strcmp(a, "-o")) {
		if (TAKES_VALUE) o->out = v;
	} else if (!strcmp(a, "-d")) {
		if (TAKES_VALUE) o->outdir = v;
	} else if (!strcmp(a, "--to")) {
		if (TAKES_VALUE) {
			o->to = v[0] == '.' ? v + 1 : v;
			if (!is_smd_family(o->to) && strcasecmp(o->to, "dmx")) st->rc = opt_error(st, "--to is smd, sma, phys, vta or dmx, not '%s'", v);
		}
	} else if (!strcmp(a, "-r") || !strcmp(a, "--recursive")) {
		o->recursive = true;
	} else if (!strcmp(a, "-f") || !strcmp(a, "--force")) {
		o->force = true;
	} else if (!strcmp(a, "-u") || !strcmp(a, "--update")) {
		o->update = true;
	} else if (!strcmp(a, "-k") || !strcmp(a, "--keep-going")) {
		o->keep_going = true;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		o->quiet = true;
	} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		o->verbose = true;
	} else if (!strcmp(a, "-Werror")) {
		o->werror = true;
	} else if (!strcmp(a, "-W")) {
		if (TAKES_VALUE) {
			if (strcmp(v, "error")) st->rc = opt_error(st, "-W takes 'error', not '%s'", v);
			o->werror = true;
		}
	} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs") || (!strncmp(a, "-j", 2) && a[2])) {
		const char *n = a[2] && a[1] == 'j' ? a + 2 : (TAKES_VALUE ? v : NULL);
		if (n && !parse_number(n, 1, CLI_JOBS_MAX, &num))
			st->rc = opt_error(st, "-j wants a number of jobs from 1 to %d, not '%s'", CLI_JOBS_MAX, n);
		else if (n) o->jobs = (unsigned)num;
	} else if (!strcmp(a, "--threads")) {
		if (TAKES_VALUE) {
			if (!parse_number(v, 1, CLI_JOBS_MAX, &num))
				st->rc = opt_error(st, "--threads wants a number from 1 to %d, not '%s'", CLI_JOBS_MAX, v);
			o->threads = (unsigned)num;
			o->given |= OPT_THREADS;
		}
	} else if (!strcmp(a, "--depfile")) {
		if (TAKES_VALUE) o->depfile = v;
	} else if (!strcmp(a, "--report")) {
		if (TAKES_VALUE) o->report = v;
	} else if (!strcmp(a, "--max-warnings")) {
		if (TAKES_VALUE) {
			if (!parse_number(v, 0, 1e9, &num)) st->rc = opt_error(st, "--max-warnings wants a count, not '%s'", v);
			o->max_warnings = (size_t)num;
		}
	} else {
		return false;
	}
	return true;
}

/* The options of what is written and how it is read: DMX encoding and model format, scale
 * and axis, clips, VTA, QC, keys, frame rate, names, line ends. False: not one. */
bool format_option(opt_state *st, const char *a, const char *v)
{
	conv_opts *o = st->o;
	double num = 0;
	if (!strcmp(a, "--encoding")) {
		if (TAKES_VALUE) {
			o->dopts.encoding = v;
			o->given |= OPT_ENCODING;
			st->explicit_encoding = true;
			if (strcmp(v, "keyvalues2") && strcmp(v, "keyvalues2_flat") && strcmp(v, "binary") && strcmp(v, "binary_seqids"))
				st->rc = opt_error(st, "--encoding is keyvalues2, keyvalues2_flat, binary or binary_seqids, not '%s'", v);
		}
	} else if (!strcmp(a, "--encoding-version")) {
		if (TAKES_VALUE) {
			if (!parse_number(v, 1, 9, &num) || num != (int)num)
				st->rc = opt_error(st, "--encoding-version is 1 to 4 (keyvalues2) or 1 to 5 or 9 (binary), not '%s'", v);
			o->dopts.encoding_version = (int)num;
			o->given |= OPT_ENCODING_VERSION;
			st->explicit_version = true;
		}
	} else if (!strcmp(a, "--model-version")) {
		if (TAKES_VALUE) {
			if (!parse_number(v, 1, 22, &num) || (num != 1 && num != 15 && num != 18 && num != 22))
				st->rc = opt_error(st, "--model-version is 1, 15, 18 or 22, not '%s'", v);
			o->mopts.model_version = (int)num;
			o->given |= OPT_MODEL_VERSION;
			st->explicit_model = true;
		}
	} else if (!strcmp(a, "--target")) {
		if (TAKES_VALUE) {
			st->target = v;
			o->given |= OPT_TARGET;
		}
	} else if (!strcmp(a, "--scale")) {
		if (TAKES_VALUE && (!parse_number(v, 1e-9, 1e6, &o->scale)))
			st->rc = opt_error(st, "--scale wants a positive number, not '%s'", v);
		o->given |= OPT_SCALE;
	} else if (!strcmp(a, "--up-axis")) {
		if (TAKES_VALUE) {
			if (strlen(v) != 1 || (v[0] != 'X' && v[0] != 'Y' && v[0] != 'Z')) st->rc = opt_error(st, "--up-axis is X, Y or Z, not '%s'", v);
			o->up_axis = v[0];
			o->given |= OPT_UP_AXIS;
		}
	} else if (!strcmp(a, "--goldsrc")) {
		o->wopts.goldsrc = true;
		o->given |= OPT_GOLDSRC;
	} else if (!strcmp(a, "--clips")) {
		o->clips = true;
		o->given |= OPT_CLIPS;
	} else if (!strcmp(a, "--clip")) {
		if (TAKES_VALUE) o->clip_name = v;
		o->given |= OPT_CLIP;
	} else if (!strcmp(a, "--vta")) {
		if (TAKES_VALUE) o->vta = v;
		o->given |= OPT_VTA;
	} else if (!strcmp(a, "--qc") && TOOL != TOOL_SMDMX) {
		if (TAKES_VALUE) o->qc = v;
	} else if (!strcmp(a, "--model") && TOOL == TOOL_SMD2DMX) {
		if (TAKES_VALUE) o->model = v;
	} else if (!strcmp(a, "--keys")) {
		if (TAKES_VALUE) {
			if (!strcmp(v, "all")) o->mopts.all_keys = true;
			else if (strcmp(v, "reduce")) st->rc = opt_error(st, "--keys is all or reduce, not '%s'", v);
			o->given |= OPT_KEYS;
		}
	} else if (!strcmp(a, "--key-tolerance")) {
		if (TAKES_VALUE && !parse_number(v, 0, 1e6, &o->mopts.key_tolerance))
			st->rc = opt_error(st, "--key-tolerance wants a number of units (0: exact), not '%s'", v);
		o->given |= OPT_KEY_TOLERANCE;
	} else if (!strcmp(a, "--fps") || !strcmp(a, "--frame-rate")) {
		if (TAKES_VALUE && !parse_number(v, 1e-6, 10000, &o->ropts.frame_rate))
			st->rc = opt_error(st, "--fps wants a number in (0, 10000], not '%s'", v);
		o->given |= OPT_FPS;
	} else if (!strcmp(a, "--name")) {
		if (TAKES_VALUE) stdin_name = v;
	} else if (!strcmp(a, "--lf")) {
		o->wopts.lf_line_ends = true;
		o->given |= OPT_LF;
	} else {
		return false;
	}
	return true;
}
#undef TAKES_VALUE

/* The encoding and its version, checked together once every option is read: a version the
 * encoding has not is a usage error, before any file is touched. */
static bool encoding_versions(opt_state *st)
{
	const conv_opts *o = st->o;
	const char *e = o->dopts.encoding ? o->dopts.encoding : "keyvalues2";
	int v = o->dopts.encoding_version;
	if (!v) return true;
	if (!strcmp(e, "binary_seqids") && v != 9)
		st->rc = opt_error(st, "--encoding binary_seqids is version 9 only, not %d", v);
	else if (!strcmp(e, "binary") && v > 5 && v != 9)
		st->rc = opt_error(st, "--encoding binary is version 1 to 5 or 9, not %d", v);
	else if (strncmp(e, "binary", 6) && v > 4)
		st->rc = opt_error(st, "--encoding %s is version 1 to 4, not %d", e, v);
	else
		return true;
	return false;
}

bool apply_target(opt_state *st)
{
	if (!st->target) return encoding_versions(st);
	conv_opts *o = st->o;
	/* decision 4: each engine branch's encoding and model format */
	const smdmx_engine_target *t = engine_target_find(st->target, false);
	if (!t) {
		st->rc = opt_error(st, "unknown --target '%s' (%s)", st->target, engine_target_names(false));
		return false;
	}
	if (!st->explicit_encoding) o->dopts.encoding = "binary";
	if (!st->explicit_version && (!st->explicit_encoding || !strcmp(o->dopts.encoding, "binary")))
		o->dopts.encoding_version = t->encoding_version;
	if (!st->explicit_model) o->mopts.model_version = t->model_format;
	return encoding_versions(st);
}
