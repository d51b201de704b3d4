// Where a new thread may run: the calls Swift's Glibc module leaves out (glibc declares them only
// under _GNU_SOURCE). Only OpsrunCore/ThreadPlacement.swift imports it.
#ifndef CTHREADPLACEMENT_H
#define CTHREADPLACEMENT_H

#include <pthread.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Bytes in the CPU masks below: 1,024 CPUs, glibc's cpu_set_t.
#define CTP_MASK_BYTES 128

/// The CPU the calling thread is running on, or -1.
static inline int ctp_current_cpu(void) {
    unsigned cpu = 0;
    return syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 ? (int)cpu : -1;
}

/// The CPUs the calling thread may run on, into `mask` (CTP_MASK_BYTES); 0 on success.
static inline int ctp_allowed_cpus(void *mask) {
    return syscall(SYS_sched_getaffinity, 0, CTP_MASK_BYTES, mask) < 0 ? -1 : 0;
}

/// Lets the calling thread run on the CPUs of `mask` (CTP_MASK_BYTES); 0 on success.
static inline int ctp_allow_cpus(const void *mask) {
    return (int)syscall(SYS_sched_setaffinity, 0, CTP_MASK_BYTES, mask);
}

/// A thread created with `attributes` starts on one of the CPUs of `mask` (CTP_MASK_BYTES):
/// pthread_attr_setaffinity_np. 0 on success.
int ctp_start_on_cpus(pthread_attr_t *attributes, const void *mask);

#endif
