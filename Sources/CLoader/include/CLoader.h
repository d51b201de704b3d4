#ifndef CLOADER_H
#define CLOADER_H

/// The file the dynamic loader mapped `address` from (a shared library's absolute path), or NULL
/// when it cannot say (e.g. the address is in a statically linked executable).
const char *cloader_file_of(const void *address);

#endif
