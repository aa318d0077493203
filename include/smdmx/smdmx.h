/* smdmx: convert Source-engine model sources between SMD/VTA and DMX. */
#ifndef SMDMX_SMDMX_H
#define SMDMX_SMDMX_H

#include "smdmx/dm.h"
#include "smdmx/error.h"
#include "smdmx/gltf.h"
#include "smdmx/math.h"
#include "smdmx/model.h"
#include "smdmx/output.h"
#include "smdmx/project.h"
#include "smdmx/convert.h"
#include "smdmx/batch.h"
#include "smdmx/scene.h"
#include "smdmx/qc.h"
#include "smdmx/rig.h"
#include "smdmx/smd.h"

#endif
