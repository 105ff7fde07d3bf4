// Symbolization target: built -g -O0 as a PIE executable (and stripped copies).
namespace ns {
__attribute__((noinline)) int exe_leaf(int x) {  // EXE_LEAF_LINE
  return x * 3 + 1;
}
}  // namespace ns

int main(int argc, char**) { return ns::exe_leaf(argc) == 4 ? 0 : 1; }
