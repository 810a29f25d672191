/*
 * sym_layers.c: the allocation layers of the standard libraries.
 *
 * Between operator new (or malloc) and the program's own function that
 * grew a container sit the standard library's layers: libstdc++'s
 * __new_allocator<T>::allocate, _Vector_base::_M_allocate,
 * _M_realloc_insert, _Rb_tree::_M_create_node, _Hashtable_alloc, ...,
 * libc++'s __libcpp_allocate, __split_buffer, __tree::__construct_node,
 * __hash_table, ..., Rust's RawVec/RawVecInner, hashbrown's RawTable, Box,
 * String, Vec, BTreeMap nodes, Arc, Rc.  None of them is the code to fix;
 * the function that called them is.  sym_trim.c asks yi_layer_kind about
 * every leading frame and inline line (through yi_is_wrapper_name) and
 * trims the layers while they lead a stack, never in the middle.
 *
 * Names are matched by their structure, not as strings, so template
 * arguments, return types, parameter lists, `std::__cxx11::` or
 * `std::__1::` and clone suffixes do not matter:
 *
 * - C++: the qualified name (return type and parameters cut at the
 *   outermost level) must begin with std:: or __gnu_cxx::, then any of the
 *   implementation namespaces (__cxx11, __1, __detail, ...), then a class
 *   or function of cxx_names below (vector, _Rb_tree, __split_buffer,
 *   make_shared, ...): any member of such a class is a layer.
 * - Rust (legacy and v0 demangled): a path in the alloc, core or hashbrown
 *   crates or in std's collections, io, ffi, path or fs modules; an
 *   inherent impl on one of their types or on a primitive (`<[u8]>::to_vec`,
 *   `<alloc::raw_vec::RawVecInner>::finish_grow`); a trait impl whose trait
 *   is theirs and whose type is theirs or a primitive or generic
 *   (`<T as alloc::slice::hack::ConvertVec>::to_vec`, `<alloc::vec::Vec<T,A>
 *   as core::clone::Clone>::clone`), but never a user's type's impl
 *   (`<app::Session as core::clone::Clone>::clone` is the program's code).
 *
 * yi_layers_regex writes the subset that never calls back into the
 * program (allocate, _M_allocate, _M_get_node, RawVec, hashbrown's table
 * allocation, Box/Arc/Rc::new, ...) for pprof's drop_frames, which drops a
 * match and everything below it wherever it sits in the stack.
 *
 * Each test costs a few comparisons for a name of another language and
 * one pass over the name otherwise; it runs once per location and inline
 * line of a profile (bench/layers.sh).
 */
#include <stdlib.h>

#include "sym.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- C++ ---------------------------------------------------------------- */

/* Namespaces of the libraries' implementation, skipped after std::. */
static const char *const cxx_namespaces[] = {
	"__cxx11", "__1", "__2", "__detail", "__debug", "__cxx1998", "__function",
	"__gnu_cxx", "_V2", "pmr",
};

struct layer { const char *name, *kind; };

/* Classes (any member) and free functions that are allocation layers. */
static const struct layer cxx_names[] = {
	/* the allocators */
	{ "allocator", "allocator" }, { "allocator_traits", "allocator" },
	{ "__new_allocator", "allocator" }, { "new_allocator", "allocator" },
	{ "__alloc_traits", "allocator" }, { "__allocated_ptr", "allocator" },
	{ "__libcpp_allocate", "allocator" }, { "__libcpp_operator_new", "allocator" },
	{ "__allocate_at_least", "allocator" }, { "allocate_at_least", "allocator" },
	{ "__allocation_guard", "allocator" }, { "__compressed_pair", "allocator" },
	{ "__uninitialized_copy_a", "allocator" }, { "__uninitialized_move_a", "allocator" },
	{ "__uninitialized_move_if_noexcept_a", "allocator" },
	{ "__uninitialized_default_n_a", "allocator" }, { "__uninitialized_fill_n_a", "allocator" },
	{ "__uninitialized_allocator_copy", "allocator" },
	{ "__uninitialized_allocator_move_if_noexcept", "allocator" },
	/* sequences */
	{ "vector", "vector growth" }, { "_Vector_base", "vector growth" },
	{ "__vector_base", "vector growth" }, { "__split_buffer", "vector growth" },
	{ "deque", "deque growth" }, { "_Deque_base", "deque growth" },
	{ "__deque_base", "deque growth" },
	{ "list", "list node" }, { "_List_base", "list node" }, { "__list_imp", "list node" },
	{ "forward_list", "list node" }, { "_Fwd_list_base", "list node" },
	{ "__forward_list_base", "list node" },
	{ "queue", "queue growth" }, { "priority_queue", "queue growth" },
	{ "stack", "stack growth" },
	/* strings and string streams */
	{ "basic_string", "string growth" }, { "to_string", "string growth" },
	{ "to_wstring", "string growth" }, { "operator+", "string growth" },
	{ "getline", "string growth" }, { "__str_concat", "string growth" },
	{ "basic_stringbuf", "stream buffer" }, { "basic_streambuf", "stream buffer" },
	{ "basic_ostream", "stream buffer" }, { "__ostream_insert", "stream buffer" },
	{ "basic_ostringstream", "stream buffer" }, { "basic_stringstream", "stream buffer" },
	/* trees */
	{ "map", "map node" }, { "multimap", "map node" }, { "set", "map node" },
	{ "multiset", "map node" }, { "_Rb_tree", "map node" }, { "__tree", "map node" },
	/* hash tables */
	{ "unordered_map", "hash table" }, { "unordered_multimap", "hash table" },
	{ "unordered_set", "hash table" }, { "unordered_multiset", "hash table" },
	{ "_Hashtable", "hash table" }, { "_Hashtable_alloc", "hash table" },
	{ "_Map_base", "hash table" }, { "_Insert_base", "hash table" },
	{ "_Insert", "hash table" }, { "__hash_table", "hash table" },
	/* shared and unique pointers, std::function's heap storage */
	{ "shared_ptr", "shared_ptr" }, { "__shared_ptr", "shared_ptr" },
	{ "__shared_count", "shared_ptr" }, { "_Sp_counted_ptr_inplace", "shared_ptr" },
	{ "__shared_ptr_emplace", "shared_ptr" }, { "__allocate_guarded", "shared_ptr" },
	{ "make_shared", "shared_ptr" }, { "allocate_shared", "shared_ptr" },
	{ "__make_shared", "shared_ptr" }, { "__allocate_shared", "shared_ptr" },
	{ "make_unique", "unique_ptr" }, { "make_unique_for_overwrite", "unique_ptr" },
	{ "_Function_base", "std::function" }, { "__value_func", "std::function" },
	{ "__policy_func", "std::function" },
};

/* The members of those classes that only allocate (no element
 * constructor, hasher or comparator of the program runs inside them): the
 * C++ part of the drop_frames regex.  "S" stands for "std::" with any of
 * the implementation namespaces. */
static const char *const cxx_pure_re[] = {
	"S(allocator|__new_allocator|allocator_traits)<.*>::allocate\\(.*",
	"__gnu_cxx::(new_allocator|__new_allocator|__alloc_traits)<.*>::allocate\\(.*",
	"S_Vector_base<.*>::_M_allocate\\(.*",
	"S_Rb_tree<.*>::_M_get_node\\(.*",
	"S_Hashtable_alloc<.*>::_M_allocate_(node|buckets)(<.*>)?\\(.*",
	"S__libcpp_allocate\\(.*", "S__libcpp_operator_new(<.*>)?\\(.*",
	"S__allocate_guarded<.*",
	"S__allocate_at_least<.*", "Sallocate_at_least<.*",
	"Sbasic_string<.*>::_M_create\\(.*",
};

/* Past s's balanced brackets starting at *s (one of "<({["), or NULL.
 * "->" (Rust's fn types) is no closing bracket. */
static const char *
skip_group(const char *s)
{
	int depth = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p == '<' || *p == '(' || *p == '{' || *p == '[')
			depth++;
		else if ((*p == '>' && !(p > s && p[-1] == '-')) ||
		    *p == ')' || *p == '}' || *p == ']') {
			if (--depth == 0)
				return p + 1;
		}
	}
	return NULL;
}

/* The length of the operator's symbol at p ("<<", "()", "+", ...), the
 * longest that matches, 0 for none (operator new, a conversion). */
static size_t
operator_len(const char *p)
{
	static const char *const ops[] = {
		"<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "==", "!=", "&&",
		"||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
		"->", "[]", "()",
	};
	size_t i;

	for (i = 0; i < NELEM(ops); i++)
		if (strncmp(p, ops[i], strlen(ops[i])) == 0)
			return strlen(ops[i]);
	return *p != '\0' && strchr("+-*/%^&|~!=<>,", *p) != NULL ? 1 : 0;
}

/* The C++ function's qualified name in name: *b..*e, without the return
 * type and the parameter list.  false if it has no such shape. */
static bool
cxx_qualified(const char *name, const char **b, const char **e)
{
	const char *p = name, *start = name;

	while (*p && *p != '(') {
		if (strncmp(p, "operator", 8) == 0 && (p == name || p[-1] == ':' || p[-1] == ' ')) {
			p += 8;
			p += operator_len(p);
			continue;
		}
		if (*p == '<' || *p == '{' || *p == '[') {
			if ((p = skip_group(p)) == NULL)
				return false;
			continue;
		}
		if (*p == ' ')
			start = p + 1;
		p++;
	}
	*b = start;
	*e = p;
	return *b < *e;
}

/* The length of component c (up to "::" at the outer level or e) and of
 * its base name (before its template arguments or an [abi:...] tag). */
static const char *
cxx_component(const char *c, const char *e, size_t *base)
{
	const char *p = c;

	*base = (size_t)-1;
	while (p < e && !(p[0] == ':' && p[1] == ':')) {
		if (*p == '<' || *p == '[' || *p == '(' || *p == '{') {
			if (*base == (size_t)-1)
				*base = (size_t)(p - c);
			if ((p = skip_group(p)) == NULL || p > e)
				return e;
			continue;
		}
		p++;
	}
	if (*base == (size_t)-1)
		*base = (size_t)(p - c);
	return p;
}

static bool
word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

static const char *
cxx_kind(const char *name)
{
	const char *b, *e, *c, *next;
	size_t base, i;
	bool first = true;

	if (strstr(name, "std::") == NULL && strstr(name, "__gnu_cxx::") == NULL)
		return NULL;
	if (!cxx_qualified(name, &b, &e))
		return NULL;
	for (c = b; c < e; c = next + 2, first = false) {
		bool ns = false;
		next = cxx_component(c, e, &base);
		if (first) {
			if (!word_is(c, base, "std") && !word_is(c, base, "__gnu_cxx"))
				return NULL;
			ns = true;
		}
		for (i = 0; !ns && i < NELEM(cxx_namespaces); i++)
			ns = word_is(c, base, cxx_namespaces[i]);
		if (!ns) {
			for (i = 0; i < NELEM(cxx_names); i++)
				if (word_is(c, base, cxx_names[i].name))
					return cxx_names[i].kind;
			return NULL;
		}
		if (next >= e)
			break;
	}
	return NULL;
}

/* ---- Rust --------------------------------------------------------------- */

/* Paths of the standard crates, the longest first where one is a prefix of
 * another, each with the kind of layer it is. */
static const struct layer rust_paths[] = {
	{ "alloc::raw_vec::", "Vec growth" }, { "alloc::vec::", "Vec growth" },
	{ "alloc::string::", "String growth" }, { "alloc::str::", "String growth" },
	{ "alloc::fmt::", "String growth" }, { "alloc::ffi::", "CString" },
	{ "alloc::boxed::", "Box" }, { "alloc::collections::btree::", "BTreeMap node" },
	{ "alloc::collections::", "collection growth" },
	{ "alloc::sync::", "Arc" }, { "alloc::rc::", "Rc" },
	{ "alloc::slice::", "Vec growth" }, { "alloc::borrow::", "to_owned" },
	{ "alloc::alloc::", "allocator" }, { "alloc::", "allocator" },
	{ "hashbrown::", "HashMap growth" },
	{ "std::collections::hash::", "HashMap growth" },
	{ "std::collections::", "collection growth" },
	{ "std::io::", "I/O buffer" }, { "std::ffi::", "OsString" },
	{ "std::path::", "PathBuf" }, { "std::fs::", "I/O buffer" },
	{ "core::", "core" },
};

enum { RUST_OTHER, RUST_STD, RUST_NEUTRAL };

static int rust_class(const char *s, const char *e, const char **kind);

/* `<S as T>::...` or `<S>::...` at s: the classes of S and T. */
static int
rust_impl_class(const char *s, const char *e, const char **kind)
{
	const char *p = s + 1, *as = NULL, *close;
	int depth = 1, cs, ct;
	const char *ks = NULL, *kt = NULL;

	for (; p < e; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' && p[-1] != '-') || *p == ')' || *p == ']') {
			if (--depth == 0)
				break;
		} else if (depth == 1 && as == NULL && strncmp(p, " as ", 4) == 0)
			as = p;
	}
	if (p >= e)
		return RUST_OTHER;
	close = p;
	cs = rust_class(s + 1, as != NULL ? as : close, &ks);
	if (as == NULL) {
		/* inherent impl: on a standard type, or on a primitive
		 * (only the standard crates can write those) */
		*kind = ks != NULL ? ks : "Vec growth";
		return cs == RUST_OTHER ? RUST_OTHER : RUST_STD;
	}
	ct = rust_class(as + 4, close, &kt);
	if (ct != RUST_STD || cs == RUST_OTHER)
		return RUST_OTHER;
	*kind = cs == RUST_STD ? ks : kt;
	return RUST_STD;
}

/* The class of the Rust path or type s..e: a standard crate's, a
 * primitive or generic parameter's (neutral), or another crate's. */
static int
rust_class(const char *s, const char *e, const char **kind)
{
	size_t i, n;
	const char *p;

	while (s < e && (*s == '&' || *s == '*' || *s == ' '))
		s++;
	if (e - s > 4 && strncmp(s, "mut ", 4) == 0)
		s += 4;
	else if (e - s > 6 && strncmp(s, "const ", 6) == 0)
		s += 6;
	if (s >= e)
		return RUST_OTHER;
	if (*s == '<')
		return rust_impl_class(s, e, kind);
	if (*s == '[' || *s == '(' || *s == '_')
		return RUST_NEUTRAL;
	for (p = s; p + 1 < e && !(p[0] == ':' && p[1] == ':') && *p != '<'; p++)
		;
	if (p + 1 >= e || *p == '<')
		return RUST_NEUTRAL;        /* u8, str, T, K */
	n = (size_t)(e - s);
	for (i = 0; i < NELEM(rust_paths); i++) {
		size_t l = strlen(rust_paths[i].name);
		if (l <= n && memcmp(s, rust_paths[i].name, l) == 0) {
			*kind = rust_paths[i].kind;
			return RUST_STD;
		}
	}
	return RUST_OTHER;
}

/* Has name a parameter list outside its template arguments (C++)? */
static bool
cxx_params(const char *name)
{
	const char *p = name;

	while (*p) {
		if (*p == '(')
			return true;
		if (*p == '<') {
			if ((p = skip_group(p)) == NULL)
				return false;
			continue;
		}
		p++;
	}
	return false;
}

static const char *
rust_kind(const char *name)
{
	const char *kind = NULL;

	if (name[0] != '<' && name[0] != 'a' && name[0] != 'c' && name[0] != 'h' &&
	    name[0] != 's')
		return NULL;
	if (name[0] != '<' && strncmp(name, "alloc::", 7) != 0 &&
	    strncmp(name, "core::", 6) != 0 && strncmp(name, "hashbrown::", 11) != 0 &&
	    strncmp(name, "std::", 5) != 0)
		return NULL;
	if (name[0] != '<' && cxx_params(name))
		return NULL;        /* C++ (a namespace core:: or alloc::) */
	if (rust_class(name, name + strlen(name), &kind) != RUST_STD)
		return NULL;
	return kind;
}

/* Rust's layers that only allocate, for the drop_frames regex. */
static const char *const rust_pure_re[] = {
	"<?alloc::raw_vec::.*", "alloc::alloc::.*",
	"<?hashbrown::raw::alloc::.*", "<?hashbrown::raw::RawTableInner(<.*>)?>?::"
	    "(new_uninitialized|fallible_with_capacity|prepare_resize|resize_inner"
	    "|reserve_rehash_inner)",
	"<?alloc::boxed::Box<.*>>?::(new|new_uninit|new_uninit_in|try_new_uninit_in"
	    "|try_new_uninit|new_in|try_new_in)(::<.*>)?",
	"<?alloc::boxed::box_new_uninit",
	"<?alloc::sync::Arc<.*>>?::(new|new_uninit|allocate_for_layout"
	    "|try_allocate_for_layout|new_in)(::.*)?",
	"<?alloc::rc::Rc<.*>>?::(new|new_uninit|allocate_for_layout"
	    "|try_allocate_for_layout|new_in)(::.*)?",
	"<?alloc::collections::btree::node::(LeafNode|InternalNode)<.*>>?::new(::<.*>)?",
	"<?alloc::vec::Vec<.*>>?::(with_capacity|with_capacity_in)(::<.*>)?",
	"alloc::vec::from_elem", "<?alloc::vec::spec_from_elem::.*",
	"<.* as alloc::vec::spec_from_elem::SpecFromElem>::from_elem(::<.*>)?",
};

/* ---- the interface ------------------------------------------------------ */

/* Every kind the tables above name, so a stack can record one in 32 bits
 * (yi_stack.layer); test_layers checks that each kind is here. */
static const char *const kinds[] = {
	NULL, "allocator", "vector growth", "deque growth", "list node",
	"queue growth", "stack growth", "string growth", "stream buffer",
	"map node", "hash table", "shared_ptr", "unique_ptr",
	"std::function", "Vec growth", "String growth", "CString", "Box",
	"BTreeMap node", "collection growth", "Arc", "Rc", "to_owned",
	"HashMap growth", "I/O buffer", "OsString", "PathBuf", "core",
};

uint32_t
yi_layer_kind_id(const char *kind)
{
	uint32_t i;

	for (i = 1; kind != NULL && i < NELEM(kinds); i++)
		if (strcmp(kinds[i], kind) == 0)
			return i;
	return 0;
}

bool
yi_layer_kind_vague(uint32_t id)
{
	const char *k = yi_layer_kind_name(id);

	return k != NULL && (strcmp(k, "allocator") == 0 || strcmp(k, "core") == 0);
}

const char *
yi_layer_kind_name(uint32_t id)
{
	return id < NELEM(kinds) ? kinds[id] : NULL;
}

uint32_t
yi_layer_kind_count(void)
{
	return (uint32_t)NELEM(kinds);
}

const char *
yi_layer_kind(const char *name)
{
	const char *k;

	if (name == NULL || name[0] == '\0')
		return NULL;
	if ((k = rust_kind(name)) != NULL)
		return k;
	return cxx_kind(name);
}

bool
yi_is_layer_name(const char *name)
{
	return yi_layer_kind(name) != NULL;
}

void
yi_layers_regex(yi_out *o)
{
	static const char std_ns[] = "(.* )?std::((__cxx11|__1|__2|__detail|__debug)::)*";
	size_t i;
	const char *c;

	for (i = 0; i < NELEM(cxx_pure_re); i++) {
		yi_out_putc(o, '|');
		if (cxx_pure_re[i][0] == 'S') {
			yi_out_puts(o, std_ns);
			c = cxx_pure_re[i] + 1;
		} else {
			yi_out_puts(o, "(.* )?");
			c = cxx_pure_re[i];
		}
		yi_out_puts(o, c);
	}
	for (i = 0; i < NELEM(rust_pure_re); i++) {
		yi_out_putc(o, '|');
		yi_out_puts(o, rust_pure_re[i]);
	}
}
