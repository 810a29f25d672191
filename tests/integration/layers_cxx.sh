#!/bin/sh
# layers_cxx.sh: the C++ standard library's allocation layers are trimmed.
#
# tests/programs/layers_cxx.cc grows a vector (push_back, resize), a map,
# strings, an unordered_map and make_shared, each in its own grow_*
# function.  Built here with g++ (libstdc++) and clang++ -stdlib=libc++,
# at -O0 (every layer a frame: __new_allocator<T>::allocate,
# allocator_traits, _Vector_base::_M_allocate, _M_realloc_insert,
# _Rb_tree::_M_create_node, _Hashtable_alloc, __split_buffer,
# __libcpp_allocate, __tree::__construct_node, __hash_table, ...) and -O2
# (most of them inlined lines of the grow_* frame).  Every grow_* function
# must lead each of its stacks, and no allocation layer any stack, in top,
# folded, the flame graph, pprof, yingdiff and sql (layers_lib.sh).
. "$YING_SRCDIR/tests/integration/top_lib.sh"
. "$YING_SRCDIR/tests/integration/layers_lib.sh"
need c++ clang++

SRC="$YING_SRCDIR/tests/programs/layers_cxx.cc"
FUNCS="grow_vector grow_resize grow_map grow_string grow_names grow_unordered grow_shared"
# a leading frame in the standard library: std:: or __gnu_cxx:: after the
# return type, or operator new
LAYERS='^([^(]* )?(std|__gnu_cxx)::|^operator new'
# the layer each function called, noted in top --json
NOTES="grow_vector=vector_growth grow_resize=vector_growth grow_map=map_node
grow_string=string_growth grow_names=vector_growth grow_unordered=hash_table
grow_shared=shared_ptr"

VARIANTS="g++:-O0 g++:-O2 libc++:-O0 libc++:-O2"
# build all four at once (the compilers are the slow part), then check each
for v in $VARIANTS; do
	case ${v%:*} in
	g++) cxx="c++" ;;
	libc++) cxx="clang++ -stdlib=libc++" ;;
	esac
	n="$(echo "${v%:*}" | tr -d +)${v#*:}"
	$cxx -g "${v#*:}" -fno-omit-frame-pointer -o "$T/$n" "$SRC" -ljemalloc >"$T/$n.cc" 2>&1 &
done
wait
for v in $VARIANTS; do
	n="$(echo "${v%:*}" | tr -d +)${v#*:}"
	test -x "$T/$n"
	ok $? "${v%:*} ${v#*:}: layers_cxx.cc builds" || { diag "$T/$n.cc"; continue; }
	layers_check "$n" "$T/$n" "$FUNCS" "$LAYERS" "$NOTES"
done

plan_done
