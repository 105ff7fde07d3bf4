// A plugin that links the libcudart stand-in and calls cudaProfilerStart through its PLT, as a
// Python extension's libraries call the real one.
extern "C" int cudaProfilerStart(void);
extern "C" int stub_profiler_start_calls(void);

extern "C" int plugin_profiler_start(void) { return cudaProfilerStart(); }
extern "C" int plugin_profiler_start_calls(void) { return stub_profiler_start_calls(); }
