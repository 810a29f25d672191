/*
 * drop_regex.h: the unit tests' one way to compile the pprof drop_frames
 * regex (yi_allocator_regex), anchored as pprof anchors it: ^(...)$.
 * Include after tap.h and sym.h.
 */
#ifndef YING_TEST_DROP_REGEX_H
#define YING_TEST_DROP_REGEX_H

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two TAP results (built, compiled); 0 when *re is compiled (the caller
 * regfree()s it), else nonzero and nothing to free. */
static int
drop_regex(regex_t *re)
{
	char *src = NULL, *anchored;
	int rc;

	is_int(yi_allocator_regex(&src), 0, "yi_allocator_regex");
	if (src == NULL || (anchored = malloc(strlen(src) + 5)) == NULL) {
		yi_free(src);
		ok(0, "the drop_frames regex compiles");
		return -1;
	}
	sprintf(anchored, "^(%s)$", src);
	rc = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
	is_int(rc, 0, "the drop_frames regex compiles");
	free(anchored);
	yi_free(src);
	return rc;
}

#endif
