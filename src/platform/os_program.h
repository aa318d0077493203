/* What only a program may do to its process, beside the platform layer (os.h) and built
 * into the programs only, never into libsmdmx (tools/layers.sh keeps every other folder from
 * including this): signal and console handlers, ending the process, the allocator's
 * settings, the command line as the system holds it, and the console or terminal the messages
 * go to. os_program.c is the portable part; os_program_posix.c and os_program_win32.c the
 * rest, for each system. */
#ifndef SMDMX_OS_PROGRAM_H
#define SMDMX_OS_PROGRAM_H

#include "os.h"

/* Tells the allocator that the program allocates and frees large blocks again and again (a
 * batch's models): freed memory is kept for the next rather than given back to the system. */
void os_tune_allocator(void);

/* ---- interrupts -------------------------------------------------------------------------- */

/* Calls cleanup (which may only remove files) on an interrupt (SIGINT, SIGTERM, SIGHUP; Ctrl-C,
 * Ctrl-Break and closing the console on Windows) and on a broken pipe, then ends the program
 * as that interrupt ends it. Files over the size limit fail a write instead of ending it. */
void os_on_interrupt(void (*cleanup)(void));
/* Ends the program as a reader that closed the pipe ends it: quietly, after the cleanup, by
 * SIGPIPE on POSIX (exit status 141 in the shell), with exit code 1 on Windows. */
void os_exit_broken_pipe(void);

/* ---- the program's edge -------------------------------------------------------------------- */

/* The command line as UTF-8 (on Windows, from the wide command line; elsewhere as given).
 * Also sets the standard streams to binary and the console to UTF-8 on Windows. */
void os_start(int *argc, char ***argv);
/* Text for a person (messages, help, listings; UTF-8) written to f, standard output or error,
 * whole and at once, after what f holds: on a Windows console in UTF-16 by the console's own
 * call (a letter whose bytes reach a console in two writes shows as two wrong ones), elsewhere
 * as the bytes, a message to standard error in one write (so that programs writing to one log
 * do not mix their lines). A letter cut at the end of text waits for the rest from the next
 * call on f. false when it could not be written. Safe on several threads at once. */
bool os_write_text(FILE *f, const char *text, size_t n);
bool os_printf(FILE *f, const char *fmt, ...) __attribute__((format(OS_PRINTF, 2, 3)));
bool os_puts(const char *s, FILE *f);
/* What a terminal f shows: OS_TERM_NONE when f is none; OS_TERM_ANSI when it takes the
 * escape codes of a line rewritten in place (every POSIX terminal); OS_TERM_PLAIN where '\r'
 * and spaces rewrite a line, every Windows console (a console that says it takes escape codes
 * may show them as text, as Wine's does: doc/windows.md). columns: the terminal's width (80
 * when it cannot be had). */
typedef enum os_term { OS_TERM_NONE, OS_TERM_ANSI, OS_TERM_PLAIN } os_term;
os_term os_terminal(FILE *f, unsigned *columns);
/* How the program was started, which says whether it has a window of its own that closes
 * when it ends (a double click, or files dropped on it, in Explorer). Windows only; all false
 * and "" elsewhere. */
typedef struct os_launch {
	bool own_console;     /* no other process shares its console (it was made for it) */
	bool console_streams; /* standard input, output and error are all that console */
	char parent[64];      /* the file name of the program that started it ("explorer.exe") */
} os_launch;
void os_launch_facts(os_launch *l);
/* Waits for a key on the console (a line, when standard input is not a console). */
void os_wait_key(void);
#endif
