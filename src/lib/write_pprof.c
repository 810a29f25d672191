/*
 * write_pprof.c: ying_profile -> pprof profile.proto (gzipped by default).
 *
 * The output follows what `go tool pprof` expects from a Go heap profile:
 * sample types alloc_objects, alloc_space (only when the dump has
 * prof_accum data), inuse_objects, inuse_space, in that order; period_type
 * space/bytes with the dump's sampling period; a numeric "bytes" label with
 * the average object size on every sample (unless no_size_label), and the profile's own numeric
 * label when it has one (`pid` of a summed service: ying_profile_merge_labeled,
 * for go tool pprof -tags / -tagfocus); mapping[0] is the main
 * executable.  Locations keep their runtime addresses and real mapping
 * ranges, so pprof can re-symbolize them itself (--unsymbolized writes only
 * those, with every has_* flag false).  Stacks are written as the profile
 * holds them, from each stack's `skip` on: trimming allocator frames is
 * ying_profile_symbolize's (ying_symbolize_opts.keep_allocator_frames),
 * never the writer's.
 *
 * The message is never built whole.  protobuf's wire format lets repeated
 * fields arrive in any number of pieces, and a message that is the
 * concatenation of two encodings decodes as their merge.  So we pack a
 * series of partial Profile messages, each holding a chunk of one repeated
 * field (in field-number order), and end with one holding the scalars
 * (time_nanos must appear once: pprof reads a second one as a concatenated
 * profile).  Memory stays proportional to a chunk, not to the profile, which
 * matters because the agent writes pprof inside the profiled process.
 * Packing goes through a ProtobufCBuffer that feeds a yi_out, whose sink is
 * either the caller's or a gzip stream in front of it.
 *
 * Pass 1 (write_pprof_ids.c) decides what gets written and under which
 * ids; pass 2 (this file) packs the message field by field.
 */
#include <math.h>
#include <stdlib.h>

#include "sym.h"
#include "write_pprof.h"


static void
pb_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	yi_out_write(((pb_sink *)b)->o, data, len);
}


static int
str_id(pw *w, const char *s, int64_t *out)
{
	uint32_t id;
	int rc;

	if ((rc = yi_strtab_intern(&w->strs, s, strlen(s), &id)) != 0)
		return rc;
	*out = (int64_t)id;
	return 0;
}

/* Pack one partial Profile into the output. */
static void
emit(pw *w, const Perftools__Profiles__Profile *m)
{
	protobuf_c_message_pack_to_buffer(&m->base, &w->sink.base);
}

/* A double as int64, truncated toward zero and clamped (NaN -> 0). */
static int64_t
to_i64(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

uint32_t
yi_pw_first_frame(const yi_stack *s)
{
	if (s->skip > s->nframes)
		return 0;
	return s->skip;
}

uint64_t
yi_pw_frame_id(const pw *w, const yi_stack *s, uint32_t f)
{
	uint32_t l = w->p->frames.v[s->frame_off + f];

	return f == yi_pw_first_frame(s) && w->lead_id[l] ? w->lead_id[l] : w->loc_id[l];
}

/* ---- pass 2: the message, field by field --------------------------------- */

static int
write_sample_types(pw *w)
{
	static const char *const names[4][2] = {
		[YING_INUSE_SPACE] = { "inuse_space", "bytes" },
		[YING_INUSE_OBJECTS] = { "inuse_objects", "count" },
		[YING_ALLOC_SPACE] = { "alloc_space", "bytes" },
		[YING_ALLOC_OBJECTS] = { "alloc_objects", "count" },
	};
	Perftools__Profiles__ValueType vt[4], *vtp[4];
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	size_t i;
	int rc;

	/* Go's order: alloc pair first, so the last type is inuse_space. */
	w->nvals = 0;
	if (w->p->has_accum) {
		w->vidx[w->nvals++] = YING_ALLOC_OBJECTS;
		w->vidx[w->nvals++] = YING_ALLOC_SPACE;
	}
	w->vidx[w->nvals++] = YING_INUSE_OBJECTS;
	w->vidx[w->nvals++] = YING_INUSE_SPACE;
	for (i = 0; i < w->nvals; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		if ((rc = str_id(w, names[w->vidx[i]][0], &vt[i].type)) != 0 ||
		    (rc = str_id(w, names[w->vidx[i]][1], &vt[i].unit)) != 0)
			return rc;
		vtp[i] = &vt[i];
	}
	m.n_sample_type = w->nvals;
	m.sample_type = vtp;
	emit(w, &m);
	return 0;
}

/* Average object size of a stack (Go's "bytes" label), 0 when unknown. */
static int64_t
avg_size(const yi_stack *s)
{
	double n = s->val[YING_INUSE_OBJECTS], b = s->val[YING_INUSE_SPACE];

	if (n == 0 || b == 0) {
		n = s->val[YING_ALLOC_OBJECTS];
		b = s->val[YING_ALLOC_SPACE];
	}
	if (n == 0 || b == 0 || !(b / n > 0))
		return 0;
	return to_i64(b / n);
}

static int
write_samples(pw *w)
{
	const ying_profile *p = w->p;
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Sample *smp = NULL, **smpp = NULL;
	Perftools__Profiles__Label *lab = NULL, **labp = NULL;
	bool size_label = !w->no_size_label;
	int64_t *vals = NULL, key_bytes, unit_bytes, key_label = 0, key_heap = 0, heap_str;
	uint64_t *ids = NULL;
	size_t ids_cap = 0, i, k, j, n;
	int rc = 0;

	if ((rc = str_id(w, "bytes", &key_bytes)) != 0)
		return rc;
	unit_bytes = key_bytes;
	if (p->has_label && (rc = str_id(w, yi_profile_str(p, p->label_key), &key_label)) != 0)
		return rc;
	if (p->has_heaps && (rc = str_id(w, "heap", &key_heap)) != 0)
		return rc;
	smp = yi_calloc(CHUNK, sizeof(*smp));
	smpp = yi_calloc(CHUNK, sizeof(*smpp));
	lab = yi_calloc(CHUNK * 3, sizeof(*lab));
	labp = yi_calloc(CHUNK * 3, sizeof(*labp));
	vals = yi_calloc(CHUNK * 4, sizeof(*vals));
	if (!smp || !smpp || !lab || !labp || !vals) {
		rc = yi_oom("writing pprof samples");
		goto out;
	}
	for (i = 0; i < p->stacks.n && w->o->err == 0; i += n) {
		size_t nids = 0;
		n = p->stacks.n - i < CHUNK ? p->stacks.n - i : CHUNK;
		/* Location ids of the whole chunk go to one buffer. */
		for (k = 0; k < n; k++) {
			const yi_stack *s = &p->stacks.v[i + k];
			uint32_t f = yi_pw_first_frame(s);
			nids += f < s->nframes ? s->nframes - f : 1;
		}
		if (nids > ids_cap) {
			uint64_t *ni = yi_reallocarray(ids, nids, sizeof(*ids));
			if (ni == NULL) {
				rc = yi_oom("writing pprof samples");
				goto out;
			}
			ids = ni;
			ids_cap = nids;
		}
		nids = 0;
		for (k = 0; k < n; k++) {
			const yi_stack *s = &p->stacks.v[i + k];
			Perftools__Profiles__Sample *sp = &smp[k];
			uint32_t f = yi_pw_first_frame(s);
			int64_t avg;

			perftools__profiles__sample__init(sp);
			sp->location_id = &ids[nids];
			if (f >= s->nframes) {
				ids[nids++] = w->unknown_loc;
				sp->n_location_id = 1;
			} else {
				for (; f < s->nframes; f++)
					ids[nids++] = yi_pw_frame_id(w, s, f);
				sp->n_location_id = s->nframes - yi_pw_first_frame(s);
			}
			sp->value = &vals[k * 4];
			sp->n_value = w->nvals;
			for (j = 0; j < w->nvals; j++)
				sp->value[j] = to_i64(s->val[w->vidx[j]]);
			sp->label = &labp[3 * k];
			if (size_label && (avg = avg_size(s)) != 0) {
				Perftools__Profiles__Label *l = &lab[3 * k + sp->n_label];
				perftools__profiles__label__init(l);
				l->key = key_bytes;
				l->num = avg;
				l->num_unit = unit_bytes;
				labp[3 * k + sp->n_label++] = l;
			}
			if (p->has_label) {     /* e.g. pid: go tool pprof -tagfocus */
				Perftools__Profiles__Label *l = &lab[3 * k + sp->n_label];
				perftools__profiles__label__init(l);
				l->key = key_label;
				l->num = s->label;
				labp[3 * k + sp->n_label++] = l;
			}
			if (p->has_heaps) {     /* heap=rust: -tagfocus heap=c */
				Perftools__Profiles__Label *l = &lab[3 * k + sp->n_label];
				if ((rc = str_id(w, yi_profile_str(p, s->heap), &heap_str)) != 0)
					goto out;
				perftools__profiles__label__init(l);
				l->key = key_heap;
				l->str = heap_str;
				labp[3 * k + sp->n_label++] = l;
			}
			if (sp->n_label == 0)
				sp->label = NULL;
			smpp[k] = sp;
		}
		m.n_sample = n;
		m.sample = smpp;
		emit(w, &m);
	}
out:
	yi_free(ids);
	yi_free(vals);
	yi_free(labp);
	yi_free(lab);
	yi_free(smpp);
	yi_free(smp);
	return rc;
}

/* The has_* flags of every written mapping, from what its written
 * locations carry (one pass over the locations). */
enum { F_ANY = 1, F_UNNAMED = 2, F_FILES = 4, F_LINES = 8 };

/* The symbolizer names an address it could not resolve "module+0xoff"
 * (the module's base name); such a frame has no real function. */
static bool
is_placeholder(const ying_profile *p, const yi_mapping *m, const char *name)
{
	const char *path = yi_profile_str(p, m->path), *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	return strncmp(name, base, n) == 0 && strncmp(name + n, "+0x", 3) == 0;
}

static int
mapping_flags(const pw *w, uint8_t **out)
{
	const ying_profile *p = w->p;
	uint8_t *fl;
	size_t i, k;

	*out = fl = yi_calloc(p->maps.n ? p->maps.n : 1, 1);
	if (fl == NULL)
		return yi_oom("writing pprof mappings");
	for (i = 0; i < p->locs.n; i++) {
		const yi_loc *l = &p->locs.v[i];
		uint8_t *f;
		if ((w->loc_id[i] == 0 && w->lead_id[i] == 0) || w->loc_map[i] < 0)
			continue;
		f = &fl[w->loc_map[i]];
		*f |= F_ANY;
		if (l->nlines == 0)
			*f |= F_UNNAMED;
		for (k = 0; k < l->nlines; k++) {
			const yi_line *ln = &p->lines.v[l->line_off + k];
			const yi_func *fn;
			if (ln->line)
				*f |= F_LINES;
			if (ln->func >= p->funcs.n)
				continue;
			fn = &p->funcs.v[ln->func];
			if (yi_profile_str(p, fn->file)[0])
				*f |= F_FILES;
			else if (!ln->line && is_placeholder(p, &p->maps.v[w->loc_map[i]],
			    yi_profile_str(p, fn->name)))
				*f |= F_UNNAMED;
		}
	}
	return 0;
}

static void
set_flags(const pw *w, uint32_t mi, uint8_t f, Perftools__Profiles__Mapping *mm)
{
	/* Names are real symbols only where the symbolizer found the
	 * module's symbols ("module+0xoff" otherwise: let pprof retry). */
	if (!w->sym || !w->p->maps.v[mi].symbolized || (f & F_UNNAMED))
		return;
	mm->has_functions = true;
	mm->has_filenames = (f & F_FILES) != 0;
	mm->has_line_numbers = (f & F_LINES) != 0;
	/* The symbolizer follows DWARF inline chains wherever it has line
	 * information, so inline frames are present exactly then. */
	mm->has_inline_frames = mm->has_line_numbers;
}

static int
write_mappings(pw *w)
{
	const ying_profile *p = w->p;
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Mapping *mp = NULL, **mpp = NULL;
	uint8_t *fl = NULL;
	size_t i;
	int rc = 0;

	if (w->nmap_out == 0)
		return 0;
	if ((rc = mapping_flags(w, &fl)) != 0)
		return rc;
	mp = yi_calloc(w->nmap_out, sizeof(*mp));
	mpp = yi_calloc(w->nmap_out, sizeof(*mpp));
	if (mp == NULL || mpp == NULL) {
		rc = yi_oom("writing pprof mappings");
		goto out;
	}
	for (i = 0; i < w->nmap_out; i++) {
		uint32_t mi = w->map_order[i];
		const yi_mapping *ym = &p->maps.v[mi];
		perftools__profiles__mapping__init(&mp[i]);
		mp[i].id = w->map_id[mi];
		mp[i].memory_start = ym->start;
		mp[i].memory_limit = ym->end;
		mp[i].file_offset = ym->offset;
		if ((rc = str_id(w, yi_profile_str(p, ym->path), &mp[i].filename)) != 0)
			goto out;
		if (ym->build_id && (rc = str_id(w, yi_profile_str(p, ym->build_id),
		    &mp[i].build_id)) != 0)
			goto out;
		set_flags(w, mi, fl[mi], &mp[i]);
		mpp[i] = &mp[i];
	}
	m.n_mapping = w->nmap_out;
	m.mapping = mpp;
	emit(w, &m);
out:
	yi_free(mpp);
	yi_free(mp);
	yi_free(fl);
	return rc;
}

/* Locations go out in chunks; a chunk owns its Line storage. */
typedef struct loc_chunk {
	Perftools__Profiles__Location loc[CHUNK], *locp[CHUNK];
	size_t n;
	YI_VEC(Perftools__Profiles__Line) ln;
	YI_VEC(Perftools__Profiles__Line *) lnp;
} loc_chunk;

static void
flush_locations(pw *w, loc_chunk *c)
{
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	size_t i, nl = 0;

	if (c->n == 0)
		return;
	/* Line pointers are fixed up only now: the Line vector may have
	 * moved while the chunk was filled. */
	for (i = 0; i < c->n; i++) {
		Perftools__Profiles__Location *L = &c->loc[i];
		size_t k;
		if (L->n_line)
			L->line = &c->lnp.v[nl];
		for (k = 0; k < L->n_line; k++, nl++)
			c->lnp.v[nl] = &c->ln.v[nl];
		c->locp[i] = L;
	}
	m.n_location = c->n;
	m.location = c->locp;
	emit(w, &m);
	c->n = 0;
	c->ln.n = c->lnp.n = 0;
}

/* Add one location with `nl` lines (filled by the caller, from *lines). */
static int
add_location(pw *w, loc_chunk *c, Perftools__Profiles__Location **L,
    size_t nl, Perftools__Profiles__Line **lines)
{
	int rc;

	if (c->n == CHUNK)
		flush_locations(w, c);
	if ((rc = yi_vec_grow(&c->ln, nl)) != 0 || (rc = yi_vec_grow(&c->lnp, nl)) != 0)
		return rc;
	*L = &c->loc[c->n++];
	perftools__profiles__location__init(*L);
	(*L)->n_line = nl;
	*lines = nl ? &c->ln.v[c->ln.n] : NULL;   /* no NULL+0 when v is empty */
	c->ln.n += nl;
	c->lnp.n += nl;
	return 0;
}

static int
write_locations(pw *w)
{
	const ying_profile *p = w->p;
	Perftools__Profiles__Location *L;
	Perftools__Profiles__Line *ln;
	loc_chunk *c;
	size_t i, k;
	int rc = 0;

	if ((c = yi_calloc(1, sizeof(*c))) == NULL)
		return yi_oom("writing pprof locations");
	for (i = 0; i < p->locs.n * 2 && w->o->err == 0; i++) {
		/* each location, then the lead variants (without lskip lines) */
		size_t li = i % p->locs.n, from = i < p->locs.n ? 0 : p->locs.v[li].lskip;
		const yi_loc *yl = &p->locs.v[li];
		uint64_t id = i < p->locs.n ? w->loc_id[li] : w->lead_id[li];
		size_t nl = w->sym ? yl->nlines - from : 0;
		if (id == 0)
			continue;
		if ((rc = add_location(w, c, &L, nl, &ln)) != 0)
			goto out;
		L->id = id;
		L->address = yl->addr;
		L->mapping_id = w->loc_map[li] >= 0 ? w->map_id[w->loc_map[li]] : 0;
		for (k = 0; k < nl; k++) {
			const yi_line *yln = &p->lines.v[yl->line_off + from + k];
			perftools__profiles__line__init(&ln[k]);
			ln[k].function_id = yln->func < p->funcs.n ? w->func_id[yln->func] : 0;
			ln[k].line = yln->line;
		}
	}
	if (w->unknown_loc) {
		/* Stacks with no frame left: one location naming "[unknown]",
		 * as yi_stack_expand does for the text reports. */
		size_t nl = w->sym ? 1 : 0;
		if ((rc = add_location(w, c, &L, nl, &ln)) != 0)
			goto out;
		L->id = w->unknown_loc;
		if (nl) {
			perftools__profiles__line__init(&ln[0]);
			ln[0].function_id = w->func_id[p->unknown_func];
		}
	}
	flush_locations(w, c);
out:
	yi_vec_free(&c->ln);
	yi_vec_free(&c->lnp);
	yi_free(c);
	return rc;
}

static int
write_functions(pw *w)
{
	const ying_profile *p = w->p;
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Function *fp = NULL, **fpp = NULL;
	size_t i = 0, n;
	int rc = 0;

	if (w->nfunc_ids == 0)
		return 0;
	fp = yi_calloc(CHUNK, sizeof(*fp));
	fpp = yi_calloc(CHUNK, sizeof(*fpp));
	if (fp == NULL || fpp == NULL) {
		rc = yi_oom("writing pprof functions");
		goto out;
	}
	while (i < p->funcs.n && w->o->err == 0) {
		for (n = 0; i < p->funcs.n && n < CHUNK; i++) {
			const yi_func *yf = &p->funcs.v[i];
			Perftools__Profiles__Function *F = &fp[n];
			if (w->func_id[i] == 0)
				continue;
			perftools__profiles__function__init(F);
			F->id = w->func_id[i];
			if ((rc = str_id(w, yi_profile_str(p, yf->name), &F->name)) != 0 ||
			    (rc = str_id(w, yi_profile_str(p, yf->sysname), &F->system_name)) != 0 ||
			    (rc = str_id(w, yi_profile_str(p, yf->file), &F->filename)) != 0)
				goto out;
			fpp[n++] = F;
		}
		m.n_function = n;
		m.function = fpp;
		if (n)
			emit(w, &m);
	}
out:
	yi_free(fpp);
	yi_free(fp);
	return rc;
}

/* Everything that is not a repeated message: scalars and the string table
 * (which must be complete, so it comes after every other field interned
 * its strings). */
static int
write_tail(pw *w, bool drop_allocators)
{
	Perftools__Profiles__Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	int64_t comment = 0;
	size_t i, n;
	int rc;

	if ((rc = str_id(w, "space", &period_type.type)) != 0 ||
	    (rc = str_id(w, "bytes", &period_type.unit)) != 0 ||
	    (rc = str_id(w, "inuse_space", &m.default_sample_type)) != 0)
		return rc;
	/* Frames whose function fully matches this are dropped by pprof together
	 * with their callees.  Only written for --unsymbolized profiles, where
	 * ying could not trim allocator frames itself (pprof applies it after its
	 * own symbolization); the names are sym_trim.c's.  Not when the frames
	 * are to be kept: the profile was trimmed with keep_allocator_frames,
	 * or (never symbolized) the caller says so in ying_pprof_opts. */
	if (drop_allocators) {
		char *re;
		if ((rc = yi_allocator_regex(&re)) != 0)
			return rc;
		rc = str_id(w, re, &m.drop_frames);
		yi_free(re);
		if (rc != 0)
			return rc;
	}
	m.period_type = &period_type;
	m.period = w->p->period > INT64_MAX ? INT64_MAX : (int64_t)w->p->period;
	if (w->extra->time_nanos > 0)
		m.time_nanos = w->extra->time_nanos;
	else if (w->p->time > 0 && w->p->time < INT64_MAX / 1000000000)
		m.time_nanos = w->p->time * 1000000000;
	if (w->extra->duration_nanos > 0)
		m.duration_nanos = w->extra->duration_nanos;
	if (w->extra->comment) {
		if ((rc = str_id(w, w->extra->comment, &comment)) != 0)
			return rc;
		m.n_comment = 1;
		m.comment = &comment;
	}

	/* Strings in chunks of CHUNK (string_table is field 6, the scalars
	 * are 7 and up: this keeps the canonical field order). */
	for (i = 0; i < yi_strtab_count(&w->strs); i += n) {
		Perftools__Profiles__Profile st = PERFTOOLS__PROFILES__PROFILE__INIT;
		n = yi_strtab_count(&w->strs) - i < CHUNK ? yi_strtab_count(&w->strs) - i : CHUNK;
		st.n_string_table = n;
		/* protobuf-c never writes through string_table when packing */
		st.string_table = (char **)(uintptr_t)(yi_strtab_all(&w->strs) + i);
		emit(w, &st);
	}
	emit(w, &m);
	return 0;
}

static int
write_all(pw *w, const ying_pprof_opts *opts)
{
	int rc;

	if ((rc = yi_pw_assign_locations(w)) != 0 ||
	    (rc = yi_pw_assign_mappings(w)) != 0 ||
	    (rc = yi_pw_assign_functions(w)) != 0 ||
	    (rc = write_sample_types(w)) != 0 ||
	    (rc = write_samples(w)) != 0 ||
	    (rc = write_mappings(w)) != 0 ||
	    (rc = write_locations(w)) != 0 ||
	    (rc = write_functions(w)) != 0 ||
	    (rc = write_tail(w, !w->sym && !w->p->kept_allocators &&
	    !opts->keep_allocator_frames)) != 0)
		return rc;
	return 0;
}

/* Version 1 of ying_pprof_opts, as a caller built against it has it. */
typedef struct pprof_opts_v1 {
	int version;
	int unsymbolized;
	int keep_allocator_frames;
	int gzip;
} pprof_opts_v1;

int
yi_pprof_opts_get(ying_pprof_opts *out, const ying_pprof_opts *in, const char *what)
{
	const ying_pprof_opts def = YING_PPROF_OPTS_INIT;

	*out = def;
	if (in == NULL)
		return 0;
	if (in->version == 1) {
		const pprof_opts_v1 *v1 = (const pprof_opts_v1 *)(const void *)in;
		out->unsymbolized = v1->unsymbolized;
		out->keep_allocator_frames = v1->keep_allocator_frames;
		out->gzip = v1->gzip;
		return 0;
	}
	if (in->version != YING_PPROF_OPTS_VERSION)
		return yi_error(YING_EINVAL, "%s: ying_pprof_opts version %d unsupported "
		    "(1 or %d)", what, in->version, YING_PPROF_OPTS_VERSION);
	*out = *in;
	return 0;
}

int
yi_pprof_write(const ying_profile *p, const ying_pprof_opts *in, ying_write_fn fn,
    void *opaque)
{
	return yi_pprof_write_ex(p, in, NULL, fn, opaque);
}

int
yi_pprof_write_ex(const ying_profile *p, const ying_pprof_opts *in,
    const yi_pprof_extra *extra, ying_write_fn fn, void *opaque)
{
	static const yi_pprof_extra none;
	ying_pprof_opts o, *opts = &o;
	yi_gzout *gz = NULL;
	pw w;
	int rc, rc2;

	if ((rc = yi_pprof_opts_get(&o, in, "writing pprof")) != 0)
		return rc;
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.extra = extra ? extra : &none;
	w.sym = !opts->unsymbolized;
	w.no_size_label = opts->no_size_label != 0;
	w.sink.base.append = pb_append;
	if ((rc = yi_strtab_init(&w.strs)) != 0)
		goto out;       /* release frees what a failed init allocated */
	if ((w.o = yi_malloc(sizeof(*w.o))) == NULL) {
		rc = yi_oom("writing pprof");
		goto out;
	}
	w.sink.o = w.o;
	if (opts->gzip) {
		/* Level 1, like Go's runtime (BestSpeed): a real 200,000-stack
		 * profile still shrinks 12x (6.4 MB -> 0.5 MB), at a third of
		 * level 6's time. */
		if ((rc = yi_gzout_new(&gz, fn, opaque, 1)) != 0)
			goto out;
		yi_out_init(w.o, yi_gzout_write, gz);
	} else {
		yi_out_init(w.o, fn, opaque);
	}
	rc = write_all(&w, opts);
	rc2 = yi_out_finish(w.o);
	if (rc == 0)
		rc = rc2;
	if (gz) {
		if (rc == 0)
			rc = yi_gzout_finish(gz);
		else
			yi_gzout_abort(gz);
	}
out:
	yi_free(w.o);
	yi_free(w.loc_id);
	yi_free(w.lead_id);
	yi_free(w.loc_map);
	yi_free(w.func_id);
	yi_free(w.map_id);
	yi_free(w.map_order);
	yi_strtab_release(&w.strs);
	return rc;
}
