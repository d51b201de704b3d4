#include <stdio.h>

#include "text.h"

char *greeting(const char *name, char *out, size_t size) {
    snprintf(out, size, "hello, %s!", name);
    return out;
}
