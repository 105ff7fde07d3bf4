// Symbolization target: built -g -O0 as a shared library (and a stripped copy).
namespace ns {
__attribute__((noinline, visibility("default"))) int lib_func(int x) {  // LIB_FUNC_LINE
  return x * 5 + 2;
}
}  // namespace ns
