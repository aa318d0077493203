/* What the dmx layer offers the layers above it beyond the public datamodel API (smdmx/dm.h):
 * the memory a datamodel owns, for what a builder hangs on it (the DmeModel lowering's arrays
 * and strings, freed with the datamodel). Its other headers are its own. */
#ifndef SMDMX_DMX_DM_BUILD_H
#define SMDMX_DMX_DM_BUILD_H

#include "support/internal.h"
#include "smdmx/dm.h"

/* The memory dm owns: what is allocated from it lives as long as dm. */
sm_owner *sm_dm_memory(smdmx_dm *dm);

#endif
