// SwiftPM needs a source file in a C target; everything lives in the header as static inline.
#include "CProcessShims.h"
