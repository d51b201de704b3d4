#ifndef TEXT_H
#define TEXT_H

#include <stddef.h>

/* Writes "hello, NAME!" into out (at most size bytes); returns out. */
char *greeting(const char *name, char *out, size_t size);

/* Reverses text in place; returns it. */
char *reverse(char *text);

#endif
