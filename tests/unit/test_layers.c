/*
 * test_layers.c: the standard libraries' allocation layers (sym_layers.c).
 *
 * Names as the symbolizer demangles them from real binaries (g++ 12's
 * libstdc++, clang 14's libc++, rustc 1.63's legacy and 1.95's v0 std
 * paths: tests/integration/layers_cxx.sh and rust_layers.sh print them
 * with --keep-allocator-frames) are layers, with their kind; the program's
 * own functions, user impls of std traits, and C++ namespaces that only
 * look like Rust's are not.  Trimming drops the layers while they lead a
 * stack (also as inline lines of the first frame) and never in the middle,
 * and the drop_frames regex holds the layers that only allocate.
 */
#include <regex.h>

#include "internal.h"
#include "tap.h"
#include "drop_regex.h"

static const struct { const char *name, *kind; } yes[] = {
	/* libstdc++ (g++ -O0 and -O2) */
	{ "std::__new_allocator<Session>::allocate(unsigned long, void const*)", "allocator" },
	{ "std::allocator_traits<std::allocator<Session> >::allocate(std::allocator<Session>&, unsigned long)", "allocator" },
	{ "__gnu_cxx::new_allocator<int>::allocate(unsigned long, void const*)", "allocator" },
	{ "std::_Vector_base<int, std::allocator<int> >::_M_allocate(unsigned long)", "vector growth" },
	{ "void std::vector<Session, std::allocator<Session> >::_M_realloc_insert<Session const&>(__gnu_cxx::__normal_iterator<Session*, std::vector<Session, std::allocator<Session> > >, Session const&)", "vector growth" },
	{ "void std::vector<Session, std::allocator<Session> >::_M_realloc_append<Session const&>(Session const&)", "vector growth" },
	{ "std::vector<int, std::allocator<int> >::_M_default_append(unsigned long)", "vector growth" },
	{ "std::vector<Session, std::allocator<Session> >::push_back(Session const&)", "vector growth" },
	{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_mutate(unsigned long, unsigned long, char const*, unsigned long)", "string growth" },
	{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create(unsigned long&, unsigned long)", "string growth" },
	{ "void std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_construct<char const*>(char const*, char const*, std::forward_iterator_tag)", "string growth" },
	{ "std::__detail::_Hash_node<std::pair<long const, long>, false>* std::__detail::_Hashtable_alloc<std::allocator<std::__detail::_Hash_node<std::pair<long const, long>, false> > >::_M_allocate_node<std::piecewise_construct_t const&, std::tuple<long const&>, std::tuple<> >(std::piecewise_construct_t const&, std::tuple<long const&>&&, std::tuple<>&&)", "hash table" },
	{ "std::_Rb_tree<int, std::pair<int const, Session>, std::_Select1st<std::pair<int const, Session> >, std::less<int>, std::allocator<std::pair<int const, Session> > >::_M_get_node()", "map node" },
	{ "std::_Rb_tree<int, std::pair<int const, Session>, std::_Select1st<std::pair<int const, Session> >, std::less<int>, std::allocator<std::pair<int const, Session> > >::_Auto_node::_Auto_node<int&, Session&>(std::_Rb_tree<int, std::pair<int const, Session>, std::_Select1st<std::pair<int const, Session> >, std::less<int>, std::allocator<std::pair<int const, Session> > >&, int&, Session&)", "map node" },
	{ "std::pair<std::_Rb_tree_iterator<std::pair<int const, Session> >, bool> std::map<int, Session, std::less<int>, std::allocator<std::pair<int const, Session> > >::emplace<int&, Session&>(int&, Session&)", "map node" },
	{ "std::__allocated_ptr<std::allocator<std::_Sp_counted_ptr_inplace<Session, std::allocator<void>, (__gnu_cxx::_Lock_policy)2> > > std::__allocate_guarded<std::allocator<std::_Sp_counted_ptr_inplace<Session, std::allocator<void>, (__gnu_cxx::_Lock_policy)2> > >(std::allocator<std::_Sp_counted_ptr_inplace<Session, std::allocator<void>, (__gnu_cxx::_Lock_policy)2> >&)", "shared_ptr" },
	{ "std::shared_ptr<std::enable_if<!std::is_array<Session>::value, Session>::type> std::make_shared<Session>()", "shared_ptr" },
	{ "std::unordered_map<long, long, std::hash<long>, std::equal_to<long>, std::allocator<std::pair<long const, long> > >::operator[](long const&)", "hash table" },
	{ "std::vector<int, std::allocator<int> >::_M_default_append(unsigned long) [clone .isra.0]", "vector growth" },
	{ "std::vector<int, std::allocator<int> >::_M_default_append(unsigned long) [clone .constprop.0]", "vector growth" },
	{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > std::operator+<char, std::char_traits<char>, std::allocator<char> >(char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)", "string growth" },
	/* libc++ (clang++ -stdlib=libc++) */
	{ "std::__1::allocator<Session>::allocate(unsigned long)", "allocator" },
	{ "std::__1::__libcpp_allocate(unsigned long, unsigned long)", "allocator" },
	{ "void* std::__1::__libcpp_operator_new<unsigned long>(unsigned long)", "allocator" },
	{ "std::__1::__split_buffer<Session, std::__1::allocator<Session>&>::__split_buffer(unsigned long, unsigned long, std::__1::allocator<Session>&)", "vector growth" },
	{ "void std::__1::vector<Session, std::__1::allocator<Session> >::__push_back_slow_path<Session const&>(Session const&)", "vector growth" },
	{ "std::__1::vector<int, std::__1::allocator<int> >::__append(unsigned long)", "vector growth" },
	{ "std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >::__grow_by_and_replace(unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, char const*)", "string growth" },
	{ "std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >::__init(char const*, unsigned long)", "string growth" },
	{ "std::__1::unique_ptr<std::__1::__tree_node<std::__1::__value_type<int, Session>, void*>, std::__1::__tree_node_destructor<std::__1::allocator<std::__1::__tree_node<std::__1::__value_type<int, Session>, void*> > > > std::__1::__tree<std::__1::__value_type<int, Session>, std::__1::__map_value_compare<int, std::__1::__value_type<int, Session>, std::__1::less<int>, true>, std::__1::allocator<std::__1::__value_type<int, Session> > >::__construct_node<int&, Session&>(int&, Session&)", "map node" },
	{ "std::__1::__hash_table<std::__1::__hash_value_type<long, long>, std::__1::__unordered_map_hasher<long, std::__1::__hash_value_type<long, long>, std::__1::hash<long>, std::__1::equal_to<long>, true>, std::__1::__unordered_map_equal<long, std::__1::__hash_value_type<long, long>, std::__1::equal_to<long>, std::__1::hash<long>, true>, std::__1::allocator<std::__1::__hash_value_type<long, long> > >::__rehash(unsigned long)", "hash table" },
	{ "std::__1::shared_ptr<Session> std::__1::allocate_shared<Session, std::__1::allocator<Session>, , void>(std::__1::allocator<Session> const&)", "shared_ptr" },
	{ "std::__1::__allocation_guard<std::__1::allocator<std::__1::__shared_ptr_emplace<Session, std::__1::allocator<Session> > > >::__allocation_guard<std::__1::allocator<Session> >(std::__1::allocator<Session>, unsigned long)", "allocator" },
	/* Rust, legacy names (rustc 1.63) */
	{ "alloc::raw_vec::finish_grow", "Vec growth" },
	{ "alloc::raw_vec::RawVec<T,A>::grow_amortized", "Vec growth" },
	{ "alloc::raw_vec::RawVec<T,A>::reserve::do_reserve_and_handle", "Vec growth" },
	{ "alloc::raw_vec::RawVec<T,A>::allocate_in", "Vec growth" },
	{ "alloc::vec::Vec<T,A>::push", "Vec growth" },
	{ "alloc::vec::Vec<T>::with_capacity", "Vec growth" },
	{ "<alloc::vec::Vec<T,A> as core::clone::Clone>::clone", "Vec growth" },
	{ "<alloc::vec::Vec<T,A> as alloc::vec::spec_extend::SpecExtend<T,I>>::spec_extend", "Vec growth" },
	{ "<T as alloc::slice::hack::ConvertVec>::to_vec", "Vec growth" },
	{ "alloc::slice::<impl [T]>::to_vec_in", "Vec growth" },
	{ "alloc::string::String::push_str", "String growth" },
	{ "<alloc::string::String as core::convert::From<&str>>::from", "String growth" },
	{ "alloc::boxed::Box<T>::new", "Box" },
	{ "alloc::collections::btree::node::LeafNode<K,V>::new", "BTreeMap node" },
	{ "alloc::collections::btree::map::BTreeMap<K,V,A>::insert", "BTreeMap node" },
	{ "alloc::sync::Arc<T>::new", "Arc" },
	{ "alloc::rc::Rc<T>::new", "Rc" },
	{ "hashbrown::raw::RawTable<T,A>::reserve_rehash", "HashMap growth" },
	{ "hashbrown::raw::alloc::inner::do_alloc", "HashMap growth" },
	{ "hashbrown::raw::RawTableInner<A>::fallible_with_capacity", "HashMap growth" },
	{ "std::collections::hash::map::HashMap<K,V,S>::insert", "HashMap growth" },
	{ "alloc::collections::btree::mem::take_mut::{{closure}}", "BTreeMap node" },
	{ "core::iter::traits::iterator::Iterator::collect", "core" },
	/* Rust, v0 names (rustc 1.95) */
	{ "<alloc::raw_vec::RawVecInner>::finish_grow", "Vec growth" },
	{ "<alloc::raw_vec::RawVecInner<_>>::reserve::do_reserve_and_handle::<alloc::alloc::Global>", "Vec growth" },
	{ "<alloc::raw_vec::RawVec<u8>>::grow_one", "Vec growth" },
	{ "<alloc::raw_vec::RawVecInner>::try_allocate_in", "Vec growth" },
	{ "<alloc::vec::Vec<app::Session>>::push", "Vec growth" },
	{ "<u8 as <[_]>::to_vec_in::ConvertVec>::to_vec::<alloc::alloc::Global>", "Vec growth" },
	{ "<[u8]>::to_vec", "Vec growth" },
	{ "<str as alloc::borrow::ToOwned>::to_owned", "to_owned" },
	{ "<alloc::string::String>::push_str", "String growth" },
	{ "<alloc::boxed::Box<str>>::clone_from_ref", "Box" },
	{ "<<alloc::boxed::Box<str> as core::convert::From<&str>>::from as core::ops::function::FnOnce<(&str,)>>::call_once", "Box" },
	{ "<hashbrown::raw::RawTableInner>::fallible_with_capacity::<alloc::alloc::Global>", "HashMap growth" },
	{ "<std::collections::hash::map::HashMap<u64, u64>>::insert", "HashMap growth" },
	{ "<alloc::collections::btree::map::BTreeMap<u64, [u8; 64]>>::insert", "BTreeMap node" },
	{ "<alloc::sync::Arc<app::Session>>::new", "Arc" },
	{ "<alloc::rc::Rc<app::Session>>::new", "Rc" },
	{ "<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem", "Vec growth" },
	{ "<alloc::vec::Vec<u8>>::with_capacity_in", "Vec growth" },
	{ "<alloc::vec::Vec<fn() -> u8>>::push", "Vec growth" },
};

static const char *const no[] = {
	"", "main", "grow_vector(int)", "build_session", "app::build_session",
	"layers::push_events", "app::Vec<T>::push", "myvec::vector<int>::push_back(int)",
	"mystd::vector<int>::push_back(int)", "std_like::allocator<int>::allocate(unsigned long)",
	/* C++ of the standard library that is no allocation layer */
	"std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)()> > >::_M_run()",
	"std::function<void ()>::operator()() const", "std::ios_base::Init::Init()",
	"std::sort<int*>(int*, int*)",
	/* a C++ namespace that looks like a Rust crate */
	"core::Engine::alloc(unsigned long)", "alloc::Pool::grow(int)",
	/* user impls of standard traits and other std paths */
	"<app::Session as core::clone::Clone>::clone", "<app::X as app::SpecFromElem>::from_elem",
	"<alloc::vec::Vec<u8> as app::Encode>::encode", "<app::Cache>::insert",
	"std::rt::lang_start_internal", "std::thread::Thread::new",
	"std::sys::pal::unix::stack_overflow::thread_info::set_current_info",
	"<app::Je as core::alloc::global::GlobalAlloc>::alloc_helper",
	"0x0000000000001234", "libfoo.so+0x1234", "<unbalanced", "std::vector<int",
	"operator<(int, int)", "std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
};

static void
test_names(void)
{
	char what[320];
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		const char *k = yi_layer_kind(yes[i].name);
		snprintf(what, sizeof(what), "layer (%s): %.260s", yes[i].kind, yes[i].name);
		ok(k != NULL && strcmp(k, yes[i].kind) == 0, what);
		if (k != NULL && strcmp(k, yes[i].kind) != 0)
			printf("#   kind: %s\n", k);
		snprintf(what, sizeof(what), "... its kind has a number: %s", yes[i].kind);
		ok(yi_layer_kind_id(yes[i].kind) != 0 &&
		    strcmp(yi_layer_kind_name(yi_layer_kind_id(yes[i].kind)), yes[i].kind) == 0, what);
		snprintf(what, sizeof(what), "... a wrapper for trimming: %.60s", yes[i].name);
		ok(yi_is_wrapper_name(yes[i].name), what);
	}
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "not a layer: '%.260s'", no[i]);
		ok(yi_layer_kind(no[i]) == NULL && !yi_is_layer_name(no[i]), what);
	}
	ok(yi_layer_kind(NULL) == NULL, "NULL is no layer");
	ok(yi_layer_kind_id(NULL) == 0 && yi_layer_kind_id("no such kind") == 0, "no kind is 0");
	ok(yi_layer_kind_name(0) == NULL && yi_layer_kind_name(yi_layer_kind_count()) == NULL,
	    "0 and numbers past the last have no name");
}

/* Add a stack leaf first: frames split by ';', the inline lines of one
 * frame (innermost first) by '|'. */
static void
add(ying_profile *p, const char *spec)
{
	char buf[2048], *save = NULL, *tok;
	uint32_t locs[32];
	size_t n = 0;
	yi_counts raw = { 1, 4096, 0, 0 };

	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ";", &save); tok && n < 32; tok = strtok_r(NULL, ";", &save)) {
		char *s2 = NULL, *ln;
		yi_line lines[8];
		size_t k = 0;
		uint32_t loc;
		uint64_t pc = 0x1000 + 16 * (yi_hash_bytes(tok, strlen(tok), 1) % 0x100000);

		yi_profile_loc(p, pc, n == 0, &loc);
		if (p->locs.v[loc].nlines == 0) {
			for (ln = strtok_r(tok, "|", &s2); ln && k < 8; ln = strtok_r(NULL, "|", &s2)) {
				yi_profile_func(p, ln, ln, "x.cc", &lines[k].func);
				lines[k++].line = 1;
			}
			yi_profile_set_lines(p, loc, lines, k);
		}
		locs[n++] = loc;
	}
	yi_profile_add_stack(p, locs, n, &raw, NULL);
}

/* The function of the first frame of stack i after trimming. */
static const char *
first(const ying_profile *p, size_t i, yi_framevec *fv)
{
	long n = yi_stack_expand(p, &p->stacks.v[i], fv);

	return n > 0 ? yi_profile_str(p, p->funcs.v[fv->v[0].func].name) : "(none)";
}

static void
test_trim(void)
{
	ying_symbolize_opts o = YING_SYMBOLIZE_OPTS_INIT;
	yi_framevec fv = { 0 };
	ying_profile *p;

	if (yi_profile_new(&p, "layers") != 0) {
		printf("Bail out! yi_profile_new\n");
		exit(1);
	}
	p->period = 1;
	p->symbolized = true;
	add(p, "operator new(unsigned long);std::__new_allocator<Session>::allocate(unsigned long, void const*);"
	    "void std::vector<Session, std::allocator<Session> >::_M_realloc_insert<Session const&>(Session const&)"
	    "|std::vector<Session, std::allocator<Session> >::push_back(Session const&);grow_vector(int);main");
	add(p, "malloc;<alloc::raw_vec::RawVecInner>::finish_grow;"
	    "<alloc::raw_vec::RawVecInner>::grow_one|<alloc::vec::Vec<app::Session>>::push|app::build_session;"
	    "app::main;std::rt::lang_start_internal");
	/* a layer in the middle: the program's allocator under push_back */
	add(p, "malloc;my_pool_alloc(unsigned long);std::vector<int, std::allocator<int> >::push_back(int const&);main");
	/* a user Clone impl under Vec's clone: it leads */
	add(p, "malloc;<app::Session as core::clone::Clone>::clone;<alloc::vec::Vec<T,A> as core::clone::Clone>::clone;app::snapshot");
	/* only layers: the outermost stays */
	add(p, "malloc;alloc::raw_vec::finish_grow;alloc::vec::Vec<T,A>::push");

	is_int(yi_trim(p, &o), 0, "yi_trim");
	is_str(first(p, 0, &fv), "grow_vector(int)", "C++: operator new, __new_allocator, _M_realloc_insert and its inlined push_back trimmed");
	is_str(first(p, 1, &fv), "app::build_session", "Rust: finish_grow, grow_one and the inlined Vec::push trimmed");
	is_int(p->stacks.v[1].skip, 2, "... two frames, then the inline lines of the third");
	is_str(first(p, 2, &fv), "my_pool_alloc(unsigned long)", "a layer above the program's own allocator stays");
	is_str(first(p, 3, &fv), "<app::Session as core::clone::Clone>::clone", "the user's Clone impl leads");
	is_str(first(p, 4, &fv), "alloc::vec::Vec<T,A>::push", "only layers: the outermost is kept");
	is_str(yi_layer_kind_name(p->stacks.v[0].layer), "vector growth",
	    "the note of the C++ stack: vector growth (_M_realloc_insert, not the allocator)");
	is_str(yi_layer_kind_name(p->stacks.v[1].layer), "Vec growth",
	    "the note of the Rust stack: Vec growth (the inlined push)");
	is_int(p->stacks.v[2].layer, 0, "no layer trimmed: no note");

	o.keep_allocator_frames = 1;
	is_int(yi_trim(p, &o), 0, "yi_trim keep_allocator_frames");
	is_str(first(p, 0, &fv), "operator new(unsigned long)", "keep_allocator_frames keeps the layers");
	is_int(p->stacks.v[0].layer, 0, "... and notes none");
	ying_profile_free(p);
	yi_free(fv.v);
}

/* The regex for pprof's drop_frames holds the layers that only allocate. */
static void
test_regex(void)
{
	static const char *const pure[] = {
		"std::__new_allocator<Session>::allocate(unsigned long, void const*)",
		"std::allocator_traits<std::allocator<int> >::allocate(std::allocator<int>&, unsigned long)",
		"std::_Vector_base<int, std::allocator<int> >::_M_allocate(unsigned long)",
		"std::__1::allocator<Session>::allocate(unsigned long)",
		"std::__1::__libcpp_allocate(unsigned long, unsigned long)",
		"alloc::raw_vec::finish_grow", "<alloc::raw_vec::RawVecInner>::finish_grow",
		"alloc::raw_vec::RawVec<T,A>::grow_amortized",
		"hashbrown::raw::alloc::inner::do_alloc",
		"<alloc::sync::Arc<app::Session>>::new", "alloc::boxed::Box<T>::new",
		"alloc::vec::Vec<T,A>::with_capacity_in", "<alloc::vec::Vec<u8>>::with_capacity_in",
		"<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem", "alloc::vec::from_elem",
	};
	/* layers that run the program's code (element constructors, Clone,
	 * Hash): pprof would drop that code with them, so they are not in it */
	static const char *const calls_back[] = {
		"std::vector<Session, std::allocator<Session> >::push_back(Session const&)",
		"std::map<int, Session, std::less<int>, std::allocator<std::pair<int const, Session> > >::emplace<int&, Session&>(int&, Session&)",
		"<alloc::vec::Vec<T,A> as core::clone::Clone>::clone",
		"core::iter::traits::iterator::Iterator::collect",
	};
	char what[300];
	regex_t re;
	size_t i;
	int rc = drop_regex(&re);

	for (i = 0; rc == 0 && i < sizeof(pure) / sizeof(pure[0]); i++) {
		snprintf(what, sizeof(what), "drop_frames matches %.240s", pure[i]);
		ok(regexec(&re, pure[i], 0, NULL, 0) == 0, what);
	}
	for (i = 0; rc == 0 && i < sizeof(calls_back) / sizeof(calls_back[0]); i++) {
		snprintf(what, sizeof(what), "drop_frames does not match %.240s", calls_back[i]);
		ok(regexec(&re, calls_back[i], 0, NULL, 0) != 0, what);
	}
	for (i = 0; rc == 0 && i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(what, sizeof(what), "drop_frames does not match '%.240s'", no[i]);
		ok(regexec(&re, no[i], 0, NULL, 0) != 0, what);
	}
	if (rc == 0)
		regfree(&re);
}

int
main(void)
{
	test_names();
	test_trim();
	test_regex();
	return tap_done();
}
