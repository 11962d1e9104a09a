// The shims are inline functions in include/OpenCoreDataRuntimeShims.h; SwiftPM needs
// one source file to build the target.
#include "OpenCoreDataRuntimeShims.h"
