/* nm_launch.h — one op of a native model as a back-end launch (nm_launch.c). */
#ifndef ATOLL_NATIVE_NM_LAUNCH_H
#define ATOLL_NATIVE_NM_LAUNCH_H

#include "native/backend.h"
#include "native/models/nmodel.h"

/* The launch of op `op` in `version`, whole (every block), on the device tensors dev: a kernel with
 * its arguments bound, a copy of tensor ptr[0] from h2d_src or to d2h_dst (host buffers of the
 * tensor's size; the caller picks them, the other is ignored), or a memset. */
void atoll_nmodel_launch(const atoll_nmodel *m, uint32_t op, uint32_t version, void *const *dev, const void *h2d_src,
                         void *d2h_dst, uint64_t tag, atoll_nlaunch *l);

#endif
