/* QC files from memory, for the QC tests and the QC fuzz target: a table of paths and texts
 * behind smdmx_qc_files. A name that differs from a stored one only in case is found as
 * that one (and says so), as the file system reader does. */
#ifndef SMDMX_QC_MEM_H
#define SMDMX_QC_MEM_H

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "smdmx/qc.h"

typedef struct qc_mem_file {
	const char *path;
	const char *text;
	size_t size;       /* 0: strlen(text) */
} qc_mem_file;

typedef struct qc_mem {
	const qc_mem_file *files;
	size_t count;
} qc_mem;

static inline const qc_mem_file *qc_mem_lookup(const qc_mem *m, const char *path, bool *nocase)
{
	*nocase = false;
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->files[i].path, path)) return &m->files[i];
	for (size_t i = 0; i < m->count; i++)
		if (!strcasecmp(m->files[i].path, path)) {
			*nocase = true;
			return &m->files[i];
		}
	return NULL;
}

static inline int qc_mem_read(void *user, const char *path, void **data, size_t *size)
{
	bool nocase;
	const qc_mem_file *f = qc_mem_lookup(user, path, &nocase);
	if (!f || nocase) return 1;
	size_t n = f->size ? f->size : strlen(f->text);
	*data = malloc(n ? n : 1);
	if (!*data) return 2;
	memcpy(*data, f->text, n);
	*size = n;
	return 0;
}

static inline char *qc_mem_find(void *user, const char *path, bool *nocase)
{
	const qc_mem_file *f = qc_mem_lookup(user, path, nocase);
	if (!f) return NULL;
	size_t n = strlen(f->path);
	char *s = malloc(n + 1);
	if (s) memcpy(s, f->path, n + 1);
	return s;
}

static inline void qc_mem_free(void *user, void *data)
{
	(void)user;
	free(data);
}

static inline smdmx_qc_read_options qc_mem_options(qc_mem *m)
{
	smdmx_qc_read_options o;
	memset(&o, 0, sizeof(o));
	o.files.read = qc_mem_read;
	o.files.find = qc_mem_find;
	o.files.free_data = qc_mem_free;
	o.files.user = m;
	return o;
}

#endif
