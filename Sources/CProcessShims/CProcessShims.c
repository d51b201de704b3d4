// The child side of a spawn: what runs between clone and exec. (Everything else lives in the
// header as static inline; SwiftPM also needs a source file in a C target.)
//
// Why not posix_spawn: glibc's child resets the disposition of every signal, one rt_sigaction each
// (62 to 122 system calls per spawn, ~12-24 us here, while the parent waits), maps and unmaps a
// stack for the child, and checks each file action's descriptor with getrlimit. A task runner
// spawns thousands of short commands, so this child does only what opsrun needs.
//
// Why not vfork either: vfork suspends the parent's thread until the child has exec'd, two
// context switches per spawn on the path from one command's exit to the next one's start. Here
// the child is cloned with CLONE_VM and no CLONE_VFORK: it runs on a stack of its own, in
// opsrun's memory, while the parent goes on (as glibc's posix_spawn child would, without the
// wait). Waiting for the exec took 1.06x as long on 2,000 /bin/true at -j 2 (Benchmarks/README.md).
//
// What sharing the memory with a running parent asks of the child:
// - no handler may run in it: when any signal has one, the parent blocks every signal around the
//   clone; the child resets the dispositions that are not the default and unblocks only just
//   before exec (a signal without a handler does to the child what it would do anyway);
// - it must not write the parent thread's thread-local storage, errno included, since both use
//   the same: it makes its system calls with the instruction itself (`child_syscall`), and reports
//   a failure in its launch record rather than errno;
// - it reads only memory the parent leaves alone until the child is reaped: the launch record,
//   its copy of the request, and what the request points to (the caller's side of the contract).
// Architectures other than x86-64 and AArch64 take the vfork-like path (CLONE_VFORK) always.
#define _GNU_SOURCE
#include "CProcessShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

// glibc exports `clone` also as `__clone` (see cps_spawn).
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

// Code that runs in the child, on the parent's thread pointer and in its memory, must call
// nothing of a sanitizer's runtime: under ThreadSanitizer (`swift test --sanitize=thread`) an
// instrumented access or function entry there would update the parent thread's shadow state
// from another process, and the runtime aborts. So no instrumentation at all in the child.
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define CHILD_CODE __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#ifndef CHILD_CODE
#define CHILD_CODE
#endif

#if defined(__x86_64__)
#define CHILD_RUNS_ALONGSIDE 1
CHILD_CODE static inline long child_syscall(long number, long a, long b, long c, long d) {
    long result;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return result;
}
#elif defined(__aarch64__)
#define CHILD_RUNS_ALONGSIDE 1
CHILD_CODE static inline long child_syscall(long number, long a, long b, long c, long d) {
    register long x8 __asm__("x8") = number;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
#else
#define CHILD_RUNS_ALONGSIDE 0
// The parent waits (CLONE_VFORK), so the child may use libc's wrapper and its errno.
CHILD_CODE static inline long child_syscall(long number, long a, long b, long c, long d) {
    long result = syscall(number, a, b, c, d);
    return result < 0 ? -errno : result;
}
#endif

/// The kernel's `struct sigaction` for rt_sigaction (glibc's has another layout).
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

enum { stack_size = 64 * 1024, guard_size = 4096 };

struct cps_launch {
    struct cps_spawn_request request;
    volatile int error;
    char *mapping;
    /// opsrun's pid, for the child to see whether it died before the death signal was set.
    pid_t parent;
};

struct cps_launch *cps_launch_create(void) {
    struct cps_launch *launch = calloc(1, sizeof *launch);
    if (!launch) return NULL;
    // A guard page below the stack: an overflow faults instead of writing over a neighbour.
    void *mapping = mmap(NULL, guard_size + stack_size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED || mprotect(mapping, guard_size, PROT_NONE) != 0) {
        int saved = errno;
        if (mapping != MAP_FAILED) munmap(mapping, guard_size + stack_size);
        free(launch);
        errno = saved;
        return NULL;
    }
    launch->mapping = mapping;
    return launch;
}

void cps_launch_destroy(struct cps_launch *launch) {
    if (!launch) return;
    munmap(launch->mapping, guard_size + stack_size);
    free(launch);
}

int cps_launch_error(const struct cps_launch *launch) {
    return launch->error;
}

int cps_non_default_signals(sigset_t *set) {
    sigemptyset(set);
    int handlers = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction action;
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        if (sigaction(sig, NULL, &action) != 0) continue;
        int handled = (action.sa_flags & SA_SIGINFO) || (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
        if (handled || action.sa_handler == SIG_IGN) sigaddset(set, sig);
        handlers |= handled;
    }
    return handlers;
}

/// dup2 that also clears close-on-exec when the descriptor is already in place (dup2 of a
/// descriptor onto itself changes nothing, so an O_CLOEXEC one would vanish at exec). 0 or -errno.
// `sigismember` without a call into libc (which a sanitizer may intercept): glibc keeps signal
// `sig` at bit `sig - 1` of an array of unsigned longs.
CHILD_CODE static inline int child_signal_is_member(const sigset_t *set, int sig) {
    const unsigned long *words = (const unsigned long *)set;
    unsigned bits = 8 * sizeof(unsigned long);
    return (int)((words[(sig - 1) / bits] >> ((sig - 1) % bits)) & 1UL);
}

CHILD_CODE static long move_descriptor(int from, int to) {
    if (from == to) return child_syscall(SYS_fcntl, to, F_SETFD, 0, 0);
    long result = child_syscall(SYS_dup3, from, to, 0, 0);
    return result < 0 ? result : 0;
}

/// The child: set up, exec; on failure record why and exit 127. Never returns.
CHILD_CODE static int child_main(void *argument) {
    struct cps_launch *launch = argument;
    const struct cps_spawn_request *request = &launch->request;
    long result = 0;
    // Made field by field: a `= {0}` may become a call to memset, which sanitizers intercept.
    struct kernel_sigaction default_action;
    default_action.handler = SIG_DFL;
    default_action.flags = 0;
    default_action.restorer = 0;
    default_action.mask = 0;
    for (int sig = 1; sig < NSIG; sig++) {
        if (child_signal_is_member(request->reset_signals, sig)) {
            child_syscall(SYS_rt_sigaction, sig, (long)&default_action, 0, sizeof(uint64_t));
        }
    }
    if ((result = child_syscall(SYS_setpgid, 0, 0, 0, 0)) < 0) goto fail;
    // SIGKILL when opsrun dies, even by SIGKILL, so no command outlives it: nothing of opsrun is
    // left to wait out a grace period, and a command that traps SIGTERM would run on. The kernel
    // sends it when the *thread* that cloned this child ends: the run loop's, or a
    // PrioritySpawnerThread, which both outlive every child they spawn. Should opsrun have died
    // already, the signal will never come (the parent is another process by now): exit instead.
    child_syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
    if (child_syscall(SYS_getppid, 0, 0, 0, 0) != launch->parent) child_syscall(SYS_exit_group, 127, 0, 0, 0);
    if (request->take_terminal) {
        pid_t self = (pid_t)child_syscall(SYS_getpid, 0, 0, 0, 0);
        if ((result = child_syscall(SYS_ioctl, STDIN_FILENO, TIOCSPGRP, (long)&self, 0)) < 0) goto fail;
    }
    if (request->directory && (result = child_syscall(SYS_chdir, (long)request->directory, 0, 0, 0)) < 0) {
        goto fail;
    }
    if (request->standard_output >= 0) {
        if ((result = move_descriptor(request->standard_input, STDIN_FILENO)) < 0) goto fail;
        if ((result = move_descriptor(request->standard_output, STDOUT_FILENO)) < 0) goto fail;
        if ((result = move_descriptor(request->standard_error, STDERR_FILENO)) < 0) goto fail;
    }
    // Ours are all O_CLOEXEC; this also keeps out any descriptor other code left inheritable.
    child_syscall(SYS_close_range, 3, ~0U, 0, 0);
    if (request->descriptor_limit) {
        child_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)request->descriptor_limit, 0);
    }
    uint64_t none = 0;
    child_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0, sizeof none);
    result = child_syscall(SYS_execve, (long)request->path, (long)request->arguments,
                           (long)request->environment, 0);
fail:
    launch->error = (int)-result;
    child_syscall(SYS_exit_group, 127, 0, 0, 0);
    return 127;
}

int cps_spawn(struct cps_launch *launch, const struct cps_spawn_request *request, pid_t *pid, int *pidfd) {
    launch->request = *request;
    launch->error = 0;
    launch->parent = getpid();
    int wait = request->wait_for_exec || !CHILD_RUNS_ALONGSIDE;
    int flags = CLONE_VM | SIGCHLD | (wait ? CLONE_VFORK : 0) | (pidfd ? CLONE_PIDFD : 0);
    int descriptor = -1;
    sigset_t all, previous;
    // The child takes the terminal from what is by then a background group (its own): unblocked,
    // SIGTTOU would stop it there, before its exec, and this parent would wait for that forever.
    // It starts with this thread's mask and empties it just before exec.
    int block = request->block_signals || request->take_terminal;
    if (block) {
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
    }
    // glibc's `__clone`, the same function as `clone` under its other name: ThreadSanitizer
    // intercepts `clone` and runs its own code in the child first (it treats every clone as a
    // fork, and passes the child a record on this stack frame), which a child sharing this
    // process's memory and running on after this function returns must never do.
    pid_t child = __clone(child_main, launch->mapping + guard_size + stack_size, flags, launch, &descriptor);
    int spawn_error = child < 0 ? errno : 0;
    if (block) pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (spawn_error != 0) return spawn_error;
    if (wait && launch->error != 0) {
        if (descriptor >= 0) close(descriptor);
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        return launch->error;
    }
    *pid = child;
    if (pidfd) *pidfd = descriptor;
    return 0;
}
