/*
 * fe_dir.c: libying's private-directory check (src/lib/base_dir.c)
 * compiled into the front ends' library as yfe_dir_private (fe.h), the
 * rule `ying run` checks its default ./ying-reports by.
 */
#define YI_DIR_NAME(x) yfe_dir_##x
#include "../lib/base_dir.c"
