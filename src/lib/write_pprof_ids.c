/*
 * write_pprof_ids.c: pass 1 of the pprof writer: what gets written, and
 * under which ids: the locations the written stacks use (each with its
 * mapping, else the one yi_maps_find finds by address), the
 * mappings and the functions.
 */
#include <math.h>
#include <stdlib.h>

#include "write_pprof.h"

/* ---- pass 1: what gets written, and under which ids ---------------------- */

int
yi_pw_assign_locations(pw *w)
{
	const ying_profile *p = w->p;
	uint32_t *sorted = NULL;
	size_t nsorted = 0, i;

	w->loc_id = yi_calloc(p->locs.n ? p->locs.n : 1, sizeof(*w->loc_id));
	w->lead_id = yi_calloc(p->locs.n ? p->locs.n : 1, sizeof(*w->lead_id));
	w->loc_map = yi_malloc((p->locs.n ? p->locs.n : 1) * sizeof(*w->loc_map));
	if (w->loc_id == NULL || w->lead_id == NULL || w->loc_map == NULL)
		return yi_oom("writing pprof locations");
	for (i = 0; i < p->stacks.n; i++) {
		const yi_stack *s = &p->stacks.v[i];
		uint32_t f = yi_pw_first_frame(s), f0 = f;
		if (f >= s->nframes && w->unknown_loc == 0)
			w->unknown_loc = UINT64_MAX;   /* numbered below */
		for (; f < s->nframes; f++) {
			uint32_t l = p->frames.v[s->frame_off + f];
			uint64_t *id = f == f0 && w->sym && p->locs.v[l].lskip &&
			    p->locs.v[l].lskip < p->locs.v[l].nlines ? &w->lead_id[l] : &w->loc_id[l];
			if (*id == 0)
				*id = ++w->nloc_ids;
		}
	}
	if (w->unknown_loc)
		w->unknown_loc = ++w->nloc_ids;

	/* Mapping of each location: the symbolizer's, else by address. */
	if ((sorted = yi_malloc((p->maps.n ? p->maps.n : 1) * sizeof(*sorted))) == NULL)
		return yi_oom("writing pprof mappings");
	for (i = 0; i < p->maps.n; i++) {
		if (p->maps.v[i].exec && p->maps.v[i].end > p->maps.v[i].start)
			sorted[nsorted++] = (uint32_t)i;
	}
	yi_maps_sort(p, sorted, nsorted);
	for (i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		if (l->mapping >= 0 && (size_t)l->mapping < p->maps.n)
			w->loc_map[i] = l->mapping;
		else
			w->loc_map[i] = yi_maps_find(p, sorted, nsorted, l->addr);
	}
	yi_free(sorted);
	return 0;
}

/* The executable mapping of the main program, or -1. */
static int32_t
main_exec_map(const ying_profile *p)
{
	const yi_mapping *mm;
	size_t i;

	if (p->main_map < 0 || (size_t)p->main_map >= p->maps.n)
		return -1;
	mm = &p->maps.v[p->main_map];
	if (mm->exec)
		return p->main_map;
	/* heap_v2 lists a PIE's read-only first segment before its text. */
	for (i = 0; i < p->maps.n; i++) {
		if (p->maps.v[i].exec && p->maps.v[i].path == mm->path)
			return (int32_t)i;
	}
	return p->main_map;
}

int
yi_pw_assign_mappings(pw *w)
{
	const ying_profile *p = w->p;
	bool *used;
	int32_t mainm = main_exec_map(p);
	size_t i;

	w->map_id = yi_calloc(p->maps.n ? p->maps.n : 1, sizeof(*w->map_id));
	w->map_order = yi_malloc((p->maps.n ? p->maps.n : 1) * sizeof(*w->map_order));
	used = yi_calloc(p->maps.n ? p->maps.n : 1, sizeof(*used));
	if (w->map_id == NULL || w->map_order == NULL || used == NULL) {
		yi_free(used);
		return yi_oom("writing pprof mappings");
	}
	for (i = 0; i < p->locs.n; i++) {
		if ((w->loc_id[i] || w->lead_id[i]) && w->loc_map[i] >= 0)
			used[w->loc_map[i]] = true;
	}
	/* Executable mappings with a name (as Go writes them), plus any other
	 * mapping a written location falls into; the main program first. */
	if (mainm >= 0) {
		w->map_order[w->nmap_out++] = (uint32_t)mainm;
		w->map_id[mainm] = w->nmap_out;
	}
	for (i = 0; i < p->maps.n; i++) {
		const yi_mapping *m = &p->maps.v[i];
		if ((int32_t)i == mainm)
			continue;
		if (used[i] || (m->exec && yi_profile_str(p, m->path)[0])) {
			w->map_order[w->nmap_out++] = (uint32_t)i;
			w->map_id[i] = w->nmap_out;
		}
	}
	yi_free(used);
	return 0;
}

int
yi_pw_assign_functions(pw *w)
{
	const ying_profile *p = w->p;
	size_t i, k;

	w->func_id = yi_calloc(p->funcs.n ? p->funcs.n : 1, sizeof(*w->func_id));
	if (w->func_id == NULL)
		return yi_oom("writing pprof functions");
	if (!w->sym)
		return 0;
	for (i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		if (w->loc_id[i] == 0 && w->lead_id[i] == 0)
			continue;
		for (k = w->loc_id[i] ? 0 : l->lskip; k < l->nlines; k++) {
			uint32_t f = p->lines.v[l->line_off + k].func;
			if (f < p->funcs.n && w->func_id[f] == 0)
				w->func_id[f] = ++w->nfunc_ids;
		}
	}
	if (w->unknown_loc && p->unknown_func < p->funcs.n && w->func_id[p->unknown_func] == 0)
		w->func_id[p->unknown_func] = ++w->nfunc_ids;
	return 0;
}
