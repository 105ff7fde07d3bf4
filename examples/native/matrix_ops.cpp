// C++ half of the bundled example: a naive matrix multiply and a reduction, called from Python
// through ctypes. Built with debug info so Strata can show these lines.
#include <cstddef>

extern "C" {

// C = A * B for n x n row-major matrices.
void matmul(const double* a, const double* b, double* c, int n) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int k = 0; k < n; ++k) {
        acc += a[i * n + k] * b[k * n + j];  // the hot line
      }
      c[i * n + j] = acc;
    }
  }
}

double sum_squares(const double* x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

}  // extern "C"
