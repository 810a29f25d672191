#!/usr/bin/env python3
"""gen_dwarf_cpp.py N OUT.cc: one C++ unit with N functions, each building a
std::map of strings and a std::vector from its own call sites, then dumping
the heap profile (argv[1]).  Compiled with -g it is one large DWARF unit with
thousands of distinct allocation addresses: the case where a per-address
walk of the unit is slow (bench/dwarf.sh)."""
import sys

n = int(sys.argv[1])
with open(sys.argv[2], "w") as out:
    out.write("#include <map>\n#include <string>\n#include <vector>\n"
              "#include <jemalloc/jemalloc.h>\n\nstd::vector<void *> keep;\n\n")
    for i in range(n):
        out.write("__attribute__((noinline)) void f%d(int n)\n{\n"
                  "\tauto *m = new std::map<int, std::string>();\n"
                  "\tfor (int i = 0; i < n; i++)\n"
                  "\t\t(*m)[i] = std::string(100 + %d, 'x');\n"
                  "\tkeep.push_back(m);\n"
                  "\tkeep.push_back(new std::vector<long>(n * %d + 1));\n}\n\n"
                  % (i, i % 7, i % 5))
    out.write("int\nmain(int argc, char **argv)\n{\n")
    for i in range(n):
        out.write("\tf%d(3);\n" % i)
    out.write("\tconst char *f = argv[1];\n"
              "\treturn mallctl(\"prof.dump\", 0, 0, &f, sizeof(f)) != 0;\n}\n")
