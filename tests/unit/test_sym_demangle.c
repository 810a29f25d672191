/*
 * test_sym_demangle.c: yi_demangle (sym_demangle.c, libiberty): C++ names
 * exactly as libstdc++'s __cxa_demangle prints them (the real one, loaded
 * with dlopen, is the oracle), legacy Rust names without their hash, v0
 * Rust names (generics, closures, trait and inherent impls) without crate
 * disambiguators, and names that are not mangled, malformed, random or huge
 * coming back as NULL (the caller keeps the raw name) without crashing.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "internal.h"
#include "sym_int.h"    /* yi_demangle: private to the sym family */
#include "tap.h"

/* yi_demangle(in) equals want (NULL: not demangled). */
static void
check(const char *in, const char *want, const char *what)
{
	char *got = yi_demangle(in);

	if (want == NULL) {
		ok(got == NULL, what);
		if (got != NULL)
			printf("#   got %s\n", got);
	} else {
		is_str(got ? got : "(null)", want, what);
	}
	yi_free(got);
}

typedef char *(*cxa_fn)(const char *, char *, size_t *, int *);

/* C++ names: ours equal __cxa_demangle's, one by one. */
static void
cxx_against_libstdcxx(void)
{
	static const char *const names[] = {
		"_ZN9ying_test6Widget4makeEm",
		"_Znwm", "_ZdlPvm", "_Znam",
		"_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4findEPKcmm",
		"_ZNSt8_Rb_treeIiSt4pairIKiSsESt10_Select1stIS2_ESt4lessIiESaIS2_EE8_M_eraseEPSt13_Rb_tree_nodeIS2_E",
		"_ZZ4mainENKUlvE_clEv",
		"_ZN4ying3Foo3barIiEEvT_.constprop.0",
		"_ZN4ying3Foo3barEv.cold",
		"_ZNK3MapIiiE2atERKi.isra.0",
		"_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
		"_ZSt4cout", "_ZTV9ying_test", "_ZTI9ying_test",
		"_ZN5boost6detail17sp_counted_impl_pIN4ying6WidgetEE7disposeEv",
	};
	void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
	void *f = h ? dlsym(h, "__cxa_demangle") : NULL;
	cxa_fn cxa = NULL;
	size_t i;

	ok(f != NULL, "libstdc++'s __cxa_demangle is loadable (the oracle)");
	if (f == NULL)
		return;
	memcpy(&cxa, &f, sizeof(f));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int st = -1;
		char *want = cxa(names[i], NULL, NULL, &st), what[256];
		snprintf(what, sizeof(what), "C++ %s as __cxa_demangle prints it", names[i]);
		check(names[i], st == 0 ? want : NULL, what);
		free(want);
	}
}

static void
rust_legacy(void)
{
	check("_ZN9ying_rust6module10make_thing17h0123456789abcdefE",
	    "ying_rust::module::make_thing", "legacy Rust: hash dropped");
	check("_ZN64_$LT$rustsvc..Je$u20$as$u20$core..alloc..global..GlobalAlloc$GT$5alloc17h503ef9d02f2c43dbE",
	    "<rustsvc::Je as core::alloc::global::GlobalAlloc>::alloc",
	    "legacy Rust: $-escapes and '..' decoded");
	check("_ZN7rustsvc5Cache10leak_entry17ha60d71b42030b91dE.llvm.1892160226935060121",
	    "rustsvc::Cache::leak_entry", "legacy Rust: .llvm. suffix dropped");
	check("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
	    "std::rt::lang_start::{{closure}}", "legacy Rust: closure");
	/* no hash: not Rust, so C++ (a plain nested name) */
	check("_ZN9ying_rust6module10make_thingE", "ying_rust::module::make_thing",
	    "a _ZN name without a hash is C++");
}

static void
rust_v0(void)
{
	check("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal",
	    "std::rt::lang_start_internal", "v0: path, no crate disambiguator");
	check("_RNvMCs3nG5cQELmqU_4leakNtB2_5Cache10leak_entry",
	    "<leak::Cache>::leak_entry", "v0: inherent impl method");
	check("_RNvXs_Cs3nG5cQELmqU_4leakINtB4_5StoreyENtB4_4Grow4growB4_",
	    "<leak::Store<u64> as leak::Grow>::grow", "v0: trait impl (Xs_) with generic args");
	check("_RNCNvCs3nG5cQELmqU_4leak4main0B3_", "leak::main::{closure#0}", "v0: closure");
	check("_RINvNtCs6IL9ONYDOZW_4core3ptr13drop_in_placeINtNtCsihNoVIYWwLU_5alloc3vec3VechEECs3nG5cQELmqU_4leak",
	    "core::ptr::drop_in_place::<alloc::vec::Vec<u8>>", "v0: generic function");
	check("_RINvNtCsihNoVIYWwLU_5alloc7raw_vec11finish_growNtNtB4_5alloc6GlobalECs3nG5cQELmqU_4leak.llvm.8451056050665221130",
	    "alloc::raw_vec::finish_grow::<alloc::alloc::Global>", "v0: .llvm. suffix dropped");
	check("_RNvMs_NtCsihNoVIYWwLU_5alloc3vecINtB4_3VecpE4push",
	    "<alloc::vec::Vec<_>>::push", "v0: placeholder generic arg");
}

static void
not_mangled(void)
{
	check("malloc", NULL, "plain C name untouched");
	check("main", NULL, "main untouched");
	check("_start", NULL, "_start untouched");
	check("__libc_start_main", NULL, "__libc_start_main untouched");
	check("_GLOBAL__sub_I_main.c", NULL, "_GLOBAL__ names untouched");
	check("", NULL, "empty name");
	check("_", NULL, "a lone underscore");
	check("_Z", NULL, "bare _Z");
	check("_R", NULL, "bare _R");
	check("_RNv", NULL, "truncated v0");
	check("_Rxyz", NULL, "v0 garbage");
	check("_ZN3foo", NULL, "truncated C++");
	check("_ZN3fooE17h0123", NULL, "truncated legacy hash");
	check("_RNvNtCsjrHSEGnQ3l9_3std2rt99lang_start_internal", NULL,
	    "v0 identifier longer than the name");
	check("_RNvNtB0_3std2rt4main", NULL, "v0 back-reference to itself");
	check("_RNvCs3nG5cQELmqU_4\xff\xfe\x80\x81""4main", NULL, "v0 with raw non-ASCII bytes");
	/* C++ identifiers may be UTF-8: bytes pass through, as __cxa_demangle does */
	check("_ZN5\xc3\xa9t\xc3\xa9""3fooE", "\xc3\xa9t\xc3\xa9::foo", "C++ UTF-8 identifier");
}

/* Random and huge inputs: no crash, no hang; the huge ones stay raw. */
static void
hostile(void)
{
	static const char alphabet[] = "_ZRNvMXsICBE0123456789abcdefhuyjT$.";
	size_t n = 100 * 1024, i, bad = 0;
	char *big = malloc(n + 16), buf[96];
	unsigned seed = 12345;

	for (i = 0; i < 20000; i++) {
		size_t len = 2 + (size_t)(rand_r(&seed) % 80), k;
		char *d;
		buf[0] = '_';
		buf[1] = (i & 1) ? 'Z' : 'R';
		for (k = 2; k < len; k++)
			buf[k] = (i % 7 == 0) ? (char)(1 + rand_r(&seed) % 255) :
			    alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		buf[len] = '\0';
		d = yi_demangle(buf);
		if (d != NULL && d[0] == '\0')
			bad++;
		yi_free(d);
	}
	is_int((int)bad, 0, "20000 random _Z/_R names: no crash, no empty result");

	ok(big != NULL, "100 KB buffer");
	if (big == NULL)
		return;
	/* a valid C++ nested name of 100 KB: "_ZN" ("3abc")* "E" */
	memcpy(big, "_ZN", 3);
	for (i = 3; i + 4 < n; i += 4)
		memcpy(big + i, "3abc", 4);
	big[i++] = 'E';
	big[i] = '\0';
	check(big, NULL, "a 100 KB C++ name stays raw");
	big[0] = '_';
	big[1] = 'R';
	check(big, NULL, "a 100 KB _R name stays raw");
	/* 100 KB of nesting: pointer to pointer to ... */
	memset(big, 'P', n);
	memcpy(big, "_Z1fP", 5);
	memcpy(big + n - 2, "iE", 3);
	check(big, NULL, "100 KB of nested pointers stays raw");
	/* a long name below the limit is still demangled: f with 1000 int
	 * parameters, 5 KB of output */
	memcpy(big, "_Z1f", 4);
	memset(big + 4, 'i', 1000);
	big[1004] = '\0';
	{
		char *d = yi_demangle(big);
		ok(d != NULL && strncmp(d, "f(int, int, ", 12) == 0 && strlen(d) == 3 + 1000 * 5 - 2,
		    "f with 1000 parameters is demangled");
		yi_free(d);
	}
	/* deep nesting within the limit: libiberty's recursion limit, no crash */
	memset(big, 'P', 8000);
	memcpy(big, "_Z1fP", 5);
	memcpy(big + 8000, "i", 2);
	{
		char *d = yi_demangle(big);
		ok(1, "8000 nested pointers: no crash");
		yi_free(d);
	}
	free(big);
}

int
main(void)
{
	cxx_against_libstdcxx();
	rust_legacy();
	rust_v0();
	not_mangled();
	hostile();
	return tap_done();
}
