/*
 * fe_num.c: the number parser of libying's base layer (src/lib/base_num.c)
 * compiled into the front ends' library under its own names (yfe_num_*,
 * fe.h), so that ying, yingdiff and the agent parse numbers by the same
 * rule as the library without linking any of its internals.
 */
#define YI_NUM_NAME(x) yfe_num_##x
#include "../lib/base_num.c"
