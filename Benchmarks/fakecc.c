/*
 * fakecc: the compiler and linker of the generated-modules workload (modules.py), doing the
 * least a compiler does that a build tool can see, so that only the tools' own work shows.
 *
 *   fakecc cc SRC OBJ DEP   reads SRC and every `#include "NAME"` it has (as include/NAME),
 *                           writes OBJ (the source's name and a hash of all it read: a changed
 *                           header gives a different object, as with a real compiler) and DEP,
 *                           a gcc-style depfile: `OBJ: SRC include/NAME ...`
 *   fakecc ld OUT DIR       counts the objects (*.o) in DIR and writes `linked N objects` to OUT
 *                           (objects are not named on the command line: 100,000 of them would
 *                           not fit in one)
 *
 * A C program rather than a shell script: `sh` alone takes about 1 ms to start and a script that
 * reads its includes runs a few more programs, against about 0.3 ms for this, so a script would
 * have added several milliseconds to every tool's 10-file header edit (the figure compared) and
 * doubled the 100,000-file first build.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t hash_bytes(uint64_t h, const char *bytes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)bytes[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* Reads the whole file (at most `capacity` - 1 bytes, NUL-terminated); returns its length or -1. */
static ssize_t read_file(const char *path, char *buffer, size_t capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t used = 0;
    for (;;) {
        ssize_t n = read(fd, buffer + used, capacity - 1 - used);
        if (n < 0) { close(fd); return -1; }
        if (n == 0) break;
        used += (size_t)n;
        if (used == capacity - 1) break;
    }
    close(fd);
    buffer[used] = 0;
    return (ssize_t)used;
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 1; }
    fputs(text, f);
    if (fclose(f) != 0) { perror(path); return 1; }
    return 0;
}

static int compile(const char *src, const char *obj, const char *dep) {
    static char source[1 << 16], header[1 << 16], depfile[1 << 16];
    ssize_t length = read_file(src, source, sizeof source);
    if (length < 0) { perror(src); return 1; }
    uint64_t h = hash_bytes(1469598103934665603ULL, source, (size_t)length);
    int used = snprintf(depfile, sizeof depfile, "%s: %s", obj, src);
    for (char *line = source; line && *line; ) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (strncmp(line, "#include \"", 10) == 0) {
            char *name = line + 10, *end = strchr(name, '"');
            if (end) {
                *end = 0;
                char path[4096];
                snprintf(path, sizeof path, "include/%s", name);
                ssize_t n = read_file(path, header, sizeof header);
                if (n < 0) { fprintf(stderr, "%s: %s: cannot read it\n", src, path); return 1; }
                h = hash_bytes(h, header, (size_t)n);
                used += snprintf(depfile + used, sizeof depfile - (size_t)used, " %s", path);
                if ((size_t)used >= sizeof depfile) { fprintf(stderr, "%s: too many includes\n", src); return 1; }
            }
        }
        line = next;
    }
    char object[8192];
    snprintf(object, sizeof object, "fake object of %s: %016llx\n", src, (unsigned long long)h);
    strcat(depfile, "\n");
    return write_file(obj, object) || write_file(dep, depfile);
}

static int link_objects(const char *out, const char *directory) {
    DIR *d = opendir(directory);
    if (!d) { perror(directory); return 1; }
    long count = 0;
    for (struct dirent *e; (e = readdir(d)); ) {
        size_t n = strlen(e->d_name);
        if (n > 2 && strcmp(e->d_name + n - 2, ".o") == 0) count++;
    }
    closedir(d);
    char text[64];
    snprintf(text, sizeof text, "linked %ld objects\n", count);
    return write_file(out, text);
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "cc") == 0) return compile(argv[2], argv[3], argv[4]);
    if (argc == 4 && strcmp(argv[1], "ld") == 0) return link_objects(argv[2], argv[3]);
    fprintf(stderr, "usage: fakecc cc SRC OBJ DEP | fakecc ld OUT DIR\n");
    return 2;
}
