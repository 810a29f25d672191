/*
 * live_page.c: finding one of the live page's embedded files by URL path
 * (live_page.h).  A linear search over four entries; no allocation, no lock:
 * safe from any thread, including while jemalloc dumps.
 */
#include <string.h>

#include "live_page.h"

const yi_page_asset *
yi_page_find(const char *path)
{
	if (path == NULL)
		return NULL;
	for (unsigned i = 0; i < yi_page_nassets; i++)
		if (strcmp(path, yi_page_assets[i].path) == 0)
			return &yi_page_assets[i];
	return NULL;
}
