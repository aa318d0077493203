/* What the QC layer offers the layers above it of a QC's memory: room for a moment beside a
 * QC (a list put together while checking it), its allocator's hooks. */
#ifndef SMDMX_QC_MEMORY_H
#define SMDMX_QC_MEMORY_H

#include "support/internal.h"
#include "smdmx/qc.h"

/* Blocks taken with sm_new and kin, freed with sm_del, through the hooks of the QC's
 * allocator (smdmx_qc_read_options.allocator; malloc's when none was given). */
sm_alloc sm_qc_room(const smdmx_qc *qc);

#endif
