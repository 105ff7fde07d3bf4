// CUPTI's callback (subscribed by the session), on the target's threads: API calls and
// resource events (contexts, modules).
#pragma once

#include <cupti.h>

namespace strata::rt::gpu {

// Enter stores a timestamp in correlationData; at the exit of the outermost tracked call the
// thread takes its call path once (the sampler's own path code) and queues a typed entry; a
// tracked call nested in another queues only an alias (its correlation id -> the outer one).
void CUPTIAPI OnApiCallback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

}  // namespace strata::rt::gpu
