/*
 * test_sym_short.c: the short-name rule (sym_short.c): a table of C++,
 * Rust, C and other names and what each level keeps; adversarial input
 * (unbalanced, deep, random bytes: copied whole or shortened, never read
 * or written out of bounds, never longer); and yi_names_show's choice over
 * a set: overloads and template instances whose short names agree print
 * the shortest form that tells them apart, everything else the short name.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

static const char *
shorten(const char *s, int keep)
{
	static char out[8192];

	yi_name_short(s, keep, out);
	return out;
}

static void
test_table(void)
{
	static const struct { const char *in, *out; } t[] = {
		/* C and things that are not C++ or Rust: as they are */
		{ "main", "main" },
		{ "", "" },
		{ "[unknown]", "[unknown]" },
		{ "libfoo.so+0x1f2e", "libfoo.so+0x1f2e" },
		{ "a\"b\\c{d}<e>|f::g h(x).so+0x1000", "a\"b\\c{d}<e>|f::g h(x).so+0x1000" },
		{ "f(int)+0x", "f+0x" },
		{ "zmalloc_usable.constprop.0", "zmalloc_usable.constprop.0" },
		{ "main.(*Server).handle", "main.(*Server).handle" },
		/* C++: parameters, qualifiers, templates, return types */
		{ "cache_blob(unsigned long)", "cache_blob" },
		{ "Registry::remember(std::__cxx11::basic_string<char, std::char_traits<char>, "
		  "std::allocator<char> > const&)", "Registry::remember" },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)",
		  "std::vector::push_back" },
		{ "std::__new_allocator<Session>::allocate(unsigned long, void const*)",
		  "std::__new_allocator::allocate" },
		{ "Widget* make_many<Widget>(int)", "make_many" },
		{ "void std::vector<Foo*, std::allocator<Foo*> >::_M_realloc_insert<Foo* const&>"
		  "(__gnu_cxx::__normal_iterator<Foo**, std::vector<Foo*, std::allocator<Foo*> > >, "
		  "Foo* const&)", "std::vector::_M_realloc_insert" },
		{ "unsigned long long const& pick<unsigned long long>(int)", "pick" },
		{ "Foo::bar() const", "Foo::bar" },
		{ "Foo::bar() const &&", "Foo::bar" },
		{ "Foo::bar() volatile &", "Foo::bar" },
		{ "Foo::baz() noexcept", "Foo::baz" },
		{ "Foo::constant()", "Foo::constant" },
		/* operators */
		{ "Worker::operator()()", "Worker::operator()" },
		{ "Sink::operator<<(int)", "Sink::operator<<" },
		{ "operator<<(std::ostream&, Foo const&)", "operator<<" },
		{ "bool operator< <Foo>(Foo const&, Foo const&)", "operator<" },
		{ "Foo::operator->() const", "Foo::operator->" },
		{ "Foo::operator[](unsigned long)", "Foo::operator[]" },
		{ "operator new(unsigned long)", "operator new" },
		{ "operator delete[](void*)", "operator delete[]" },
		{ "Foo::operator std::__cxx11::basic_string<char, std::char_traits<char>, "
		  "std::allocator<char> >() const", "Foo::operator std::__cxx11::basic_string" },
		{ "Foo::operator bool() const", "Foo::operator bool" },
		{ "Foo::operator<=>(Foo const&) const", "Foo::operator<=>" },
		/* lambdas, local entities, anonymous namespaces, ABI tags, clones */
		{ "run_lambda()::{lambda(int)#1}::operator()(int) const",
		  "run_lambda::{lambda#1}::operator()" },
		{ "std::_Function_handler<void (int), main::{lambda(int)#2}>::_M_invoke(std::_Any_data const&, int&&)",
		  "std::_Function_handler::_M_invoke" },
		{ "(anonymous namespace)::hidden(int)", "(anonymous namespace)::hidden" },
		{ "ns::(anonymous namespace)::Impl::run()", "ns::(anonymous namespace)::Impl::run" },
		{ "name[abi:cxx11](int)", "name" },
		{ "foo(int) [clone .cold]", "foo [clone .cold]" },
		{ "f(void (*)(int), int)", "f" },
		{ "g(int (Foo::*)(double) const)", "g" },
		{ "h(std::function<void (int)>)", "h" },
		{ "outer(int)::Local::method()", "outer::Local::method" },
		{ "Foo<(1>2)>::bar()", "Foo::bar" },
		{ "Foo<&bar>::baz()", "Foo::baz" },
		{ "Foo<decltype ((int)0)>::x()", "Foo::x" },
		/* Rust: legacy and v0 demanglings */
		{ "alloc::raw_vec::RawVec<T,A>::grow_one", "alloc::raw_vec::RawVec::grow_one" },
		{ "<alloc::raw_vec::RawVecInner>::finish_grow", "<alloc::raw_vec::RawVecInner>::finish_grow" },
		{ "<alloc::vec::Vec<T,A> as core::clone::Clone>::clone",
		  "<alloc::vec::Vec as core::clone::Clone>::clone" },
		{ "<impl core::fmt::Debug for alloc::vec::Vec<T,A>>::fmt",
		  "<impl core::fmt::Debug for alloc::vec::Vec>::fmt" },
		{ "hashbrown::raw::RawTable<T,A>::reserve_rehash::{{closure}}",
		  "hashbrown::raw::RawTable::reserve_rehash::{{closure}}" },
		{ "core::ptr::drop_in_place::<alloc::vec::Vec<u8>>", "core::ptr::drop_in_place" },
		{ "<std::collections::hash::map::HashMap<K,V,S>>::insert",
		  "<std::collections::hash::map::HashMap>::insert" },
		{ "server::build_session::{closure#0}", "server::build_session::{closure#0}" },
		{ "<[T]>::to_vec", "<[T]>::to_vec" },
		{ "<dyn core::any::Any>::type_id", "<dyn core::any::Any>::type_id" },
		{ "<<T as Foo>::Out as Bar>::baz", "<<T as Foo>::Out as Bar>::baz" },
		{ "<fn() -> u8 as core::ops::FnOnce<()>>::call_once",
		  "<fn -> u8 as core::ops::FnOnce>::call_once" },
		/* unparsable: whole */
		{ "f(int", "f(int" },
		{ "f<int", "f<int" },
		{ "f)(", "f)(" },
		{ "a>b", "a>b" },
		{ "{lambda(int)#1", "{lambda(int)#1" },
		{ "x}", "x}" },
		{ "()", "()" },
		{ "<>", "<>" },
	};
	char msg[512];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(msg, sizeof(msg), "short: %.400s", t[i].in);
		is_str(shorten(t[i].in, 0), t[i].out, msg);
	}
}

static void
test_levels(void)
{
	const char *s = "std::map<int, Foo>::find(int const&) const";

	is_str(shorten(s, 0), "std::map::find", "level 0: no templates, no parameters");
	is_str(shorten(s, YI_SHORT_TEMPLATES), "std::map<int, Foo>::find",
	    "YI_SHORT_TEMPLATES keeps the template arguments");
	is_str(shorten(s, YI_SHORT_PARAMS), "std::map::find(int const&) const",
	    "YI_SHORT_PARAMS keeps the parameters and qualifiers");
	is_str(shorten(s, YI_SHORT_TEMPLATES | YI_SHORT_PARAMS), s, "both: all but a return type");
	is_str(shorten("int f<int>(int)", YI_SHORT_TEMPLATES | YI_SHORT_PARAMS), "f<int>(int)",
	    "both: the return type still goes");
	is_str(shorten("int f<int>(int)", YI_SHORT_FULL), "int f<int>(int)", "YI_SHORT_FULL: whole");
}

/* Deep nesting, long names and random bytes: no crash (ASan, UBSan in CI),
 * never longer than the input, always terminated. */
static void
test_adversarial(void)
{
	static const char alpha[] = "()<>[]{} :,#-&*abopertn\x01\xff";
	size_t n = 200000, bad = 0;
	char *deep = malloc(n + 1), *out = malloc(n + 1), in[64];
	unsigned seed = 12345;

	for (size_t i = 0; i < n; i++)
		deep[i] = i < n / 2 ? '<' : '>';
	deep[n] = '\0';
	ok(yi_name_short(deep, 0, out) == n && strcmp(out, deep) == 0,
	    "100,000 nested '<': copied whole (deeper than the limit)");
	for (size_t i = 0; i < n; i++)
		deep[i] = "f(int)::"[i % 8];
	deep[n - 1] = '\0';
	ok(yi_name_short(deep, 0, out) < n && strncmp(out, "f::f::", 6) == 0,
	    "a 200,000-byte name of local entities shortens");
	for (size_t i = 0; i < n / 2; i++)
		deep[i] = "a<b>"[i % 4];
	deep[n / 2] = '\0';
	ok(yi_name_short(deep, 0, out) == n / 8 && out[0] == 'a' && out[1] == 'a',
	    "50,000 templates in a row drop");
	for (int k = 0; k < 300000; k++) {
		size_t l = (size_t)(rand_r(&seed) % (sizeof(in) - 1));
		for (size_t i = 0; i < l; i++)
			in[i] = alpha[rand_r(&seed) % (sizeof(alpha) - 1)];
		in[l] = '\0';
		memset(out, 'X', sizeof(in) + 1);
		for (int keep = 0; keep < 8; keep++) {
			size_t r = yi_name_short(in, keep, out);
			if (r > l || strlen(out) != r)
				bad++;
		}
	}
	is_int(bad, 0, "300,000 random names at every level: never longer, always terminated");
	free(deep);
	free(out);
}

/* What a set of functions prints. */
static void
test_show(void)
{
	static const char *names[] = {
		"store(int)", "store(double)", "Box<Apple>::get()", "Box<Pear>::get()",
		"cache_blob(unsigned long)", "Registry::remember(std::string const&)",
		"Pair<int>::f(int)", "Pair<int>::f(double)", "Pair<long>::f(int)",
		"q", "q(int)", "same(int)", "same(int)",
	};
	static const char *want[] = {
		"store(int)", "store(double)", "Box<Apple>::get", "Box<Pear>::get",
		"cache_blob", "Registry::remember",
		"Pair<int>::f(int)", "Pair<int>::f(double)", "Pair<long>::f(int)",
		"q", "q(int)", "same", "same",
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	uint32_t full[16], show[16];
	yi_strtab st;
	char msg[256];

	yi_strtab_init(&st);
	for (size_t i = 0; i < n; i++)
		yi_strtab_intern(&st, names[i], strlen(names[i]), &full[i]);
	is_int(yi_names_show(&st, full, n, false, show), 0, "yi_names_show");
	for (size_t i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "%s prints %s", names[i], want[i]);
		is_str(yi_strtab_get(&st, show[i]), want[i], msg);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (full[i] != full[j] && show[i] == show[j])
				ok(0, "two full names print the same");
	is_int(yi_names_show(&st, full, n, true, show), 0, "yi_names_show, whole");
	ok(memcmp(show, full, n * sizeof(*show)) == 0, "whole: the full names");
	yi_strtab_release(&st);
}

int
main(void)
{
	test_table();
	test_levels();
	test_adversarial();
	test_show();
	return tap_done();
}
