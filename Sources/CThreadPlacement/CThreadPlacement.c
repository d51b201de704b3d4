#define _GNU_SOURCE 1
#include <pthread.h>
#include <sched.h>
#include "CThreadPlacement.h"

int ctp_start_on_cpus(pthread_attr_t *attributes, const void *mask) {
    return pthread_attr_setaffinity_np(attributes, CTP_MASK_BYTES, (const cpu_set_t *)mask);
}
