// Thin wrappers for what Swift cannot call directly: raw syscalls without a libc wrapper,
// glibc's `_np` spawn actions (declared only under _GNU_SOURCE, which the Swift Glibc module does
// not see), wait-status macros, and epoll's packed `struct epoll_event`.
#ifndef CPROCESSSHIMS_H
#define CPROCESSSHIMS_H

#include <errno.h>
#include <fcntl.h>
#include <features.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 29)
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict,
                                                const char *__restrict);
#endif
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
#endif
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
extern int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *, int);
#endif

extern int pipe2(int fds[2], int flags);

/// A pipe whose two ends are close-on-exec from the start (no window for another thread's fork).
static inline int cps_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/// posix_spawn attribute flags, with USEVFORK where the libc has it (0 elsewhere).
static inline short cps_spawn_flags(void) {
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
#ifdef POSIX_SPAWN_USEVFORK
    flags |= POSIX_SPAWN_USEVFORK;
#endif
    return flags;
}

/// chdir in the child before exec; ENOSYS if the libc cannot.
static inline int cps_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 29)
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions; (void)path;
    return ENOSYS;
#endif
}

/// Closes every descriptor >= from in the child; a no-op where the libc cannot (ours are CLOEXEC).
static inline int cps_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions; (void)from;
    return 0;
#endif
}

/// Makes the child's new process group the terminal's foreground group, in the child, before exec
/// (so it can never read the terminal before it owns it). ENOSYS if the libc cannot.
static inline int cps_spawn_add_tcsetpgrp(posix_spawn_file_actions_t *actions, int terminal) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
    return posix_spawn_file_actions_addtcsetpgrp_np(actions, terminal);
#else
    (void)actions; (void)terminal;
    return ENOSYS;
#endif
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/// A descriptor that becomes readable when the process exits (Linux >= 5.3); -1 and errno otherwise.
static inline int cps_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static inline pid_t cps_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

/// Puts the calling thread (not the process) in the idle I/O scheduling class.
static inline int cps_ioprio_set_idle_for_this_thread(void) {
    // IOPRIO_WHO_PROCESS = 1, who = 0: the calling thread; IOPRIO_CLASS_IDLE = 3 << IOPRIO_CLASS_SHIFT.
    return (int)syscall(SYS_ioprio_set, 1, 0, 3 << 13);
}

/// The calling thread's I/O priority class (0 none, 1 realtime, 2 best-effort, 3 idle), or -1.
static inline int cps_ioprio_class_of_this_thread(void) {
    int value = (int)syscall(SYS_ioprio_get, 1, 0);
    return value < 0 ? -1 : value >> 13;
}

static inline int cps_wifexited(int status) { return WIFEXITED(status); }
static inline int cps_wexitstatus(int status) { return WEXITSTATUS(status); }
static inline int cps_wifsignaled(int status) { return WIFSIGNALED(status); }
static inline int cps_wtermsig(int status) { return WTERMSIG(status); }

static inline int cps_epoll_add(int epoll, int fd, uint64_t token) {
    struct epoll_event event;
    event.events = EPOLLIN;
    event.data.u64 = token;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

static inline int cps_epoll_remove(int epoll, int fd) {
    struct epoll_event unused = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &unused);
}

/// epoll_wait that hands back only the tokens, so Swift never sees the packed struct.
static inline int cps_epoll_wait(int epoll, uint64_t *tokens, int capacity, int timeoutMilliseconds) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeoutMilliseconds);
    for (int index = 0; index < count; index++) tokens[index] = events[index].data.u64;
    return count;
}

/// The signal number of the next queued signal, or -1 (EAGAIN when none is queued).
static inline int cps_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t count = read(fd, &info, sizeof info);
    return count == (ssize_t)sizeof info ? (int)info.ssi_signo : -1;
}

#endif
