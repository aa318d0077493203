/* What only a program may do (os_program.h) on Linux, macOS and the BSDs: its signal
 * handlers, its end by a broken pipe, and its terminal. Built into the programs only. */
#ifndef _WIN32
#define _GNU_SOURCE
#include "os_program.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* ---- memory ------------------------------------------------------------------------------ */

void os_tune_allocator(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
	/* Keep freed memory for the next model rather than unmapping it (each unmap interrupts
	 * the other workers). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

/* ---- interrupts -------------------------------------------------------------------------- */

static void (*volatile on_cleanup)(void);

static void on_signal(int sig)
{
	if (on_cleanup) on_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void os_on_interrupt(void (*cleanup)(void))
{
	on_cleanup = cleanup;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A reader that closes the pipe (| head) ends the program as it ends any tool in a
	 * pipe: quietly, by SIGPIPE, once the temporary files are gone. */
	sigaction(SIGPIPE, &sa, NULL);
	/* Past RLIMIT_FSIZE, write() fails with EFBIG and the job cleans up, rather than the
	 * process dying with its temporary files left behind. */
	signal(SIGXFSZ, SIG_IGN);
}

void os_exit_broken_pipe(void)
{
	if (on_cleanup) on_cleanup();
	signal(SIGPIPE, SIG_DFL);
	sigset_t pipe_only;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_UNBLOCK, &pipe_only, NULL);
	raise(SIGPIPE);
	_exit(141);
}

/* ---- the program's edge -------------------------------------------------------------------- */

void os_start(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

bool os_write_text(FILE *f, const char *text, size_t n)
{
	/* one fwrite: the C library writes it to an unbuffered stderr in one write(2) */
	return fwrite(text, 1, n, f) == n;
}

os_term os_terminal(FILE *f, unsigned *columns)
{
	*columns = 80;
	if (isatty(fileno(f)) != 1) return OS_TERM_NONE;
	struct winsize ws;
	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) *columns = ws.ws_col;
	return OS_TERM_ANSI;
}

void os_launch_facts(os_launch *l)
{
	memset(l, 0, sizeof(*l));
}

void os_wait_key(void)
{
	fputs("Press Enter to close this window.\n", stderr);
	fflush(stderr);
	int c;
	while ((c = fgetc(stdin)) != EOF && c != '\n') {
	}
}
#endif
