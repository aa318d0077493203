/* The programs' options, one table: see option_table.h. A row per option and per wording:
 * an option two commands take with other words (-q of a conversion and of diff) is a row
 * for each, with one id. The help's lines are at most 70 columns, after its 25. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "option_table.h"

#define JOBS_MAX 256 /* -j and --threads (cli.h: CLI_JOBS_MAX) */

#define CONV CMD_CONVERSIONS
#define FLAG VAL_NONE, NULL, 0, 0, 0, NULL
#define TEXT VAL_TEXT, NULL, 0, 0, 0, NULL
#define FILE_OF(ext) VAL_FILE, ext, 0, 0, 0, NULL
#define DIR_ VAL_DIR, NULL, 0, 0, 0, NULL
#define CHOICE(v) VAL_CHOICE, v, 0, 0, 0, NULL
#define CHOICE_F(v, f) VAL_CHOICE, v, 0, 0, f, NULL
#define NUMBER(lo, hi, f, wants) VAL_NUMBER, NULL, lo, hi, f, wants
#define NAME_ VAL_NAME, NULL, 0, 0, 0, NULL

#define TARGETS "sdk2013 tf2 gmod l4d2 portal2 csgo sfm source2"

static const cli_option options[] = {
	/* ---- the conversions and smdmx qc: inputs and outputs */
	{ CONV, OP_OUT, "-o", "OUT", FILE_OF(NULL), SEC_IO, NULL, "the output of a single input ('-': standard output)",
	  "Its extension says what is written." },
	{ CONV, OP_OUTDIR, "-d", "DIR", DIR_, SEC_IO, NULL,
	  "write each output into DIR (with -r, mirroring the tree)\n(neither: each output beside its input)", NULL },
	{ CMD_QC, OP_OUTDIR, "-d", "OUTDIR", DIR_, SEC_IO, NULL, "where the projects go (required)",
	  "An OUTDIR inside a project is refused." },
	{ CMD_CONVERT, OP_TO, "--to", "EXT", CHOICE_F("smd sma phys vta dmx gltf glb", OF_CASELESS | OF_DOT), SEC_IO, NULL,
	  "the kind of the outputs, with -d or beside the inputs: smd, sma, phys,\nvta, dmx, gltf or glb (glTF 2.0: JSON, or binary)", NULL },
	{ CMD_SMD2DMX, OP_TO, "--to", "EXT", CHOICE_F("dmx", OF_CASELESS | OF_DOT), SEC_IO, NULL,
	  "the outputs' extension (dmx: the only one)", NULL },
	{ CMD_DMX2SMD, OP_TO, "--to", "EXT", CHOICE_F("smd sma phys vta", OF_CASELESS | OF_DOT), SEC_IO, NULL,
	  "the outputs' extension (default smd)", NULL },
	{ CMD_QC, OP_TO, "--to", NULL, CHOICE_F("dmx smd", OF_CASELESS), SEC_IO, "--to dmx|smd", "the format the models end in (required)",
	  NULL },
	{ CONV, OP_RECURSIVE, "-r --recursive", NULL, FLAG, SEC_IO, NULL,
	  "inputs may be directories: convert every file below them", NULL },
	{ CMD_QC, OP_RECURSIVE, "-r --recursive", NULL, FLAG, SEC_IO, NULL,
	  "take directories: every .qc below them, in byte order of the names", NULL },
	{ CONV, OP_NAME, "--name", "NAME", NAME_, SEC_IO, NULL,
	  "the name of a model read from standard input ('-', told by its\ncontent; default: stdin)",
	  "Its output goes to DIR/NAME.EXT with -d, else to standard output; a depfile never names it, so "
	  "--depfile with the output on standard output is refused." },
	{ CONV, OP_FORCE, "-f --force", NULL, FLAG, SEC_IO, NULL, "overwrite existing outputs (never an input)",
	  "Without it, an existing output is an error." },
	{ CMD_QC, OP_FORCE, "-f --force", NULL, FLAG, SEC_IO, NULL, "overwrite existing outputs", NULL },
	{ CONV, OP_UPDATE, "-u --update", NULL, FLAG, SEC_IO, NULL,
	  "convert only inputs whose output is missing or older than what the\nconversion reads (the input, its VTA, a QC "
	  "and its files)",
	  "The old output is replaced; a note says how many were up to date." },
	{ CMD_QC, OP_UPDATE, "-u --update", NULL, FLAG, SEC_IO, NULL,
	  "convert only files whose outputs are missing or older than what they\nare made of (replacing them); QC files "
	  "are rewritten when they change",
	  NULL },
	{ CONV | CMD_QC, OP_JOBS, "-j --jobs", "N", NUMBER(1, JOBS_MAX, OF_WHOLE | OF_ATTACHED, "a number of jobs from 1 to 256"), SEC_IO, NULL,
	  "convert N files at once (default: the number of cores)",
	  "Outputs and messages are the same for every N." },
	{ CONV | CMD_QC, OP_THREADS, "--threads", "N", NUMBER(1, JOBS_MAX, OF_WHOLE, "a number from 1 to 256"), SEC_IO, NULL,
	  "threads for one file: SMD triangles and keyvalues2 number arrays\nare read and written in parts (default: the "
	  "number of cores over\nthe files converted at once; the output is the same at any count)",
	  "One big file gets them all and a batch of many gets one each. Outputs, errors and warnings are the same for every N." },
	{ CONV, OP_KEEP_GOING, "-k --keep-going", NULL, FLAG, SEC_IO, NULL,
	  "convert what can be converted, the biggest files first; exit 1 at\nthe end if any failed",
	  "Without it, the first failure stops the batch: the files go in input order, and none after a failed one is "
	  "put in place. The biggest first only saves time (no large file left to run alone at the end): outputs and "
	  "messages are the same." },
	{ CMD_QC, OP_KEEP_GOING, "-k --keep-going", NULL, FLAG, SEC_IO, NULL,
	  "write every project whatever fails, which turns on three things: every\nfile converted (a missing one stays "
	  "named as written), a QC line\nthat cannot be read kept as written, and a file that fails copied\nunchanged; "
	  "exit 1 at the end",
	  "Without it the first failure stops the project." },
	{ CONV | CMD_QC, OP_DEPFILE, "--depfile", "FILE", FILE_OF(NULL), SEC_IO, NULL,
	  "write a make-style dependency line (outputs: inputs)", "Written when every conversion succeeded." },
	{ CONV, OP_REPORT, "--report", "FILE.html", FILE_OF("html"), SEC_IO, NULL,
	  "a page with a row per input: it and its output drawn side by side,\ntheir counts, the messages and smdmx diff's "
	  "verdict",
	  "Rows are filtered and sorted in the page (see smdmx report in smdmx(1))." },
	{ CMD_QC, OP_REPORT, "--report", "FILE.html", FILE_OF("html"), SEC_IO, NULL,
	  "a page with a row per QC: its model and the converted one drawn side\nby side, their counts, the messages and "
	  "smdmx diff's verdict",
	  NULL },

	/* ---- diagnostics */
	{ CONV, OP_QUIET, "-q --quiet", NULL, FLAG, SEC_DIAG, NULL, "no warnings, no progress line",
	  "Errors still show. The progress line shows on a terminal for a batch, and for a file of 8 MiB or more what of "
	  "it is read." },
	{ CMD_QC, OP_QUIET, "-q --quiet", NULL, FLAG, SEC_DIAG, NULL, "no warnings", NULL },
	{ CONV | CMD_QC, OP_WERROR, "-W", NULL, CHOICE("error"), SEC_DIAG, "-W error, -Werror",
	  "treat warnings as errors (the file fails, nothing is written)", NULL },
	{ CONV | CMD_QC, OP_WERROR, "-Werror", NULL, VAL_NONE, NULL, 0, 0, OF_HIDDEN, NULL, SEC_DIAG, NULL, "", NULL },
	{ CONV | CMD_QC, OP_MAX_WARNINGS, "--max-warnings", "N", NUMBER(0, 1e9, OF_WHOLE, "a count"), SEC_DIAG, NULL,
	  "warnings shown per file (default 20; 0: all)", "The rest are counted." },
	{ CONV, OP_VERBOSE, "-v --verbose", NULL, FLAG, SEC_DIAG, NULL, "a note on what each file became", NULL },
	{ CMD_QC, OP_VERBOSE, "-v --verbose", NULL, FLAG, SEC_DIAG, NULL, "a note on each file written", NULL },

	/* ---- what is written and how it is read */
	{ CONV, OP_VTA, "--vta", "FLEX.vta", FILE_OF("vta"), SEC_CONV, NULL,
	  "SMD to DMX: the reference's flex shapes (X.vta beside X.smd among\nthe inputs is taken by itself; a VTA "
	  "without its SMD fails);\nDMX to SMD: the name of the VTA written (default OUT.vta)",
	  "The VTA's vertices meet the reference's triangle corners by position, as studiomdl matches them (a VTA "
	  "numbered by the corners pairs by number); vertices at no corner, corners no vertex reaches and corners that "
	  "took the nearest vertex are reported with counts." },
	{ CMD_SMD2DMX, OP_QC, "--qc", "FILE.qc", FILE_OF("qc"), SEC_CONV, NULL,
	  "convert the QC's $model (its SMD, flexfile VTA, flex rig,\n$attachment lines, $scale, $upaxis) into one DMX",
	  "The QC is read as studiomdl reads it ($include against the main QC's folder, $definevariable, "
	  "$definemacro, $cd, $pushd). A flexpair whose split the DMX's balance holds exactly stays stereo; rules in "
	  "studiomdl's canonical form of a combination operator become one, any others DmeFlexRules. What a DMX cannot "
	  "carry (keys at other positions, decay, controller groups beside rules, eyeball, eyelid and mouth lines) is "
	  "reported with a count. Without $model, the first $sequence's animation. Inputs, --vta, --clips, --scale, "
	  "--up-axis and -r are refused beside it." },
	{ CMD_DMX2SMD, OP_QC, "--qc", "FILE.qc", FILE_OF("qc"), SEC_CONV, NULL,
	  "write FILE.qc beside the SMD with what SMD cannot hold (rig,\nattachments)",
	  "With one input: a QC with $upaxis, a $model block naming the SMD and VTA with the flex lines and the rig "
	  "(controllers, localvar, % rules, in studiomdl's own compile of a combination operator), and $attachment "
	  "lines; an animation DMX gives $sequence lines. A stereo shape stays a flexpair when its balance is "
	  "studiomdl's split, else it is written as two shapes (NAMER, NAMEL), with a warning. Warnings for what SMD "
	  "loses leave out what the QC carries." },
	{ CMD_SMD2DMX, OP_MODEL, "--model", "NAME", TEXT, SEC_CONV, NULL, "with --qc: the $model to convert (default: the first)",
	  NULL },
	{ CONV | CMD_QC, OP_TARGET, "--target", "T", CHOICE(TARGETS), SEC_CONV, NULL,
	  "the encoding and model format a game wants: sdk2013, tf2, gmod\n(binary 2, model 1), l4d2 (binary 4, model 15), "
	  "portal2, csgo,\nsfm (binary 5, model 18), source2 (binary 9, model 22)",
	  "It fills in what --encoding, --encoding-version and --model-version do not say." },
	{ CONV | CMD_QC, OP_ENCODING, "--encoding", "E", CHOICE("keyvalues2 keyvalues2_flat binary binary_seqids"), SEC_CONV, NULL,
	  "DMX: keyvalues2 (default), keyvalues2_flat, binary or\nbinary_seqids (s&box's binary 9, element ids numbered in "
	  "order)",
	  NULL },
	{ CONV | CMD_QC, OP_ENCODING_VERSION, "--encoding-version", "N",
	  VAL_NUMBER, "1 2 3 4 5 9", 1, 9, OF_WHOLE, "1 to 4 (keyvalues2) or 1 to 5 or 9 (binary)", SEC_CONV, NULL,
	  "DMX: keyvalues2 1 to 4; binary 1 to 5 or 9; binary_seqids 9\n(default: keyvalues2 1, binary 5, or the version "
	  "the file's\nattributes need)",
	  "A DMX re-encoded by smdmx convert takes the version its attributes need: 4 and 9 for uint64 and uint8, "
	  "binary 9 for prefix attributes, binary 2 for the legacy objectid. A version the encoding has not is refused "
	  "before anything is read." },
	{ CONV | CMD_QC, OP_MODEL_VERSION, "--model-version", "N", CHOICE("1 15 18 22"), SEC_CONV, NULL,
	  "DMX model format: 1, 15, 18 (default) or 22", NULL },
	{ CONV, OP_KEYS, "--keys", NULL, CHOICE("all reduce"), SEC_CONV, "--keys all|reduce",
	  "DMX animation: every key, or leave out what interpolation\nreproduces exactly (default)", NULL },
	{ CONV, OP_KEY_TOLERANCE, "--key-tolerance", "F", NUMBER(0, 1e6, 0, "a number of units (0: exact)"), SEC_CONV, NULL,
	  "DMX animation: a left-out key may be off by F; 0 (default): exact", NULL },
	{ CONV, OP_FPS, "--fps --frame-rate", "N", NUMBER(0, 10000, OF_ABOVE_LO, "a number in (0, 10000]"), SEC_CONV, "--fps N",
	  "the frame rate of an SMD animation (default 30)", "--frame-rate N is the same." },
	{ CONV, OP_CLIPS, "--clips", NULL, FLAG, SEC_CONV, NULL,
	  "SMD to DMX: every input is an animation; one clip each, named\nafter its file, on the first file's bones (-o "
	  "names the DMX)",
	  NULL },
	{ CONV, OP_CLIP, "--clip", "NAME", TEXT, SEC_CONV, NULL,
	  "DMX to SMD: only this clip (else one SMD per clip, OUT_clip.smd)", NULL },
	{ CONV, OP_GOLDSRC, "--goldsrc", NULL, FLAG, SEC_CONV, NULL,
	  "SMD: GoldSrc flavour (no weight links, .bmp materials, names of\nat most 63 characters)",
	  "Each vertex goes on its strongest bone; a longer name is an error." },
	{ CONV | CMD_QC, OP_LF, "--lf", NULL, FLAG, SEC_CONV, NULL, "SMD: LF line ends instead of CRLF", NULL },
	{ CMD_CONVERT, OP_LINKS, "--links", "N", CHOICE("4 8"), SEC_CONV, NULL,
	  "glTF: the weight links a vertex keeps, its strongest, renormalised:\n4 (default) or 8 (a second JOINTS and WEIGHTS set)",
	  "Vertices that had more are counted in a warning." },
	{ CONV, OP_SCALE, "--scale", "F", NUMBER(1e-9, 1e6, 0, "a positive number"), SEC_CONV, NULL, "multiply every length by F",
	  NULL },
	{ CONV, OP_UP_AXIS, "--up-axis", NULL, CHOICE("X Y Z"), SEC_CONV, "--up-axis X|Y|Z",
	  "the source's up axis; the output is Z up, as Source expects", NULL },
	{ CMD_QC, OP_RIG, "--rig", NULL, CHOICE("qc dmx"), SEC_CONV, "--rig qc|dmx",
	  "--to dmx: a $model's flexcontroller, %rule and localvar lines stay in\nthe QC with noautodmxrules (qc, the "
	  "default) or move into its DMX (dmx)",
	  "With dmx, controller groups are lost and flexpairs without a controller of their name cut, with warnings." },

	/* ---- smdmx info, dump */
	{ CMD_INFO, OP_JSON, "--json", NULL, FLAG, SEC_OPTIONS, NULL, "one JSON object instead of text", NULL },
	{ CMD_INFO | CMD_CHECK, OP_NAME, "--name", "NAME", NAME_, SEC_OPTIONS, NULL,
	  "the name of a model read from standard input (default: stdin)", NULL },
	{ CMD_DUMP, OP_FULL, "--full", NULL, FLAG, SEC_OPTIONS, NULL, "every array whole (else shortened)", NULL },

	/* ---- smdmx diff */
	{ CMD_DIFF, OP_TOLERANCE, "--tolerance", "F", NUMBER(0, 1e300, 0, "a number >= 0"), SEC_OPTIONS, NULL,
	  "values (positions, normals, UVs, weights) equal within F\n(default: at float32)", NULL },
	{ CMD_DIFF, OP_ROTATION_TOLERANCE, "--rotation-tolerance", "F", NUMBER(0, 1e300, OF_ABOVE_LO, "a number > 0"),
	  SEC_OPTIONS, NULL, "rotations' matrix entries equal within F (default 2e-6: SMD\nprints angles to six decimals)",
	  NULL },
	{ CMD_DIFF, OP_MAX, "--max", "N", NUMBER(0, 1e9, OF_WHOLE, "a count"), SEC_OPTIONS, NULL,
	  "differences listed (default 50; 0: all); every one is counted", NULL },
	{ CMD_DIFF, OP_FPS, "--fps", "N", NUMBER(0, 10000, OF_ABOVE_LO, "a number in (0, 10000]"), SEC_OPTIONS, NULL,
	  "the rate SMD animations are read at (default 30)", NULL },
	{ CMD_DIFF, OP_STRICT, "--strict", NULL, FLAG, SEC_OPTIONS, NULL,
	  "pair meshes by name, compare them polygon by polygon in order, and\ncall two up axes a difference", NULL },
	{ CMD_DIFF, OP_NAME, "--name", "NAME", NAME_, SEC_OPTIONS, NULL,
	  "the name of a model read from standard input (default: stdin)", NULL },
	{ CMD_DIFF, OP_QUIET, "-q --quiet", NULL, FLAG, SEC_OPTIONS, NULL, "print nothing: the exit code says", NULL },

	/* ---- smdmx check */
	{ CMD_CHECK, OP_TARGET, "--target", "T", CHOICE("goldsrc " TARGETS), SEC_OPTIONS, NULL,
	  "the engine the model is for (default sdk2013)", NULL },

	/* ---- smdmx preview */
	{ CMD_PREVIEW, OP_OUT, "-o", "OUT.png", FILE_OF("png"), SEC_OPTIONS, NULL, "the picture of a single model ('-': standard output)",
	  NULL },
	{ CMD_PREVIEW, OP_OUTDIR, "-d", "DIR", DIR_, SEC_OPTIONS, NULL, "write each picture into DIR", NULL },
	{ CMD_PREVIEW, OP_VIEWS, "--views", "V", CHOICE("front side top three-quarter all"), SEC_OPTIONS, NULL,
	  "front, side, top, three-quarter (the default) or all (four in one\npicture)",
	  "front looks from -Y, side from -X." },
	{ CMD_PREVIEW, OP_SIZE, "--size", "N", NUMBER(16, 4096, OF_WHOLE, "a whole number of pixels from 16 to 4096"), SEC_OPTIONS,
	  NULL, "pixels of one view's square, 16 to 4096 (default 512)", NULL },
	{ CMD_PREVIEW, OP_SKELETON, "--skeleton", NULL, FLAG, SEC_OPTIONS, NULL, "the bones as lines over the mesh", NULL },
	{ CMD_PREVIEW, OP_SHAPE, "--shape", "NAME", TEXT, SEC_OPTIONS, NULL, "the mesh with that flex shape applied", NULL },
	{ CMD_PREVIEW, OP_SHAPES, "--shapes", NULL, FLAG, SEC_OPTIONS, NULL, "a sheet of the base and every shape", NULL },
	{ CMD_PREVIEW, OP_CLIP, "--clip", "NAME", TEXT, SEC_OPTIONS, NULL,
	  "the mesh posed by that clip, skinned by its weights, at --frame", NULL },
	{ CMD_PREVIEW, OP_FRAME, "--frame", "N", NUMBER(0, 1e9, OF_WHOLE, "a frame number, 0 or more"), SEC_OPTIONS, NULL,
	  "the frame of --clip (default 0)", NULL },
	{ CMD_PREVIEW, OP_UV, "--uv", NULL, FLAG, SEC_OPTIONS, NULL, "the UV layout of each material in the unit square, V up", NULL },
	{ CMD_PREVIEW, OP_MODEL, "--model", "NAME", TEXT, SEC_OPTIONS, NULL,
	  "of a QC, that $model or body part alone (default: the whole model,\nevery $body, $model and the first choice of "
	  "each $bodygroup)",
	  NULL },
	{ CMD_PREVIEW, OP_BODYGROUP, "--bodygroup", "PART=CHOICE", VAL_TEXT, NULL, 0, 0, OF_REPEAT, NULL, SEC_OPTIONS, NULL,
	  "of a QC, that choice of a $bodygroup (its number from 0, blank,\nor its file's name); given again for another",
	  NULL },
	{ CMD_PREVIEW, OP_NAME, "--name", "NAME", NAME_, SEC_OPTIONS, NULL,
	  "the name of a model read from standard input (default: stdin)", NULL },
	{ CMD_PREVIEW, OP_FORCE, "-f --force", NULL, FLAG, SEC_OPTIONS, NULL, "replace pictures that are there", NULL },
	{ CMD_PREVIEW | CMD_REPORT, OP_JOBS, "-j --jobs", "N", NUMBER(1, JOBS_MAX, OF_WHOLE | OF_ATTACHED, "a count from 1 to 256"),
	  SEC_OPTIONS, NULL, "draw N pictures at once (default: the number of cores)", NULL },
	{ CMD_PREVIEW | CMD_REPORT, OP_QUIET, "-q --quiet", NULL, FLAG, SEC_OPTIONS, NULL, "no warnings", NULL },

	/* ---- smdmx report */
	{ CMD_REPORT, OP_OUT, "-o", "FILE.html", FILE_OF("html"), SEC_OPTIONS, NULL, "the page (required)",
	  "A report of more than 100 rows keeps its pictures beside the page, in FILE_files/." },
	{ CMD_REPORT, OP_FORCE, "-f --force", NULL, FLAG, SEC_OPTIONS, NULL, "replace the page when it is there", NULL },

	/* ---- every command */
	{ ~0u, OP_HELP, "-h --help", NULL, FLAG, SEC_OPTIONS, NULL, "print this help and exit", NULL },
	{ CONV | CMD_SMDMX, OP_VERSION, "--version", NULL, FLAG, SEC_OPTIONS, NULL, "print the version and exit", NULL },
};

static const cli_command commands[] = {
	{ CMD_SMD2DMX, "smd2dmx", NULL, "usage: smd2dmx [options] INPUT... [-o OUT | -d DIR]\n",
	  "Converts SMD models and animations (and VTA flex files) to DMX.\n",
	  "exit codes: 0 success, 1 at least one file failed, 2 a usage error", "smd sma phys vta" },
	{ CMD_DMX2SMD, "dmx2smd", NULL, "usage: dmx2smd [options] INPUT... [-o OUT | -d DIR]\n",
	  "Converts DMX models and animations to SMD (and VTA).\n",
	  "exit codes: 0 success, 1 at least one file failed, 2 a usage error", "dmx" },
	{ CMD_CONVERT, "smdmx convert", "convert", "usage: smdmx convert [options] INPUT... [-o OUT | -d DIR --to EXT]\n",
	  "Converts between SMD, VTA and DMX by the output's extension (--to EXT with -d).\n",
	  "exit codes: 0 success, 1 at least one file failed, 2 a usage error", "smd sma phys vta dmx" },
	{ CMD_INFO, "smdmx info", "info", "usage: smdmx info FILE [--json]\n",
	  "Says what a model file holds: its kind, encoding and format version, joints, meshes,\n"
	  "vertices, faces, materials, flex shapes and controllers, clips with frames and rate.\n"
	  "A QC: the files it includes, its $model blocks and rigs, every file it names and\n"
	  "whether it exists.\n",
	  "exit codes: 0 success, 1 the file could not be read, 2 a usage error", "smd sma phys vta dmx qc qci" },
	{ CMD_DIFF, "smdmx diff", "diff", "usage: smdmx diff A [A.vta] B [B.vta] [options]\n",
	  "Compares two models by meaning, SMD (with its VTA after it) or DMX in any mix, or two\n"
	  "QCs (their models as their files hold them, as smdmx report compares them): joints,\n"
	  "flex shapes, attachments and clips matched by name; polygons as a set over all meshes (a\n"
	  "polygon equals its fan of triangles, corners up to rotation, materials by name) at\n"
	  "float32 (or within --tolerance); weights as a DMX side holds them; rotations as matrices;\n"
	  "animation frame by frame from each clip's first; flex controllers and rules. Models of\n"
	  "two up axes are compared turned to Z up; a model without joints equals it on one root\n"
	  "bone that holds every vertex. Every difference is counted; at most --max are listed.\n",
	  "exit codes: 0 equal, 1 different, 2 a usage error, a file that cannot be read as a model,\nor a comparison that "
	  "cannot be made (out of memory, a clip past the limits of a comparison)",
	  "smd sma phys vta dmx qc" },
	{ CMD_CHECK, "smdmx check", "check", "usage: smdmx check FILE [--target T]\n",
	  "Lints a model for a target engine: bones over the limit, weight links above the target's\n"
	  "limit, jointCount against the weights present, unnormalised weights, degenerate and\n"
	  "duplicate triangles, names GoldSrc, studiomdl or QC files cannot hold, missing or repeated\n"
	  "frames. A QC: files it names that do not exist, rules naming unknown flexes or controllers\n"
	  "(checked against a DMX model's shapes and controls). Errors and warnings go to stderr.\n",
	  "exit codes: 0 no error, 1 an error was found, 2 a usage error", "smd sma phys vta dmx qc qci" },
	{ CMD_DUMP, "smdmx dump", "dump", "usage: smdmx dump FILE.dmx [--full]\n",
	  "Lists a DMX file's elements and attributes; arrays are shortened unless --full.\n",
	  "exit codes: 0 success, 1 the file could not be read, 2 a usage error", "dmx" },
	{ CMD_QC, "smdmx qc", "qc",
	  "usage: smdmx qc IN.qc... --to dmx|smd -d OUTDIR [options]\n"
	  "       smdmx qc -r DIR... --to dmx|smd -d OUTDIR [options]\n",
	  "Converts QC projects: every file a QC and its includes name goes into OUTDIR at its place\n"
	  "below the folder that holds them all, converted (SMD, VTA to DMX, or DMX to SMD and VTA) or\n"
	  "copied, and the QCs and their includes are written there changed only where the conversion\n"
	  "needs it. Several QCs (a library) are one batch into one tree: a file they share is converted\n"
	  "once, an include they share written once.\n",
	  "exit codes: 0 success, 1 a file was missing, failed or could not be read, 2 a usage error", "qc" },
	{ CMD_PREVIEW, "smdmx preview", "preview", "usage: smdmx preview FILE [FILE.vta]... [-o OUT.png | -d DIR] [options]\n",
	  "Draws a picture of each model (an SMD with its VTA after it, a DMX, or a QC's $model) as\n"
	  "PNG: shaded polygons lit from the viewer, each material in its own colour, Source's Z up,\n"
	  "the model framed to fit. Without -o or -d, FILE.png beside each FILE ('-': standard input,\n"
	  "drawn to standard output; -o - writes any picture there).\n",
	  "exit codes: 0 every picture written, 1 a file failed, 2 a usage error", "smd sma phys vta dmx qc" },
	{ CMD_REPORT, "smdmx report", "report", "usage: smdmx report A_DIR B_DIR -o FILE.html [-j N] [-f] [-q]\n",
	  "Pairs the model files of two trees by their place (a/x.smd with b/x.dmx, the other format\n"
	  "first; X.vta goes with X.smd), draws each side, compares them as smdmx diff does, and writes\n"
	  "an HTML page: a row per pair with both pictures, their counts, what reading them said and\n"
	  "the verdict (differences a known cause explains named as expected); a summary, a search,\n"
	  "filters by state and sorting in the page. A file with no partner is a row of its own.\n",
	  "exit codes: 0 the report was written, 1 it could not be, 2 a usage error", "DIR" },
	{ CMD_SMDMX, "smdmx", NULL,
	  "usage: smdmx convert [options] INPUT... [-o OUT | -d DIR --to EXT]\n"
	  "       smdmx info FILE [--json]\n"
	  "       smdmx diff A B [--tolerance F] [--rotation-tolerance F] [--max N] [-q]\n"
	  "       smdmx check FILE [--target T]\n"
	  "       smdmx preview FILE... [-o OUT.png | -d DIR] [--views V] [--skeleton] [--uv] [options]\n"
	  "       smdmx report A_DIR B_DIR -o FILE.html\n"
	  "       smdmx dump FILE.dmx [--full]\n"
	  "       smdmx qc IN.qc --to dmx|smd -d OUTDIR [--rig qc|dmx] [options]\n"
	  "       smdmx --help | --version\n",
	  "\nconvert   between SMD, VTA and DMX by the output's extension (--to EXT with -d)\n"
	  "info      what a file holds\n"
	  "diff      compare two models by meaning, SMD or DMX in any mix; exit 0 equal, 1 different\n"
	  "check     lint a model for a target engine; exit 1 when it finds an error\n"
	  "dump      list a DMX file's elements and attributes\n"
	  "qc        convert a QC project: the QC, its includes and every file they name\n"
	  "preview   draw a model as a PNG picture (views, skeleton, shapes, poses, UVs)\n"
	  "report    an HTML page comparing two trees of models, drawn side by side\n"
	  "'smdmx COMMAND --help' lists a command's options; convert's follow.\n",
	  "exit codes: 0 success, 1 at least one file failed, 2 a usage error", NULL },
};

const cli_option *cli_options(size_t *count)
{
	*count = sizeof(options) / sizeof(options[0]);
	return options;
}

const cli_command *cli_commands(size_t *count)
{
	*count = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

const cli_command *cli_command_of(unsigned bit)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].bit == bit) return &commands[i];
	return NULL;
}

/* Whether list (words with a space between them) holds word (len bytes) as one of them. */
static bool has_word(const char *list, const char *word, size_t len, bool caseless)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " ");
		if (n == len && (caseless ? !strncasecmp(p, word, n) : !strncmp(p, word, n))) return true;
		p += n;
		while (*p == ' ') p++;
	}
	return false;
}

const cli_option *cli_option_find(unsigned command, const char *arg, const char **attached)
{
	size_t n = sizeof(options) / sizeof(options[0]);
	*attached = NULL;
	for (size_t i = 0; i < n; i++)
		if ((options[i].commands & command) && has_word(options[i].names, arg, strlen(arg), false)) return &options[i];
	/* -j8: a short name with its value */
	for (size_t i = 0; arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2] && i < n; i++)
		if ((options[i].commands & command) && (options[i].flags & OF_ATTACHED) && has_word(options[i].names, arg, 2, false)) {
			*attached = arg + 2;
			return &options[i];
		}
	return NULL;
}

/* "a, b or c" of a list of words, each after prefix, into buf. */
static void words_or(const char *list, const char *prefix, char *buf, size_t size)
{
	size_t len = 0, count = 0, k = 0;
	for (const char *p = list; *p; p += strcspn(p, " "), p += strspn(p, " ")) count++;
	buf[0] = 0;
	for (const char *p = list; *p && len < size; k++) {
		size_t n = strcspn(p, " ");
		const char *sep = k == 0 ? "" : k + 1 == count ? " or " : ", ";
		int w = snprintf(buf + len, size - len, "%s%s%.*s", sep, prefix, (int)n, p);
		if (w < 0) break;
		len += (size_t)w;
		p += n;
		p += strspn(p, " ");
	}
}

const char *cli_value_refused(const cli_option *opt, const char *value, double *number, char *why, size_t why_size)
{
	const char *first = opt->names; /* its first name says it in a refusal */
	int first_len = (int)strcspn(first, " ");
	char list[512];
	switch (opt->value) {
	case VAL_NONE:
		return NULL;
	case VAL_TEXT:
	case VAL_FILE:
	case VAL_DIR:
		if (value[0]) return NULL;
		snprintf(why, why_size, "%.*s needs a value, not an empty one", first_len, first);
		return why;
	case VAL_NAME: {
		const char *no = name_refused(value);
		if (!no) return NULL;
		snprintf(why, why_size, "%s", no);
		return why;
	}
	case VAL_CHOICE: {
		const char *v = (opt->flags & OF_DOT) && value[0] == '.' ? value + 1 : value;
		if (v[0] && !strchr(v, ' ') && has_word(opt->values, v, strlen(v), opt->flags & OF_CASELESS)) return NULL;
		words_or(opt->values, "", list, sizeof(list));
		snprintf(why, why_size, "%.*s is %s, not '%s'", first_len, first, list, value);
		return why;
	}
	case VAL_NUMBER: {
		char *end = NULL;
		double v = value[0] && !strchr(" \t\n\r\f\v", value[0]) ? strtod(value, &end) : 0;
		bool ok = end && !*end && v >= opt->lo && v <= opt->hi && (!(opt->flags & OF_ABOVE_LO) || v > opt->lo) &&
		          (!(opt->flags & OF_WHOLE) || v == (double)(long long)v);
		if (ok) {
			*number = v;
			return NULL;
		}
		snprintf(why, why_size, "%.*s wants %s, not '%s'", first_len, first, opt->wants, value);
		return why;
	}
	}
	return NULL;
}

void cli_values_or(const cli_option *opt, const char *prefix, char *buf, size_t size)
{
	words_or(opt->values ? opt->values : "", prefix, buf, size);
}

size_t cli_option_label(const cli_option *opt, char *buf, size_t size)
{
	if (opt->label) return (size_t)snprintf(buf, size, "%s", opt->label);
	size_t len = 0;
	buf[0] = 0;
	for (const char *p = opt->names; *p && len < size;) {
		size_t n = strcspn(p, " ");
		int w = snprintf(buf + len, size - len, "%s%.*s%s%s", len ? ", " : "", (int)n, p, opt->arg ? " " : "",
		                 opt->arg ? opt->arg : "");
		if (w < 0) break;
		len += (size_t)w;
		p += n;
		p += strspn(p, " ");
	}
	return len < size ? len : size - 1;
}

static const char *const section_titles[] = { "inputs and outputs", "diagnostics", "conversion", "options" };

/* The rows of command c's help: smdmx's own are convert's and its --help and --version. */
static bool in_help(const cli_option *o, unsigned bit)
{
	if (o->flags & OF_HIDDEN) return false;
	if (bit == CMD_SMDMX) return (o->commands & CMD_CONVERT) && o->id != OP_HELP && o->id != OP_VERSION;
	return (o->commands & bit) != 0;
}

void cli_help(const cli_command *c, void (*put)(void *user, const char *text), void *user)
{
	put(user, c->usage);
	put(user, c->about);
	size_t n = sizeof(options) / sizeof(options[0]);
	for (unsigned s = 0; s < sizeof(section_titles) / sizeof(section_titles[0]); s++) {
		bool titled = false;
		for (size_t i = 0; i < n; i++) {
			const cli_option *o = &options[i];
			if (o->section != s || !in_help(o, c->bit)) continue;
			char line[160];
			if (!titled) {
				snprintf(line, sizeof(line), "\n%s:\n", section_titles[s]);
				put(user, line);
				titled = true;
			}
			char label[96];
			size_t len = cli_option_label(o, label, sizeof(label));
			snprintf(line, sizeof(line), "  %-22s%s", label, len > 21 ? "\n                         " : " ");
			put(user, line);
			for (const char *p = o->help; *p;) {
				size_t k = strcspn(p, "\n");
				snprintf(line, sizeof(line), "%.*s\n", (int)k, p);
				put(user, line);
				p += k;
				if (*p) {
					p++;
					put(user, "                         ");
				}
			}
		}
	}
	put(user, "\n");
	put(user, c->exits);
	put(user, "\n");
}

const char *name_refused(const char *name)
{
	if (strpbrk(name, "/\\") || !name[0] || !strcmp(name, ".") || !strcmp(name, ".."))
		return "--name is the name of the model read from standard input, not a path";
	return NULL;
}
