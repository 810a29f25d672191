/*
 * test_live_ctl_find.c: finding a jemalloc that dlsym cannot see
 * (live_ctl_find.c).
 *
 * This program links Debian's libjemalloc.a statically and does not export
 * it (-Wl,-Bstatic -ljemalloc, no -rdynamic): `mallctl` is in its .symtab
 * only, like `_rjem_mallctl` in a Rust release binary.  It checks that
 * dlsym really misses it, that ying_jem_elf_read (the rule `ying run`
 * uses) reads the file as the control layer reads the process, and that
 * the control layer finds, checks and uses it: status, a dump, the stats
 * JSON through the malloc_stats_print next to it.  Bad files (missing,
 * empty, text, truncated, a section table past the end) fail cleanly.
 * jemalloc reads MALLOC_CONF once, so the program re-runs itself with
 * prof:true.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ying-live.h"
#include "tap.h"

void *volatile keep[64];

/* A copy of the first len bytes of this program (all of it: len 0), with
 * f applied; the path in out. */
static int
copy_self(char *out, size_t n, const char *name, size_t len,
    void (*f)(unsigned char *, size_t))
{
	size_t sz = 0;
	unsigned char *buf = (unsigned char *)tap_slurp("/proc/self/exe", &sz);
	FILE *fp;
	int rc = -1;

	snprintf(out, n, "%s/%s", tap_tmpdir(), name);
	if (buf == NULL)
		return -1;
	if (len == 0 || len > sz)
		len = sz;
	if (f)
		f(buf, len);
	if ((fp = fopen(out, "wb")) != NULL) {
		rc = fwrite(buf, 1, len, fp) == len ? 0 : -1;
		if (fclose(fp) != 0)
			rc = -1;
	}
	free(buf);
	return rc;
}

/* The section table moved past the end of the file. */
static void
shoff_past_end(unsigned char *b, size_t len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	if (len >= sizeof(*eh))
		eh->e_shoff = (Elf64_Off)len + 4096;
}

/* Every symbol's name offset out of range. */
static void
bad_names(unsigned char *b, size_t len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	if (len < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		return;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff) + i;
		if (sh->sh_type != SHT_SYMTAB || sh->sh_entsize != sizeof(Elf64_Sym) ||
		    sh->sh_offset + sh->sh_size > len)
			continue;
		for (size_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++)
			((Elf64_Sym *)(b + sh->sh_offset))[k].st_name = 0x7fffffff;
	}
}

/* .symtab turned into plain bytes: what strip leaves, for the reader. */
static void
hide_symtab(unsigned char *b, size_t len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;

	if (len < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		return;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff) + i;
		if (sh->sh_type == SHT_SYMTAB)
			sh->sh_type = SHT_PROGBITS;
	}
}

static void
file_checks(void)
{
	ying_jem_elf j;
	char path[PATH_MAX];
	FILE *fp;

	is_int(ying_jem_elf_read(&j, "/proc/self/exe"), 0, "read this program");
	is_int(j.where, YING_JEM_SYMTAB, "mallctl is in .symtab only");
	is_str(j.symbol, "mallctl", "the symbol is mallctl");
	is_str(j.prefix, "", "no prefix");
	is_str(j.conf_var, "MALLOC_CONF", "its variable is MALLOC_CONF");
	is_int(j.stripped, 0, "not stripped");

	is_int(ying_jem_elf_read(&j, "/nonexistent/prog"), YING_ENOTFOUND,
	    "a missing file: YING_ENOTFOUND");
	has_str(ying_last_error(), "/nonexistent/prog", "... named");
	snprintf(path, sizeof(path), "%s/text", tap_tmpdir());
	fp = fopen(path, "w");
	fputs("#!/bin/sh\necho not elf\n", fp);
	fclose(fp);
	is_int(ying_jem_elf_read(&j, path), YING_EPARSE, "a text file: YING_EPARSE");
	has_str(ying_last_error(), "not an ELF file", "... says so");
	snprintf(path, sizeof(path), "%s/empty", tap_tmpdir());
	fclose(fopen(path, "w"));
	is_int(ying_jem_elf_read(&j, path), YING_EPARSE, "an empty file: YING_EPARSE");
	is_int(ying_jem_elf_read(&j, NULL), YING_EINVAL, "NULL path rejected");

	/* Damaged copies: an error or "none", never a crash or a wrong find. */
	ok(copy_self(path, sizeof(path), "head64", 64, NULL) == 0, "copy: the ELF header only");
	ok(ying_jem_elf_read(&j, path) <= 0 && j.where == YING_JEM_NONE,
	    "the ELF header alone: nothing found");
	ok(copy_self(path, sizeof(path), "half", 0, NULL) == 0, "copy: whole");
	{
		struct stat st;
		ok(stat(path, &st) == 0 && truncate(path, st.st_size / 2) == 0,
		    "cut in half");
	}
	ok(ying_jem_elf_read(&j, path) <= 0, "half of the file: no crash");
	ok(copy_self(path, sizeof(path), "shoff", 0, shoff_past_end) == 0,
	    "copy: section table past the end");
	ok(ying_jem_elf_read(&j, path) <= 0 && j.where == YING_JEM_NONE,
	    "section table past the end: nothing found");
	ok(copy_self(path, sizeof(path), "names", 0, bad_names) == 0,
	    "copy: symbol names out of range");
	is_int(ying_jem_elf_read(&j, path), 0, "names out of range: read");
	ok(j.where != YING_JEM_SYMTAB, "... and mallctl is not found by a bad name");
	ok(copy_self(path, sizeof(path), "nosymtab", 0, hide_symtab) == 0,
	    "copy: no .symtab");
	is_int(ying_jem_elf_read(&j, path), 0, "no .symtab: read");
	is_int(j.stripped, 1, "... stripped");
	is_int(j.where, YING_JEM_STRIPPED, "... jemalloc's strings still say it is linked in");
	is_str(j.conf_var, "MALLOC_CONF", "... unprefixed (MALLOC_CONF)");
	is_str(j.symbol, "", "... and no symbol to call");
}

static void
process_checks(void)
{
	ying_ctl_status st;
	char exe[PATH_MAX], *buf = NULL;
	size_t len = 0;
	ssize_t n;

	ok(dlsym(RTLD_DEFAULT, "mallctl") == NULL, "dlsym does not see mallctl");
	ok(dlsym(RTLD_DEFAULT, "malloc_stats_print") == NULL,
	    "... nor malloc_stats_print");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';

	is_int(ying_ctl_available(), 0, "heap profiling available");
	is_int(ying_ctl_status_get(&st), 0, "status");
	is_str(st.mallctl_symbol, "mallctl", "found mallctl");
	is_str(st.mallctl_how, ".symtab", "... in the .symtab");
	is_str(st.mallctl_file, exe, "... of this program");
	ok(st.version[0] >= '1' && st.version[0] <= '9', "it answers version");
	ok(st.opt_prof, "opt.prof is on");

	for (int i = 0; i < 64; i++)
		keep[i] = malloc(8192);
	is_int(ying_ctl_dump_mem(&buf, &len), 0, "dump through it");
	ok(buf && strncmp(buf, "heap_v2/", 8) == 0, "the dump is heap_v2");
	ying_free(buf);
	buf = NULL;
	is_int(ying_ctl_stats_json(&buf, &len), 0, "stats JSON through the "
	    "malloc_stats_print next to mallctl");
	ok(buf && buf[0] == '{' && strstr(buf, "\"jemalloc\""), "the JSON is jemalloc's");
	ying_free(buf);

	/* the caller's, then found again */
	is_int(ying_ctl_use(NULL), 0, "back to searching");
	is_int(ying_ctl_status_get(&st), 0, "status again");
	is_str(st.mallctl_how, ".symtab", "found in the .symtab again");
}

int
main(int argc, char **argv)
{
	const char *conf = getenv("MALLOC_CONF");

	if (conf == NULL || strcmp(conf, "prof:true,lg_prof_sample:0") != 0) {
		setenv("MALLOC_CONF", "prof:true,lg_prof_sample:0", 1);
		execv("/proc/self/exe", argv);
		printf("Bail out! cannot re-run myself\n");
		return 1;
	}
	(void)argc;
	file_checks();
	process_checks();
	return tap_done();
}
