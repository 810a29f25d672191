/*
 * base_dir.h: the one private-directory check (base_dir.c), for the
 * report directory (live_runner_files.c), the symbol cache (sym_cache.c)
 * and `ying run`'s default ./ying-reports.  Standalone like base_num.h:
 * YI_DIR_NAME(private) is yi_dir_private in libying and yfe_dir_private in
 * the front ends' library (src/common/fe_num.c compiles base_dir.c too).
 */
#ifndef YING_BASE_DIR_H
#define YING_BASE_DIR_H

#include <stddef.h>
#include <sys/stat.h>

/* libying exports them to libying-live (base.h's YI_SHARED); the front
 * ends' copy is a static library, where it changes nothing. */
#ifndef YI_SHARED
#define YI_SHARED __attribute__((visibility("default")))
#endif
#ifndef YI_DIR_NAME
#define YI_DIR_NAME(x) yi_dir_##x
#endif

/*
 * Is path a directory private to this process's user?  The strictest of
 * the three rules there were: opened without following a symlink at its
 * last step (O_NOFOLLOW | O_DIRECTORY) and checked on the open directory
 * itself: a directory, owned by the effective uid, writable by neither its
 * group nor others, and writable and searchable by us.  0 (with its
 * stat in *st when st is not NULL), or -1 with the reason, naming `what`
 * and path, in why[wn].  A caller that accepts a symlink the user gave
 * (the report directory) resolves it first (realpath) and checks the
 * directory it names; `ying run`'s default ./ying-reports is refused when
 * it is a symlink.
 */
YI_SHARED int YI_DIR_NAME(private)(const char *what, const char *path, struct stat *st, char *why,
    size_t wn);

#endif /* YING_BASE_DIR_H */
