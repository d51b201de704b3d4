#include <string.h>

#include "text.h"

char *reverse(char *text) {
    size_t n = strlen(text);
    for (size_t i = 0; i < n / 2; i++) {
        char c = text[i];
        text[i] = text[n - 1 - i];
        text[n - 1 - i] = c;
    }
    return text;
}
