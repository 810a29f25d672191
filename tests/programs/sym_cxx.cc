/*
 * sym_cxx.cc: part of the symbolizer's test program, C++ compiled -O0 -g
 * (no exceptions, no RTTI, so it links without libstdc++: operator new[]
 * comes from libjemalloc).  ying_test::Widget::make must come out
 * demangled, with its mangled name as the system name.
 */
#include <stddef.h>

namespace ying_test {
struct Widget {
	static void *make(unsigned long n);
};

__attribute__((noinline)) void *
Widget::make(unsigned long n)
{
	char *p = new char[n]; /* SYM_LINE_CXX */
	p[0] = 1;
	return p;
}
}

extern "C" void *sym_cxx_make(size_t n);

extern "C" void *
sym_cxx_make(size_t n)
{
	void *p = ying_test::Widget::make(n);
	return p;
}
