/*
 * synth.c: the synthetic-profile builder of the unit tests (see synth.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "synth.h"

static void
bail(const char *what)
{
	printf("Bail out! synth: %s: %s\n", what, ying_last_error());
	exit(1);
}

ying_profile *
synth_new(const char *name, uint64_t period)
{
	ying_profile *p = NULL;

	if (yi_profile_new(&p, name) != 0)
		bail("yi_profile_new");
	p->symbolized = true;
	p->trimmed = true;     /* stacks carry the skip the test gives */
	p->period = period;
	return p;
}

int32_t
synth_map(ying_profile *p, const char *path, uint64_t start, uint64_t end)
{
	yi_mapping m;

	memset(&m, 0, sizeof(m));
	m.start = start;
	m.end = end;
	m.exec = 1;
	strcpy(m.perms, "r-xp");
	if (yi_strtab_intern(&p->strs, path, strlen(path), &m.path) != 0 ||
	    yi_vec_grow(&p->maps, 1) != 0)
		bail("mapping");
	p->maps.v[p->maps.n] = m;
	if (p->main_map < 0)
		p->main_map = (int)p->maps.n;
	p->has_maps = true;
	return (int32_t)p->maps.n++;
}

uint32_t
synth_loc_at(ying_profile *p, uint64_t pc, bool leaf, int32_t mapping,
    const char *const *names, const char *const *sysnames,
    const char *const *files, const uint32_t *lines, size_t n)
{
	yi_line ls[16];
	uint32_t loc;
	size_t i;

	if (n > 16)
		bail("inline chain longer than 16");
	if (yi_profile_loc(p, pc, leaf, &loc) != 0)
		bail("yi_profile_loc");
	if (p->locs.v[loc].nlines != 0)
		return loc;
	for (i = 0; i < n; i++) {
		if (yi_profile_func(p, names[i], sysnames ? sysnames[i] : NULL,
		    files ? files[i] : "", &ls[i].func) != 0)
			bail("yi_profile_func");
		ls[i].line = lines ? lines[i] : 0;
	}
	if (yi_profile_set_lines(p, loc, ls, n) != 0)
		bail("yi_profile_set_lines");
	p->locs.v[loc].mapping = mapping;
	return loc;
}

uint32_t
synth_loc(ying_profile *p, uint64_t addr, const char *const *names,
    const char *const *files, const uint32_t *lines, size_t n)
{
	return synth_loc_at(p, addr, true, -1, names, NULL, files, lines, n);
}

uint32_t
synth_fn(ying_profile *p, uint64_t addr, const char *name, const char *file,
    uint32_t line)
{
	return synth_loc(p, addr, &name, &file, &line, 1);
}

/* Append a stack over locs through the model's one constructor (values
 * from raw, or the given ones); returns it (valid until the next append). */
static yi_stack *
append_stack(ying_profile *p, const uint32_t *locs, size_t n, uint32_t skip,
    const yi_counts *raw, const double *val)
{
	yi_stack *st;

	if (yi_profile_add_stack(p, locs, n, raw, val) != 0)
		bail("stack");
	st = &p->stacks.v[p->stacks.n - 1];
	st->skip = skip;
	return st;
}

void
synth_stack_counts(ying_profile *p, const uint32_t *locs, size_t n,
    uint32_t skip, const yi_counts *raw)
{
	append_stack(p, locs, n, skip, raw, NULL);
}

void
synth_stack_skip(ying_profile *p, const uint32_t *locs, size_t n,
    uint32_t skip, double bytes, double objs)
{
	yi_counts raw = { (uint64_t)objs, (uint64_t)bytes, 0, 0 };
	double val[4] = { 0 };

	val[YING_INUSE_SPACE] = bytes;
	val[YING_INUSE_OBJECTS] = objs;
	append_stack(p, locs, n, skip, &raw, val);
}

void
synth_stack(ying_profile *p, const uint32_t *locs, size_t n, double bytes,
    double objs)
{
	synth_stack_skip(p, locs, n, 0, bytes, objs);
}

ying_profile *
synth_fan(uint64_t base)
{
	ying_profile *p = synth_new("fan", 1);
	uint32_t m = synth_fn(p, base + 0x1000, "main", "m.c", 1);
	uint32_t a = synth_fn(p, base + 0x2000, "a", "a.c", 2);
	uint32_t b = synth_fn(p, base + 0x3000, "b", "b.c", 3);
	uint32_t c = synth_fn(p, base + 0x4000, "c", "c.c", 4);
	uint32_t s1[] = { a, m }, s2[] = { b, m }, s3[] = { c, m };

	synth_stack(p, s1, 2, 600, 6);
	synth_stack(p, s2, 2, 300, 3);
	synth_stack(p, s3, 2, 100, 1);
	return p;
}

int
synth_diff(ying_diff **d, ying_profile *b, ying_profile *n, ying_sample_index idx)
{
	ying_diff_build_opts o = YING_DIFF_BUILD_OPTS_INIT;

	o.sample_index = idx;
	if (b != NULL)
		(void)ying_profile_symbolize(b, NULL, NULL);
	if (n != NULL && n != b)
		(void)ying_profile_symbolize(n, NULL, NULL);
	return ying_diff_build(d, b, n, &o);
}
