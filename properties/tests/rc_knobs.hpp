// RapidCheck generator of CaseKnobs: shrinks toward B=H=1, small T and widths, plain keys and gates.
#pragma once

#include "recall/properties/generators.hpp"

#include <rapidcheck.h>

namespace rc {
template <> struct Arbitrary<recall::CaseKnobs> {
  static Gen<recall::CaseKnobs> arbitrary() {
    using recall::CaseKnobs;
    using recall::GateKind;
    using recall::KeyKind;
    return gen::build<CaseKnobs>(
        gen::set(&CaseKnobs::B, gen::inRange(1, 3)), gen::set(&CaseKnobs::H, gen::inRange(1, 3)),
        // lengths: tails around the chunk sizes 16 and 64 are reached often
        gen::set(&CaseKnobs::T, gen::oneOf(gen::inRange(1, 20), gen::element(15, 16, 17, 63, 64, 65), gen::inRange(20, 140))),
        gen::set(&CaseKnobs::dk, gen::oneOf(gen::inRange(1, 6), gen::element(8, 16, 17, 32))),
        gen::set(&CaseKnobs::dv, gen::oneOf(gen::inRange(1, 6), gen::element(8, 16, 33))),
        gen::set(&CaseKnobs::scale_exp, gen::inRange(-3, 4)),
        gen::set(&CaseKnobs::keys, gen::element(KeyKind::gaussian, KeyKind::near_zero, KeyKind::near_parallel, KeyKind::correlated,
                                                KeyKind::unit_sphere, KeyKind::integer)),
        gen::set(&CaseKnobs::gates, gen::element(GateKind::uniform, GateKind::ones, GateKind::beta51, GateKind::zeros_mixed,
                                                 GateKind::tiny, GateKind::near_one, GateKind::saturating, GateKind::constant)),
        gen::set(&CaseKnobs::initial_state, gen::arbitrary<bool>()),
        gen::set(&CaseKnobs::seed, gen::inRange<std::uint64_t>(1, 1u << 30)));
  }
};
}  // namespace rc

namespace recall {
inline void showValue(const CaseKnobs& k, std::ostream& os) { os << describe(k); }
}  // namespace recall
