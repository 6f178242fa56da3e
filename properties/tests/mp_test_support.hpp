// Small helpers shared by the reference tests of paper A001 (test_least_squares.cpp,
// test_weighted_least_squares.cpp, test_norm_bound.cpp, test_full_batch_gd.cpp, test_kernel_regression.cpp,
// test_local_regression.cpp, test_short_conv_mqar.cpp, test_online_regression_protocol.cpp): the message of
// the std::invalid_argument a call raises, Gaussian matrices and vectors drawn from a std::mt19937_64 (in
// double, or converted exactly to another scalar such as recall::mp_t), and the relative residuals
// ||A - B|| / max(1, ||A||, ||B||) of the R-ID checks.
#pragma once

#include "recall/reference/matrix.hpp"
#include "recall/reference/scalar.hpp"

#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace recall::test_support {

// the message of the std::invalid_argument that f() throws; "" when it throws none
template <class F> std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// r x c matrix of scale * N(0, 1) draws from g (row-major order), in double, converted exactly to S
template <class S = double> ref::Matrix<S> gauss(std::mt19937_64& g, std::size_t r, std::size_t c, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  ref::Matrix<double> m(r, c);
  for (double& x : m.a) x = scale * N(g);
  if constexpr (std::is_same_v<S, double>) {
    return m;
  } else {
    return ref::cast<S>(m);
  }
}
// n draws of scale * N(0, 1) from g, in double, converted exactly to S
template <class S = double> ref::Vector<S> gauss_vec(std::mt19937_64& g, std::size_t n, double scale = 1.0) {
  std::normal_distribution<double> N(0.0, 1.0);
  ref::Vector<double> v(n);
  for (double& x : v) x = scale * N(g);
  if constexpr (std::is_same_v<S, double>) {
    return v;
  } else {
    return ref::cast<S>(v);
  }
}

// ||A - B||_F / max(1, ||A||_F, ||B||_F), evaluated in S (shapes must agree)
template <class S> double rel(const ref::Matrix<S>& A, const ref::Matrix<S>& B) {
  S den(1);
  const S na = ref::frob(A), nb = ref::frob(B);
  if (na > den) den = na;
  if (nb > den) den = nb;
  return static_cast<double>(S(ref::frob_diff(A, B) / den));
}
// ||a - b|| / max(1, ||a||, ||b||), evaluated in S (lengths must agree)
template <class S> double relv(const ref::Vector<S>& a, const ref::Vector<S>& b) {
  using std::sqrt;
  using boost::multiprecision::sqrt;
  S d(0), na(0), nb(0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  S den(1);
  if (sqrt(na) > den) den = sqrt(na);
  if (sqrt(nb) > den) den = sqrt(nb);
  return static_cast<double>(S(sqrt(d) / den));
}

}  // namespace recall::test_support
