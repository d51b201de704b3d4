/*
 * measure: runs one command and writes "WALL_SECONDS MAXRSS_KIB EXIT" to the file -o names.
 *
 *   measure -o RESULT PROG [ARG ...]
 *
 * Why not Python's wait4 directly: a child forked from Python inherits Python's resident set
 * until it execs, and Linux counts that in the child's ru_maxrss. Forked from this small
 * program, the baseline is a megabyte or so. Wall time is taken here, around fork and wait4,
 * so this program's own start-up is not counted. EXIT is the exit code, or 128+signal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4 || strcmp(argv[1], "-o") != 0) {
        fprintf(stderr, "usage: measure -o RESULT PROG [ARG ...]\n");
        return 2;
    }
    FILE *out = fopen(argv[2], "w");
    if (!out) { perror(argv[2]); return 2; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) {
        execvp(argv[3], &argv[3]);
        perror(argv[3]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(out, "%.6f %ld %d\n", wall, usage.ru_maxrss, code);
    fclose(out);
    return 0;
}
