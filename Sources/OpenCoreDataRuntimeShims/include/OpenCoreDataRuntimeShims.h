// Entry points of the Swift runtime that Swift code cannot name directly.
#ifndef OPENCOREDATA_RUNTIME_SHIMS_H
#define OPENCOREDATA_RUNTIME_SHIMS_H

#include <stdbool.h>

/// The Swift runtime's "retain unless deinitialization has begun", exported with the
/// C calling convention on every platform: it returns the object, retained, or NULL.
/// It is what reading a weak reference does, minus the weak reference's side table.
void *swift_tryRetain(void *object);

/// Retains the native Swift object at `object` and returns true, or returns false
/// when the object's deinitialization has already begun.
static inline bool opencoredata_try_retain(void *object) {
    return swift_tryRetain(object) != 0;
}

#endif
