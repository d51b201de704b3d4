/*
 * floor: the cost no task runner can beat. Spawns N commands with posix_spawnp, at most J at
 * once, and waits for each with waitpid. No graph, no shell, no output handling.
 *
 *   floor -j J N PROG [ARG ...]   run PROG ARG... N times
 *   floor -j J -l FILE            run each line of FILE, split on spaces, once
 *   floor -v ...                  the same with vfork and a child that only calls execve: the least
 *                                 any spawner can do (glibc's posix_spawn child also resets every
 *                                 signal's disposition, one system call each)
 *
 * Exits 1 if any command failed or could not be started, 2 on a usage error.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The program's path as execvp would find it, searched once per command in the parent (the vfork
 * child must not search or allocate). */
static char *resolve(const char *name) {
    if (strchr(name, '/')) return strdup(name);
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    char *copy = strdup(path);
    for (char *dir = strtok(copy, ":"); dir; dir = strtok(NULL, ":")) {
        char *candidate = malloc(strlen(dir) + strlen(name) + 2);
        sprintf(candidate, "%s/%s", dir, name);
        if (access(candidate, X_OK) == 0) { free(copy); return candidate; }
        free(candidate);
    }
    free(copy);
    return strdup(name);
}

static void usage(void) {
    fprintf(stderr, "usage: floor [-v] -j J N PROG [ARG ...]\n       floor [-v] -j J -l FILE\n");
    exit(2);
}

/* Splits each line of the file on spaces into a NULL-terminated argv; returns how many. */
static size_t read_commands(const char *path, char ****out) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(2); }
    size_t cap = 1024, n = 0;
    char ***cmds = malloc(cap * sizeof *cmds);
    char *line = NULL;
    size_t linecap = 0;
    ssize_t len;
    while ((len = getline(&line, &linecap, f)) > 0) {
        if (line[len - 1] == '\n') line[len - 1] = '\0';
        if (line[0] == '\0') continue;
        char *copy = strdup(line);
        size_t argc = 0, argcap = 4;
        char **argv = malloc(argcap * sizeof *argv);
        for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
            if (argc + 1 >= argcap) argv = realloc(argv, (argcap *= 2) * sizeof *argv);
            argv[argc++] = tok;
        }
        argv[argc] = NULL;
        if (n == cap) cmds = realloc(cmds, (cap *= 2) * sizeof *cmds);
        cmds[n++] = argv;
    }
    free(line);
    fclose(f);
    *out = cmds;
    return n;
}

int main(int argc, char **argv) {
    long jobs = 1;
    const char *list = NULL;
    int bare = 0;
    int opt;
    while ((opt = getopt(argc, argv, "+j:l:v")) != -1) {
        if (opt == 'j') jobs = strtol(optarg, NULL, 10);
        else if (opt == 'l') list = optarg;
        else if (opt == 'v') bare = 1;
        else usage();
    }
    if (jobs < 1) usage();

    char ***cmds = NULL;
    char **same = NULL;
    size_t total;
    if (list) {
        if (optind != argc) usage();
        total = read_commands(list, &cmds);
    } else {
        if (argc - optind < 2) usage();
        total = strtoul(argv[optind], NULL, 10);
        same = &argv[optind + 1];
    }
    char *same_program = same && bare ? resolve(same[0]) : NULL;

    size_t started = 0, running = 0;
    int failures = 0;
    while (started < total || running > 0) {
        while (started < total && running < (size_t)jobs) {
            char **cmd = same ? same : cmds[started];
            pid_t pid;
            int err;
            if (bare) {
                char *program = same ? same_program : resolve(cmd[0]);
                volatile int child_error = 0;
                pid = vfork();
                if (pid == 0) {
                    execve(program, cmd, environ);
                    child_error = errno;
                    _exit(127);
                }
                err = pid < 0 ? errno : child_error;
                if (!same) free(program);
                if (err && pid > 0) waitpid(pid, NULL, 0);
            } else {
                err = posix_spawnp(&pid, cmd[0], NULL, NULL, cmd, environ);
            }
            started++;
            if (err) {
                fprintf(stderr, "floor: %s: %s\n", cmd[0], strerror(err));
                failures++;
                continue;
            }
            running++;
        }
        if (running == 0) break;
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            perror("floor: waitpid");
            return 1;
        }
        running--;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failures++;
    }
    if (failures) fprintf(stderr, "floor: %d of %zu commands failed\n", failures, total);
    return failures ? 1 : 0;
}
