/* The engine branches (smdmx_engine_target in model.h; decision 4 in doc/decisions.md). */
#include <string.h>

#include "support/internal.h"
#include "smdmx/model.h"

static const smdmx_engine_target targets[] = {
	{ "goldsrc", 0, 0, 1, 128 },  { "sdk2013", 2, 1, 3, 128 }, { "tf2", 2, 1, 3, 128 },
	{ "gmod", 2, 1, 3, 128 },     { "l4d2", 4, 15, 3, 128 },   { "portal2", 5, 18, 3, 128 },
	{ "csgo", 5, 18, 3, 256 },    { "sfm", 5, 18, 3, 128 },    { "source2", 9, 22, 4, 0 },
};

const smdmx_engine_target *smdmx_engine_targets(size_t *count)
{
	if (count) *count = sizeof(targets) / sizeof(targets[0]);
	return targets;
}

const smdmx_engine_target *smdmx_engine_target_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(targets) / sizeof(targets[0]); i++)
		if (!strcmp(targets[i].name, name)) return &targets[i];
	return NULL;
}
