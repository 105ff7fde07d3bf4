// A shared library with thread-local storage: each dlopen of a copy of it raises glibc's TLS
// generation and needs a slot in every thread's TLS vector (stress tls_dlopen).
__thread int t_counts[64];

extern "C" int strata_tls_module_touch(int i) { return ++t_counts[i & 63]; }
