// Copies between the references' ref::Matrix<double> (claim_support's DM) and Eigen matrices, for the
// claims that run fp64 linear algebra (QR, decompositions, blocked products) in Eigen beside a reference.
#pragma once

#include "claim_support.hpp"

#include <Eigen/Dense>

namespace recall::claim_support {
namespace {

Eigen::MatrixXd to_eigen(const DM& m) {
  Eigen::MatrixXd e(m.rows, m.cols);
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) e(i, j) = m(i, j);
  return e;
}
template <class Derived> DM to_dm(const Eigen::MatrixBase<Derived>& e) {
  DM m(static_cast<std::size_t>(e.rows()), static_cast<std::size_t>(e.cols()));
  for (Eigen::Index i = 0; i < e.rows(); ++i)
    for (Eigen::Index j = 0; j < e.cols(); ++j) m(static_cast<std::size_t>(i), static_cast<std::size_t>(j)) = e(i, j);
  return m;
}

}  // namespace
}  // namespace recall::claim_support
