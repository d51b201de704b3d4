#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* dladdr */
#endif
#include <dlfcn.h>
#include <stddef.h>
#include <yaml.h>

/// The file libyaml was loaded from, asked of the dynamic loader: an absolute path, or NULL when
/// libyaml is linked into the executable.
static inline const char *cyaml_library_file(void) {
    Dl_info info;
    if (dladdr((const void *)yaml_get_version, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/') return NULL;
    return info.dli_fname;
}
