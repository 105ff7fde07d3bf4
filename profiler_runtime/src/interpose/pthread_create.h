// pthread_create, interposed: threads the program creates claim their sample slot before they
// run its code (a thread that never got one claims it lazily at its first sample).
#pragma once

#include <pthread.h>

namespace strata::rt {

// The real pthread_create, for the runtime's own threads (aggregator, wall-clock sampler):
// they never get a slot.
int RealPthreadCreate(pthread_t* t, const pthread_attr_t* attr, void* (*fn)(void*), void* arg);

}  // namespace strata::rt
