// Stands in for libcudart: its cudaProfilerStart counts calls and returns a value no real one
// does, so a test sees that the runtime's interposer forwards the call and its result unchanged.
static int g_calls = 0;

extern "C" int cudaProfilerStart(void) {
  ++g_calls;
  return 42;
}

extern "C" int stub_profiler_start_calls(void) { return g_calls; }
