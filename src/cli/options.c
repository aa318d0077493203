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
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return usage_of(st->command, "%s", msg);
}

int usage_of(unsigned command, const char *fmt, ...)
{
	const cli_command *c = cli_command_of(command);
	char program[32], hint[64];
	snprintf(program, sizeof(program), "%.*s", (int)strcspn(c->name, " "), c->name);
	snprintf(hint, sizeof(hint), " (try '%s --help')", c->name);
	va_list ap;
	va_start(ap, fmt);
	say_v(program, "error", hint, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int one_input(const char **slot, unsigned command, const char *arg)
{
	if (!*slot) {
		*slot = arg;
		return -1;
	}
	return usage_of(command, "%s takes one file ('%s' is a second)", cli_command_of(command)->word, arg);
}

static void put_text(void *user, const char *text)
{
	os_puts(text, user);
}

void opt_print_help(unsigned command, FILE *f)
{
	cli_help(cli_command_of(command), put_text, f);
}

int opt_read(const opt_reader *r)
{
	const cli_command *c = cli_command_of(r->command);
	char program[32], why[640];
	snprintf(program, sizeof(program), "%.*s", (int)strcspn(c->name, " "), c->name);
	bool options_done = false;
	for (int i = 0; i < r->argc; i++) {
		const char *a = r->argv[i], *value = NULL;
		int rc = -1;
		if (options_done || a[0] != '-' || !strcmp(a, "-")) {
			rc = r->input(r->ctx, a);
		} else if (!strcmp(a, "--")) {
			options_done = true;
		} else {
			const cli_option *opt = cli_option_find(r->command, a, &value);
			double number = 0;
			if (!opt) {
				return usage_of(r->command, "unknown option '%s'", a);
			}
			if (opt->value != VAL_NONE && !value) {
				if (i + 1 == r->argc) {
					return usage_of(r->command, "'%s' needs a value", a);
				}
				value = r->argv[++i];
			}
			if (value && cli_value_refused(opt, value, &number, why, sizeof(why))) {
				return usage_of(r->command, "%s", why);
			}
			if (opt->id == OP_HELP) {
				opt_print_help(r->command, stdout);
				return EXIT_OK;
			}
			if (opt->id == OP_VERSION) {
				os_printf(stdout, "%s %s\n", program, SMDMX_VERSION_STRING);
				return EXIT_OK;
			}
			rc = r->take(r->ctx, opt, value, number);
		}
		if (rc >= 0) return rc;
	}
	return -1;
}

/* Every option of the conversions and of smdmx qc into st->o: -1 to go on. */
int conv_option(opt_state *st, const cli_option *opt, const char *v, double num)
{
	conv_opts *o = st->o;
	switch (opt->id) {
	case OP_OUT: o->out = v; break;
	case OP_OUTDIR: o->outdir = v; break;
	case OP_TO: o->to = v[0] == '.' ? v + 1 : v; break;
	case OP_RECURSIVE: o->recursive = true; break;
	case OP_FORCE: o->force = true; break;
	case OP_UPDATE: o->update = true; break;
	case OP_KEEP_GOING: o->keep_going = true; break;
	case OP_QUIET: o->quiet = true; break;
	case OP_VERBOSE: o->verbose = true; break;
	case OP_WERROR: o->werror = true; break;
	case OP_JOBS: o->jobs = (unsigned)num; break;
	case OP_THREADS:
		o->threads = (unsigned)num;
		o->given |= OPT_THREADS;
		break;
	case OP_DEPFILE: o->depfile = v; break;
	case OP_REPORT: o->report = v; break;
	case OP_MAX_WARNINGS: o->max_warnings = (size_t)num; break;
	case OP_NAME: stdin_name = v; break;
	case OP_ENCODING:
		o->dopts.encoding = v;
		o->given |= OPT_ENCODING;
		st->explicit_encoding = true;
		break;
	case OP_ENCODING_VERSION:
		o->dopts.encoding_version = (int)num;
		o->given |= OPT_ENCODING_VERSION;
		st->explicit_version = true;
		break;
	case OP_MODEL_VERSION:
		o->mopts.model_version = atoi(v);
		o->given |= OPT_MODEL_VERSION;
		st->explicit_model = true;
		break;
	case OP_TARGET:
		st->target = v;
		o->given |= OPT_TARGET;
		break;
	case OP_SCALE:
		o->scale = num;
		o->given |= OPT_SCALE;
		break;
	case OP_UP_AXIS:
		o->up_axis = v[0];
		o->given |= OPT_UP_AXIS;
		break;
	case OP_GOLDSRC:
		o->wopts.goldsrc = true;
		o->given |= OPT_GOLDSRC;
		break;
	case OP_CLIPS:
		o->clips = true;
		o->given |= OPT_CLIPS;
		break;
	case OP_CLIP:
		o->clip_name = v;
		o->given |= OPT_CLIP;
		break;
	case OP_VTA:
		o->vta = v;
		o->given |= OPT_VTA;
		break;
	case OP_QC: o->qc = v; break;
	case OP_MODEL: o->model = v; break;
	case OP_KEYS:
		o->mopts.all_keys = !strcmp(v, "all");
		o->given |= OPT_KEYS;
		break;
	case OP_KEY_TOLERANCE:
		o->mopts.key_tolerance = num;
		o->given |= OPT_KEY_TOLERANCE;
		break;
	case OP_FPS:
		o->ropts.frame_rate = num;
		o->given |= OPT_FPS;
		break;
	case OP_LF:
		o->wopts.lf_line_ends = true;
		o->given |= OPT_LF;
		break;
	case OP_LINKS:
		o->links = (unsigned)atoi(v);
		o->given |= OPT_LINKS;
		break;
	default: /* not an option of a conversion: the table gives it none */
		return opt_error(st, "'%s' is not an option of this command", opt->names);
	}
	return -1;
}

/* The encoding and its version, checked together once every option is read (the library's
 * rule, smdmx_dmx_write_options_check): a version the encoding has not is a usage error,
 * before any file is touched. */
static bool encoding_versions(opt_state *st)
{
	smdmx_error e;
	if (smdmx_dmx_write_options_check(&st->o->dopts, &e)) return true;
	(void)opt_error(st, "%s", e.message);
	return false;
}

bool apply_target(opt_state *st)
{
	if (!st->target) return encoding_versions(st);
	conv_opts *o = st->o;
	/* decision 4: each engine branch's encoding and model format */
	const smdmx_engine_target *t = engine_target_find(st->target, false);
	if (!t) {
		(void)opt_error(st, "unknown --target '%s' (%s)", st->target, engine_target_names(false));
		return false;
	}
	if (!st->explicit_encoding) o->dopts.encoding = "binary";
	if (!st->explicit_version && (!st->explicit_encoding || !strcmp(o->dopts.encoding, "binary")))
		o->dopts.encoding_version = t->encoding_version;
	if (!st->explicit_model) o->mopts.model_version = t->model_format;
	return encoding_versions(st);
}
