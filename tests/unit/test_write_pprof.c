/*
 * test_write_pprof.c: the pprof writer (write_pprof*.c).
 *
 * Profiles written from real dumps are decoded with protobuf-c and held to
 * profile.proto's rules and to what `go tool pprof` expects:
 * string_table[0] == "", nonzero unique ids, every reference resolves, one
 * value per sample type in Go's order, totals equal ying_profile_total,
 * mapping[0] is the main binary with its GNU build ID, inline chains
 * innermost first; unsymbolized and keep-allocator-frames variants;
 * negative values (the diff's); every failed allocation is YING_ENOMEM.  A
 * live dump of tests/programs/pprof_alloc (known allocations in named
 * functions) checks values per function, inline frames and build IDs
 * against the binary itself.  The reader's side: test_read_pprof.c.
 */
#include "pprof_util.h"

/* ---- fixtures: real dumps of tests/data ---------------------------------- */

static void
test_fixture(const char *file)
{
	ying_symbolize_opts keep = YING_SYMBOLIZE_OPTS_INIT;
	ying_profile *p = NULL, *q = NULL;
	ying_membuf mb, raw, un, kp;
	PB *m;
	char what[128];
	int rc;
	size_t i;

	keep.keep_allocator_frames = 1;
	rc = ying_profile_read_file(&p, tap_data(file));
	snprintf(what, sizeof(what), "%s parses", file);
	is_int(rc, 0, what);
	if (p == NULL)
		return;

	/* symbolized, gzipped */
	rc = write_pb(p, 0, 0, 1, &mb);
	snprintf(what, sizeof(what), "%s: write pprof", file);
	is_int(rc, 0, what);
	ok(yi_is_gzip(mb.data, mb.len), "output is gzipped by default");
	m = decode(&mb);
	snprintf(what, sizeof(what), "%s: decodes with protobuf-c", file);
	ok(m != NULL, what);
	if (m) {
		check_rules(p, m, 0, file);
		perftools__profiles__profile__free_unpacked(m, NULL);
	}


	/* uncompressed */
	rc = write_pb(p, 0, 0, 0, &raw);
	ok(rc == 0 && !yi_is_gzip(raw.data, raw.len), "--no-gzip output is plain protobuf");
	ok(rc == 0 && (m = decode(&raw)) != NULL, "plain output decodes");
	if (rc == 0 && m) {
		perftools__profiles__profile__free_unpacked(m, NULL);
		rc = yi_pprof_parse(&q, raw.data, raw.len, "plain");
		is_int(rc, 0, "plain output parses with yi_pprof_parse");
		ying_profile_free(q);
		q = NULL;
	}

	/* truncated and corrupt input */
	{
		size_t cuts[] = { 1, 7, raw.len / 3, raw.len / 2, raw.len - 1 };
		size_t bad = 0, crashes_avoided = 0;
		unsigned seed = 12345;
		char *copy = malloc(raw.len);
		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			rc = yi_pprof_parse(&q, raw.data, cuts[i], "cut");
			if (rc != YING_EPARSE || q != NULL)
				bad++;
			ying_profile_free(q);
			q = NULL;
		}
		is_int(bad, 0, "truncated protobuf -> YING_EPARSE");
		has_str(ying_last_error(), "cut:", "message names the input");
		/* random byte flips: either a valid profile or EPARSE, never a crash */
		for (i = 0; i < 3000; i++) {
			size_t nflip = 1 + i % 4, k;
			memcpy(copy, raw.data, raw.len);
			for (k = 0; k < nflip; k++) {
				seed = seed * 1103515245u + 12345u;
				copy[(seed >> 8) % raw.len] ^= (char)(1u << ((seed >> 4) & 7));
			}
			rc = yi_pprof_parse(&q, copy, raw.len, "flip");
			if (rc != 0 && rc != YING_EPARSE && rc != YING_ELIMIT)
				bad++;
			else
				crashes_avoided++;
			ying_profile_free(q);
			q = NULL;
		}
		is_int(bad, 0, "3000 corrupted inputs: each parses or fails with YING_EPARSE");
		free(copy);
	}

	/* unsymbolized: addresses and mappings only */
	rc = write_pb(p, 1, 0, 1, &un);
	is_int(rc, 0, "unsymbolized write");
	if (rc == 0 && (m = decode(&un)) != NULL) {
		size_t outside = 0;
		check_rules(p, m, 1, "unsymbolized");
		for (i = 0; i < m->n_location; i++) {
			const Perftools__Profiles__Location *l = m->location[i];
			const Perftools__Profiles__Mapping *mp = find_map(m, l->mapping_id);
			if (l->address && (!mp || l->address < mp->memory_start ||
			    l->address >= mp->memory_limit))
				outside++;
		}
		ok(outside * 10 <= m->n_location, "unsymbolized: addresses lie inside their mappings");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}

	/* keep allocator frames (a decision of the symbolization step): every
	 * frame of every stack */
	rc = ying_profile_read_file(&q, tap_data(file));
	if (rc == 0)
		rc = ying_profile_symbolize(q, NULL, &keep);
	if (rc == 0)
		rc = write_pb(q, 0, 0, 1, &kp);
	is_int(rc, 0, "keep-allocator-frames write");
	if (rc == 0 && (m = decode(&kp)) != NULL) {
		size_t bad = 0;
		check_rules(q, m, 0, "keep-allocator-frames");
		for (i = 0; i < m->n_sample && i < q->stacks.n; i++) {
			size_t want = q->stacks.v[i].nframes ? q->stacks.v[i].nframes : 1;
			if (m->sample[i]->n_location_id != want)
				bad++;
		}
		is_int(bad, 0, "keep-allocator-frames: all frames written");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	ying_membuf_release(&kp);
	/* unsymbolized: the drop_frames regex asks pprof to trim what ying
	 * could not, unless the profile keeps its allocator frames */
	if (rc == 0 && write_pb(q, 1, 0, 1, &kp) == 0 && (m = decode(&kp)) != NULL) {
		is_int(m->drop_frames, 0, "kept allocator frames: no drop_frames regex when unsymbolized");
		perftools__profiles__profile__free_unpacked(m, NULL);
	} else {
		ok(0, "kept allocator frames: unsymbolized write");
	}
	if ((m = decode(&un)) != NULL) {
		ok(m->drop_frames > 0 && strstr(S(m, m->drop_frames), "malloc") != NULL,
		    "trimmed profile: drop_frames regex names malloc when unsymbolized");
		perftools__profiles__profile__free_unpacked(m, NULL);
	} else {
		ok(0, "trimmed profile: decode the unsymbolized write");
	}
	ying_profile_free(q);
	q = NULL;
	ying_membuf_release(&kp);

	/* the deprecated pprof option does not untrim a trimmed profile: the
	 * writer writes what the profile holds */
	rc = write_pb(p, 0, 1, 1, &kp);
	is_int(rc, 0, "deprecated pprof keep_allocator_frames write");
	if (rc == 0 && (m = decode(&kp)) != NULL) {
		size_t bad = 0;
		for (i = 0; i < m->n_sample && i < p->stacks.n; i++) {
			const yi_stack *st = &p->stacks.v[i];
			size_t want = st->nframes > st->skip ? st->nframes - st->skip : 1;
			if (m->sample[i]->n_location_id != want)
				bad++;
		}
		is_int(bad, 0, "deprecated pprof keep_allocator_frames: the trimmed frames, as the profile holds them");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}

	ying_membuf_release(&mb);
	ying_membuf_release(&raw);
	ying_membuf_release(&un);
	ying_membuf_release(&kp);
	ying_profile_free(p);
}

/* ---- allocation failures: every one is YING_ENOMEM, nothing leaks ------ */

extern long yi_alloc_fail_countdown;

static void
test_oom(void)
{
	ying_profile *p = NULL;
	ying_membuf mb = YING_MEMBUF_INIT;
	long n, bad = 0, tries = 0;
	int rc;

	if (ying_profile_read_file(&p, tap_data("heap_accum.heap")) != 0 ||
	    ying_profile_symbolize(p, NULL, NULL) != 0) {
		ok(0, "oom: fixture");
		return;
	}
	for (n = 1;; n++) {
		ying_membuf_release(&mb);
		memset(&mb, 0, sizeof(mb));
		yi_alloc_fail_countdown = n;
		rc = ying_profile_write_pprof(p, NULL, ying_write_membuf, &mb);
		yi_alloc_fail_countdown = 0;
		if (rc == 0)
			break;
		tries++;
		if (rc != YING_ENOMEM)
			bad++;
	}
	ok(tries > 5 && bad == 0, "writer: each failed allocation gives YING_ENOMEM");
	ying_membuf_release(&mb);
	ying_profile_free(p);
}

/* ---- negative values (what the diff writer produces) ------------------- */

static void
test_negative(void)
{
	ying_profile *p = NULL;
	ying_membuf mb;
	PB *m;
	int rc;

	if (ying_profile_read_file(&p, tap_data("heap_exact.heap")) != 0) {
		ok(0, "heap_exact parses");
		return;
	}
	ying_profile_symbolize(p, NULL, NULL);
	p->stacks.v[0].val[YING_INUSE_SPACE] = -4096.7;
	p->stacks.v[0].val[YING_INUSE_OBJECTS] = -2;
	memset(&mb, 0, sizeof(mb));
	rc = yi_pprof_write(p, NULL, ying_write_membuf, &mb);
	is_int(rc, 0, "yi_pprof_write with negative values");
	if (rc == 0 && (m = decode(&mb)) != NULL) {
		int cs = type_index(m, "inuse_space"), co = type_index(m, "inuse_objects");
		is_int(m->sample[0]->value[cs], -4096, "negative bytes truncated toward zero");
		is_int(m->sample[0]->value[co], -2, "negative objects");
		ok(m->sample[0]->n_label == 1 && m->sample[0]->label[0]->num == 2048,
		    "average size label from negative pair");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	ying_membuf_release(&mb);
	ying_profile_free(p);
}

/* ---- live: a real program's dump, symbolized against its binary --------- */

static void
test_live(void)
{
	const char *bdir = getenv("YING_BUILDDIR");
	char prog[PATH_MAX], real[PATH_MAX], dump[PATH_MAX], cmd[2 * PATH_MAX + 512], bid[128];
	ying_profile *p = NULL, *pk = NULL;
	ying_membuf mb, kp;
	PB *m;
	size_t i, k;
	int rc;
	double big = 0, small = 0, inl = 0, churn_alloc = 0, churn_inuse = 0;
	double big_n = 0;
	int cs, co, ca, inline_ok = 0;

	snprintf(prog, sizeof(prog), "%s/tests/programs/pprof_alloc", bdir ? bdir : ".");
	snprintf(dump, sizeof(dump), "%s/ying-test-pprof-%ld.heap", tap_tmpdir(), (long)getpid());
	snprintf(cmd, sizeof(cmd), "MALLOC_CONF=prof:true,lg_prof_sample:0,prof_accum:true "
	    "'%s' '%s'", prog, dump);
	rc = system(cmd);
	is_int(rc, 0, "pprof_alloc ran and dumped (jemalloc with prof)");
	if (rc != 0)
		return;
	rc = ying_profile_read_file(&p, dump);
	/* the same dump symbolized with keep_allocator_frames */
	if (ying_profile_read_file(&pk, dump) == 0) {
		ying_symbolize_opts keep = YING_SYMBOLIZE_OPTS_INIT;
		keep.keep_allocator_frames = 1;
		if (ying_profile_symbolize(pk, NULL, &keep) != 0) {
			ying_profile_free(pk);
			pk = NULL;
		}
	}
	unlink(dump);
	is_int(rc, 0, "live dump parses");
	if (p == NULL)
		return;
	rc = write_pb(p, 0, 0, 1, &mb);
	is_int(rc, 0, "live: write pprof");
	if (rc != 0 || (m = decode(&mb)) == NULL) {
		ok(0, "live: decodes");
		ying_profile_free(p);
		return;
	}
	check_rules(p, m, 0, "live");
	if (realpath(prog, real) == NULL)
		snprintf(real, sizeof(real), "%s", prog);
	ok(m->n_mapping > 0 && strcmp(S(m, m->mapping[0]->filename), real) == 0,
	    "live: mapping[0] is pprof_alloc");
	ok(file_build_id(real, bid, sizeof(bid)), "live: the binary has a GNU build ID");
	if (m->n_mapping > 0)
		is_str(S(m, m->mapping[0]->build_id), bid, "live: mapping[0] build_id = the binary's");
	{
		size_t with_id = 0;
		for (i = 0; i < m->n_mapping; i++)
			if (S(m, m->mapping[i]->build_id)[0])
				with_id++;
		ok(with_id >= 2, "live: shared libraries have build IDs too");
	}
	if (m->n_mapping > 0) {
		const Perftools__Profiles__Mapping *m0 = m->mapping[0];
		ok(m0->has_functions && m0->has_filenames && m0->has_line_numbers &&
		    m0->has_inline_frames, "live: mapping[0] has_functions/filenames/line_numbers/inline_frames");
		ok(m0->file_offset > 0 || m0->memory_start >= 0x400000,
		    "live: real start/offset of the text mapping");
	}

	cs = type_index(m, "inuse_space");
	co = type_index(m, "inuse_objects");
	ca = type_index(m, "alloc_space");
	for (i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const char *leaf = leaf_name(m, s);
		if (strcmp(leaf, "big_alloc") == 0) {
			big += (double)s->value[cs];
			big_n += (double)s->value[co];
		} else if (strcmp(leaf, "small_alloc") == 0) {
			small += (double)s->value[cs];
		} else if (strcmp(leaf, "inlined_alloc") == 0) {
			inl += (double)s->value[cs];
		} else if (strcmp(leaf, "churn_alloc") == 0) {
			churn_inuse += (double)s->value[cs];
			churn_alloc += (double)s->value[ca];
		}
		/* the inline chain: inlined_alloc first, mid_alloc (its caller) last */
		for (k = 0; k < s->n_location_id; k++) {
			const Perftools__Profiles__Location *l = find_loc(m, s->location_id[k]);
			const Perftools__Profiles__Function *f0, *fl;
			if (!l || l->n_line < 2)
				continue;
			f0 = find_func(m, l->line[0]->function_id);
			fl = find_func(m, l->line[l->n_line - 1]->function_id);
			if (f0 && fl && strcmp(S(m, f0->name), "inlined_alloc") == 0 &&
			    strcmp(S(m, fl->name), "mid_alloc") == 0 && l->line[0]->line > 0)
				inline_ok = 1;
		}
	}
	is_near(big, 8 << 20, 0, "live: big_alloc holds 8 MiB (allocator frames trimmed)");
	is_near(big_n, 8, 0, "live: big_alloc 8 objects");
	is_near(small, 2000 * 512, 0, "live: small_alloc holds 1024000 B");
	is_near(inl, 100 * 3072, 0, "live: inlined_alloc holds 307200 B");
	is_near(churn_inuse, 0, 0, "live: churn_alloc holds nothing");
	is_near(churn_alloc, 1000 * 4096, 0, "live: churn_alloc allocated 4096000 B (alloc_space)");
	ok(inline_ok, "live: inlined frame first, its caller last, with a line number");
	{
		size_t lab = 0;
		for (i = 0; i < m->n_sample; i++)
			if (strcmp(leaf_name(m, m->sample[i]), "big_alloc") == 0 &&
			    m->sample[i]->n_label == 1 && m->sample[i]->label[0]->num == 1 << 20)
				lab++;
		ok(lab >= 1, "live: big_alloc sample labelled bytes=1048576");
	}
	perftools__profiles__profile__free_unpacked(m, NULL);

	/* keep allocator frames: the leaf is inside the allocator again */
	rc = pk ? write_pb(pk, 0, 0, 1, &kp) : -1;
	if (rc == 0 && (m = decode(&kp)) != NULL) {
		size_t leaf_user = 0, with_big = 0;
		for (i = 0; i < m->n_sample; i++) {
			if (!sample_has(m, m->sample[i], "big_alloc"))
				continue;
			with_big++;
			if (strcmp(leaf_name(m, m->sample[i]), "big_alloc") == 0)
				leaf_user++;
		}
		ok(with_big > 0 && leaf_user == 0, "live keep: allocator frames stay below big_alloc");
		perftools__profiles__profile__free_unpacked(m, NULL);
	} else {
		ok(0, "live keep: write and decode");
	}
	ying_membuf_release(&mb);
	ying_membuf_release(&kp);
	ying_profile_free(p);
	ying_profile_free(pk);
}

/* Samples of m carrying a label with key `key`. */
static size_t
count_label(const PB *m, const char *key)
{
	size_t i, k, n = 0;

	for (i = 0; i < m->n_sample; i++)
		for (k = 0; k < m->sample[i]->n_label; k++)
			if (S(m, m->sample[i]->label[k]->key) &&
			    strcmp(S(m, m->sample[i]->label[k]->key), key) == 0)
				n++;
	return n;
}

/* The version-1 layout, as a caller built against it passes it (no
 * no_size_label: the writer must not read past gzip). */
typedef struct opts_v1 {
	int version, unsymbolized, keep_allocator_frames, gzip;
} opts_v1;

/* no_size_label (version 2), and version 1 still accepted. */
static void
test_size_label(void)
{
	ying_pprof_opts o = YING_PPROF_OPTS_INIT;
	ying_membuf mb = YING_MEMBUF_INIT, m1 = YING_MEMBUF_INIT;
	ying_profile *p = NULL;
	opts_v1 *v1;
	PB *m;
	size_t nsmp;

	is_int(YING_PPROF_OPTS_VERSION, 2, "ying_pprof_opts is version 2");
	is_int(o.no_size_label, 0, "no_size_label defaults to 0");
	if (ying_profile_read_file(&p, tap_data("heap_accum.heap")) != 0 ||
	    ying_profile_symbolize(p, NULL, NULL) != 0) {
		ok(0, "heap_accum.heap reads and symbolizes");
		ying_profile_free(p);
		return;
	}
	o.gzip = 0;
	is_int(ying_profile_write_pprof(p, &o, ying_write_membuf, &mb), 0, "default: written");
	m = decode(&mb);
	ok(m != NULL && m->n_sample > 0, "default: decodes, has samples");
	nsmp = m ? m->n_sample : 0;
	ok(m && count_label(m, "bytes") > 0 && count_label(m, "bytes") <= nsmp,
	    "default: samples carry the numeric 'bytes' label");
	if (m)
		perftools__profiles__profile__free_unpacked(m, NULL);
	ying_membuf_release(&mb);

	o.no_size_label = 1;
	is_int(ying_profile_write_pprof(p, &o, ying_write_membuf, &mb), 0, "no_size_label: written");
	m = decode(&mb);
	ok(m != NULL && m->n_sample == nsmp, "no_size_label: the same samples");
	ok(m && count_label(m, "bytes") == 0, "no_size_label: no 'bytes' label on any sample");
	if (m) {
		check_rules(p, m, 0, "no_size_label");
		perftools__profiles__profile__free_unpacked(m, NULL);
	}
	ying_membuf_release(&mb);

	/* version 1: exactly the old struct's bytes on the heap, so reading a
	 * field past it would show under ASan/valgrind */
	v1 = malloc(sizeof(*v1));
	v1->version = 1;
	v1->unsymbolized = 0;
	v1->keep_allocator_frames = 0;
	v1->gzip = 0;
	is_int(ying_profile_write_pprof(p, (const ying_pprof_opts *)(void *)v1,
	    ying_write_membuf, &m1), 0, "version 1 opts: accepted");
	m = decode(&m1);
	ok(m != NULL && !yi_is_gzip(m1.data, m1.len), "version 1 opts: gzip 0 honoured");
	ok(m && count_label(m, "bytes") > 0, "version 1 opts: the size label, as before");
	if (m)
		perftools__profiles__profile__free_unpacked(m, NULL);
	v1->gzip = 1;
	ying_membuf_release(&m1);
	is_int(ying_profile_write_pprof(p, (const ying_pprof_opts *)(void *)v1,
	    ying_write_membuf, &m1), 0, "version 1 opts, gzip 1: accepted");
	ok(yi_is_gzip(m1.data, m1.len), "version 1 opts: gzip 1 honoured");
	ying_membuf_release(&m1);
	/* the diff's pprof writer reads the options by the same rule */
	{
		ying_diff *d = NULL;
		v1->gzip = 0;
		if (ying_diff_build(&d, p, p, NULL) == 0) {
			ying_membuf_release(&m1);
			is_int(ying_diff_write_pprof(d, (const ying_pprof_opts *)(void *)v1,
			    ying_write_membuf, &m1), 0, "ying_diff_write_pprof: version 1 opts accepted");
			m = decode(&m1);
			ok(m != NULL && !yi_is_gzip(m1.data, m1.len), "... gzip 0 honoured");
			if (m)
				perftools__profiles__profile__free_unpacked(m, NULL);
			v1->version = 3;
			is_int(ying_diff_write_pprof(d, (const ying_pprof_opts *)(void *)v1,
			    ying_write_membuf, &m1), YING_EINVAL, "ying_diff_write_pprof: version 3 EINVAL");
			ying_diff_free(d);
		} else {
			ok(0, "a diff of the profile with itself");
		}
	}
	ying_membuf_release(&m1);
	v1->version = 3;
	is_int(ying_profile_write_pprof(p, (const ying_pprof_opts *)(void *)v1,
	    ying_write_membuf, &m1), YING_EINVAL, "version 3 opts: YING_EINVAL");
	has_str(ying_last_error(), "ying_pprof_opts version 3", "the detail names the version");
	v1->version = 0;
	is_int(ying_profile_write_pprof(p, (const ying_pprof_opts *)(void *)v1,
	    ying_write_membuf, &m1), YING_EINVAL, "version 0 opts: YING_EINVAL");
	free(v1);
	ying_membuf_release(&m1);
	ying_profile_free(p);
}

int
main(void)
{
	ying_membuf mb = YING_MEMBUF_INIT;
	ying_pprof_opts bad = YING_PPROF_OPTS_INIT;

	is_int(ying_profile_write_pprof(NULL, NULL, ying_write_membuf, &mb), YING_EINVAL,
	    "NULL profile -> EINVAL");
	bad.version = 99;
	test_fixture("heap_exact.heap");
	test_fixture("heap_accum.heap");
	{
		ying_profile *p = NULL;
		if (ying_profile_read_file(&p, tap_data("heap_exact.heap")) == 0) {
			is_int(ying_profile_write_pprof(p, &bad, ying_write_membuf, &mb), YING_EINVAL,
			    "wrong opts version -> EINVAL");
			ying_profile_free(p);
		}
	}
	test_negative();
	test_size_label();
	test_oom();
	test_live();
	return tap_done();
}

