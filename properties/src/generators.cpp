#include "recall/properties/generators.hpp"

#include <cmath>
#include <sstream>

namespace recall {

const char* key_kind_name(KeyKind k) {
  switch (k) {
    case KeyKind::gaussian: return "gaussian";
    case KeyKind::near_zero: return "near_zero";
    case KeyKind::near_parallel: return "near_parallel";
    case KeyKind::correlated: return "correlated";
    case KeyKind::unit_sphere: return "unit_sphere";
    case KeyKind::integer: return "integer";
  }
  return "?";
}
const char* gate_kind_name(GateKind g) {
  switch (g) {
    case GateKind::ones: return "ones";
    case GateKind::uniform: return "uniform";
    case GateKind::beta51: return "beta51";
    case GateKind::zeros_mixed: return "zeros_mixed";
    case GateKind::tiny: return "tiny";
    case GateKind::near_one: return "near_one";
    case GateKind::saturating: return "saturating";
    case GateKind::constant: return "constant";
  }
  return "?";
}

const char* beta_kind_name(BetaKind b) {
  switch (b) {
    case BetaKind::mixed: return "mixed";
    case BetaKind::unit_interval: return "unit_interval";
    case BetaKind::zero_one: return "zero_one";
    case BetaKind::near_two: return "near_two";
    case BetaKind::beyond_two: return "beyond_two";
  }
  return "?";
}

std::string describe(const CaseKnobs& k) {
  std::ostringstream s;
  s << "B=" << k.B << " H=" << k.H << " T=" << k.T << " dk=" << k.dk << " dv=" << k.dv << " keys=" << key_kind_name(k.keys)
    << " scale=1e" << k.scale_exp << " gates=" << gate_kind_name(k.gates) << " s0=" << (k.initial_state ? 1 : 0)
    << " seed=" << k.seed << " betas=" << beta_kind_name(k.betas);
  return s.str();
}

std::vector<double> CaseRng::rows(KeyKind kind, int T, int d, int scale_exp) {
  std::vector<double> x(static_cast<std::size_t>(T) * d);
  const double sc = std::pow(10.0, scale_exp);
  std::vector<double> dir(d);
  for (double& u : dir) u = normal();
  for (int t = 0; t < T; ++t) {
    double* r = x.data() + static_cast<std::size_t>(t) * d;
    switch (kind) {
      case KeyKind::gaussian:
        for (int j = 0; j < d; ++j) r[j] = sc * normal();
        break;
      case KeyKind::near_zero: {  // norms around 1e-7 (well above float's normal range)
        const double tiny = sc * std::pow(10.0, -6.0 - 2.0 * uniform());
        for (int j = 0; j < d; ++j) r[j] = tiny * normal();
        break;
      }
      case KeyKind::near_parallel:  // one shared direction plus 1e-4 perturbations
        for (int j = 0; j < d; ++j) r[j] = sc * (dir[j] + 1e-4 * normal());
        break;
      case KeyKind::correlated: {  // equicorrelation rho = 0.99 across coordinates
        const double g = normal();
        for (int j = 0; j < d; ++j) r[j] = sc * (std::sqrt(0.99) * g + std::sqrt(0.01) * normal());
        break;
      }
      case KeyKind::unit_sphere: {
        double n2 = 0;
        for (int j = 0; j < d; ++j) { r[j] = normal(); n2 += r[j] * r[j]; }
        const double n = std::sqrt(n2) > 0 ? std::sqrt(n2) : 1.0;
        for (int j = 0; j < d; ++j) r[j] = sc * r[j] / n;
        break;
      }
      case KeyKind::integer:
        for (int j = 0; j < d; ++j) r[j] = static_cast<double>(static_cast<int>(bits() % 7) - 3);
        break;
    }
  }
  return x;
}

std::vector<double> CaseRng::log_gates(GateKind kind, int T) {
  std::vector<double> g(T);
  const double ninf = -std::numeric_limits<double>::infinity();
  for (int t = 0; t < T; ++t) {
    const double u = uniform();
    switch (kind) {
      case GateKind::ones: g[t] = 0.0; break;
      case GateKind::uniform: g[t] = std::log(u > 0 ? u : 1e-300); break;
      case GateKind::beta51: g[t] = std::log(u > 0 ? u : 1e-300) / 5.0; break;  // Beta(5,1) = U^(1/5)
      case GateKind::zeros_mixed: g[t] = uniform() < 0.2 ? ninf : std::log(u > 0 ? u : 1e-300); break;
      case GateKind::tiny: g[t] = uniform() < 0.3 ? std::log(1e-300) : std::log(u > 0 ? u : 1e-300); break;
      case GateKind::near_one: g[t] = std::log1p(-1e-12); break;
      case GateKind::saturating: {  // log sigmoid of large logits: gates ~1 or ~e^-60
        const double z = 30.0 * normal();
        g[t] = z >= 0 ? -std::log1p(std::exp(-z)) : z - std::log1p(std::exp(z));
        break;
      }
      case GateKind::constant: g[t] = std::log(0.9); break;
    }
  }
  return g;
}

std::vector<double> CaseRng::beta_ratios(BetaKind kind, int T) {
  std::vector<double> r(T);
  for (int t = 0; t < T; ++t) {
    const double u = uniform();
    switch (kind) {
      case BetaKind::mixed: {
        const double w = uniform();
        r[t] = w < 0.35 ? u : w < 0.5 ? 0.0 : w < 0.65 ? 1.0 : w < 0.9 ? 2.0 - 1e-3 * u : 2.0 + 0.3 * u;
        break;
      }
      case BetaKind::unit_interval: r[t] = u; break;
      case BetaKind::zero_one: r[t] = u < 0.5 ? 0.0 : 1.0; break;
      case BetaKind::near_two: r[t] = uniform() < 0.5 ? 2.0 : 2.0 - 1e-3 * u; break;
      case BetaKind::beyond_two: r[t] = uniform() < 0.2 ? 2.0 + 0.5 * u : 2.0 * u; break;
    }
  }
  return r;
}

std::vector<CaseKnobs> corner_cases(bool gated, bool quick) {
  std::vector<CaseKnobs> cs;
  std::uint64_t seed = 1000;
  // step-size kinds of the delta-rule ops, cycled over the cases (other ops ignore them)
  const BetaKind betas[] = {BetaKind::mixed, BetaKind::zero_one, BetaKind::unit_interval, BetaKind::near_two, BetaKind::beyond_two};
  int bi = 0;
  auto add = [&](int B, int H, int T, int dk, int dv, KeyKind kk, int sc, GateKind gk, bool s0) {
    CaseKnobs k;
    k.B = B; k.H = H; k.T = T; k.dk = dk; k.dv = dv; k.keys = kk; k.scale_exp = sc; k.gates = gk; k.initial_state = s0;
    k.betas = betas[bi++ % 5];
    k.seed = seed++;
    cs.push_back(k);
  };
  // tails around the chunk sizes 16 and 64, T = 1, odd widths
  const int Ts_quick[] = {1, 2, 7, 17, 63, 65, 113};
  const int Ts_full[] = {1, 2, 3, 7, 15, 16, 17, 31, 63, 64, 65, 113, 127, 239, 512};
  const GateKind gates[] = {GateKind::uniform, GateKind::zeros_mixed, GateKind::tiny, GateKind::near_one,
                            GateKind::saturating, GateKind::beta51, GateKind::ones, GateKind::constant};
  int gi = 0;
  for (int T : quick ? std::vector<int>(std::begin(Ts_quick), std::end(Ts_quick)) : std::vector<int>(std::begin(Ts_full), std::end(Ts_full))) {
    add(1, 1, T, 3, 5, KeyKind::gaussian, 0, gated ? gates[gi++ % 8] : GateKind::ones, T % 2 == 1);
  }
  // key corners
  add(1, 2, 40, 8, 8, KeyKind::near_zero, 0, gated ? GateKind::uniform : GateKind::ones, false);
  add(1, 2, 40, 8, 8, KeyKind::near_parallel, 0, gated ? GateKind::beta51 : GateKind::ones, true);
  add(1, 1, 70, 16, 16, KeyKind::correlated, 0, gated ? GateKind::zeros_mixed : GateKind::ones, false);
  add(2, 1, 33, 4, 6, KeyKind::gaussian, 3, gated ? GateKind::saturating : GateKind::ones, true);
  add(1, 1, 33, 4, 6, KeyKind::gaussian, -3, gated ? GateKind::tiny : GateKind::ones, false);
  add(2, 2, 65, 16, 8, KeyKind::unit_sphere, 0, gated ? GateKind::near_one : GateKind::ones, true);
  if (gated) {  // every gate kind at a tail length
    for (GateKind g : gates) add(1, 1, 67, 8, 4, KeyKind::gaussian, 0, g, true);
  }
  if (!quick) {
    add(1, 1, 1024, 32, 32, KeyKind::gaussian, 0, gated ? GateKind::beta51 : GateKind::ones, true);
    add(2, 2, 300, 64, 64, KeyKind::correlated, 0, gated ? GateKind::zeros_mixed : GateKind::ones, false);
  }
  return cs;
}

}  // namespace recall
