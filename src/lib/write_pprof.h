/*
 * write_pprof.h: private to the pprof writer's files (write_pprof.c,
 * write_pprof_ids.c; not installed): the writer's state (pw) and the
 * helpers both passes use.
 */
#ifndef YING_WRITE_PPROF_H
#define YING_WRITE_PPROF_H

#include <protobuf-c/protobuf-c.h>

#include "write.h"
#include "proto/profile.pb-c.h"

#define CHUNK 1024          /* elements per partial Profile message */

typedef struct pb_sink {
	ProtobufCBuffer base;
	yi_out *o;
} pb_sink;

typedef struct pw {
	const ying_profile *p;
	const yi_pprof_extra *extra;    /* never NULL */
	bool sym;               /* write functions and lines */
	bool no_size_label;     /* no "bytes" label (ying_pprof_opts) */
	yi_out *o;
	pb_sink sink;
	yi_strtab strs;         /* the output string table; id = index */

	uint64_t *loc_id;       /* per p->locs: pprof id, 0 = not written */
	uint64_t *lead_id;      /* per p->locs: id of the location as a stack's
	                           leading frame, without its lskip inline
	                           lines; 0 = not written */
	int32_t *loc_map;       /* per p->locs: index in p->maps or -1 */
	uint64_t nloc_ids;
	uint64_t unknown_loc;   /* synthetic location for frameless stacks */
	uint64_t *func_id;      /* per p->funcs: pprof id, 0 = not written */
	uint64_t nfunc_ids;
	uint64_t *map_id;       /* per p->maps: pprof id, 0 = not written */
	uint32_t *map_order;    /* p->maps indices in output order */
	size_t nmap_out;

	/* sample types: which val[] index goes to which value position */
	int vidx[4];
	size_t nvals;
} pw;

/* ---- write_pprof.c */
/* The first frame of s written: the profile's trimming (skip) decides;
 * trimming is the symbolization step's, the writer writes what it holds. */
uint32_t yi_pw_first_frame(const yi_stack *s);
/* The pprof id of frame f of stack s: the lead variant for the first
 * written frame of a location with lskip, else the location's. */
uint64_t yi_pw_frame_id(const pw *w, const yi_stack *s, uint32_t f);
/* ---- write_pprof_ids.c */
int yi_pw_assign_locations(pw *w);
int yi_pw_assign_mappings(pw *w);
int yi_pw_assign_functions(pw *w);

#endif /* YING_WRITE_PPROF_H */
