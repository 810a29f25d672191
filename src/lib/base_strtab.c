/*
 * base_strtab.c: interned strings.
 *
 * Function names, file names, thread names and mapping paths repeat across
 * stacks and profiles; the model stores each once and refers to it by a
 * 32-bit id.  A string table is an id set (base_hash.c) of the strings'
 * bytes: its copies are NUL-terminated and never move, so a pointer from
 * yi_strtab_get stays valid until the table is released.  Id 0 is "".
 */
#include "base.h"

int
yi_strtab_init(yi_strtab *t)
{
	uint32_t id;

	yi_idset_init(&t->set, NULL);
	return yi_strtab_intern(t, "", 0, &id);
}

void
yi_strtab_release(yi_strtab *t)
{
	yi_idset_release(&t->set);
}

int
yi_strtab_intern(yi_strtab *t, const char *s, size_t len, uint32_t *id)
{
	int rc = yi_idset_add(&t->set, s, len, id, NULL);

	if (rc == YING_ELIMIT)
		return yi_error(YING_ELIMIT, "more than 4 billion distinct strings");
	return rc;
}
