// dladdr needs _GNU_SOURCE, which must not leak into a module's headers (it changes glibc's
// struct layouts, and Swift's Glibc module would disagree): so it lives in a .c file of its own.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include "CLoader.h"

const char *cloader_file_of(const void *address) {
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/') return NULL;
    return info.dli_fname;
}
