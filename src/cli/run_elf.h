/*
 * run_elf.h: what `ying run` (cmd_run.c) uses of run_elf.c: finding files
 * (PATH, the loader's directories) and the ELF scan that tells whether CMD
 * brings a jemalloc of its own.  Strings in a strlist are malloc'd and
 * freed by run_strlist_free; elf_scan.jemalloc_by and .jem_file are
 * malloc'd, the caller frees them.
 */
#ifndef YING_RUN_ELF_H
#define YING_RUN_ELF_H

#include <stdbool.h>
#include <stddef.h>

#include <ying-live.h>

#define JEMALLOC_SO "libjemalloc.so.2"

/* Directories the dynamic loader searches by default (NULL-terminated). */
extern const char *const run_default_lib_dirs[];

typedef struct strlist {
	char **v;
	size_t n, cap;
} strlist;

typedef struct elf_scan {
	strlist seen;              /* objects already scanned */
	bool jemalloc_needed;      /* some DT_NEEDED is libjemalloc */
	char *jemalloc_by;         /* the object that needs or defines it */
	bool jemalloc_defined;     /* a jemalloc defined in CMD or a library */
	ying_jem_elf jem;          /* ... the first one (ying_jem_elf_read: the
	                              agent's rule): symbol, table, prefix */
	char *jem_file;            /* ... in this object (malloc'd) */
	bool is_static;            /* CMD has no dynamic loader: no preloading */
	bool is_elf;               /* CMD (or its interpreter) is an ELF file */
} elf_scan;

/* ---- run_elf.c */
bool run_is_file(const char *path);
int run_find_in_path(const char *name, char **out);
void run_strlist_free(strlist *l);
void run_scan_command(elf_scan *sc, const char *path);

#endif /* YING_RUN_ELF_H */
