/* What only a program may do (os_program.h) on Windows: its console control handler, its end
 * by a broken pipe, its command line in UTF-8, and its console. Built into the programs only. */
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#define UNICODE
#define _UNICODE
#include "os_program.h"
#include "os_win32.h"

#include <windows.h>
#include <shellapi.h>
#include <tlhelp32.h>
#include <conio.h>
#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ------------------------------------------------------------------------------ */

void os_tune_allocator(void)
{
}

/* ---- interrupts -------------------------------------------------------------------------- */

/* Windows runs a console control handler on a thread of its own. It takes the lock that holds
 * interrupts back (os_interrupts_hold: so that it waits for a file being created and
 * registered, or a set being renamed into place), removes the temporary files, and ends the
 * process while still holding it. */
static void (*volatile on_cleanup)(void);

static BOOL WINAPI on_console_event(DWORD event)
{
	switch (event) {
	case CTRL_C_EVENT:
	case CTRL_BREAK_EVENT:
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		os_interrupts_hold(); /* kept: the process ends holding it */
		if (on_cleanup) on_cleanup();
		ExitProcess(event == CTRL_C_EVENT ? 0xC000013Au /* STATUS_CONTROL_C_EXIT, as Ctrl-C ends any program */
		                                  : 0xC000013Au);
	default: return FALSE;
	}
}

void os_on_interrupt(void (*cleanup)(void))
{
	on_cleanup = cleanup;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

void os_exit_broken_pipe(void)
{
	os_interrupts_hold();
	if (on_cleanup) on_cleanup();
	ExitProcess(1);
}

/* ---- the program's edge -------------------------------------------------------------------- */

static UINT console_cp;

static void restore_console(void)
{
	if (console_cp) SetConsoleOutputCP(console_cp);
}

void os_start(int *argc, char ***argv)
{
	/* Bytes in and out as they are: a binary DMX through a pipe arrives whole, and text
	 * keeps the line ends it was written with (the writers choose, doc/conventions.md). */
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	/* Messages are UTF-8 (file names in any language): the console is told so. */
	UINT cp = GetConsoleOutputCP();
	if (cp && cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) {
		console_cp = cp;
		atexit(restore_console);
	}
	/* The command line as the system holds it, in UTF-16, made UTF-8 */
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	if (!w) return;
	char **v = calloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; v && i < n; i++) {
		v[i] = os_win_utf8(w[i]);
		if (!v[i]) {
			v = NULL; /* out of memory: the narrow command line */
			break;
		}
	}
	LocalFree(w);
	if (!v) return;
	/* argv[0] stays as the C library gave it (the program's name in messages) */
	if (*argc > 0 && (*argv)[0]) v[0] = (*argv)[0];
	*argc = n;
	*argv = v;
}

os_term os_terminal(FILE *f, unsigned *columns)
{
	*columns = 80;
	DWORD mode;
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	if (h == INVALID_HANDLE_VALUE || !GetConsoleMode(h, &mode)) return OS_TERM_NONE;
	CONSOLE_SCREEN_BUFFER_INFO bi;
	if (GetConsoleScreenBufferInfo(h, &bi) && bi.srWindow.Right > bi.srWindow.Left)
		*columns = (unsigned)(bi.srWindow.Right - bi.srWindow.Left + 1);
	/* '\r' and spaces, never escape codes: Wine's console takes the mode that says it
	 * shows them and shows them as text, and no console needs them for a line rewritten */
	return OS_TERM_PLAIN;
}

/* Text on a console: the bytes of a letter cut at the end of one write, held for the next on
 * the same stream (standard output, standard error). */
static SRWLOCK text_lock = SRWLOCK_INIT;
static struct {
	char bytes[4];
	size_t n;
} text_held[2];

/* The length of text's longest start that ends on a whole UTF-8 sequence (bytes that no
 * sequence continues end it as they are: the conversion shows them as U+FFFD). */
static size_t utf8_whole(const char *text, size_t n)
{
	size_t i = n, back = 0;
	while (i > 0 && back < 4 && ((unsigned char)text[i - 1] & 0xC0) == 0x80) {
		i--;
		back++;
	}
	if (i == 0) return n;
	unsigned char lead = (unsigned char)text[i - 1];
	size_t want = lead >= 0xF0 && lead < 0xF8 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
	return want > back + 1 ? i - 1 : n;
}

static bool console_write(HANDLE h, int slot, const char *text, size_t n)
{
	char *joined = NULL;
	if (slot >= 0 && text_held[slot].n) {
		joined = malloc(text_held[slot].n + n);
		if (!joined) return false;
		memcpy(joined, text_held[slot].bytes, text_held[slot].n);
		memcpy(joined + text_held[slot].n, text, n);
		n += text_held[slot].n;
		text = joined;
		text_held[slot].n = 0;
	}
	size_t whole = slot >= 0 ? utf8_whole(text, n) : n;
	if (slot >= 0) {
		text_held[slot].n = n - whole;
		memcpy(text_held[slot].bytes, text + whole, n - whole);
	}
	bool ok = true;
	if (whole) {
		int wn = whole <= INT_MAX ? MultiByteToWideChar(CP_UTF8, 0, text, (int)whole, NULL, 0) : 0;
		wchar_t *w = wn > 0 ? malloc((size_t)wn * sizeof(wchar_t)) : NULL;
		ok = w && MultiByteToWideChar(CP_UTF8, 0, text, (int)whole, w, wn) == wn;
		/* in pieces the oldest consoles take (their buffer is 64 KB), never between the two
		 * halves of a surrogate pair */
		for (int at = 0; ok && at < wn;) {
			int k = wn - at < 8192 ? wn - at : 8192;
			if (at + k < wn && w[at + k - 1] >= 0xD800 && w[at + k - 1] < 0xDC00) k--;
			DWORD done = 0;
			ok = WriteConsoleW(h, w + at, (DWORD)k, &done, NULL) && done > 0;
			at += (int)done;
		}
		free(w);
	}
	free(joined);
	return ok;
}

bool os_write_text(FILE *f, const char *text, size_t n)
{
	HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
	DWORD mode;
	if (h != INVALID_HANDLE_VALUE && GetConsoleMode(h, &mode)) {
		fflush(f);
		AcquireSRWLockExclusive(&text_lock);
		bool ok = console_write(h, f == stdout ? 0 : f == stderr ? 1 : -1, text, n);
		ReleaseSRWLockExclusive(&text_lock);
		return ok;
	}
	if (f != stderr) return fwrite(text, 1, n, f) == n;
	/* the C library writes an unbuffered stream a byte at a time: one WriteFile instead */
	fflush(f);
	while (n > 0) {
		DWORD done = 0, k = n < 0x40000000u ? (DWORD)n : 0x40000000u;
		if (h == INVALID_HANDLE_VALUE || !WriteFile(h, text, k, &done, NULL) || !done) return false;
		text += done;
		n -= done;
	}
	return true;
}

void os_launch_facts(os_launch *l)
{
	memset(l, 0, sizeof(*l));
	DWORD ids[2], mode;
	l->own_console = GetConsoleProcessList(ids, 2) == 1;
	l->console_streams = GetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), &mode) &&
	                     GetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), &mode) &&
	                     GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode);
	/* the parent: the process that made this one, by its id in a snapshot of them all */
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (snap == INVALID_HANDLE_VALUE) return;
	PROCESSENTRY32W e;
	DWORD me = GetCurrentProcessId(), parent = 0;
	e.dwSize = sizeof(e);
	for (BOOL more = Process32FirstW(snap, &e); more && !parent; more = Process32NextW(snap, &e))
		if (e.th32ProcessID == me) parent = e.th32ParentProcessID;
	e.dwSize = sizeof(e);
	for (BOOL more = parent ? Process32FirstW(snap, &e) : FALSE; more; more = Process32NextW(snap, &e)) {
		if (e.th32ProcessID != parent) continue;
		if (!WideCharToMultiByte(CP_UTF8, 0, e.szExeFile, -1, l->parent, (int)sizeof(l->parent), NULL, NULL)) l->parent[0] = 0;
		break;
	}
	CloseHandle(snap);
}

void os_wait_key(void)
{
	DWORD mode;
	if (GetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), &mode)) {
		fputs("Press any key to close this window.\n", stderr);
		fflush(stderr);
		_getch();
		return;
	}
	/* standard input is a file or a pipe: a line from it */
	fputs("Press Enter to close this window.\n", stderr);
	fflush(stderr);
	int c;
	while ((c = fgetc(stdin)) != EOF && c != '\n') {
	}
}
#endif
