/* What os_win32.c shares with os_program_win32.c, private to the platform layer. */
#ifndef SMDMX_OS_WIN32_H
#define SMDMX_OS_WIN32_H
#ifdef _WIN32
#include <wchar.h>

/* w (a string the system gave, UTF-16) as UTF-8, malloc'd; NULL when it cannot be. */
char *os_win_utf8(const wchar_t *w);
#endif
#endif
