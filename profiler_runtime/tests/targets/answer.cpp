// A library that only the RUNPATH of strata_rt_dlopen_runpath can find.
extern "C" int strata_answer() { return 42; }
