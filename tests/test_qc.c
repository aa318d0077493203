/* QC: reading as studiomdl reads (tokens, includes, $pushd, variables, macros, the commands of
 * doc/formats.md G2 and G3), errors at their place, text kept byte for byte and edited only where
 * asked, and the rig between a $model block and the scene both ways. */
#include <locale.h>

#include "util.h"

#include <math.h>

#include "qc_mem.h"
#include "files.h"
#include "qc/qc_internal.h"

static qc_mem mem;

static smdmx_qc *read_mem(const qc_mem_file *files, size_t n, smdmx_error *err, smdmx_warnings *w)
{
	mem.files = files;
	mem.count = n;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	return smdmx_qc_read_file(files[0].path, &o, err, w);
}

static smdmx_qc *must_read(const qc_mem_file *files, size_t n, smdmx_warnings *w)
{
	smdmx_error err;
	smdmx_qc *qc = read_mem(files, n, &err, w);
	if (!qc) fail_msg("%s:%u:%u: %s", err.file, err.line, err.column, err.message);
	return qc;
}

/* File f of the QC as written with its edits. */
static char *written(const smdmx_qc *qc, uint32_t f)
{
	test_sink s = { 0 };
	smdmx_error err;
	if (!smdmx_qc_write(qc, f, test_sink_write, &s, &err)) fail_msg("write: %s", err.message);
	return test_sink_text(&s);
}

static const smdmx_qc_ref *ref_named(const smdmx_qc *qc, const char *command, const char *name)
{
	for (size_t i = 0; i < qc->ref_count; i++)
		if (!strcmp(qc->refs[i].command, command) && !strcmp(qc->refs[i].name, name)) return &qc->refs[i];
	fail_msg("no reference %s %s", command, name);
	static const smdmx_qc_ref none;
	return &none;
}

static void expect_ref(const smdmx_qc_ref *r, smdmx_qc_ref_kind kind, const char *path, bool found, uint32_t line, uint32_t col)
{
	assert_int_equal(r->kind, kind);
	assert_string_equal(r->path, path);
	assert_int_equal(r->found, found);
	assert_int_equal(r->pos.line, line);
	assert_int_equal(r->pos.column, col);
}

/* ---- G2: every command that names a file ---------------------------------------------------- */

static const char g2_qc[] =
    "$body \"b\" \"body.smd\" reverse\n"
    "$model \"m\" \"model\" {\n"
    "\tflexfile \"flex\"\n"
    "}\n"
    "$bodygroup \"g\"\n"
    "{\n"
    "\tstudio \"s1.smd\"\n"
    "\tblank\n"
    "\tstudio \"s2.dmx\"\n"
    "}\n"
    "$lod 10\n"
    "{\n"
    "\treplacemodel \"model\" \"lod1\"\n"
    "}\n"
    "$shadowlod\n"
    "{\n"
    "\treplacemodel \"model.smd\" \"shadow.smd\" reverse\n"
    "}\n"
    "$collisionmodel \"phys.smd\" {\n"
    "\t$mass 10\n"
    "\t$concave\n"
    "}\n"
    "$collisionjoints \"joints.smd\"\n"
    "{\n"
    "\t$rootbone \" \"\n"
    "}\n"
    "$sequence idle \"idle.smd\" fps 24 loop ACT_IDLE 1 { event 3015 10 }\n"
    "$animation a_walk \"walk\" loop LX LY fps 40 {\n"
    "\talignto a_walk\n"
    "}\n"
    "$sequence walk { a_walk \"walk2\" blendwidth 2 blend move_x 0 1 }\n"
    "$sequence named a_walk fps 30 node \"standing\"\n"
    "$proceduralbones \"bones.vrd\"\n"
    "$sequence gone \"missing\"\n";

static const qc_mem_file g2_files[] = {
	{ "/p/g2.qc", g2_qc, 0 },      { "/p/body.smd", "x", 0 },  { "/p/model.smd", "x", 0 }, { "/p/flex.vta", "x", 0 },
	{ "/p/s1.smd", "x", 0 },       { "/p/s2.dmx", "x", 0 },    { "/p/lod1.smd", "x", 0 },  { "/p/shadow.smd", "x", 0 },
	{ "/p/phys.smd", "x", 0 },     { "/p/joints.smd", "x", 0 }, { "/p/idle.smd", "x", 0 }, { "/p/walk.smd", "x", 0 },
	{ "/p/walk2.smd", "x", 0 },    { "/p/bones.vrd", "x", 0 },
};

static void test_g2_references(void **state)
{
	(void)state;
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(g2_files, sizeof(g2_files) / sizeof(g2_files[0]), &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(qc->ref_count, 14);
	expect_ref(ref_named(qc, "$body", "body.smd"), SMDMX_QC_REF_MODEL, "/p/body.smd", true, 1, 11);
	const smdmx_qc_ref *m = ref_named(qc, "$model", "model");
	expect_ref(m, SMDMX_QC_REF_MODEL, "/p/model.smd", true, 2, 12);
	assert_true(m->default_extension);
	const smdmx_qc_ref *f = ref_named(qc, "flexfile", "flex");
	expect_ref(f, SMDMX_QC_REF_FLEX, "/p/flex.vta", true, 3, 11);
	assert_int_equal(f->model, 0);
	expect_ref(ref_named(qc, "studio", "s1.smd"), SMDMX_QC_REF_MODEL, "/p/s1.smd", true, 7, 9);
	expect_ref(ref_named(qc, "studio", "s2.dmx"), SMDMX_QC_REF_MODEL, "/p/s2.dmx", true, 9, 9);
	const smdmx_qc_ref *l = ref_named(qc, "replacemodel", "lod1");
	expect_ref(l, SMDMX_QC_REF_MODEL, "/p/lod1.smd", true, 13, 23);
	assert_int_equal(l->line_of, (uint32_t)(m - qc->refs)); /* "model" names the $model's file */
	assert_int_equal(ref_named(qc, "replacemodel", "shadow.smd")->line_of, (uint32_t)(m - qc->refs));
	expect_ref(ref_named(qc, "$collisionmodel", "phys.smd"), SMDMX_QC_REF_COLLISION, "/p/phys.smd", true, 19, 17);
	expect_ref(ref_named(qc, "$collisionjoints", "joints.smd"), SMDMX_QC_REF_COLLISION, "/p/joints.smd", true, 23, 18);
	const smdmx_qc_ref *idle = ref_named(qc, "$sequence", "idle.smd");
	expect_ref(idle, SMDMX_QC_REF_ANIMATION, "/p/idle.smd", true, 27, 16);
	assert_true(idle->fps == 24);
	assert_string_equal(idle->sequence, "idle");
	const smdmx_qc_ref *walk = ref_named(qc, "$animation", "walk");
	expect_ref(walk, SMDMX_QC_REF_ANIMATION, "/p/walk.smd", true, 28, 19);
	assert_true(walk->fps == 40);
	/* in a blend, "a_walk" is the $animation and "walk2" a file */
	expect_ref(ref_named(qc, "$sequence", "walk2"), SMDMX_QC_REF_ANIMATION, "/p/walk2.smd", true, 31, 25);
	expect_ref(ref_named(qc, "$proceduralbones", "bones.vrd"), SMDMX_QC_REF_OTHER, "/p/bones.vrd", true, 33, 18);
	/* a file that is not there is listed, not an error of reading */
	const smdmx_qc_ref *gone = ref_named(qc, "$sequence", "missing");
	expect_ref(gone, SMDMX_QC_REF_ANIMATION, "/p/missing.smd", false, 34, 16);
	assert_int_equal(qc->model_count, 1);
	assert_string_equal(qc->models[0].name, "m");
	assert_true(qc->models[0].has_block);
	/* the body parts, in order: the $body, the $model, the $bodygroup's three choices (the
	 * blank one none); a $lod's replacemodel is no part */
	assert_int_equal(qc->part_count, 3);
	const smdmx_qc_part *p = qc->parts;
	assert_string_equal(p[0].name, "b");
	assert_string_equal(p[0].command, "$body");
	assert_int_equal(p[0].choice_count, 1);
	assert_ptr_equal(&qc->refs[p[0].choices[0]], ref_named(qc, "$body", "body.smd"));
	assert_int_equal(p[0].model, SMDMX_NONE);
	assert_int_equal(p[0].pos.line, 1);
	assert_string_equal(p[1].command, "$model");
	assert_int_equal(p[1].model, 0);
	assert_int_equal(p[1].choice_count, 1);
	assert_ptr_equal(&qc->refs[p[1].choices[0]], m);
	assert_string_equal(p[2].name, "g");
	assert_string_equal(p[2].command, "$bodygroup");
	assert_int_equal(p[2].choice_count, 3);
	assert_ptr_equal(&qc->refs[p[2].choices[0]], ref_named(qc, "studio", "s1.smd"));
	assert_int_equal(p[2].choices[1], SMDMX_NONE);
	assert_ptr_equal(&qc->refs[p[2].choices[2]], ref_named(qc, "studio", "s2.dmx"));
	assert_int_equal(p[2].pos.line, 5);
	assert_true(p[2].scale == 1);
	/* nothing edited: every byte as read */
	char *out = written(qc, 0);
	assert_string_equal(out, g2_qc);
	free(out);
	smdmx_qc_free(qc);
}

/* ---- G3: a $model block ------------------------------------------------------------------------- */

static const char g3_qc[] =
    "$model \"face\" \"face.smd\" {\n"
    "\teyeball righteye \"head\" -1 -4 67 \"eye_r\" 1 4 \"pupil_r\" 0.63\n"
    "\teyelid upper \"face\" lowerer 1 -0.2 neutral 0 0.1 raiser 2 0.25 split 0.1 eyeball righteye\n"
    "\tmouth 0 \"mouth\" \"head\" 0 1 0\n"
    "\tflexfile \"face\" {\n"
    "\t\tdefaultflex frame 0\n"
    "\t\tflex \"blink\" frame 3 decay 0.5\n"
    "\t\tflexpair \"smile\" 1.5 frame 4 position 0.5 // half\n"
    "\t\tflexpair \"smile\" 1.5 frame 5\n"
    "\t\tflex \"jaw\" frame 6 split 2\n"
    "\t}\n"
    "\tflexcontroller mouth range -1 1 jaw_open smile range 0 2 pucker\n"
    "\tflexcontroller eyes blink\n"
    "\tlocalvar busy\n"
    "\t%busy = min(smile, 1)\n"
    "\t%smileR = smile * \\\\\n"
    "\t\t(1 - %busy) // the right\n"
    "\t%smileL = max(smile - %busy, 0)\n"
    "\t%blink = blink\n"
    "\tattachment \"ignored\" \"head\" 0 0 0\n"
    "\tspherenormals \"eye_r\" 0 0 0\n"
    "\tnoautodmxrules\n"
    "}\n";

static const qc_mem_file g3_files[] = { { "/p/g3.qc", g3_qc, 0 }, { "/p/face.smd", "x", 0 }, { "/p/face.vta", "x", 0 } };

static void test_g3_model_block(void **state)
{
	(void)state;
	smdmx_qc *qc = must_read(g3_files, 3, NULL);
	assert_int_equal(qc->model_count, 1);
	const smdmx_qc_model *m = &qc->models[0];
	assert_int_equal(m->flex_count, 5);
	assert_int_equal(m->flexes[0].kind, SMDMX_QC_DEFAULTFLEX);
	assert_null(m->flexes[0].name);
	assert_string_equal(m->flexes[1].name, "blink");
	assert_int_equal(m->flexes[1].frame, 3);
	assert_true(m->flexes[1].decay == 0.5 && m->flexes[1].position == 1 && m->flexes[1].split == 0);
	assert_int_equal(m->flexes[2].kind, SMDMX_QC_FLEXPAIR);
	assert_true(m->flexes[2].split == 1.5 && m->flexes[2].position == 0.5);
	assert_int_equal(m->flexes[2].frame, 4);
	assert_int_equal(m->flexes[2].pos.line, 8);
	assert_int_equal(m->flexes[2].pos.column, 3);
	assert_true(m->flexes[4].split == 2 && m->flexes[4].kind == SMDMX_QC_FLEX);
	for (size_t i = 0; i < 5; i++) assert_string_equal(qc->refs[m->flexes[i].vta].path, "/p/face.vta");
	assert_int_equal(m->controller_count, 4);
	const char *names[] = { "jaw_open", "smile", "pucker", "blink" };
	const char *groups[] = { "mouth", "mouth", "mouth", "eyes" };
	const double mins[] = { -1, -1, 0, 0 }, maxs[] = { 1, 1, 2, 1 };
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(m->controllers[i].name, names[i]);
		assert_string_equal(m->controllers[i].group, groups[i]);
		assert_true(m->controllers[i].min == mins[i] && m->controllers[i].max == maxs[i]);
	}
	assert_int_equal(m->rule_count, 5);
	assert_string_equal(m->rules[0].name, "busy");
	assert_null(m->rules[0].expression);
	assert_string_equal(m->rules[1].expression, "min(smile, 1)");
	/* a continued rule: its lines joined by one space */
	assert_string_equal(m->rules[2].name, "smileR");
	assert_string_equal(m->rules[2].expression, "smile * (1 - %busy)");
	assert_int_equal(m->rules[2].pos.line, 16);
	assert_string_equal(m->rules[3].expression, "max(smile - %busy, 0)");
	assert_int_equal(m->qc_only_count, 4); /* eyeball, eyelid, mouth, spherenormals */
	assert_true(m->noautodmxrules);
	/* the eyelid's VTA is a file the QC names */
	assert_int_equal(ref_named(qc, "eyelid", "face")->kind, SMDMX_QC_REF_FLEX);
	char *out = written(qc, 0);
	assert_string_equal(out, g3_qc);
	free(out);
	smdmx_qc_free(qc);
}

/* ---- includes, $pushd, $cd, case ------------------------------------------------------------- */

static void test_includes_and_folders(void **state)
{
	(void)state;
	static const qc_mem_file files[] = {
		{ "/p/sub/main.qc",
		  "$include \"../common.qci\"\n"
		  "$pushd \"anims\"\n"
		  "$include \"inner.qci\"\n"
		  "$sequence s \"walk\"\n"
		  "$popd\n"
		  "$cd \"base\"\n"
		  "$body b \"body\"\n"
		  "$include \"CASE.QCI\"\n",
		  0 },
		{ "/p/common.qci", "$include \"other.qci\"\n", 0 },
		/* an include names a file against the main QC's folder: this one, not /p/other.qci */
		{ "/p/sub/other.qci", "$body o \"o.smd\"\n", 0 },
		{ "/p/other.qci", "$body wrong \"wrong.smd\"\n", 0 },
		{ "/p/sub/inner.qci", "$body i \"i.smd\"\n", 0 },
		{ "/p/sub/anims/inner.qci", "$body wrong \"wrong.smd\"\n", 0 },
		{ "/p/sub/anims/i.smd", "x", 0 },
		{ "/p/sub/case.qci", "// found ignoring case\n", 0 },
		{ "/p/sub/o.smd", "x", 0 },
		{ "/p/sub/anims/walk.smd", "x", 0 },
		{ "/p/sub/base/body.smd", "x", 0 },
	};
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, sizeof(files) / sizeof(files[0]), &w);
	assert_int_equal(qc->file_count, 5);
	assert_string_equal(qc->files[1].path, "/p/common.qci");
	assert_string_equal(qc->files[2].path, "/p/sub/other.qci");
	assert_int_equal(qc->files[2].included_at.file, 1);
	assert_int_equal(qc->files[2].included_at.line, 1);
	assert_string_equal(qc->files[3].path, "/p/sub/inner.qci");
	assert_string_equal(qc->files[4].path, "/p/sub/case.qci");
	assert_int_equal(qc->ref_count, 4);
	assert_string_equal(qc->refs[0].path, "/p/sub/o.smd");
	assert_int_equal(qc->refs[0].pos.file, 2);
	/* $pushd moves model and animation names (those in an include too), not includes */
	assert_string_equal(qc->refs[1].path, "/p/sub/anims/i.smd");
	assert_string_equal(qc->refs[2].path, "/p/sub/anims/walk.smd");
	assert_string_equal(qc->refs[2].dir, "anims/");
	/* $cd moves the folder names start from */
	assert_string_equal(qc->refs[3].path, "/p/sub/base/body.smd");
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_QC_NOCASE);
	assert_int_equal(w.data[0].line, 8);
	assert_int_equal(w.data[0].column, 10);
	assert_string_equal(w.data[0].message, "'CASE.QCI' is 'case.qci' when case is ignored (as Windows finds it): read; make the spellings match for systems that tell case");
	smdmx_qc_free(qc);
}

/* ---- variables and macros ----------------------------------------------------------------------- */

static void test_variables_and_macros(void **state)
{
	(void)state;
	static const char main_qc[] =
	    "$definevariable root \"models\"\n"
	    "$definevariable EXT smd\n"
	    "$definemacro seq name file \\\\\n"
	    "$sequence $name$ \"$file$.smd\" fps 30 \\\\\n"
	    "$sequence $name$_b \"$file$_b\"\n"
	    "\n"
	    "$seq walk \"walk\"\n"
	    "$seq run run\n"
	    "$body b \"$root$/body\"\n"
	    "$body c \"c.$ext$\"\n";
	static const qc_mem_file files[] = {
		{ "/p/m.qc", main_qc, 0 }, { "/p/walk.smd", "x", 0 }, { "/p/walk_b.smd", "x", 0 }, { "/p/run.smd", "x", 0 },
		{ "/p/run_b.smd", "x", 0 }, { "/p/models/body.smd", "x", 0 }, { "/p/c.smd", "x", 0 },
	};
	smdmx_qc *qc = must_read(files, sizeof(files) / sizeof(files[0]), NULL);
	assert_int_equal(qc->ref_count, 6);
	const char *paths[] = { "/p/walk.smd", "/p/walk_b.smd", "/p/run.smd", "/p/run_b.smd", "/p/models/body.smd", "/p/c.smd" };
	const uint32_t lines[] = { 4, 5, 4, 5, 9, 10 };
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(qc->refs[i].path, paths[i]);
		assert_true(qc->refs[i].found);
		/* a name made in a macro is where the macro's body wrote it */
		assert_int_equal(qc->refs[i].pos.line, lines[i]);
	}
	assert_string_equal(qc->refs[0].sequence, "walk");
	assert_true(qc->refs[0].fps == 30);
	/* A name written once in a macro is renamed once for every expansion. */
	smdmx_error err;
	assert_true(smdmx_qc_rename(qc, 0, "walk.dmx", &err));
	assert_true(smdmx_qc_rename(qc, 2, "run.dmx", &err));
	char *out = written(qc, 0);
	assert_non_null(strstr(out, "$sequence $name$ \"$file$.dmx\" fps 30"));
	/* and a name a variable begins is renamed where it is written */
	assert_true(smdmx_qc_rename(qc, 4, "models/body.dmx", &err));
	free(out);
	out = written(qc, 0);
	assert_non_null(strstr(out, "$body b \"$root$/body.dmx\""));
	free(out);
	/* the same text made into two different names: refused */
	smdmx_qc_free(qc);
	qc = must_read(files, sizeof(files) / sizeof(files[0]), NULL);
	assert_true(smdmx_qc_rename(qc, 1, "walk_b.dmx", &err));
	assert_false(smdmx_qc_rename(qc, 3, "run_b.dma", &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_int_equal(err.line, 5);
	/* a name whose changing part a variable makes, used nowhere else: renamed where the
	 * variable is defined */
	assert_true(smdmx_qc_rename(qc, 5, "c.dmx", &err));
	out = written(qc, 0);
	assert_non_null(strstr(out, "$definevariable EXT dmx\n"));
	assert_non_null(strstr(out, "$body c \"c.$ext$\"\n"));
	free(out);
	smdmx_qc_free(qc);
}

/* A name a macro's argument or a variable makes is renamed where that value is written, when
 * every use of it ends a file's name: the call's argument (Valve's $MakeAimLayer, whose body
 * names "$filename$"), a variable's definition. Where a use is no file's name, it is refused
 * (the CLI then keeps the file's name and format). */
static void test_rename_at_source(void **state)
{
	(void)state;
	static const char main_qc[] =
	    "$definevariable ext smd\n"
	    "$definemacro layer name filename \\\\\n"
	    "$animation $name$ $filename$ \\\\\n"
	    "$sequence $name$_seq $name$\n"
	    "\n"
	    "$layer ar2 \"ar2.smd\"\n"
	    "$layer pistol \"pistol\"\n"
	    "$body b \"b.$ext$\"\n"
	    "$definevariable word walk\n"
	    "$sequence $word$ \"$word$\"\n"
	    "$definevariable f run.smd\n"
	    "$sequence $f$ \"$f$\"\n";
	static const qc_mem_file files[] = {
		{ "/p/m.qc", main_qc, 0 }, { "/p/ar2.smd", "x", 0 }, { "/p/pistol.smd", "x", 0 },
		{ "/p/b.smd", "x", 0 },    { "/p/walk.smd", "x", 0 }, { "/p/run.smd", "x", 0 },
	};
	smdmx_qc *qc = must_read(files, sizeof(files) / sizeof(files[0]), NULL);
	assert_int_equal(qc->ref_count, 5);
	smdmx_error err;
	assert_true(smdmx_qc_rename(qc, 0, "ar2.dmx", &err));
	assert_true(smdmx_qc_rename(qc, 1, "pistol.dmx", &err));
	assert_true(smdmx_qc_rename(qc, 2, "b.dmx", &err));
	/* 'word' names the sequence too: the extension goes after it, where the name is written */
	assert_true(smdmx_qc_rename(qc, 3, "walk.dmx", &err));
	/* 'f' names the sequence too, and the part that changes is in it: no rename is right */
	assert_false(smdmx_qc_rename(qc, 4, "run.dmx", &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_int_equal(err.line, 12);
	assert_int_equal(err.column, 15);
	assert_string_equal(err.message, "'run.smd' ends with the value of a variable or macro argument that also makes other text "
	                                 "than file names: no new name can be written there");
	char *out = written(qc, 0);
	static const char want[] =
	    "$definevariable ext dmx\n"
	    "$definemacro layer name filename \\\\\n"
	    "$animation $name$ $filename$ \\\\\n"
	    "$sequence $name$_seq $name$\n"
	    "\n"
	    "$layer ar2 \"ar2.dmx\"\n"
	    "$layer pistol \"pistol.dmx\"\n"
	    "$body b \"b.$ext$\"\n"
	    "$definevariable word walk\n"
	    "$sequence $word$ \"$word$.dmx\"\n"
	    "$definevariable f run.smd\n"
	    "$sequence $f$ \"$f$\"\n";
	assert_string_equal(out, want);
	free(out);
	smdmx_qc_free(qc);
}

/* A line whose last word looked like a token but was none (a $definevariable read inside the
 * line) is incomplete, as studiomdl says: an error where the line ends. */
/* studiomdl blanks a macro body's "\\" to its line's end before reading it, so that "}\\"
 * closes a block (Valve's sdk_macros.qci ends its blocks so). */
static void test_macro_backslashes(void **state)
{
	(void)state;
	static const char main_qc[] =
	    "$definemacro blk name file \\\\\n"
	    "$sequence $name$ \"$file$\" {\\\\\n"
	    "\tfps 30 \\\\ a comment studiomdl blanks\n"
	    "}\\\\\n"
	    "\n"
	    "$blk walk \"walk\"\n"
	    "$blk run \"run\"\n"
	    "$body b \"b.smd\"\n";
	static const qc_mem_file files[] = {
		{ "/p/m.qc", main_qc, 0 }, { "/p/walk.smd", "x", 0 }, { "/p/run.smd", "x", 0 }, { "/p/b.smd", "x", 0 },
	};
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, sizeof(files) / sizeof(files[0]), &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(qc->error_count, 0);
	assert_int_equal(qc->ref_count, 3);
	expect_ref(&qc->refs[0], SMDMX_QC_REF_ANIMATION, "/p/walk.smd", true, 2, 18);
	assert_true(qc->refs[0].fps == 30);
	expect_ref(&qc->refs[1], SMDMX_QC_REF_ANIMATION, "/p/run.smd", true, 2, 18);
	expect_ref(&qc->refs[2], SMDMX_QC_REF_MODEL, "/p/b.smd", true, 8, 9);
	smdmx_qc_free(qc);
}

/* GoldSrc's $sequence (its studiomdl's Cmd_Sequence): motion flags, automatic motion,
 * pivots, deform, and "animation FILE" for each blend. */
static void test_goldsrc_sequence(void **state)
{
	(void)state;
	static const char main_qc[] =
	    "$sequence walk \"walk\" LX fps 30 loop AX AZR\n"
	    "$sequence run \"run\" AY ayr axr az pivot 0 1 10 deform\n"
	    "$sequence aim animation \"aim_down\" animation \"aim_up\" blend XR -45 45\n";
	static const qc_mem_file files[] = {
		{ "/p/m.qc", main_qc, 0 },      { "/p/walk.smd", "x", 0 },   { "/p/run.smd", "x", 0 },
		{ "/p/aim_down.smd", "x", 0 }, { "/p/aim_up.smd", "x", 0 },
	};
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, sizeof(files) / sizeof(files[0]), &w);
	assert_int_equal(w.count, 0);
	assert_int_equal(qc->ref_count, 4);
	expect_ref(&qc->refs[0], SMDMX_QC_REF_ANIMATION, "/p/walk.smd", true, 1, 16);
	assert_true(qc->refs[0].fps == 30);
	expect_ref(&qc->refs[1], SMDMX_QC_REF_ANIMATION, "/p/run.smd", true, 2, 15);
	expect_ref(&qc->refs[2], SMDMX_QC_REF_ANIMATION, "/p/aim_down.smd", true, 3, 25);
	expect_ref(&qc->refs[3], SMDMX_QC_REF_ANIMATION, "/p/aim_up.smd", true, 3, 46);
	assert_string_equal(qc->refs[3].sequence, "aim");
	smdmx_qc_free(qc);
}

static void test_tokens_that_are_none(void **state)
{
	(void)state;
	static const char *const texts[] = { "$sequence s \"a.smd\" $definevariable v x\n",
		                             "$model m \"m.smd\" {\n}\n$model m \"m.smd\" $definevariable w y\n" };
	static const char *const messages[] = { "'$sequence' needs an option", "'$model' needs an option" };
	static const uint32_t lines[] = { 1, 3 }, columns[] = { 40, 37 };
	for (int i = 0; i < 2; i++) {
		qc_mem_file files[] = { { "/p/m.qc", texts[i], 0 }, { "/p/a.smd", "x", 0 }, { "/p/m.smd", "x", 0 } };
		smdmx_error err;
		assert_null(read_mem(files, 3, &err, NULL));
		assert_int_equal(err.code, SMDMX_ERROR_SYNTAX);
		assert_string_equal(err.message, messages[i]);
		assert_int_equal(err.line, lines[i]);
		assert_int_equal(err.column, columns[i]);
	}
}

/* ---- edits ------------------------------------------------------------------------------------ */

static void test_edits(void **state)
{
	(void)state;
	static const char main_qc[] =
	    "$model face \"face.smd\" {\r\n"
	    "\tflexfile \"face.vta\" // shapes\r\n"
	    "\tflex blink frame 1\r\n"
	    "\tflexcontroller eyes blink\r\n"
	    "\t%blink = blink\r\n"
	    "}\r\n"
	    "$model body body.smd // no block\r\n"
	    "$sequence idle body\r\n";
	static const qc_mem_file files[] = {
		{ "/p/e.qc", main_qc, 0 }, { "/p/face.smd", "x", 0 }, { "/p/face.vta", "x", 0 }, { "/p/body.smd", "x", 0 } };
	smdmx_qc *qc = must_read(files, 4, NULL);
	smdmx_error err;
	assert_false(smdmx_qc_file_changed(qc, 0));
	assert_true(smdmx_qc_rename(qc, 0, "face.dmx", &err));
	assert_true(smdmx_qc_remove_lines(qc, 0, SMDMX_QC_LINES_FLEX, &err));
	assert_true(smdmx_qc_append_to_model(qc, 0, "\tnoautodmxrules\n", &err));
	assert_true(smdmx_qc_rename(qc, 2, "body.dmx", &err));
	assert_true(smdmx_qc_append_to_model(qc, 1, "\tflexfile \"b.vta\"\n", &err));
	assert_true(smdmx_qc_insert_after_model(qc, 1, "$attachment a head 0 0 0\n", &err));
	assert_true(smdmx_qc_rename(qc, 3, "body.dmx", &err));
	assert_true(smdmx_qc_file_changed(qc, 0));
	char *out = written(qc, 0);
	assert_string_equal(out, "$model face \"face.dmx\" {\r\n"
	                         "\tflexcontroller eyes blink\r\n"
	                         "\t%blink = blink\r\n"
	                         "\tnoautodmxrules\r\n"
	                         "}\r\n"
	                         "$model body body.dmx {\r\n"
	                         "\tflexfile \"b.vta\"\r\n"
	                         "} // no block\r\n"
	                         "$attachment a head 0 0 0\r\n"
	                         "$sequence idle body.dmx\r\n");
	free(out);
	/* lines after the command that names a file: a $body's line, a $bodygroup's block, a
	 * $model's block */
	static const char bodies_qc[] =
	    "$body main \"w.smd\" // the gun\n"
	    "$bodygroup clips\n"
	    "{\n"
	    "\tstudio \"clip.smd\"\n"
	    "\tblank\n"
	    "}\n"
	    "$model face \"face.smd\"\n"
	    "$sequence idle w\n";
	static const qc_mem_file body_files[] = {
		{ "/p/b.qc", bodies_qc, 0 }, { "/p/w.smd", "x", 0 }, { "/p/clip.smd", "x", 0 }, { "/p/face.smd", "x", 0 } };
	smdmx_qc *bq = must_read(body_files, 4, NULL);
	assert_int_equal(bq->ref_count, 4);
	assert_string_equal(bq->refs[1].command, "studio");
	assert_true(smdmx_qc_insert_after_ref(bq, 0, "$attachment a gun 0 0 0\n", &err));
	assert_true(smdmx_qc_insert_after_ref(bq, 1, "$attachment b clip 0 0 0\n", &err));
	assert_true(smdmx_qc_insert_after_ref(bq, 2, "$attachment c head 0 0 0\n", &err));
	assert_false(smdmx_qc_insert_after_ref(bq, 4, "x\n", &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	out = written(bq, 0);
	assert_string_equal(out, "$body main \"w.smd\" // the gun\n"
	                         "$attachment a gun 0 0 0\n"
	                         "$bodygroup clips\n"
	                         "{\n"
	                         "\tstudio \"clip.smd\"\n"
	                         "\tblank\n"
	                         "}\n"
	                         "$attachment b clip 0 0 0\n"
	                         "$model face \"face.smd\"\n"
	                         "$attachment c head 0 0 0\n"
	                         "$sequence idle w\n");
	free(out);
	smdmx_qc_free(bq);
	/* the rig lines out instead */
	smdmx_qc_free(qc);
	qc = must_read(files, 4, NULL);
	assert_true(smdmx_qc_remove_lines(qc, 0, SMDMX_QC_LINES_RIG, &err));
	out = written(qc, 0);
	assert_string_equal(out, "$model face \"face.smd\" {\r\n"
	                         "\tflexfile \"face.vta\" // shapes\r\n"
	                         "\tflex blink frame 1\r\n"
	                         "}\r\n"
	                         "$model body body.smd // no block\r\n"
	                         "$sequence idle body\r\n");
	free(out);
	smdmx_qc_free(qc);
	/* A flexfile's block of flex lines goes with them; one that holds anything else (an
	 * $include) stays; a block of its own goes too */
	static const char block_qc[] =
	    "$model face \"face.smd\" {\n"
	    "\tflexfile \"face.vta\" {\n"
	    "\t\tflex blink frame 1\n"
	    "\t\tflex smile frame 2\n"
	    "\t}\n"
	    "\tflexcontroller eyes blink\n"
	    "}\n"
	    "$model head \"face.smd\" {\n"
	    "\tflexfile \"face.vta\" {\n"
	    "\t\t$include \"f.qci\"\n"
	    "\t}\n"
	    "\t{\n"
	    "\t\tflex smile frame 2 // a block of its own\n"
	    "\t}\n"
	    "}\n";
	static const qc_mem_file block_files[] = { { "/p/b.qc", block_qc, 0 }, { "/p/face.smd", "x", 0 }, { "/p/face.vta", "x", 0 },
		                                       { "/p/f.qci", "flex blink frame 1\n", 0 } };
	qc = must_read(block_files, 4, NULL);
	assert_int_equal(qc->model_count, 2);
	assert_true(smdmx_qc_remove_lines(qc, 0, SMDMX_QC_LINES_FLEX, &err));
	assert_true(smdmx_qc_remove_lines(qc, 1, SMDMX_QC_LINES_FLEX, &err));
	out = written(qc, 0);
	assert_string_equal(out, "$model face \"face.smd\" {\n"
	                         "\tflexcontroller eyes blink\n"
	                         "}\n"
	                         "$model head \"face.smd\" {\n"
	                         "\t{\n"
	                         "\t\t$include \"f.qci\"\n"
	                         "\t}\n"
	                         "}\n");
	free(out);
	out = written(qc, 1);
	assert_string_equal(out, "");
	free(out);
	smdmx_qc_free(qc);
}

/* ---- errors at their place -------------------------------------------------------------------- */

typedef struct bad_case {
	const char *what;
	const char *text;          /* the main QC, /p/bad.qc */
	smdmx_error_code code;
	const char *file;          /* "" for the main QC */
	uint32_t line, column;
	const char *message;
} bad_case;

static const qc_mem_file bad_others[] = {
	{ "/p/a.qci", "$include \"b.qci\"\n", 0 },
	{ "/p/b.qci", "\n$include \"a.qci\"\n", 0 },
	{ "/p/m.smd", "x", 0 },
	{ "/p/m.vta", "x", 0 },
	{ "/p/r1.qci", "$include \"r2.qci\"\n", 0 },
	{ "/p/r2.qci", "$include \"r3.qci\"\n", 0 },
	{ "/p/r3.qci", "$include \"r4.qci\"\n", 0 },
	{ "/p/r4.qci", "$include \"r5.qci\"\n", 0 },
	{ "/p/r5.qci", "$include \"r6.qci\"\n", 0 },
	{ "/p/r6.qci", "$include \"r7.qci\"\n", 0 },
	{ "/p/r7.qci", "$include \"r8.qci\"\n", 0 },
	{ "/p/r8.qci", "// the ninth script\n", 0 },
	{ "/p/rule.qci", "\t%f = a * \\\\\n\t\t(a + g)\n", 0 },
};

static const bad_case bad_cases[] = {
	{ "unclosed block", "$model m \"m.smd\" {\n\tflex f frame 1\n", SMDMX_ERROR_UNTERMINATED, "", 1, 18,
	  "this '{' of $model 'm' is never closed" },
	{ "a '}' too many", "$bodygroup g\n{\n\tstudio \"m.smd\"\n}\n}\n", SMDMX_ERROR_SYNTAX, "", 5, 1, "a '}' that closes nothing" },
	{ "missing include", "\n  $include \"nope.qci\"\n", SMDMX_ERROR_IO, "", 2, 12,
	  "cannot find '/p/nope.qci' (included as 'nope.qci', against the folder of the main QC)" },
	{ "unknown flex", "$model m \"m.smd\" {\n\tflexcontroller mouth a\n\t%nope = a\n}\n", SMDMX_ERROR_SYNTAX, "", 3, 2,
	  "a rule for unknown flex 'nope'" },
	{ "unknown controller", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = a * (1 - bb)\n}\n",
	  SMDMX_ERROR_SYNTAX, "", 5, 16, "unknown controller 'bb'" },
	{ "unknown flex fetched", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = a * %g\n}\n",
	  SMDMX_ERROR_SYNTAX, "", 5, 12, "unknown flex 'g'" },
	{ "a rule that ends early", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = a +\n}\n",
	  SMDMX_ERROR_SYNTAX, "", 5, 10, "the rule ends where a value should be" },
	{ "a rule without its ')'", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = min(a, 1\n}\n",
	  SMDMX_ERROR_SYNTAX, "", 5, 10, "a '(' that is not closed" },
	{ "max with one value", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = max(a)\n}\n",
	  SMDMX_ERROR_SYNTAX, "", 5, 12, "'max' takes two values separated by ','" },
	{ "a number studiomdl reads as a name",
	  "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t%f = a * .5\n}\n", SMDMX_ERROR_SYNTAX, "", 5, 11,
	  "a number must start with a digit (studiomdl reads '.5' as a controller)" },
	{ "an error in a continued rule of an include",
	  "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1\n\tflexcontroller x a\n\t$include \"rule.qci\"\n}\n", SMDMX_ERROR_SYNTAX,
	  "/p/rule.qci", 2, 8, "unknown controller 'g'" },
	{ "unknown $model option", "$model m \"m.smd\" {\n\tbogus 1\n}\n", SMDMX_ERROR_SYNTAX, "", 2, 2, "unknown $model option 'bogus'" },
	{ "include cycle", "$include \"a.qci\"\n", SMDMX_ERROR_LIMIT, "/p/b.qci", 2, 10, "'/p/a.qci' includes itself (through 2 files)" },
	{ "deep includes", "$include \"r1.qci\"\n", SMDMX_ERROR_LIMIT, "/p/r7.qci", 1, 10,
	  "includes nest 9 deep, past the limit of 8 (studiomdl's MAX_INCLUDES)" },
	{ "a macro that calls itself", "$definemacro loop \\\\\n$loop\n\n$loop\n", SMDMX_ERROR_LIMIT, "", 2, 1,
	  "macro 'loop' nests scripts 9 deep (includes and macros), past the limit of 8 (a macro that expands into itself?)" },
	{ "unclosed quote", "$body b \"m.smd\n", SMDMX_ERROR_UNTERMINATED, "", 1, 9, "a quoted name that is never closed" },
	{ "unclosed comment", "$body b m.smd\n/* no end\n", SMDMX_ERROR_UNTERMINATED, "", 2, 1, "a '/*' comment that is never closed" },
	{ "unknown variable", "$body b \"m.$nope$\"\n$body c $nope$\n", SMDMX_ERROR_SYNTAX, "", 2, 9, "unknown variable '$nope$'" },
	{ "a command cut short", "$model m\n", SMDMX_ERROR_SYNTAX, "", 1, 9, "'$model' needs a file" },
	{ "a flex option unknown", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame 1 speed 2\n}\n", SMDMX_ERROR_SYNTAX, "", 3, 17,
	  "unknown option 'speed' of 'flex'" },
	{ "a frame that is no number", "$model m \"m.smd\" {\n\tflexfile m.vta\n\tflex f frame one\n}\n", SMDMX_ERROR_BAD_NUMBER, "", 3, 15,
	  "'one' is not a whole number (a frame number of 'frame')" },
	{ "a flex line before its VTA", "$model m \"m.smd\" {\n\tflex f frame 1\n}\n", SMDMX_ERROR_NONE, "", 0, 0, NULL },
};

/* Each limit at its value reads; one past it is a `limit` error at the place it is passed. */
static void test_limits(void **state)
{
	(void)state;
	smdmx_error err;
	const char *text = "$modelname \"a.mdl\"\n$cdmaterials x\n"; /* 4 tokens, 34 bytes */
	qc_mem_file f[1] = { { "/p/l.qc", text, 0 } };
	mem.files = f;
	mem.count = 1;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.max_tokens = 4;
	o.max_file_size = 34;
	o.max_read = 34;
	smdmx_qc *qc = smdmx_qc_read_file("/p/l.qc", &o, &err, NULL);
	assert_non_null(qc);
	smdmx_qc_free(qc);
	o.max_tokens = 3;
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 14);
	assert_string_equal(err.message, "more than 3 tokens (macros expanded)");
	o.max_tokens = 4;
	o.max_file_size = 33;
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_string_equal(err.message, "'/p/l.qc' is 34 bytes, more than the QC limit of 33");
	o.max_file_size = 34;
	o.max_read = 33;
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_string_equal(err.message, "the QC is 34 bytes, more than the limit of 33 bytes read");

	/* bytes read: a macro's body (from its "\\\\" to the end of its last line, 9 bytes) counted at each call */
	const char *calls = "$definemacro m \\\\\n$cd x\n$m\n$m\n"; /* 30 bytes */
	f[0].text = calls;
	o = qc_mem_options(&mem);
	o.max_read = 30 + 2 * 9;
	qc = smdmx_qc_read_file("/p/l.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	smdmx_qc_free(qc);
	o.max_read--;
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_int_equal(err.line, 4);
	assert_int_equal(err.column, 1);
	assert_string_equal(err.message, "the QC reads more than 47 bytes, each include and each macro call counted (a macro called too "
	                                 "often?)");

	/* a token of 1023 bytes, then of 1024 (studiomdl's MAXTOKEN), variables expanded */
	char *as = malloc(1024), *big = malloc(4096);
	memset(as, 'a', 1023);
	as[1023] = 0;
	snprintf(big, 4096, "$modelname \"%s\"\n", as);
	f[0].text = big;
	o = qc_mem_options(&mem);
	qc = smdmx_qc_read_file("/p/l.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	smdmx_qc_free(qc);
	snprintf(big, 4096, "$definevariable v b\n$modelname \"%s$v$\"\n", as);
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 12);
	assert_string_equal(err.message, "a token of 1024 bytes: studiomdl takes at most 1023");
	free(big);
	free(as);

	/* names of variables: 2^20 bytes in all (1025 names of 1023 bytes, one of 1), then a byte more */
	size_t cap = 1100 * 1050;
	char *vars = malloc(cap);
	size_t n = 0;
	for (int i = 0; i < 1026; i++) {
		size_t len = i < 1025 ? 1023 : 1;
		n += (size_t)snprintf(vars + n, cap - n, "$definevariable ");
		for (size_t k = 0; k < len; k++) vars[n++] = (char)('a' + (k == 0 ? i % 26 : (k == 1 ? i / 26 % 26 : (k == 2 ? i / 676 : 0))));
		n += (size_t)snprintf(vars + n, cap - n, " x\n");
	}
	vars[n] = 0;
	f[0].text = vars;
	qc = smdmx_qc_read_file("/p/l.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	smdmx_qc_free(qc);
	snprintf(vars + n, cap - n, "$definevariable zz x\n");
	assert_null(smdmx_qc_read_file("/p/l.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_LIMIT);
	assert_int_equal(err.line, 1027);
	assert_string_equal(err.message, "the names of $definevariable add up to more than 1048576 bytes");
	/* the first name with these letters, ignoring case, as studiomdl looks them up */
	snprintf(vars + n, cap - n, "$modelname $AAA$\n$cd $ab$\n");
	qc = smdmx_qc_read_file("/p/l.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	smdmx_qc_free(qc);
	free(vars);
}

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const bad_case *c = &bad_cases[i];
		qc_mem_file files[1 + sizeof(bad_others) / sizeof(bad_others[0])];
		files[0] = (qc_mem_file){ "/p/bad.qc", c->text, 0 };
		memcpy(files + 1, bad_others, sizeof(bad_others));
		smdmx_error err;
		smdmx_qc *qc = read_mem(files, sizeof(files) / sizeof(files[0]), &err, NULL);
		if (c->code == SMDMX_ERROR_NONE) {
			/* read; the conversion refuses it (smdmx_qc_model_vta) */
			if (!qc) fail_msg("%s: %s", c->what, err.message);
			assert_int_equal(smdmx_qc_model_vta(qc, 0, &err), SMDMX_NONE);
			assert_int_equal(err.code, SMDMX_ERROR_SYNTAX);
			assert_int_equal(err.line, 2);
			assert_string_equal(err.message, "a flex line before any flexfile");
			smdmx_qc_free(qc);
			continue;
		}
		if (qc) fail_msg("%s: read, but should fail", c->what);
		if (err.code != c->code || err.line != c->line || err.column != c->column || strcmp(err.file, c->file) ||
		    strcmp(err.message, c->message))
			fail_msg("%s: got %s:%u:%u: %s (%s), want %s:%u:%u: %s (%s)", c->what, err.file, err.line, err.column, err.message,
			         smdmx_error_code_name(err.code), c->file, c->line, c->column, c->message, smdmx_error_code_name(c->code));
	}
}

/* A NUL byte, and old Mac line ends (a lone CR is white space: the next command continues the
 * line, G1). */
static void test_bytes(void **state)
{
	(void)state;
	static const char nul[] = "$body b m.smd\n$bo\0dy c m.smd\n";
	static const qc_mem_file f1[] = { { "/p/n.qc", nul, sizeof(nul) - 1 }, { "/p/m.smd", "x", 0 } };
	smdmx_error err;
	assert_null(read_mem(f1, 2, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_NUL_BYTE);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 4);
	/* "$body b m.smd\r$body c m.smd": one line; the second "$body" is an option of the first */
	static const qc_mem_file f2[] = { { "/p/cr.qc", "$body b m.smd\r$body c m.smd\n", 0 }, { "/p/m.smd", "x", 0 } };
	assert_null(read_mem(f2, 2, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_SYNTAX);
	assert_string_equal(err.message, "unknown option '$body' of '$body'");
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 15);
	/* comments of every kind, and ';' ending a token */
	static const qc_mem_file f3[] = {
		{ "/p/c.qc", "// a\n# b\n; c\n/* d\ne */ $body b m.smd; comment\n$body c \"m.smd\"# not a comment in a token? no: after it\n", 0 },
		{ "/p/m.smd", "x", 0 } };
	smdmx_qc *qc = must_read(f3, 2, NULL);
	assert_int_equal(qc->ref_count, 2);
	assert_int_equal(qc->refs[0].pos.line, 5);
	assert_int_equal(qc->refs[0].pos.column, 14);
	smdmx_qc_free(qc);
}


/* ---- the rig ------------------------------------------------------------------------------------ */

static smdmx_scene *read_smd_path(const char *path)
{
	smdmx_error err;
	smdmx_scene *s = smdmx_smd_read_file(path, NULL, &err, NULL);
	if (!s) fail_msg("%s: %s", path, err.message);
	return s;
}

/* testdata's face with its VTA's frames as shapes. */
static smdmx_scene *face_scene(void)
{
	smdmx_scene *s = read_smd_path(test_path("testdata/qc/face/face.smd"));
	smdmx_scene *v = read_smd_path(test_path("testdata/qc/face/face.vta"));
	smdmx_error err;
	TEST_WARNINGS(w);
	if (!smdmx_scene_attach_vta(s, v, &err, &w)) fail_msg("attach: %s", err.message);
	assert_int_equal(w.count, 0);
	smdmx_scene_free(v);
	assert_int_equal(s->flex_shape_count, 5);
	return s;
}

static smdmx_qc *face_qc(void)
{
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file(test_path("testdata/qc/face/face.qc"), NULL, &err, NULL);
	if (!qc) fail_msg("%s:%u: %s", err.file, err.line, err.message);
	return qc;
}

static const smdmx_flex_shape *shape_named(const smdmx_scene *s, const char *name)
{
	for (size_t i = 0; i < s->flex_shape_count; i++)
		if (!strcmp(s->flex_shapes[i].name, name)) return &s->flex_shapes[i];
	fail_msg("no shape %s", name);
	return s->flex_shapes;
}

/* The share of the right flex at x for a split of 1 (studiomdl's step). */
static float share1(float x)
{
	double t = (1.0 - x) / 2.0;
	return t <= 0 ? 0.0f : t >= 1 ? 1.0f : (float)(3 * t * t - 2 * t * t * t);
}

static void expect_balance(const smdmx_mesh *m)
{
	assert_non_null(m->balance.indices);
	for (size_t c = 0; c < m->corner_count; c++) {
		float x = m->positions[m->position_indices[c]][0];
		assert_true(m->balance.data[m->balance.indices[c]] == share1(x));
	}
	assert_true(share1(0) == 0.5f && share1(-3) == 1.0f && share1(1) == 0.0f);
}

static const smdmx_warning *find_warning(const smdmx_warnings *w, smdmx_warning_code code)
{
	const smdmx_warning *x = test_warning_of(w, code);
	if (!x) fail_msg("no warning %d", (int)code);
	return x ? x : w->data;
}

/* The face's QC into the scene: shapes named by its flex lines, flex rules. */
static void test_rig_face(void **state)
{
	(void)state;
	smdmx_qc *qc = face_qc();
	smdmx_scene *s = face_scene();
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_true(smdmx_qc_apply_rig(qc, 0, s, NULL, &err, &w));
	/* "smile" has no controller of its name: beside flex rules it is its two halves */
	const char *names[] = { "smileR", "smileL", "blink", "jaw", "pucker", "smile_jaw" };
	assert_int_equal(s->flex_shape_count, 6);
	for (size_t i = 0; i < 6; i++) assert_string_equal(s->flex_shapes[i].name, names[i]);
	const smdmx_flex_shape *r = shape_named(s, "smileR"), *l = shape_named(s, "smileL");
	/* smile moves x = -3 and x = 3 up by 0.4: the right half has the -3 side */
	assert_int_equal(r->position_count, 2);
	assert_int_equal(l->position_count, 2);
	for (size_t k = 0; k < 2; k++) {
		assert_true(s->meshes[0].positions[r->position_indices[k]][0] == -3);
		assert_true(s->meshes[0].positions[l->position_indices[k]][0] == 3);
		float zr = s->meshes[0].positions[r->position_indices[k]][2], zl = s->meshes[0].positions[l->position_indices[k]][2];
		assert_true(r->position_deltas[k][2] == (zr == 1 ? 1.4f : 2.4f) - zr);
		assert_true(l->position_deltas[k][2] == (zl == 1 ? 1.4f : 2.4f) - zl);
	}
	expect_balance(&s->meshes[0]);
	assert_int_equal(s->flex_controller_count, 5);
	const char *ctl[] = { "right_smile", "left_smile", "blink", "jaw_open", "pucker" };
	const float mins[] = { 0, 0, 0, -1, 0 };
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(s->flex_controllers[i].name, ctl[i]);
		assert_true(s->flex_controllers[i].min == mins[i] && s->flex_controllers[i].max == 1);
	}
	/* pucker: a controller of its name marks it stereo */
	assert_true(s->flex_controllers[4].stereo);
	assert_int_equal(s->flex_controllers[4].raw_controls.count, 1);
	assert_string_equal(s->flex_controllers[4].raw_controls.data[0], "pucker");
	assert_false(s->flex_controllers[2].stereo);
	assert_int_equal(s->flex_rule_count, 8);
	assert_string_equal(s->flex_rules[0].name, "mouth_busy");
	assert_int_equal(s->flex_rules[0].kind, SMDMX_FLEX_RULE_EXPRESSION);
	assert_string_equal(s->flex_rules[0].expression, "min(right_smile + left_smile, 1)");
	assert_string_equal(s->flex_rules[3].name, "blink");
	assert_int_equal(s->flex_rules[3].kind, SMDMX_FLEX_RULE_PASS_THROUGH);
	assert_string_equal(s->flex_rules[7].expression, "min(%smileR + %smileL, 1) * %jaw");
	const smdmx_warning *cut = find_warning(&w, SMDMX_WARNING_QC_PAIR_CUT);
	assert_int_equal(cut->count, 1);
	assert_int_equal(cut->line, 3);
	assert_non_null(strstr(cut->file, "face_flexes.qci"));
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_LOST_GROUPS)->count, 5);
	smdmx_scene_free(s);
	/* The rig left in the QC: every flexpair stays stereo, one control per shape marks it. */
	s = face_scene();
	smdmx_qc_rig_options ro = { .rig_in_qc = true };
	assert_true(smdmx_qc_apply_rig(qc, 0, s, &ro, &err, &w));
	assert_int_equal(w.count, 0);
	assert_int_equal(s->flex_shape_count, 5);
	/* a control only where it marks a stereo shape: one of "smile_jaw" would make studiomdl read
	 * its name as raw controls */
	assert_int_equal(s->flex_controller_count, 2);
	assert_int_equal(s->flex_rule_count, 0);
	assert_string_equal(s->flex_controllers[0].name, "smile");
	assert_string_equal(s->flex_controllers[1].name, "pucker");
	assert_true(s->flex_controllers[0].stereo && s->flex_controllers[1].stereo);
	expect_balance(&s->meshes[0]);
	assert_true(shape_named(s, "smile_jaw")->corrective);
	smdmx_scene_free(s);
	smdmx_qc_free(qc);
}

/* QC text for a scene's rig around a $model, read back from memory. */
static smdmx_qc *qc_of_lines(const char *lines, const char *atts, char *text, size_t cap)
{
	snprintf(text, cap, "$model face \"face.smd\" {\n%s}\n%s", lines, atts ? atts : "");
	static qc_mem_file files[3];
	files[0] = (qc_mem_file){ "/q/face.qc", text, 0 };
	files[1] = (qc_mem_file){ "/q/face.smd", "x", 0 };
	files[2] = (qc_mem_file){ "/q/face.vta", "x", 0 };
	return must_read(files, 3, NULL);
}

/* A scene through SMD and VTA text and back. */
static smdmx_scene *through_smd(const smdmx_scene *s)
{
	test_sink smd = { 0 }, vta = { 0 };
	smdmx_error err;
	smdmx_smd_write_options wo = { .kind = s->mesh_count ? SMDMX_SMD_WRITE_REFERENCE : SMDMX_SMD_WRITE_ANIMATION };
	if (!smdmx_smd_write(s, test_sink_write, &smd, &wo, &err)) fail_msg("smd: %s", err.message);
	smdmx_scene *r = smdmx_smd_read_memory(smd.data, smd.size, NULL, &err, NULL);
	if (!r) fail_msg("smd back: %s", err.message);
	if (s->flex_shape_count) {
		wo.kind = SMDMX_SMD_WRITE_VTA;
		if (!smdmx_smd_write(s, test_sink_write, &vta, &wo, &err)) fail_msg("vta: %s", err.message);
		smdmx_scene *v = smdmx_smd_read_memory(vta.data, vta.size, NULL, &err, NULL);
		TEST_WARNINGS(w);
		if (!v || !smdmx_scene_attach_vta(r, v, &err, &w)) fail_msg("vta back: %s", err.message);
		smdmx_scene_free(v);
	}
	free(smd.data);
	free(vta.data);
	return r;
}

/* A combination operator (stereo, two-way, a corrective, a domination rule) into QC lines
 * in the canonical form and back: the same scene. */
static void test_rig_combination(void **state)
{
	(void)state;
	smdmx_scene *s = face_scene();
	smdmx_mesh *m = &s->meshes[0];
	float *bal = malloc(m->position_count * sizeof(float));
	uint32_t *bi = malloc(m->corner_count * sizeof(uint32_t));
	for (size_t p = 0; p < m->position_count; p++) bal[p] = share1(m->positions[p][0]);
	memcpy(bi, m->position_indices, m->corner_count * sizeof(uint32_t));
	m->balance.data = bal;
	m->balance.count = m->position_count;
	m->balance.indices = bi;
	const char *smile[] = { "smile" }, *mouth[] = { "jaw", "pucker" }, *blink[] = { "blink" };
	smdmx_flex_controller cc[3] = {
		{ "smile", { smile, 1 }, true, false, 0, 1, { NULL, 0 } },
		{ "mouth", { mouth, 2 }, false, false, -1, 1, { NULL, 0 } },
		{ "blink", { blink, 1 }, false, false, 0, 1, { NULL, 0 } },
	};
	smdmx_domination_rule dr = { { blink, 1 }, { smile, 1 } };
	s->flex_controllers = cc;
	s->flex_controller_count = 3;
	s->domination_rules = &dr;
	s->domination_rule_count = 1;
	/* as a DMX says it (dmx_model.c marks a name joining others by '_') */
	s->flex_shapes[shape_named(s, "smile_jaw") - s->flex_shapes].corrective = true;
	char *lines, *atts;
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_true(smdmx_qc_from_scene(s, "face.vta", &lines, &atts, &err, &w));
	assert_int_equal(w.count, 0);
	assert_string_equal(lines, "\tflexfile \"face.vta\"\n"
	                           "\tflexpair smile 1 frame 1\n"
	                           "\tflex blink frame 2\n"
	                           "\tflex jaw frame 3\n"
	                           "\tflex pucker frame 4\n"
	                           "\tflexpair smile_jaw 1 frame 5\n"
	                           "\tflexcontroller right_smile range 0 1 right_smile\n"
	                           "\tflexcontroller left_smile range 0 1 left_smile\n"
	                           "\tflexcontroller mouth range -1 1 mouth\n"
	                           "\tflexcontroller blink range 0 1 blink\n"
	                           "\t%smileL = left_smile * (1 - blink)\n"
	                           "\t%smileR = right_smile * (1 - blink)\n"
	                           "\t%blink = blink\n"
	                           "\t%jaw = min(max(-mouth, 0), 1)\n"
	                           "\t%pucker = min(max(mouth, 0), 1)\n"
	                           "\t%smile_jawL = left_smile * min(max(-mouth, 0), 1) * (1 - blink)\n"
	                           "\t%smile_jawR = right_smile * min(max(-mouth, 0), 1) * (1 - blink)\n");
	assert_string_equal(atts, "");
	char text[4096];
	smdmx_qc *qc = qc_of_lines(lines, atts, text, sizeof(text));
	smdmx_scene *back = through_smd(s);
	assert_true(smdmx_qc_apply_rig(qc, 0, back, NULL, &err, &w));
	assert_int_equal(w.count, 0);
	smdmx_compare_options co = { .flex_controls = true };
	char diff[256];
	if (!smdmx_scene_compare(s, back, &co, diff, sizeof(diff), NULL)) fail_msg("round trip: %s", diff);
	smdmx_scene_free(back);
	smdmx_qc_free(qc);
	/* A QC written by hand in another form: flex rules, its expressions kept. */
	const char *hand = "\tflexfile \"face.vta\"\n\tflex blink frame 2\n\tflexcontroller blink range 0 1 blink\n"
	                   "\t%blink = max(blink, 0)\n";
	qc = qc_of_lines(hand, NULL, text, sizeof(text));
	back = through_smd(s);
	assert_true(smdmx_qc_apply_rig(qc, 0, back, NULL, &err, &w));
	assert_int_equal(back->flex_rule_count, 1);
	assert_string_equal(back->flex_rules[0].expression, "max(blink, 0)");
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_LOST_FRAMES)->count, 4);
	smdmx_scene_free(back);
	smdmx_qc_free(qc);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
	s->domination_rules = NULL;
	s->domination_rule_count = 0;
	m->balance.data = NULL;
	m->balance.indices = NULL;
	free(bal);
	free(bi);
	smdmx_scene_free(s);
}

/* A corner's move in a shape (0 where the shape does not move it). */
static void corner_move(const smdmx_scene *s, const char *shape, size_t c, float out[3])
{
	const smdmx_flex_shape *sh = shape_named(s, shape);
	const smdmx_mesh *m = &s->meshes[sh->mesh];
	out[0] = out[1] = out[2] = 0;
	for (size_t k = 0; k < sh->position_count; k++)
		if (sh->position_indices[k] == m->position_indices[c]) memcpy(out, sh->position_deltas[k], 3 * sizeof(float));
}

/* A stereo shape cut into its halves for a VTA adds back to the whole on every corner, and
 * corners at one place (two positions there, their weights differ) take one share, since a
 * VTA moves a place one way: the balances that differ there are said with a count. */
static void test_rig_cut_adds_up(void **state)
{
	(void)state;
	static const char smd[] = "version 1\nnodes\n0 \"root\" -1\n1 \"jaw\" 0\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n1 0 0 0 0 0 0\nend\n"
	                          "triangles\nm\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 1 0\n0 0 1 0 0 0 1 0 1\n"
	                          "m\n1 1 0 0 0 0 1 1 0\n1 1 1 0 0 0 1 1 1\n1 0 1 0 0 0 1 0 1\nend\n";
	static const char vta[] = "version 1\nnodes\n0 \"root\" -1\n1 \"jaw\" 0\nend\nskeleton\ntime 0\ntime 1 # smile\nend\n"
	                          "vertexanimation\ntime 0\n0 0 0 0 0 0 1\n1 1 0 0 0 0 1\n2 0 1 0 0 0 1\n3 1 0 0 0 0 1\n4 1 1 0 0 0 1\n"
	                          "5 0 1 0 0 0 1\ntime 1\n1 1 0 1 0 0 1\n2 0 1 1 0 0 1\n3 1 0 1 0 0 1\n4 1 1 0.5 0 0 1\n5 0 1 1 0 0 1\nend\n";
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_scene *s = smdmx_smd_read_memory(smd, sizeof(smd) - 1, NULL, &err, NULL);
	smdmx_scene *v = smdmx_smd_read_memory(vta, sizeof(vta) - 1, NULL, &err, NULL);
	assert_non_null(s);
	assert_non_null(v);
	assert_true(smdmx_scene_attach_vta(s, v, &err, NULL));
	smdmx_mesh *m = &s->meshes[0];
	assert_int_equal(m->corner_count, 6);
	assert_int_equal(m->position_count, 6); /* (1 0 0) and (0 1 0) twice: other weights */
	float bal[6] = { 0.25f, 0.25f, 0.25f, 0.75f, 0.75f, 0.75f };
	uint32_t bi[6] = { 0, 1, 2, 3, 4, 5 };
	m->balance.data = bal;
	m->balance.count = 6;
	m->balance.indices = bi;
	const char *smile[] = { "smile" };
	smdmx_flex_controller cc = { "smile", { smile, 1 }, true, false, 0, 1, { NULL, 0 } };
	s->flex_controllers = &cc;
	s->flex_controller_count = 1;
	smdmx_scene *whole = smdmx_smd_read_memory(smd, sizeof(smd) - 1, NULL, &err, NULL);
	assert_true(smdmx_scene_attach_vta(whole, v, &err, NULL));
	char *lines, *atts;
	assert_true(smdmx_qc_from_scene(s, "m.vta", &lines, &atts, &err, &w));
	const smdmx_warning *cut = find_warning(&w, SMDMX_WARNING_QC_PAIR_CUT);
	assert_non_null(cut);
	assert_int_equal(cut->count, 3); /* B0 and B2 take the share of A1 and A2; the shape cut in two */
	assert_string_equal(cut->message, "corners at one place with other balances: each takes the first corner's there, as a VTA moves a "
	                                  "place one way (the halves still add up to the shape); nothing to do unless a seam shows there");
	assert_non_null(strstr(lines, "\tflex smileR frame 1\n\tflex smileL frame 2\n"));
	smdmx_scene *back = through_smd(s);
	static const float want_r[6] = { 0, 0.25f, 0.25f, 0.25f, 0.75f * 0.5f, 0.25f };
	for (size_t c = 0; c < 6; c++) {
		float r[3], l[3], o[3];
		corner_move(back, "smileR", c, r);
		corner_move(back, "smileL", c, l);
		corner_move(whole, "smile", c, o);
		for (int a = 0; a < 3; a++)
			if (fabsf(r[a] + l[a] - o[a]) > 2e-6f)
				fail_msg("corner %zu, axis %d: %.7g + %.7g is not %.7g", c, a, (double)r[a], (double)l[a], (double)o[a]);
		if (fabsf(r[2] - want_r[c]) > 2e-6f) fail_msg("corner %zu: its right half moves %.7g, not %.7g", c, (double)r[2], (double)want_r[c]);
	}
	smdmx_scene_free(back);
	smdmx_scene_free(whole);
	smdmx_scene_free(v);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
	m->balance.data = NULL;
	m->balance.indices = NULL;
	smdmx_scene_free(s);
}

/* A stereo shape whose balance is no split of studiomdl's is cut into NAMER and NAMEL; a
 * shape that already has one of those names makes that impossible: an error, no lines. */
static void test_rig_cut_clash(void **state)
{
	(void)state;
	smdmx_scene *s = face_scene();
	smdmx_mesh *m = &s->meshes[0];
	float *bal = malloc(m->position_count * sizeof(float));
	uint32_t *bi = malloc(m->corner_count * sizeof(uint32_t));
	for (size_t p = 0; p < m->position_count; p++) bal[p] = 0.25f; /* no step across X = 0 */
	memcpy(bi, m->position_indices, m->corner_count * sizeof(uint32_t));
	m->balance.data = bal;
	m->balance.count = m->position_count;
	m->balance.indices = bi;
	const char *smile[] = { "smile" };
	smdmx_flex_controller cc = { "smile", { smile, 1 }, true, false, 0, 1, { NULL, 0 } };
	s->flex_controllers = &cc;
	s->flex_controller_count = 1;
	smdmx_flex_shape *blink = (smdmx_flex_shape *)shape_named(s, "blink");
	const char *was = blink->name;
	blink->name = "smileL";
	char *lines = NULL, *atts = NULL;
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_false(smdmx_qc_from_scene(s, "face.vta", &lines, &atts, &err, &w));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "stereo shape 'smile' must be written as two shapes, but a shape 'smileL' exists");
	assert_null(lines);
	assert_null(atts);
	/* without the clash: cut, said once */
	blink->name = was;
	assert_true(smdmx_qc_from_scene(s, "face.vta", &lines, &atts, &err, &w));
	const smdmx_warning *cut = find_warning(&w, SMDMX_WARNING_QC_PAIR_CUT);
	assert_non_null(cut);
	assert_non_null(strstr(lines, "\tflex smileR frame 1\n\tflex smileL frame 2\n"));
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	s->flex_controllers = NULL;
	s->flex_controller_count = 0;
	m->balance.data = NULL;
	m->balance.indices = NULL;
	free(bal);
	free(bi);
	smdmx_scene_free(s);
}

/* Flex rules into QC lines and back; names a rule cannot write bare are quoted. */
static void test_rig_rules(void **state)
{
	(void)state;
	smdmx_qc *qc = face_qc();
	smdmx_scene *s = face_scene();
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_true(smdmx_qc_apply_rig(qc, 0, s, NULL, &err, &w));
	smdmx_qc_free(qc);
	char *lines, *atts;
	assert_true(smdmx_qc_from_scene(s, "face.vta", &lines, &atts, &err, &w));
	assert_int_equal(w.count, 0);
	assert_non_null(strstr(lines, "\tflexpair pucker 1 frame 5\n\tflex smile_jaw frame 6\n"));
	assert_non_null(strstr(lines, "\tflexcontroller default range -1 1 jaw_open\n"));
	assert_non_null(strstr(lines, "\tlocalvar mouth_busy\n\t%mouth_busy = min(right_smile + left_smile, 1)\n"));
	assert_null(strstr(lines, "localvar puckerR"));
	assert_non_null(strstr(lines, "\t%blink = blink\n"));
	char text[8192];
	qc = qc_of_lines(lines, atts, text, sizeof(text));
	smdmx_scene *back = through_smd(s);
	assert_true(smdmx_qc_apply_rig(qc, 0, back, NULL, &err, &w));
	assert_int_equal(w.count, 0);
	smdmx_compare_options co = { .flex_controls = true };
	char diff[256];
	if (!smdmx_scene_compare(s, back, &co, diff, sizeof(diff), NULL)) fail_msg("round trip: %s", diff);
	smdmx_scene_free(back);
	smdmx_qc_free(qc);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	smdmx_scene_free(s);
}

/* $attachment lines into the scene and back. */
static void test_rig_attachments(void **state)
{
	(void)state;
	static const qc_mem_file files[] = {
		{ "/a/a.qc",
		  "$scale 2\n"
		  "$attachment \"a\" \"jaw\" 1 2 3 rotate 10 20 30 rigid\n"
		  "$attachment \"b\" \"JAW\" 0 0 5 absolute world_align\n"
		  "$attachment \"c\" \"nobone\" 0 0 0\n",
		  0 },
	};
	smdmx_qc *qc = must_read(files, 1, NULL);
	smdmx_scene *s = face_scene();
	smdmx_error err;
	TEST_WARNINGS(w);
	assert_true(smdmx_qc_apply_attachments(qc, s, &err, &w));
	assert_int_equal(s->attachment_count, 2);
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_ONLY)->count, 1);
	const smdmx_attachment *a = &s->attachments[0], *b = &s->attachments[1];
	assert_string_equal(a->name, "a");
	assert_int_equal(a->parent_joint, 1);
	assert_true(a->rigid && !a->world_aligned);
	/* $scale scales the position, not the angles */
	assert_true(a->transform.position[0] == 2 && a->transform.position[1] == 4 && a->transform.position[2] == 6);
	/* rotate PITCH YAW ROLL: Rz(yaw) Ry(pitch) Rx(roll) */
	const double d = 3.14159265358979323846 / 180;
	double e[3] = { 30 * d, 10 * d, 20 * d }, q[4];
	smdmx_euler_to_quat(e, q);
	for (int k = 0; k < 4; k++) assert_true(fabs(a->transform.orientation[k] - q[k]) < 1e-7);
	/* absolute: model space (0 0 10 after $scale) into the jaw's (at 0 0 1) */
	assert_true(b->transform.position[0] == 0 && b->transform.position[1] == 0 && b->transform.position[2] == 9);
	assert_true(b->transform.orientation[3] == 1 && b->world_aligned);
	char *lines, *atts;
	assert_true(smdmx_qc_from_scene(s, NULL, &lines, &atts, &err, &w));
	assert_string_equal(atts, "$attachment \"a\" \"jaw\" 2 4 6 rotate 10 20 30 rigid\n"
	                          "$attachment \"b\" \"jaw\" 0 0 9 world_align\n");
	/* and back: the same transforms */
	static qc_mem_file back_files[1];
	back_files[0] = (qc_mem_file){ "/a/b.qc", atts, 0 };
	smdmx_qc *qc2 = must_read(back_files, 1, NULL);
	smdmx_scene *s2 = face_scene();
	assert_true(smdmx_qc_apply_attachments(qc2, s2, &err, &w));
	smdmx_compare_options co = { 0 };
	char diff[256];
	s->flex_shape_count = s2->flex_shape_count;
	if (!smdmx_scene_compare(s, s2, &co, diff, sizeof(diff), NULL)) fail_msg("attachments back: %s", diff);
	smdmx_scene_free(s2);
	smdmx_qc_free(qc2);
	smdmx_qc_text_free(lines);
	smdmx_qc_text_free(atts);
	smdmx_scene_free(s);
	smdmx_qc_free(qc);
}


/* ---- the corpus ----------------------------------------------------------------------------------- */

static smdmx_scene *lift_dmx(const char *path)
{
	smdmx_error err;
	smdmx_dm *dm = smdmx_dmx_read_file(path, NULL, &err, NULL);
	if (!dm) fail_msg("%s: %s", path, err.message);
	smdmx_scene *s = smdmx_model_to_scene(dm, NULL, &err, NULL);
	smdmx_dm_free(dm);
	return s;
}

/* Every corpus DMX with flex controls or attachments: DMX -> SMD, VTA and QC (dmx2smd --qc)
 * -> scene (smd2dmx --qc) gives the DMX's controls, rules, dominators and attachments, on
 * the geometry SMD holds. */
static void test_corpus_dmx_round_trip(void **state)
{
	(void)state;
	static const char *const dirs[] = { "dmx_binary", "dmx_kv2_model", "dmx_kv2_anim", "dmx_kv2_datamodelpy" };
	size_t tried = 0, rigs = 0, attached = 0;
	for (size_t d = 0; d < 4; d++) {
		size_t n;
		char **paths = test_corpus_files(dirs[d], &n);
		for (size_t i = 0; i < n; i++) {
			const char *path = paths[i], *name = test_base_name(path);
			if (!strstr(name, ".dmx")) continue;
			smdmx_scene *orig = lift_dmx(path);
			if (!orig) continue; /* not a model (tests elsewhere) */
			bool rig = orig->flex_controller_count || orig->flex_rule_count;
			if ((!rig && !orig->attachment_count) || (!orig->mesh_count && !orig->clip_count)) {
				smdmx_scene_free(orig);
				continue;
			}
			tried++;
			rigs += rig;
			attached += orig->attachment_count > 0;
			smdmx_scene *t = lift_dmx(path);
			char *lines, *atts;
			smdmx_error err;
			TEST_WARNINGS(w);
			if (!smdmx_qc_from_scene(t, "face.vta", &lines, &atts, &err, &w)) fail_msg("%s: %s", name, err.message);
			for (size_t k = 0; k < w.count; k++) fail_msg("%s: %s", name, w.data[k].message);
			char *text = malloc(strlen(lines) + strlen(atts) + 256);
			if (t->mesh_count) sprintf(text, "$model face \"face.smd\" {\n%s}\n%s", lines, atts);
			else sprintf(text, "%s$sequence anim \"face.smd\"\n", atts);
			qc_mem_file files[3] = { { "/c/face.qc", text, 0 }, { "/c/face.smd", "x", 0 }, { "/c/face.vta", "x", 0 } };
			smdmx_qc *qc = must_read(files, 3, NULL);
			smdmx_scene *back = through_smd(t);
			if (t->mesh_count && !smdmx_qc_apply_rig(qc, 0, back, NULL, &err, &w)) fail_msg("%s: %s", name, err.message);
			if (t->mesh_count)
				for (size_t k = 0; k < w.count; k++) fail_msg("%s: %s", name, w.data[k].message);
			if (!smdmx_qc_apply_attachments(qc, back, &err, &w)) fail_msg("%s: %s", name, err.message);
			assert_int_equal(w.count, 0);
			/* what SMD holds of the DMX, with the DMX's rig */
			smdmx_scene *expect = through_smd(t);
			expect->flex_controllers = orig->flex_controllers;
			expect->flex_controller_count = orig->flex_controller_count;
			expect->domination_rules = orig->domination_rules;
			expect->domination_rule_count = orig->domination_rule_count;
			expect->flex_rules = orig->flex_rules;
			expect->flex_rule_count = orig->flex_rule_count;
			expect->attachments = orig->attachments;
			expect->attachment_count = orig->attachment_count;
			for (size_t k = 0; k < expect->flex_shape_count; k++)
				expect->flex_shapes[k].corrective = shape_named(orig, expect->flex_shapes[k].name)->corrective;
			smdmx_compare_options co = { .flex_controls = true, .ignore_bind_when_animated = true };
			char diff[256];
			if (!smdmx_scene_compare(expect, back, &co, diff, sizeof(diff), NULL)) fail_msg("%s: %s", name, diff);
			expect->flex_controllers = NULL;
			expect->flex_controller_count = 0;
			expect->domination_rules = NULL;
			expect->domination_rule_count = 0;
			expect->flex_rules = NULL;
			expect->flex_rule_count = 0;
			expect->attachments = NULL;
			expect->attachment_count = 0;
			smdmx_scene_free(expect);
			smdmx_scene_free(back);
			smdmx_qc_free(qc);
			free(text);
			smdmx_qc_text_free(lines);
			smdmx_qc_text_free(atts);
			smdmx_scene_free(t);
			smdmx_scene_free(orig);
		}
		test_free_list(paths, n);
	}
	/* tf_movies in binary, keyvalues2 and datamodel.py's keyvalues2; three BST cubes; binary4
	 * and its datamodel.py twin (an animation with attachments) */
	assert_int_equal(tried, 8);
	assert_int_equal(rigs, 6);
	assert_int_equal(attached, 2);
}

/* Valve's SDK character: every file read, every reference found, the face's block, and every
 * file written back byte for byte. */
static void test_corpus_sdk_humans(void **state)
{
	(void)state;
	const char *path = test_corpus_path("qc/sdk_humans/male_sdk/male_06_sdk.qc");
	smdmx_error err;
	TEST_WARNINGS(w);
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, &w);
	if (!qc) fail_msg("%s:%u:%u: %s", err.file, err.line, err.column, err.message);
	assert_int_equal(qc->file_count, 13);
	size_t missing = 0;
	for (size_t i = 0; i < qc->ref_count; i++) missing += !qc->refs[i].found;
	assert_int_equal(missing, 1); /* ../male.vrd of $proceduralbones is not in the mirror */
	assert_int_equal(qc->model_count, 1);
	const smdmx_qc_model *m = &qc->models[0];
	assert_string_equal(m->name, "male_06");
	assert_int_equal(m->flex_count, 27);
	assert_int_equal(m->controller_count, 54);
	assert_int_equal(m->rule_count, 75);
	assert_int_equal(m->qc_only_count, 7);
	assert_int_equal(qc->attachment_count, 2);
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_NOCASE)->count, 94);
	for (uint32_t f = 0; f < qc->file_count; f++) {
		size_t size;
		char *orig = test_slurp(qc->files[f].path, &size);
		char *out = written(qc, f);
		assert_int_equal(strlen(out), size);
		assert_memory_equal(out, orig, size);
		free(out);
		free(orig);
	}
	/* The face into one DMX scene: the base takes the defaultflex frame (20) */
	smdmx_scene *s = read_smd_path(qc->refs[m->ref].path);
	smdmx_scene *v = read_smd_path(qc->refs[smdmx_qc_model_vta(qc, 0, &err)].path);
	assert_true(smdmx_scene_attach_vta(s, v, &err, &w));
	float before = 0;
	const smdmx_flex_shape *f20 = s->flex_shapes;
	for (size_t i = 0; i < s->flex_shape_count; i++)
		if (s->flex_shapes[i].frame == 20) f20 = &s->flex_shapes[i];
	assert_int_equal(f20->frame, 20);
	uint32_t p20 = f20->position_indices[0];
	before = s->meshes[0].positions[p20][2];
	float moved = f20->position_deltas[0][2];
	assert_true(smdmx_qc_apply_rig(qc, 0, s, NULL, &err, &w));
	assert_true(s->meshes[0].positions[p20][2] == before + moved);
	assert_int_equal(s->flex_shape_count, 41);
	assert_int_equal(s->flex_controller_count, 54);
	assert_int_equal(s->flex_rule_count, 75 - 12); /* 12 localvars only declare a rule's flex */
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_LOST_KEYS)->count, 2);
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_LOST_FRAMES)->count, 10);
	assert_int_equal(find_warning(&w, SMDMX_WARNING_QC_ONLY)->count, 1);
	smdmx_scene_free(v);
	smdmx_scene_free(s);
	smdmx_qc_free(qc);
}

/* ---- keep_going: an error costs its line --------------------------------------------------- */

static void test_keep_going(void **state)
{
	(void)state;
	static const char qc_text[] =
	    "$include \"gone.qci\"\n"                                     /* 1: missing */
	    "$model \"a\" \"a.smd\" {\n"                                  /* 2 */
	    "\tflexfile \"a.vta\"\n"
	    "\tflex \"smile\" frame 1\n"
	    "\t%smile = (smile\n"                                          /* 5: unclosed ( */
	    "\tflexcontroller mouth smile\n"
	    "\t$include \"gone.qci\"\n"                                   /* 7: missing again */
	    "\tbogus 1 2 { x } }\n"                                        /* 8: unknown option; its '}' closes the block */
	    "$model \"b\" \"b.smd\" wrong\n"                              /* 9: unknown option on the $model line */
	    "$scale abc\n"                                                 /* 10 */
	    "$sequence \"idle\" \"a.smd\" fps 30\n";                      /* 11: read on */
	static const qc_mem_file files[] = { { "/p/k.qc", qc_text, 0 }, { "/p/a.smd", "x", 0 }, { "/p/a.vta", "x", 0 }, { "/p/b.smd", "x", 0 } };
	smdmx_error err;
	/* without keep_going, the first error fails the read */
	assert_null(read_mem(files, 4, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	assert_int_equal(err.line, 1);
	mem.files = files;
	mem.count = 4;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.keep_going = true;
	smdmx_qc *qc = smdmx_qc_read_file("/p/k.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	assert_int_equal(qc->error_count, 6);
	static const struct {
		smdmx_error_code code;
		uint32_t line, column;
	} want[] = { { SMDMX_ERROR_IO, 1, 10 },     { SMDMX_ERROR_SYNTAX, 5, 11 }, { SMDMX_ERROR_IO, 7, 11 },
		         { SMDMX_ERROR_SYNTAX, 8, 2 }, { SMDMX_ERROR_SYNTAX, 9, 20 }, { SMDMX_ERROR_BAD_NUMBER, 10, 8 } };
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(qc->errors[i].error.code, want[i].code);
		assert_int_equal(qc->errors[i].error.line, want[i].line);
		assert_int_equal(qc->errors[i].error.column, want[i].column);
		assert_int_equal(qc->errors[i].include, want[i].code == SMDMX_ERROR_IO);
	}
	assert_int_equal(qc->missing_include_count, 1); /* one file, included twice */
	assert_string_equal(qc->missing_includes[0], "/p/gone.qci");
	assert_int_equal(qc->model_count, 2);
	assert_true(qc->models[0].incomplete);     /* its block lost an include */
	assert_true(qc->models[0].lost_lines);     /* and lines */
	assert_int_equal(qc->models[0].flex_count, 1);
	assert_int_equal(qc->models[0].controller_count, 1);
	assert_int_equal(qc->models[0].rule_count, 0);
	assert_true(qc->models[1].incomplete);     /* its $model line */
	assert_int_equal(qc->models[1].ref, SMDMX_NONE); /* its file was not read as its */
	assert_true(qc->models[1].lost_lines);
	expect_ref(ref_named(qc, "$sequence", "a.smd"), SMDMX_QC_REF_ANIMATION, "/p/a.smd", true, 11, 18);
	assert_int_equal(qc->scale, 1);
	/* written byte for byte */
	char *w = written(qc, 0);
	assert_string_equal(w, qc_text);
	free(w);
	smdmx_qc_free(qc);
}

/* keep_going: a line that cannot be read costs that line in every block ($bodygroup, $lod,
 * $sequence, $animation), and the block reads on to its '}'. */
static void test_keep_going_blocks(void **state)
{
	(void)state;
	static const char qc_text[] =
	    "$bodygroup \"heads\"\n"                                   /* 1 */
	    "{\n"
	    "\tstudio \"h1.smd\"\n"
	    "\tbogus \"h9.smd\"\n"                                      /* 4: unknown option */
	    "\tstudio \"h2.smd\"\n"
	    "\tstudio \"h3.smd\" wrong\n"                               /* 6: unknown studio option */
	    "\tblank\n"
	    "\tstudio \"h4.smd\"\n"
	    "}\n"
	    "$lod 10\n"                                                 /* 10 */
	    "{\n"
	    "\treplacemodel \"h1\"\n"                                   /* 12: no file */
	    "\treplacemodel \"h2\" \"h2_lod.smd\"\n"
	    "}\n"
	    "$sequence walk \"walk\" {\n"                                /* 15 */
	    "\tfps abc\n"                                               /* 16: no number */
	    "\tloop\n"
	    "}\n"
	    "$animation a_run \"run\" {\n"                              /* 19 */
	    "\tfps x { }\n"                                             /* 20: no number, a block on its line */
	    "\tfps 24\n"
	    "}\n"
	    "$body b \"b.smd\"\n";                                      /* 23: read on */
	static const qc_mem_file files[] = {
		{ "/p/k.qc", qc_text, 0 }, { "/p/h1.smd", "x", 0 },       { "/p/h2.smd", "x", 0 },  { "/p/h3.smd", "x", 0 },
		{ "/p/h4.smd", "x", 0 },   { "/p/h2_lod.smd", "x", 0 },   { "/p/walk.smd", "x", 0 }, { "/p/run.smd", "x", 0 },
		{ "/p/b.smd", "x", 0 },
	};
	mem.files = files;
	mem.count = sizeof(files) / sizeof(files[0]);
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.keep_going = true;
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file("/p/k.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	static const struct {
		smdmx_error_code code;
		uint32_t line, column;
	} want[] = { { SMDMX_ERROR_SYNTAX, 4, 2 },        { SMDMX_ERROR_SYNTAX, 6, 18 },      { SMDMX_ERROR_SYNTAX, 12, 19 },
		         { SMDMX_ERROR_BAD_NUMBER, 16, 6 }, { SMDMX_ERROR_BAD_NUMBER, 20, 6 } };
	for (size_t i = 0; i < qc->error_count && i < 5; i++)
		if (qc->errors[i].error.code != want[i].code || qc->errors[i].error.line != want[i].line ||
		    qc->errors[i].error.column != want[i].column)
			fail_msg("error %zu: %u:%u %s", i, qc->errors[i].error.line, qc->errors[i].error.column, qc->errors[i].error.message);
	assert_int_equal(qc->error_count, 5);
	/* every file named after a lost line is read */
	static const char *const names[] = { "h1.smd", "h2.smd", "h3.smd", "h4.smd", "h2_lod.smd", "walk", "run", "b.smd" };
	assert_int_equal(qc->ref_count, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(qc->refs[i].name, names[i]);
		assert_true(qc->refs[i].found);
	}
	assert_true(qc->refs[6].fps == 24);
	char *w = written(qc, 0);
	assert_string_equal(w, qc_text);
	free(w);
	smdmx_qc_free(qc);
}

/* keep_going: a $body whose file is missing is a part with no choices (choices NULL), alone
 * (no part has any: fuzz finding 10 offset a null pointer there) and between others. */
static void test_keep_going_body_without_file(void **state)
{
	(void)state;
	static const char alone[] = "$modelname \"props/crate.mdl\"\n$body Wody\n";
	static const char between[] = "$body a \"a.smd\"\n$body w\n$body c \"c.smd\"\n";
	static const qc_mem_file files[] = { { "/p/k.qc", alone, 0 }, { "/p/m.qc", between, 0 }, { "/p/a.smd", "x", 0 }, { "/p/c.smd", "x", 0 } };
	mem.files = files;
	mem.count = 4;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.keep_going = true;
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file("/p/k.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	assert_int_equal(qc->error_count, 1);
	assert_int_equal(qc->errors[0].error.line, 2);
	assert_int_equal(qc->errors[0].error.column, 11);
	assert_string_equal(qc->errors[0].error.message, "'$body' needs a file");
	assert_int_equal(qc->part_count, 1);
	assert_int_equal(qc->parts[0].choice_count, 0);
	assert_null(qc->parts[0].choices);
	smdmx_qc_free(qc);
	qc = smdmx_qc_read_file("/p/m.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	assert_int_equal(qc->error_count, 1);
	assert_int_equal(qc->errors[0].error.line, 2);
	assert_int_equal(qc->part_count, 3);
	assert_int_equal(qc->parts[1].choice_count, 0);
	assert_null(qc->parts[1].choices);
	assert_int_equal(qc->parts[0].choice_count, 1);
	assert_int_equal(qc->parts[2].choice_count, 1);
	assert_string_equal(qc->refs[qc->parts[0].choices[0]].name, "a.smd");
	assert_string_equal(qc->refs[qc->parts[2].choices[0]].name, "c.smd");
	smdmx_qc_free(qc);
}

/* A block left unclosed ends at the next command (no option of a block starts with '$'): one
 * error at its '{' that names the command, and the command is read as one (it was one error per
 * line that followed, the cause last). */
static void test_unclosed_blocks(void **state)
{
	(void)state;
	static const char qc_text[] =
	    "$model \"a\" \"a.smd\" {\n"          /* 1 */
	    "\tflexfile \"a.vta\"\n"
	    "$bodygroup g {\n"                     /* 3 */
	    "\tstudio \"b.smd\"\n"
	    "$sequence s \"a.smd\" {\n"          /* 5 */
	    "\tfps 30\n"
	    "$body c \"c.smd\"\n";               /* 7 */
	static const qc_mem_file files[] = {
		{ "/p/u.qc", qc_text, 0 }, { "/p/a.smd", "x", 0 }, { "/p/a.vta", "x", 0 }, { "/p/b.smd", "x", 0 }, { "/p/c.smd", "x", 0 },
	};
	smdmx_error err;
	assert_null(read_mem(files, 5, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_UNTERMINATED);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 20);
	assert_string_equal(err.message, "this '{' of $model 'a' is never closed: '$bodygroup' at line 3 starts a command; close the block before it");
	mem.files = files;
	mem.count = 5;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	o.keep_going = true;
	smdmx_qc *qc = smdmx_qc_read_file("/p/u.qc", &o, &err, NULL);
	if (!qc) fail_msg("%u:%u: %s", err.line, err.column, err.message);
	assert_int_equal(qc->error_count, 3);
	static const uint32_t at[3][2] = { { 1, 20 }, { 3, 14 }, { 5, 21 } };
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(qc->errors[i].error.code, SMDMX_ERROR_UNTERMINATED);
		assert_int_equal(qc->errors[i].error.line, at[i][0]);
		assert_int_equal(qc->errors[i].error.column, at[i][1]);
	}
	assert_int_equal(qc->ref_count, 5);
	static const char *const paths[] = { "/p/a.smd", "/p/a.vta", "/p/b.smd", "/p/a.smd", "/p/c.smd" };
	for (size_t i = 0; i < 5; i++) assert_string_equal(qc->refs[i].path, paths[i]);
	assert_true(qc->refs[3].fps == 30);
	char *w = written(qc, 0);
	assert_string_equal(w, qc_text);
	free(w);
	smdmx_qc_free(qc);
}

/* An absolute $cd or $pushd of the machine that wrote the QC (Valve's SDK QCs name
 * "C:\Program Files (x86)\..."), not here: the files are looked for from the QC's own folder,
 * said once (it was one "cannot find" per file, and no word about the $cd). */
static void test_absolute_cd(void **state)
{
	(void)state;
	static const char qc_text[] =
	    "$cd \"C:\\Program Files (x86)\\Steam\\modelsrc\\a\"\n"
	    "$body a \"a.smd\"\n"
	    "$pushd \"/home/valve/modelsrc/anims\"\n"
	    "$sequence idle \"idle\"\n"
	    "$popd\n"
	    "$pushd \"sub\"\n"
	    "$sequence walk \"walk\"\n";
	static const qc_mem_file files[] = {
		{ "/p/cd.qc", qc_text, 0 }, { "/p/a.smd", "x", 0 }, { "/p/idle.smd", "x", 0 }, { "/p/sub/walk.smd", "x", 0 },
	};
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, 4, &w);
	assert_int_equal(qc->ref_count, 3);
	for (size_t i = 0; i < 3; i++) assert_true(qc->refs[i].found);
	assert_string_equal(qc->refs[2].path, "/p/sub/walk.smd");
	const smdmx_warning *x = test_warning_of(&w, SMDMX_WARNING_QC_BENT);
	assert_non_null(x);
	if (!x) return;
	assert_int_equal(x->count, 1);
	assert_int_equal(x->line, 1);
	assert_int_equal(x->column, 5);
	assert_string_equal(x->message, "$cd names 'C:\\Program Files (x86)\\Steam\\modelsrc\\a', a folder of the machine that wrote the QC, "
	                                "which is not here: the files are looked for from the QC's own folder instead (for every such "
	                                "folder of this QC); make it relative, or remove it, for studiomdl");
	smdmx_qc_free(qc);
}

/* A block an included file leaves open ends with that file: the including file's next
 * command is read (keep_going), not swallowed into the block. */
static void test_keep_going_open_block(void **state)
{
	(void)state;
	static const qc_mem_file files[] = {
		{ "/p/m.qc", "$include \"s.qci\"\n$bodygroup b\n{\nstudio \"a.smd\"\n}\n$sequence idle \"a.smd\"\n", 0 },
		{ "/p/s.qci", "$collisionmodel \"a.smd\" {\n\t$mass 10\n}x\n", 0 },
		{ "/p/a.smd", "x", 0 } };
	mem.files = files;
	mem.count = 3;
	smdmx_qc_read_options o = qc_mem_options(&mem);
	smdmx_error err;
	assert_null(smdmx_qc_read_file("/p/m.qc", &o, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_UNTERMINATED);
	assert_string_equal(err.file, "/p/s.qci");
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 25);
	o.keep_going = true;
	smdmx_qc *qc = smdmx_qc_read_file("/p/m.qc", &o, &err, NULL);
	if (!qc) fail_msg("%s", err.message);
	assert_int_equal(qc->error_count, 1);
	assert_int_equal(qc->ref_count, 3); /* $collisionmodel, studio, $sequence */
	expect_ref(ref_named(qc, "studio", "a.smd"), SMDMX_QC_REF_MODEL, "/p/a.smd", true, 4, 8);
	expect_ref(ref_named(qc, "$sequence", "a.smd"), SMDMX_QC_REF_ANIMATION, "/p/a.smd", true, 6, 16);
	smdmx_qc_free(qc);
}

/* "FPS 30s" in Valve's cs_player_shared.qc: the SDK's studiomdl reads a number by its first
 * character and atof, so smdmx reads it too, with a warning; a word is still no number. */
static void test_number_prefix(void **state)
{
	(void)state;
	static const qc_mem_file files[] = { { "/p/n.qc", "$sequence \"run\" \"a.smd\" FPS 30s\n$scale 2.5x\n", 0 }, { "/p/a.smd", "x", 0 } };
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, 2, &w);
	assert_true(qc->refs[0].fps == 30.0);
	assert_true(qc->scale == 2.5);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.data[0].code, SMDMX_WARNING_QC_BENT);
	assert_int_equal(w.data[0].count, 2);
	assert_int_equal(w.data[0].line, 1);
	assert_int_equal(w.data[0].column, 29);
	assert_string_equal(w.data[0].message, "'30s' read as 30, as studiomdl's atof reads it (frames per second of 'FPS'); nothing to do");
	smdmx_qc_free(qc);
	static const qc_mem_file bad[] = { { "/p/n.qc", "$scale x2\n", 0 } };
	smdmx_error err;
	assert_null(read_mem(bad, 1, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_BAD_NUMBER);
}

/* A block after no command: skipped with a warning at its '{', the rest read. */
static void test_stray_block(void **state)
{
	(void)state;
	static const qc_mem_file files[] = { { "/p/s.qc", "$scale 2\n  { $upaxis Y }\n$cd \"x\"\n", 0 } };
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, 1, &w);
	assert_true(qc->scale == 2.0);
	test_assert_one_warning(&w, SMDMX_WARNING_QC_BENT, 2, 3,
	                        "a block that belongs to no command: skipped, though studiomdl refuses it; remove it for studiomdl");
	smdmx_qc_free(qc);
}

/* A skipped command's block open where the QC ends (Left 4 Dead 2's SubwayCar QCs end inside
 * $collisiontext): the rest is its block, as studiomdl's Cmd_CollisionText reads tokens to the
 * '}' or the end; said. An include that ends inside one is an error (studiomdl would read on
 * into the file that included it). */
static void test_block_open_at_end(void **state)
{
	(void)state;
	static const char qc_text[] = "$body b \"m.smd\"\n$collisiontext\n{\n\t\"break\"\n\t{\n\t\"model\" \"x\"\n\t}\n";
	static const qc_mem_file files[] = { { "/p/s.qc", qc_text, 0 }, { "/p/m.smd", "x", 0 } };
	TEST_WARNINGS(w);
	smdmx_qc *qc = must_read(files, 2, &w);
	assert_int_equal(qc->ref_count, 1);
	test_assert_one_warning(&w, SMDMX_WARNING_QC_BLOCK_OPEN, 3, 1,
	                        "this '{' is never closed: the rest of the QC is read as its block, as studiomdl reads it; close it "
	                        "for other tools");
	char *out = written(qc, 0);
	assert_string_equal(out, qc_text); /* kept as written */
	free(out);
	smdmx_qc_free(qc);
	static const qc_mem_file inc[] = { { "/p/i.qc", "$include \"open.qci\"\n$body b \"m.smd\"\n", 0 },
		                           { "/p/open.qci", "$keyvalues\n{\n\t\"prop_data\" {\n\t}\n", 0 },
		                           { "/p/m.smd", "x", 0 } };
	smdmx_error err;
	assert_null(read_mem(inc, 3, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_UNTERMINATED);
	assert_string_equal(err.file, "/p/open.qci");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 1);
	assert_string_equal(err.message, "this '{' is never closed in its file: studiomdl would read the file that includes it as its "
	                                 "block too; close it");
}

/* ---- a $model as a scene, in one call ------------------------------------------------------- */

typedef struct told {
	size_t files, errors;
	char first[512];
} told;

static void tell(void *user, const char *path, const smdmx_warnings *w, const smdmx_error *e)
{
	told *t = user;
	assert_non_null(w);
	if (!t->files++) snprintf(t->first, sizeof(t->first), "%s", path);
	t->errors += e != NULL;
}

static void test_qc_model_scene(void **state)
{
	(void)state;
	smdmx_qc *qc = face_qc();
	smdmx_error err;
	TEST_WARNINGS(w);
	told t = { 0, 0, "" };
	smdmx_qc_scene_options o = { .file_read = tell, .user = &t };
	smdmx_scene *s = smdmx_qc_model_scene(qc, 0, &o, &err, &w);
	if (!s) fail_msg("%s", err.message);
	/* the SMD and its VTA, each told once; the flexpair cut in halves, the rig, the attachments */
	assert_int_equal(t.files, 2);
	assert_int_equal(t.errors, 0);
	assert_true(test_ends_with(t.first, "testdata/qc/face/face.smd"));
	assert_int_equal(s->flex_shape_count, 6);
	assert_int_equal(s->flex_controller_count, 5);
	assert_int_equal(s->attachment_count, 2);
	assert_string_equal(s->attachments[1].name, "eyes");
	const smdmx_warning *cut = test_warning_of(&w, SMDMX_WARNING_QC_PAIR_CUT);
	assert_non_null(cut);
	assert_true(test_ends_with(cut->file, "testdata/qc/face/face_flexes.qci"));
	assert_int_equal(cut->line, 3);
	smdmx_scene_free(s);

	/* the QC beside: no attachments put on, the shapes and rig as before */
	o.qc_beside = true;
	s = smdmx_qc_model_scene(qc, 0, &o, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->attachment_count, 0);
	assert_int_equal(s->flex_shape_count, 6);
	smdmx_scene_free(s);

	/* no $model: the first $sequence's file (here the reference, one frame: no clip), named
	 * after it, with the attachments; no callback and no error wanted */
	assert_int_equal(smdmx_qc_scene_ref(qc, SMDMX_NONE), 2);
	s = smdmx_qc_model_scene(qc, SMDMX_NONE, NULL, NULL, NULL);
	assert_non_null(s);
	assert_string_equal(s->name, "idle");
	assert_int_equal(s->flex_shape_count, 0);
	assert_int_equal(s->attachment_count, 2);
	smdmx_scene_free(s);
	assert_null(smdmx_qc_model_scene(qc, 7, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	smdmx_qc_free(qc);

	/* a file the QC names, not there: an error where the QC names it */
	static const char text[] = "$modelname \"m.mdl\"\n$model \"m\" \"nothere.smd\"\n";
	char *path = test_temp_file("model_scene.qc", text, sizeof(text) - 1);
	qc = smdmx_qc_read_file(path, NULL, &err, NULL);
	assert_non_null(qc);
	assert_null(smdmx_qc_model_scene(qc, 0, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_IO);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 12);
	assert_non_null(strstr(err.message, "nothere.smd' (the file of $model 'm')"));
	smdmx_qc_free(qc);
	remove(path);
	free(path);
}

/* A QC of text (named name) beside a copy of testdata/qc/parts/base.smd in dir, read. */
static smdmx_qc *qc_beside_base(const char *dir, const char *name, const char *text, smdmx_error *err)
{
	char path[4400], smd_path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(smd_path, sizeof(smd_path), "%s/base.smd", dir);
	size_t size;
	char *smd = test_slurp(test_path("testdata/qc/parts/base.smd"), &size);
	FILE *f = fopen(smd_path, "wb");
	assert_true(smd && f && fwrite(smd, 1, size, f) == size);
	fclose(f);
	free(smd);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return smdmx_qc_read_file(path, NULL, err, NULL);
}

/* The whole model of a QC (smdmx_qc_body_scene) on testdata/qc/parts: the $body, the
 * bodygroup's first choice and the $model joined by bone name, the $model scaled by the
 * $scale named before it (its bone 'a' then differs from the $body's: one warning), the
 * materials by name, the attachment on the joined skeleton. Other choices; a blank one; one
 * the bodygroup has not; every allocation failing in turn. */
static uint32_t joint_named(const smdmx_scene *s, const char *name)
{
	for (size_t i = 0; i < s->joint_count; i++)
		if (!strcmp(s->joints[i].name, name)) return (uint32_t)i;
	fail_msg("no joint %s", name);
	return SMDMX_NONE;
}

static size_t polygons(const smdmx_scene *s)
{
	size_t n = 0;
	for (size_t m = 0; m < s->mesh_count; m++)
		for (size_t f = 0; f < s->meshes[m].face_set_count; f++) n += s->meshes[m].face_sets[f].polygon_count;
	return n;
}

static void test_qc_body_scene(void **state)
{
	(void)state;
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file(test_path("testdata/qc/parts/parts.qc"), NULL, &err, NULL);
	if (!qc) fail_msg("%s", err.message);
	assert_int_equal(qc->part_count, 3);
	assert_true(qc->parts[2].scale == 2);
	TEST_WARNINGS(w);
	smdmx_scene *s = smdmx_qc_body_scene(qc, NULL, NULL, &err, &w);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->joint_count, 3);
	assert_int_equal(s->joints[joint_named(s, "hat")].parent, joint_named(s, "root"));
	assert_true(s->joints[joint_named(s, "a")].bind.position[2] == 1); /* the $body's, not the scaled one */
	assert_int_equal(s->mesh_count, 3);
	assert_int_equal(polygons(s), 3);
	assert_int_equal(s->material_count, 2);
	assert_string_equal(s->materials[1].name, "felt");
	assert_int_equal(s->meshes[1].face_sets[0].material, 1);
	assert_int_equal(s->meshes[2].face_sets[0].material, 0);
	assert_int_equal(s->meshes[1].weights[0].joint, joint_named(s, "hat"));
	/* the $model's corners twice the $body's */
	const smdmx_mesh *body = &s->meshes[0], *scaled = &s->meshes[2];
	for (size_t c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++)
			assert_true(scaled->positions[scaled->position_indices[c]][k] == 2 * body->positions[body->position_indices[c]][k]);
	assert_int_equal(s->attachment_count, 1);
	assert_int_equal(s->attachments[0].parent_joint, joint_named(s, "a"));
	const smdmx_warning *bent = test_warning_of(&w, SMDMX_WARNING_QC_BENT);
	if (!bent) fail_msg("no warning of the bone that differs");
	else {
		assert_int_equal(bent->count, 1);
		assert_non_null(strstr(bent->message, "another parent or rest pose"));
	}
	smdmx_scene_free(s);

	/* choices as --bodygroup gives them: a number, blank, the file's name with or without its
	 * extension, case aside; what is not there said with what is */
	uint32_t chosen[3] = { 0, 0, 0 };
	assert_true(smdmx_qc_choose(qc, "hat=hat_tall", chosen, &err) && chosen[1] == 2);
	assert_true(smdmx_qc_choose(qc, "HAT=blank", chosen, &err) && chosen[1] == 1);
	assert_true(smdmx_qc_choose(qc, "hat=Hat.SMD", chosen, &err) && chosen[1] == 0);
	assert_true(smdmx_qc_choose(qc, "hat=2", chosen, &err) && chosen[1] == 2);
	assert_true(smdmx_qc_choose(qc, "base=0", chosen, &err) && chosen[0] == 0);
	assert_false(smdmx_qc_choose(qc, "hat=3", chosen, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "$bodygroup 'hat' has no choice '3' (its choices: 0 hat.smd, 1 blank, 2 hat_tall.smd)");
	assert_false(smdmx_qc_choose(qc, "cap=1", chosen, NULL));
	assert_false(smdmx_qc_choose(qc, "cap=1", chosen, &err));
	assert_string_equal(err.message, "no body part named 'cap' (the QC's: base, hat, extra)");
	assert_false(smdmx_qc_choose(qc, "hat", chosen, &err));
	assert_string_equal(err.message, "'hat' is no choice of a body part: write PART=CHOICE");
	assert_int_equal(chosen[1], 2);

	uint32_t tall[3] = { 0, 2, 0 }, blank[3] = { 0, 1, 0 }, none[3] = { 0, 3, 0 }, alone[3] = { SMDMX_NONE, 0, SMDMX_NONE };
	s = smdmx_qc_body_scene(qc, tall, NULL, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->joint_count, 4);
	assert_int_equal(s->joints[joint_named(s, "brim")].parent, joint_named(s, "hat"));
	assert_int_equal(polygons(s), 4);
	smdmx_scene_free(s);
	s = smdmx_qc_body_scene(qc, blank, NULL, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->joint_count, 2);
	assert_int_equal(s->mesh_count, 2);
	smdmx_scene_free(s);
	s = smdmx_qc_body_scene(qc, alone, NULL, &err, NULL); /* the hat alone */
	assert_non_null(s);
	assert_int_equal(s->joint_count, 2);
	assert_string_equal(s->joints[1].name, "hat");
	assert_int_equal(s->attachment_count, 0); /* its bone 'a' is not there */
	smdmx_scene_free(s);
	assert_null(smdmx_qc_body_scene(qc, none, NULL, &err, NULL));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	assert_string_equal(err.message, "$bodygroup 'hat' has 3 choices: there is no choice 3");

	/* as the files hold it (as_files): no $scale on the $model's part; a QC's $upaxis marks
	 * the scene instead of turning it */
	smdmx_qc_scene_options files;
	memset(&files, 0, sizeof(files));
	files.as_files = true;
	s = smdmx_qc_body_scene(qc, NULL, &files, &err, NULL);
	assert_non_null(s);
	assert_int_equal(s->up_axis, 'Z');
	assert_true(s->joints[joint_named(s, "a")].bind.position[2] == 1);
	body = &s->meshes[0];
	scaled = &s->meshes[2];
	for (size_t c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++)
			assert_true(scaled->positions[scaled->position_indices[c]][k] == body->positions[body->position_indices[c]][k]);
	smdmx_scene_free(s);
	/* a QC of $upaxis Y beside a copy of base.smd, in a folder of its own */
	char *y_dir = test_temp_path("y_up");
	assert_true(os_mkdir(y_dir));
	smdmx_qc *yq = qc_beside_base(y_dir, "y_up.qc", "$upaxis Y\n$body b \"base.smd\"\n", &err);
	assert_non_null(yq);
	smdmx_scene *turned = smdmx_qc_body_scene(yq, NULL, NULL, &err, NULL);
	if (!turned) fail_msg("%s", err.message);
	smdmx_scene *marked = smdmx_qc_body_scene(yq, NULL, &files, &err, NULL);
	assert_non_null(turned);
	assert_non_null(marked);
	assert_int_equal(turned->up_axis, 'Z');
	assert_int_equal(marked->up_axis, 'Y');
	const float *tp = turned->meshes[0].positions[0], *mp = marked->meshes[0].positions[0];
	assert_true(mp[0] == 0 && mp[1] == 0 && mp[2] == 1); /* as base.smd writes it */
	assert_true(tp[0] == 0 && tp[1] == -1 && tp[2] == 0); /* +90 degrees about X */
	smdmx_compare_options co;
	smdmx_diff_options(NULL, NULL, &co); /* the defaults, then what the two scenes hold */
	smdmx_diff_options(turned, marked, &co);
	assert_int_equal(smdmx_scene_diff(turned, marked, &co, NULL, NULL, NULL), 0); /* the diff turns it alike */
	smdmx_scene_free(turned);
	smdmx_scene_free(marked);
	smdmx_qc_free(yq);
	test_remove_tree(y_dir);
	free(y_dir);

	/* every allocation of reading and joining failing in turn: NULL, out of memory, nothing
	 * leaked (the files' allocator, which the joined scene's memory is) */
	size_t failures = 0;
	for (size_t n = 1;; n++) {
		test_counter c = { 0, 0, 0 };
		smdmx_qc_scene_options o;
		memset(&o, 0, sizeof(o));
		o.smd.allocator = test_allocator(&c);
		o.smd.allocator.fail_after = n;
		s = smdmx_qc_body_scene(qc, tall, &o, &err, NULL);
		if (s) {
			assert_int_equal(s->joint_count, 4);
			smdmx_scene_free(s);
			assert_int_equal(c.live, 0);
			break;
		}
		if (err.code != SMDMX_ERROR_OUT_OF_MEMORY) fail_msg("allocation %zu failing: %s", n, err.message);
		if (c.live) fail_msg("allocation %zu failing left %lld bytes", n, c.live);
		failures++;
		assert_true(n < 100000);
	}
	assert_true(failures > 20);
	smdmx_qc_free(qc);
}

/* A QC's $origin (doc/format-notes.md, "A QC's $origin"): the one in force at the first
 * $sequence, with its turn; the model placed by it (smdmx_qc_scene_options.placed) goes to
 * R (p - origin), R the turn about Z; not with as_files; a bad line said where it is. */
/* sm_fs_find on a real tree: a path there as written is itself; a component that differs in
 * case is found as the folder holds it, wherever it is; a folder there as written is taken as
 * written even where another differs only in case (on a system that tells case); a file that
 * is nowhere is NULL. */
static void make_file(const char *root, const char *rel)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = os_fopen(path, "wb");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

static void expect_find(sm_fs_cache *c, const char *root, const char *rel, const char *want, bool want_nocase)
{
	char path[1024], expect[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	bool nocase = !want_nocase;
	char *got = sm_fs_find(c, path, &nocase);
	if (!want) {
		if (got) fail_msg("%s: found as %s", rel, got);
		return;
	}
	snprintf(expect, sizeof(expect), "%s/%s", root, want);
	if (!got) fail_msg("%s: not found", rel);
	assert_string_equal(got, expect);
	assert_int_equal(nocase, want_nocase);
	sm_fs_free(c, got);
}

static void test_qc_find(void **state)
{
	(void)state;
	char *root = test_temp_path("find");
	char dir[1024];
	assert_true(os_mkdir(root));
	const char *dirs[] = { "Models", "Models/Sub", "Models/Sub/Deep", "x", "x/A" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
		assert_true(os_mkdir(dir));
	}
	make_file(root, "Models/Sub/File.smd");
	make_file(root, "Models/Sub/Deep/Anim.smd");
	make_file(root, "x/A/f.smd");
	/* each looked for twice: the folders read each time, and read once (a QC's reading), the
	 * cache's memory and what it finds through its allocator, all given back */
	test_counter counted = { 0, 0, 0 };
	smdmx_allocator hooks = test_allocator(&counted);
	for (int pass = 0; pass < 4; pass++) {
		sm_fs_cache *c = pass >= 2 ? sm_fs_cache_new(&hooks) : NULL;
		if (pass >= 2) assert_non_null(c);
		expect_find(c, root, "Models/Sub/File.smd", "Models/Sub/File.smd", false);
		expect_find(c, root, "Models/Sub/file.smd", "Models/Sub/File.smd", true); /* the last component */
		expect_find(c, root, "models/sub/FILE.SMD", "Models/Sub/File.smd", true); /* every one */
		expect_find(c, root, "Models/sub/Deep/Anim.smd", "Models/Sub/Deep/Anim.smd", true); /* one between */
		expect_find(c, root, "Models/Sub/../Sub/deep/anim.smd", "Models/Sub/../Sub/Deep/Anim.smd", true);
		expect_find(c, root, "Models/Sub/Missing.smd", NULL, false);
		expect_find(c, root, "Nowhere/Sub/File.smd", NULL, false);
		expect_find(c, root, "Models/Sub/File.smd/more", NULL, false);
		expect_find(c, root, "x/a/F.SMD", "x/A/f.smd", true);
		sm_fs_cache_free(c);
		assert_int_equal(counted.live, 0);
	}
	assert_true(counted.calls > 20);
	if (!os_names_ignore_case()) {
		/* x/a there too: taken as written, and f.smd is not in it */
		snprintf(dir, sizeof(dir), "%s/x/a", root);
		assert_true(os_mkdir(dir));
		expect_find(NULL, root, "x/a/f.smd", NULL, false);
		expect_find(NULL, root, "x/A/F.smd", "x/A/f.smd", true);
	}
	test_remove_tree(root);
	free(root);
}

static void test_qc_origin(void **state)
{
	(void)state;
	char *dir = test_temp_path("origin");
	assert_true(os_mkdir(dir));
	smdmx_error err;
	smdmx_qc *qc = qc_beside_base(dir, "origin.qc", "$origin 5 5 5\n$origin 1 2 3 90\n$body b \"base.smd\"\n$sequence idle \"base.smd\"\n$origin 9 9 9\n", &err);
	if (!qc) fail_msg("%s", err.message);
	assert_true(qc->origin[0] == 1 && qc->origin[1] == 2 && qc->origin[2] == 3 && qc->origin[3] == 90);
	smdmx_qc_scene_options o;
	memset(&o, 0, sizeof(o));
	o.placed = true;
	smdmx_scene *s = smdmx_qc_body_scene(qc, NULL, &o, &err, NULL);
	if (!s) fail_msg("%s", err.message);
	/* base.smd's corners (0 0 1), (1 0 1), (0 1 1) less (1 2 3), turned 90 degrees
	 * counter-clockwise about Z: (2 -1 -2), (2 0 -2), (1 -1 -2) */
	const float want[3][3] = { { 2, -1, -2 }, { 2, 0, -2 }, { 1, -1, -2 } };
	const smdmx_mesh *m = &s->meshes[0];
	for (size_t c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++)
			assert_float_equal(m->positions[m->position_indices[c]][k] + m->transform.position[k], want[c][k], 1e-6);
	/* the root bone at R (0 - origin); its rotation turned with it */
	assert_float_equal(s->joints[0].bind.position[0], 2, 1e-6);
	assert_float_equal(s->joints[0].bind.position[1], -1, 1e-6);
	assert_float_equal(s->joints[0].bind.position[2], -3, 1e-6);
	assert_float_equal(s->joints[0].bind.orientation[2], 0.70710678f, 1e-6);
	assert_float_equal(s->joints[0].bind.orientation[3], 0.70710678f, 1e-6);
	smdmx_scene_free(s);
	/* not placed, or as the files hold it: where the file has it */
	o.as_files = true;
	s = smdmx_qc_body_scene(qc, NULL, &o, &err, NULL);
	assert_non_null(s);
	assert_true(s->joints[0].bind.position[0] == 0 && s->meshes[0].transform.position[0] == 0);
	smdmx_scene_free(s);
	s = smdmx_qc_body_scene(qc, NULL, NULL, &err, NULL);
	assert_non_null(s);
	assert_true(s->joints[0].bind.position[1] == 0 && s->meshes[0].positions[0][2] == 1);
	smdmx_scene_free(s);
	smdmx_qc_free(qc);
	/* no $sequence: the last $origin; no turn given: none */
	qc = qc_beside_base(dir, "origin.qc", "$body b \"base.smd\"\n$origin 0 0 7\n$origin 0 0 68\n", &err);
	assert_non_null(qc);
	assert_true(qc->origin[2] == 68 && qc->origin[3] == 0);
	smdmx_qc_free(qc);
	/* two numbers: an error at the line's end, with what it needs */
	assert_null(qc_beside_base(dir, "origin.qc", "$origin 1 2\n$body b \"base.smd\"\n", &err));
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.message, "X, Y and Z"));
	assert_null(qc_beside_base(dir, "origin.qc", "$origin 1 2 x\n", &err));
	assert_int_equal(err.code, SMDMX_ERROR_BAD_NUMBER);
	assert_int_equal(err.column, 13);
	/* smdmx_scene_move refuses what is not a number */
	qc = qc_beside_base(dir, "origin.qc", "$body b \"base.smd\"\n", &err);
	s = smdmx_qc_body_scene(qc, NULL, NULL, &err, NULL);
	double nan_origin[3] = { 0, NAN, 0 };
	assert_false(smdmx_scene_move(s, nan_origin, 0, &err));
	assert_int_equal(err.code, SMDMX_ERROR_USAGE);
	smdmx_scene_free(s);
	smdmx_qc_free(qc);
	test_remove_tree(dir);
	free(dir);
}

/* The QC dmx2smd --qc writes, in the C locale's numbers whatever the locale. */
static void test_qc_text(void **state)
{
	(void)state;
	smdmx_scene s;
	memset(&s, 0, sizeof(s));
	s.up_axis = 'Y';
	smdmx_qc_sequence seq[2] = { { "walk", "walk.smd", 29.97 }, { "run", "anims/run.smd", 30 } };
	char *saved = test_c_numbers_begin();
	setlocale(LC_NUMERIC, "de_DE.UTF-8"); /* where there is one: "29,97" in printf */
	char *t = smdmx_qc_text(&s, "hero", "hero.smd", "\tflexfile \"hero.vta\"\n", "$attachment \"eyes\" \"head\" 0 0 1\n", seq, 2);
	test_c_numbers_end(saved);
	assert_non_null(t);
	assert_string_equal(t, "$upaxis Y\n$model \"hero\" \"hero.smd\" {\n\tflexfile \"hero.vta\"\n}\n$attachment \"eyes\" \"head\" 0 0 1\n"
	                       "$sequence \"walk\" \"walk.smd\" fps 29.97\n$sequence \"run\" \"anims/run.smd\" fps 30\n");
	smdmx_qc_text_free(t);
	/* clips alone, Z up: no $model */
	s.up_axis = 'Z';
	t = smdmx_qc_text(&s, NULL, NULL, NULL, NULL, seq + 1, 1);
	assert_string_equal(t, "$sequence \"run\" \"anims/run.smd\" fps 30\n");
	smdmx_qc_text_free(t);
	/* a model without a block */
	t = smdmx_qc_text(&s, "prop", "prop.smd", "", NULL, NULL, 0);
	assert_string_equal(t, "$model \"prop\" \"prop.smd\"\n");
	smdmx_qc_text_free(t);
}

typedef struct qc_found {
	size_t errors, warnings;
	char said[2][600];
} qc_found;

static void keep_qc_finding(void *user, const smdmx_finding *f)
{
	qc_found *x = user;
	size_t n = x->errors + x->warnings;
	if (n < 2) snprintf(x->said[n], sizeof(x->said[n]), "%s%u:%u: %s", f->file ? "(other file) " : "", f->line, f->column, f->message);
	if (f->error) x->errors++;
	else x->warnings++;
}

/* smdmx check's QC rules, through the library: a model file not there is an error at its name,
 * a file only copied with the QC a warning. */
static void test_qc_check(void **state)
{
	(void)state;
	static const char text[] = "$modelname \"m.mdl\"\n$body b \"nothere.smd\"\n$proceduralbones \"bones.vrd\"\n";
	char *path = test_temp_file("check.qc", text, sizeof(text) - 1);
	smdmx_error err;
	smdmx_qc *qc = smdmx_qc_read_file(path, NULL, &err, NULL);
	assert_non_null(qc);
	qc_found x = { 0, 0, { "", "" } };
	assert_int_equal(smdmx_qc_check(qc, NULL, keep_qc_finding, &x), 2);
	assert_int_equal(x.errors, 1);
	assert_int_equal(x.warnings, 1);
	assert_non_null(strstr(x.said[0], "2:9: cannot find '"));
	assert_non_null(strstr(x.said[0], "nothere.smd' (named by $body)"));
	assert_non_null(strstr(x.said[1], "3:18: cannot find '"));
	assert_non_null(strstr(x.said[1], "bones.vrd' (named by $proceduralbones)"));
	smdmx_qc_free(qc);
	/* the face project has every file: nothing to say */
	qc = face_qc();
	assert_int_equal(smdmx_qc_check(qc, NULL, NULL, NULL), 0);
	smdmx_qc_free(qc);
	remove(path);
	free(path);
}

int main(void)
{
	setlocale(LC_ALL, ""); /* QC numbers read and written with '.' in any locale */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g2_references),
		cmocka_unit_test(test_g3_model_block),
		cmocka_unit_test(test_includes_and_folders),
		cmocka_unit_test(test_variables_and_macros),
		cmocka_unit_test(test_rename_at_source),
		cmocka_unit_test(test_macro_backslashes),
		cmocka_unit_test(test_goldsrc_sequence),
		cmocka_unit_test(test_tokens_that_are_none),
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_block_open_at_end),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_rig_face),
		cmocka_unit_test(test_rig_combination),
		cmocka_unit_test(test_rig_cut_clash),
		cmocka_unit_test(test_rig_cut_adds_up),
		cmocka_unit_test(test_rig_rules),
		cmocka_unit_test(test_rig_attachments),
		cmocka_unit_test(test_corpus_dmx_round_trip),
		cmocka_unit_test(test_corpus_sdk_humans),
		cmocka_unit_test(test_keep_going),
		cmocka_unit_test(test_number_prefix),
		cmocka_unit_test(test_stray_block),
		cmocka_unit_test(test_keep_going_open_block),
		cmocka_unit_test(test_keep_going_blocks),
		cmocka_unit_test(test_keep_going_body_without_file),
		cmocka_unit_test(test_unclosed_blocks),
		cmocka_unit_test(test_absolute_cd),
		cmocka_unit_test(test_qc_model_scene),
		cmocka_unit_test(test_qc_body_scene),
		cmocka_unit_test(test_qc_find),
		cmocka_unit_test(test_qc_origin),
		cmocka_unit_test(test_qc_text),
		cmocka_unit_test(test_qc_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
