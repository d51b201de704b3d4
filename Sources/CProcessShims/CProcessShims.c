// The child side of a spawn: what runs between vfork and exec. (Everything else lives in the header
// as static inline; SwiftPM also needs a source file in a C target.)
//
// Why not posix_spawn: glibc's child resets the disposition of every signal, one rt_sigaction each
// (62 to 122 system calls per spawn, ~12-24 us here, while the parent waits), maps and unmaps a
// stack for the child, and checks each file action's descriptor with getrlimit. A task runner
// spawns thousands of short commands, so this child does only what opsrun needs, as glibc would:
// the parent blocks every signal around vfork so no handler can run in the child (which shares its
// memory), and the child resets just the dispositions that are not already the default.
#define _GNU_SOURCE
#include "CProcessShims.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

void cps_non_default_signals(sigset_t *set) {
    sigemptyset(set);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction action;
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        if (sigaction(sig, NULL, &action) != 0) continue;
        if ((action.sa_flags & SA_SIGINFO) || action.sa_handler != SIG_DFL) sigaddset(set, sig);
    }
}

/// dup2 that also clears close-on-exec when the descriptor is already in place (dup2 of a
/// descriptor onto itself changes nothing, so an O_CLOEXEC one would vanish at exec).
static int move_descriptor(int from, int to) {
    if (from == to) return fcntl(to, F_SETFD, 0);
    return dup2(from, to) < 0 ? -1 : 0;
}

int cps_spawn(const struct cps_spawn_request *request, pid_t *pid) {
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    // Written by the child (which shares this frame's memory) when it fails before exec.
    volatile int child_error = 0;
    pid_t child = vfork();
    if (child == 0) {
        // Only async-signal-safe system call wrappers from here on: no malloc, no locks.
        struct sigaction default_action;
        memset(&default_action, 0, sizeof default_action);
        default_action.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; sig++) {
            if (sigismember(request->reset_signals, sig) == 1) sigaction(sig, &default_action, NULL);
        }
        if (setpgid(0, 0) != 0) goto fail;
        if (request->take_terminal && tcsetpgrp(STDIN_FILENO, getpid()) != 0) goto fail;
        if (request->directory && chdir(request->directory) != 0) goto fail;
        if (request->standard_output >= 0) {
            if (move_descriptor(request->standard_input, STDIN_FILENO) != 0) goto fail;
            if (move_descriptor(request->standard_output, STDOUT_FILENO) != 0) goto fail;
            if (move_descriptor(request->standard_error, STDERR_FILENO) != 0) goto fail;
        }
        // Ours are all O_CLOEXEC; this also keeps out any descriptor other code left inheritable.
        syscall(SYS_close_range, 3, ~0U, 0);
        if (request->descriptor_limit) setrlimit(RLIMIT_NOFILE, request->descriptor_limit);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(request->path, request->arguments, request->environment);
    fail:
        child_error = errno;
        _exit(127);
    }
    int spawn_error = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (spawn_error != 0) return spawn_error;
    if (child_error != 0) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return child_error;
    }
    *pid = child;
    return 0;
}
