/* The console a user meets (src/cli/console.c): the wait for a key only when Explorer started
 * the program, decided from how it was started; the progress line rewritten with escape
 * codes only where the terminal takes them. On Windows (under Wine in the suite) also the
 * facts themselves: a program given a console of its own by another program ends without
 * waiting, and the parent's name is read. */
#include "util.h"

#include "../src/cli/console.c"

#ifdef _WIN32
#include <io.h>
#include <windows.h>
#endif

/* An absolute path as Explorer gives it: with Wine's Z: drive where paths are Windows'. */
static const char *dropped(const char *rel, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", os_windows_paths() ? "Z:" : "", test_path(rel));
	return buf;
}

static void test_explorer_decides(void **state)
{
	(void)state;
	char file[8192], folder[8192];
	dropped("testdata/sample/arm.smd", file, sizeof(file));
	dropped("testdata/sample", folder, sizeof(folder));
	const os_launch explorer = { .own_console = true, .console_streams = true, .parent = "explorer.exe" };
	char prog[] = "smd2dmx", opt[] = "-v", rel[] = "arm.smd", gone[] = "Z:\\no\\such.smd";
	char *none[] = { prog, NULL };
	char *drop[] = { prog, file, folder, NULL };
	assert_true(launched_from_explorer(&explorer, 1, none));   /* a double click */
	assert_true(launched_from_explorer(&explorer, 3, drop));   /* a file and a folder dropped */
	os_launch upper = explorer;
	snprintf(upper.parent, sizeof(upper.parent), "EXPLORER.EXE");
	assert_true(launched_from_explorer(&upper, 3, drop));
	/* anything typed: an option, a relative name, a name that is not there */
	char *typed[][3] = { { prog, file, opt }, { prog, rel, NULL }, { prog, gone, NULL } };
	assert_false(launched_from_explorer(&explorer, 3, typed[0]));
	assert_false(launched_from_explorer(&explorer, 2, typed[1]));
	assert_false(launched_from_explorer(&explorer, 2, typed[2]));
	/* another program started it (start, a scheduled task, an IDE, a build tool), even on a
	 * console of its own */
	static const char *const others[] = { "cmd.exe", "powershell.exe", "python.exe", "svchost.exe", "devenv.exe", "" };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		os_launch l = explorer;
		snprintf(l.parent, sizeof(l.parent), "%s", others[i]);
		assert_false(launched_from_explorer(&l, 1, none));
	}
	/* a console it shares, or streams that go elsewhere (redirected) */
	os_launch shared = explorer, redirected = explorer;
	shared.own_console = false;
	redirected.console_streams = false;
	assert_false(launched_from_explorer(&shared, 1, none));
	assert_false(launched_from_explorer(&redirected, 1, none));
	/* what this platform says of this test's own start: never Explorer's */
	os_launch mine;
	os_launch_facts(&mine);
	assert_false(launched_from_explorer(&mine, 1, none));
}

/* The bytes that replace the line, as text ("\r" and spaces visible). */
static const char *render(os_term kind, unsigned columns, size_t *shown, const char *text)
{
	static char buf[256];
	size_t n = progress_render(kind, columns, shown, text, buf, sizeof(buf));
	assert_int_equal(n, strlen(buf));
	return buf;
}

static void test_progress_line(void **state)
{
	(void)state;
	size_t shown = 0;
	/* a terminal that takes escape codes: erase and write */
	assert_string_equal(render(OS_TERM_ANSI, 80, &shown, "smd2dmx: [1/3] a.smd"), "\r\033[Ksmd2dmx: [1/3] a.smd");
	assert_int_equal(shown, 20);
	assert_string_equal(render(OS_TERM_ANSI, 80, &shown, ""), "\r\033[K");
	/* the classic Windows console shows them as text: spaces cover the rest, no escape code */
	shown = 0;
	assert_string_equal(render(OS_TERM_PLAIN, 80, &shown, "smd2dmx: [1/3] long.smd"), "\rsmd2dmx: [1/3] long.smd");
	assert_string_equal(render(OS_TERM_PLAIN, 80, &shown, "smd2dmx: [2/3] b.smd"), "\rsmd2dmx: [2/3] b.smd   \rsmd2dmx: [2/3] b.smd");
	assert_string_equal(render(OS_TERM_PLAIN, 80, &shown, ""), "\r                    \r");
	assert_int_equal(shown, 0);
	/* a line never wraps: what is too wide keeps its end, in columns - 1 */
	shown = 0;
	assert_string_equal(render(OS_TERM_ANSI, 10, &shown, "smd2dmx: [1/2] models/name.smd"), "\r\033[K...me.smd");
	assert_int_equal(shown, 9);
	/* a deep path: the name and the count stay, the path loses its middle, the file name kept */
	shown = 0;
	const char *deep = "smd2dmx: [12/120] C:\\Users\\J\xc3\xb6rg\\Documents\\Mods\\My Mod\\models\\characters\\hero_body.smd (read 25%)";
	assert_string_equal(render(OS_TERM_ANSI, 61, &shown, deep), "\r\033[Ksmd2dmx: [12/120] C:\\Users\\J\xc3\xb6rg...\\hero_body.smd (read 25%)");
	assert_int_equal(shown, 60);
	/* a file name longer than two thirds of the room: all of it, the path's start what is left */
	shown = 0;
	assert_string_equal(render(OS_TERM_ANSI, 53, &shown, "smd2dmx: [3/9] models\\a_rather_long_file_name_here.smd"),
	                    "\r\033[Ksmd2dmx: [3/9] m...\\a_rather_long_file_name_here.smd");
	/* too narrow for the count: the end, as before */
	shown = 0;
	assert_string_equal(render(OS_TERM_ANSI, 20, &shown, "smd2dmx: [3/9] models/name.smd"), "\r\033[K... models/name.smd");
	/* a name in another script: two columns a character, cut between characters */
	shown = 0;
	assert_string_equal(render(OS_TERM_PLAIN, 10, &shown, "x: \xe6\xa8\xa1\xe5\x9e\x8b\xe5\x90\x8d.smd"), "\r...\xe5\x90\x8d.smd");
	assert_int_equal(shown, 9);
	/* the text: [finished/count] for more than one file; what of a big file is read */
	char text[256];
	assert_true(progress_text(text, sizeof(text), "smd2dmx", 1, 3, "a.smd", 100, 0));
	assert_string_equal(text, "smd2dmx: [1/3] a.smd");
	assert_true(progress_text(text, sizeof(text), "smd2dmx", 0, 3, "big.smd", PROGRESS_BIG * 2, PROGRESS_BIG / 2));
	assert_string_equal(text, "smd2dmx: [0/3] big.smd (read 25%)");
	assert_false(progress_text(text, sizeof(text), "dmx2smd", 0, 1, "small.dmx", PROGRESS_BIG - 1, 100));
	assert_false(progress_text(text, sizeof(text), "dmx2smd", 0, 1, "big.dmx", PROGRESS_BIG, 0));
	assert_true(progress_text(text, sizeof(text), "dmx2smd", 0, 1, "big.dmx", PROGRESS_BIG, PROGRESS_BIG - 1));
	assert_string_equal(text, "dmx2smd: big.dmx (read 99%)");
	/* read whole (or more: a file read again counts twice) */
	assert_true(progress_text(text, sizeof(text), "dmx2smd", 0, 1, "big.dmx", PROGRESS_BIG, PROGRESS_BIG * 2));
	assert_string_equal(text, "dmx2smd: big.dmx (read; converting)");
	/* no escape byte ever reaches a plain console */
	const char *texts[] = { "smd2dmx: [1/9] a", "x", "", "a much longer line than the one before it, cut to the width" };
	shown = 0;
	for (size_t i = 0; i < 4; i++) assert_null(strchr(render(OS_TERM_PLAIN, 40, &shown, texts[i]), '\033'));
}

#ifdef _WIN32
static wchar_t *wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
	wchar_t *w = malloc((size_t)n * sizeof(wchar_t));
	assert_non_null(w);
	MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n);
	return w;
}

/* Runs cmd with a console of its own (as start, a scheduled task or CREATE_NEW_CONSOLE give
 * it), its output to out_path when given; its exit code, or -1 when it has not ended after
 * seconds. */
static int run_new_console(const char *cmd, const char *out_path, DWORD seconds)
{
	wchar_t *w = wide(cmd);
	STARTUPINFOW si;
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	HANDLE out = INVALID_HANDLE_VALUE;
	if (out_path) {
		SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
		wchar_t *wp = wide(out_path);
		out = CreateFileW(wp, GENERIC_WRITE, FILE_SHARE_READ, &sa, CREATE_ALWAYS, 0, NULL);
		free(wp);
		assert_true(out != INVALID_HANDLE_VALUE);
		si.dwFlags = STARTF_USESTDHANDLES;
		si.hStdInput = out; /* a file, not the console */
		si.hStdOutput = si.hStdError = out;
	}
	PROCESS_INFORMATION pi;
	BOOL ok = CreateProcessW(NULL, w, NULL, NULL, out_path != NULL, CREATE_NEW_CONSOLE, NULL, NULL, &si, &pi);
	free(w);
	if (!ok) fail_msg("cannot start %s: %lu", cmd, GetLastError());
	int rc = -1;
	if (WaitForSingleObject(pi.hProcess, seconds * 1000) == WAIT_OBJECT_0) {
		DWORD code;
		GetExitCodeProcess(pi.hProcess, &code);
		rc = (int)code;
	} else {
		TerminateProcess(pi.hProcess, 99);
		WaitForSingleObject(pi.hProcess, 5000);
	}
	CloseHandle(pi.hProcess);
	CloseHandle(pi.hThread);
	if (out != INVALID_HANDLE_VALUE) CloseHandle(out);
	return rc;
}

/* A new empty folder for a test (Wine reuses process ids, so a folder a failed run left
 * under the same name goes first, with the files these tests put there). */
static char *fresh_dir(const char *tag)
{
	char *dir = test_temp_path(tag), p[4096];
	static const char *const names[] = { "arm.smd", "arm.dmx", "log.txt", "explorer.exe", "facts.txt" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		os_remove(p);
	}
	os_rmdir(dir);
	assert_true(os_mkdir(dir));
	return dir;
}

/* In dir: the sample model as arm.smd (in), and the names of its DMX (out) and a log. */
static void sample_in(const char *dir, char in[4096], char out[4096], char log[4096])
{
	snprintf(in, 4096, "%s/arm.smd", dir);
	snprintf(out, 4096, "%s/arm.dmx", dir);
	snprintf(log, 4096, "%s/log.txt", dir);
	size_t n = 0;
	char *smd = test_slurp(test_path("testdata/sample/arm.smd"), &n);
	assert_non_null(smd);
	FILE *f = os_fopen(in, "wb");
	assert_non_null(f);
	fwrite(smd, 1, n, f);
	fclose(f);
	free(smd);
}

static const char *program; /* smd2dmx.exe, from the command line */
static const char *self;    /* this test */

/* A program given a console of its own by another program ends without waiting for a key,
 * its output redirected or not (it waited for ever: Windows said it owned its console). */
static void test_new_console_does_not_wait(void **state)
{
	(void)state;
	if (!program) skip();
	char *dir = fresh_dir("console"), in[4096], out[4096], log[4096];
	sample_in(dir, in, out, log);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\" -o \"%s\" -f", program, in, out);
	int rc = run_new_console(cmd, log, 60);
	if (rc != 0) {
		size_t k = 0;
		char *said = test_slurp(log, &k);
		fail_msg("%s: exit %d: %s", cmd, rc, said ? said : "");
	}
	assert_true(test_exists(out));
	assert_int_equal(run_new_console(cmd, NULL, 60), 0);
	os_remove(in);
	os_remove(out);
	os_remove(log);
	os_rmdir(dir);
	free(dir);
}

/* Windows' own words for an error, as FormatMessageW gives them without the final period. */
static void windows_text(DWORD code, char *out, size_t n)
{
	wchar_t w[512];
	DWORD k = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, w, 512, NULL);
	while (k > 0 && (w[k - 1] == L'\r' || w[k - 1] == L'\n' || w[k - 1] == L' ' || w[k - 1] == L'.')) k--;
	w[k] = 0;
	if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)n, NULL, NULL)) out[0] = 0;
}

/* An output another program holds open: the message says what Windows says of it (in the
 * user's language), not the C library's "Permission denied". */
static void test_windows_words(void **state)
{
	(void)state;
	if (!program) skip();
	char *dir = fresh_dir("locked"), in[4096], out[4096], log[4096], cmd[16384];
	sample_in(dir, in, out, log);
	FILE *f = os_fopen(out, "wb");
	assert_non_null(f);
	fclose(f);
	wchar_t *wo = wide(out);
	HANDLE held = CreateFileW(wo, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL); /* shared with no one */
	free(wo);
	assert_true(held != INVALID_HANDLE_VALUE);
	snprintf(cmd, sizeof(cmd), "\"%s\" \"%s\" -o \"%s\" -f", program, in, out);
	int rc = run_new_console(cmd, log, 60);
	CloseHandle(held);
	size_t k = 0;
	char *said = test_slurp(log, &k);
	assert_non_null(said);
	char denied[512], shared[512];
	windows_text(ERROR_ACCESS_DENIED, denied, sizeof(denied));
	windows_text(ERROR_SHARING_VIOLATION, shared, sizeof(shared));
	if (rc != 1 || !*denied || (!strstr(said, denied) && !strstr(said, shared)) || strstr(said, "Permission denied"))
		fail_msg("exit %d, said: %s (want Windows' '%s' or '%s')", rc, said, denied, shared);
	free(said);
	os_remove(in);
	os_remove(out);
	os_remove(log);
	os_rmdir(dir);
	free(dir);
}

/* The facts of a start: a copy of this test named explorer.exe starts it on a console of its
 * own, and it writes what it finds. */
static void test_facts_of_a_start(void **state)
{
	(void)state;
	if (!self) skip();
	char *dir = fresh_dir("explorer");
	char explorer[4096], facts[4096], cmd[16384];
	snprintf(explorer, sizeof(explorer), "%s/explorer.exe", dir);
	snprintf(facts, sizeof(facts), "%s/facts.txt", dir);
	wchar_t *ws = wide(self), *we = wide(explorer);
	assert_true(CopyFileW(ws, we, FALSE));
	free(ws);
	free(we);
	snprintf(cmd, sizeof(cmd), "\"%s\" --start \"%s\" \"%s\"", explorer, self, facts);
	assert_int_equal(run_new_console(cmd, NULL, 60), 0);
	size_t n = 0;
	char *got = test_slurp(facts, &n);
	assert_non_null(got);
	/* alone on the console explorer.exe made for it, and explorer.exe its parent; the console
	 * streams are there on Windows (Wine's console without a display has none) */
	assert_true(!strncmp(got, "own 1 parent explorer.exe streams ", 34));
	free(got);
	os_remove(facts);
	os_remove(explorer);
	os_rmdir(dir);
	free(dir);
}

/* argv[from...] as a command line, each quoted. */
static wchar_t *command_line(int argc, char **argv, int from)
{
	char cmd[16384];
	size_t n = 0;
	for (int i = from; i < argc && n < sizeof(cmd); i++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s\"%s\"", i > from ? " " : "", argv[i]);
	return wide(cmd);
}

/* --start PROGRAM FACTS: start PROGRAM --probe FACTS on a console of its own, wait for it.
 * --probe FACTS: write this start's facts. */
static int helper(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--start")) {
		char cmd[16384];
		snprintf(cmd, sizeof(cmd), "\"%s\" --probe \"%s\"", argv[2], argv[3]);
		wchar_t *w = wide(cmd);
		STARTUPINFOW si;
		memset(&si, 0, sizeof(si));
		si.cb = sizeof(si);
		PROCESS_INFORMATION pi;
		if (!CreateProcessW(NULL, w, NULL, NULL, FALSE, CREATE_NEW_CONSOLE, NULL, NULL, &si, &pi)) return 2;
		WaitForSingleObject(pi.hProcess, 60000);
		DWORD code = 3;
		GetExitCodeProcess(pi.hProcess, &code);
		return (int)code;
	}
	if (argc >= 3 && !strcmp(argv[1], "--start-shared")) {
		/* as Explorer: PROGRAM ARGS... on this console, which this process then leaves, so
		 * that the program is alone on it (tests/cli_batch.sh, group windows) */
		wchar_t *w = command_line(argc, argv, 2);
		STARTUPINFOW si;
		memset(&si, 0, sizeof(si));
		si.cb = sizeof(si);
		PROCESS_INFORMATION pi;
		if (!CreateProcessW(NULL, w, NULL, NULL, FALSE, CREATE_SUSPENDED, NULL, NULL, &si, &pi)) return 2;
		FreeConsole();
		ResumeThread(pi.hThread);
		WaitForSingleObject(pi.hProcess, INFINITE);
		DWORD code = 3;
		GetExitCodeProcess(pi.hProcess, &code);
		return (int)code;
	}
	if (argc >= 5 && !strcmp(argv[1], "--screen")) {
		/* --screen vt|plain SCREEN PROGRAM ARGS...: on this console (a pseudo-terminal's under
		 * Wine: tests/cli_batch.sh, group batch), told it takes escape codes (vt) or not, wide
		 * enough that no line wraps, PROGRAM ARGS run with the console as its streams whatever
		 * this helper's are (or, for "--split", a letter written in two pieces); then what the
		 * console shows, row by row, to SCREEN in UTF-8 (an escape byte as it is). On standard
		 * output: the cursor's row as it changed while PROGRAM ran ("row: TEXT"), then its exit
		 * code ("exit N": tests/wine_run.sh, which may start this helper, takes a status of 1
		 * without output for a start Wine lost). */
		HANDLE con = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
		DWORD mode;
		if (con == INVALID_HANDLE_VALUE || !GetConsoleMode(con, &mode)) return 6;
		mode = !strcmp(argv[2], "vt") ? mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING : mode & ~(DWORD)ENABLE_VIRTUAL_TERMINAL_PROCESSING;
		if (!SetConsoleMode(con, mode)) return 7;
		CONSOLE_SCREEN_BUFFER_INFO bi;
		if (!GetConsoleScreenBufferInfo(con, &bi)) return 8;
		COORD size = { 400, bi.dwSize.Y > 200 ? bi.dwSize.Y : 200 };
		SetConsoleScreenBufferSize(con, size);
		DWORD code = 0;
		SECURITY_ATTRIBUTES inherit = { sizeof(inherit), NULL, TRUE };
		HANDLE in = CreateFileW(L"CONIN$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, NULL);
		HANDLE out = CreateFileW(L"CONOUT$", GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, NULL);
		if (in == INVALID_HANDLE_VALUE || out == INVALID_HANDLE_VALUE) return 6;
		if (!strcmp(argv[4], "--split")) {
			/* "é" and "П" cut between their bytes, then the rest */
			int fd = _open_osfhandle((intptr_t)out, 0);
			if (fd < 0 || _dup2(fd, _fileno(stderr)) != 0) return 6;
			static const char *const pieces[] = { "split: h\xc3", "\xa9llo \xd0", "\x9f", "\xd1\x80\n" };
			for (size_t i = 0; i < 4; i++)
				if (!os_write_text(stderr, pieces[i], strlen(pieces[i]))) code = 9;
		} else {
			wchar_t *w = command_line(argc, argv, 4);
			STARTUPINFOW si;
			memset(&si, 0, sizeof(si));
			si.cb = sizeof(si);
			si.dwFlags = STARTF_USESTDHANDLES;
			si.hStdInput = in;
			si.hStdOutput = si.hStdError = out;
			PROCESS_INFORMATION pi;
			if (!CreateProcessW(NULL, w, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return 2;
			/* while it runs, the text of the cursor's row as it changes ("row: TEXT", the
			 * first 20), which the screen at the end no longer holds */
			static wchar_t last[4096];
			for (int seen = 0; WaitForSingleObject(pi.hProcess, 2) == WAIT_TIMEOUT;) {
				static wchar_t row[4096];
				static char u8[4 * 4096];
				CONSOLE_SCREEN_BUFFER_INFO now;
				DWORD got = 0;
				if (seen >= 20 || !GetConsoleScreenBufferInfo(con, &now)) continue;
				COORD at = { 0, now.dwCursorPosition.Y };
				if (!ReadConsoleOutputCharacterW(con, row, (DWORD)now.dwSize.X < 4095 ? (DWORD)now.dwSize.X : 4095, at, &got)) continue;
				while (got > 0 && row[got - 1] == L' ') got--;
				row[got] = 0;
				if (!got || !wcscmp(row, last)) continue;
				wcscpy(last, row);
				int k = WideCharToMultiByte(CP_UTF8, 0, row, (int)got, u8, (int)sizeof(u8), NULL, NULL);
				printf("row: %.*s\n", k, u8);
				seen++;
			}
			code = 3;
			GetExitCodeProcess(pi.hProcess, &code);
		}
		if (!GetConsoleScreenBufferInfo(con, &bi)) return 8;
		FILE *f = os_fopen(argv[3], "wb");
		if (!f) return 4;
		for (SHORT y = 0; y <= bi.dwCursorPosition.Y; y++) {
			static wchar_t row[4096];
			static char u8[4 * 4096];
			DWORD got = 0;
			COORD at = { 0, y };
			if (!ReadConsoleOutputCharacterW(con, row, (DWORD)bi.dwSize.X, at, &got)) return 8;
			while (got > 0 && row[got - 1] == L' ') got--;
			int k = got ? WideCharToMultiByte(CP_UTF8, 0, row, (int)got, u8, (int)sizeof(u8), NULL, NULL) : 0;
			fwrite(u8, 1, (size_t)k, f);
			fputc('\n', f);
		}
		if (fclose(f) != 0) return 5;
		printf("exit %lu\n", (unsigned long)code);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--probe")) {
		os_launch l;
		os_launch_facts(&l);
		FILE *f = os_fopen(argv[2], "wb");
		if (!f) return 4;
		fprintf(f, "own %d parent %s streams %d\n", l.own_console, l.parent, l.console_streams);
		return fclose(f) == 0 ? 0 : 5;
	}
	return -1;
}
#endif

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
#ifdef _WIN32
	os_start(&argc, &argv);
	int h = helper(argc, argv);
	if (h >= 0) return h;
	/* this test's path, and the program's as Windows names it (Wine's Z: for a Linux path) */
	static wchar_t me[32768];
	static char me8[4 * 32768], prog[8192];
	if (GetModuleFileNameW(NULL, me, 32768) && WideCharToMultiByte(CP_UTF8, 0, me, -1, me8, (int)sizeof(me8), NULL, NULL)) self = me8;
	if (argc > 1) {
		snprintf(prog, sizeof(prog), "%s%s", argv[1][0] == '/' ? "Z:" : "", argv[1]);
		program = prog;
	}
#else
	(void)argc;
	(void)argv;
#endif
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explorer_decides),
		cmocka_unit_test(test_progress_line),
#ifdef _WIN32
		cmocka_unit_test(test_new_console_does_not_wait),
		cmocka_unit_test(test_facts_of_a_start),
		cmocka_unit_test(test_windows_words),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
