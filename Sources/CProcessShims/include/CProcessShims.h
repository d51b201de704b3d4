// Thin wrappers for what Swift cannot call directly: raw syscalls without a libc wrapper, vfork
// and the child's side of a spawn (CProcessShims.c), wait-status macros, and epoll's packed
// `struct epoll_event`.
#ifndef CPROCESSSHIMS_H
#define CPROCESSSHIMS_H

#include <errno.h>
#include <fcntl.h>
#include <features.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern int pipe2(int fds[2], int flags);

/// A pipe whose two ends are close-on-exec from the start (no window for another thread's fork).
static inline int cps_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/// One command to start: the program's path, words and environment as for execve, and what to
/// set up in the child before exec.
struct cps_spawn_request {
    const char *path;
    char *const *arguments;
    char *const *environment;
    /// chdir here first; NULL to stay.
    const char *directory;
    /// -1 for all three: inherit opsrun's descriptors 0-2 (an interactive command). Otherwise
    /// these become standard input (opsrun's /dev/null), output and error.
    int standard_input;
    int standard_output;
    int standard_error;
    /// Make the child's new process group the foreground group of the terminal on descriptor 0,
    /// before exec, so it can never read the terminal before it owns it (with every signal
    /// blocked, SIGTTOU included, as a shell's child does). Needs `wait_for_exec`.
    int take_terminal;
    /// Dispositions to reset to the default before exec: those that are not (see below).
    const sigset_t *reset_signals;
    /// The descriptor limit to give back before exec (opsrun raised its own); NULL to keep it.
    const struct rlimit *descriptor_limit;
    /// Return only once the child has exec'd (or failed to), as vfork does; see `cps_spawn`.
    int wait_for_exec;
    /// Block every signal around the clone, so that no handler runs in the child (which shares
    /// opsrun's memory) before it has reset the dispositions; needed only when some signal has a
    /// handler (`cps_non_default_signals` says). The child starts with the calling thread's mask.
    int block_signals;
};

/// Where one child runs between clone and exec, while it shares opsrun's memory: its own stack,
/// its copy of the request, and the errno of what failed before exec. One per job slot, reused
/// once the slot's previous child has been reaped.
struct cps_launch;

/// A launch with its stack mapped; NULL (errno set) when memory ran out.
struct cps_launch *cps_launch_create(void);
void cps_launch_destroy(struct cps_launch *launch);

/// The errno of what failed in the launch's last child before exec (chdir, exec, ...), 0 when it
/// exec'd. Read it once the child is reaped.
int cps_launch_error(const struct cps_launch *launch);

/// Starts `request` as the leader of a new process group, with an empty signal mask, every
/// descriptor above 2 closed and SIGKILL as its parent-death signal, and a pidfd for it in `*pidfd` (O_CLOEXEC) when `pidfd` is not NULL.
///
/// With `wait_for_exec`, returns once the child has exec'd: 0 and the pid, or the errno of what
/// failed (clone, or in the child chdir, exec, ...; such a child is reaped). Otherwise it returns
/// as soon as the child exists, while the child sets itself up and execs (the parent's thread
/// does not wait, and the two run at once), so the request, everything it points to and the
/// launch must stay as they are until the child is reaped; a failure before exec shows then as
/// exit status 127 with `cps_launch_error` set. Defined in CProcessShims.c.
int cps_spawn(struct cps_launch *launch, const struct cps_spawn_request *request, pid_t *pid, int *pidfd);

/// The signals whose disposition is not the default now (ignored, or with a handler): the ones
/// `cps_spawn` must reset in the child. Returns 1 when some of them have a handler, else 0. Query
/// once, after opsrun set its own.
int cps_non_default_signals(sigset_t *set);

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/// A descriptor that becomes readable when the process exits (Linux >= 5.3); -1 and errno otherwise.
static inline int cps_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/// Makes this process the reaper of its orphaned descendants, in place of init (prctl is variadic,
/// which Swift cannot call). 0, or -1 and errno.
static inline int cps_become_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
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

/// Up to 8 queued signals in one read: their numbers in `signals`, and how many (0 when none is
/// queued). Fewer than 8 means the queue was empty after them.
static inline int cps_signalfd_read(int fd, int signals[8]) {
    struct signalfd_siginfo infos[8];
    ssize_t count = read(fd, infos, sizeof infos);
    if (count <= 0) return 0;
    int taken = (int)(count / (ssize_t)sizeof infos[0]);
    for (int index = 0; index < taken; index++) signals[index] = (int)infos[index].ssi_signo;
    return taken;
}

#endif
