/* Two native call sites with the same frame size for one Python callback (check_context_call_sites.py):
 * the same Python frames reach the callback's operators at the same stack depth through either. */
typedef int (*strata_test_callback)(int);

__attribute__((noinline)) int strata_test_call_a(strata_test_callback cb, int v) {
  int r = cb(v);
  __asm__ volatile("" ::: "memory"); /* no tail call: this frame stays on the stack */
  return r + 1;
}

__attribute__((noinline)) int strata_test_call_b(strata_test_callback cb, int v) {
  int r = cb(v);
  __asm__ volatile("" ::: "memory");
  return r + 2;
}
